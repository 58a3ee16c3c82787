#![no_main]
// Fuzzes the AI definition reader (commandtree-agents) through discovery's routing, as `.claude/agents/x.md`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = commandtree_core::discover::parse_bytes(".claude/agents/x.md", data, false);
});
