//! The integration tests of the `ct` binary, one module per area, built as one test binary.

#[path = "../../../commandtree-llm/tests/common/mod.rs"]
mod llm;
mod support;

mod ai;
mod architecture;
mod closure;
mod completions;
mod db_processes;
mod db_trust;
mod discovery;
mod extension;
mod live_index;
mod lsp;
mod mcp;
mod mcp_interop;
mod names;
mod paths;
mod problems;
mod run;
mod run_trust;
mod running;
mod safe_writes;
mod search;
mod shapes;
mod skills;
mod summarize;
mod tags;
mod terminal_text;
mod trust;
mod tui;
mod untrusted_repo;
mod warnings_real_classes;
mod watch;
