//! `@search --query "reset the dev database" [--limit 5]`: commands by meaning (the local
//! embeddings `ct search` uses), best first, one per line.

use crate::params::{self, ParamKind, ParamSpec, Params};
use crate::{Host, LlmSkill, Result, SkillApi};
use commandtree_engine::{NoProgress, search};
use serde_json::Value;

pub struct Search;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "query",
        ParamKind::String,
        true,
        "What the command does, in your words.",
    ),
    ParamSpec::new(
        "limit",
        ParamKind::Integer,
        false,
        "At most this many results (default 10).",
    ),
];

impl LlmSkill for Search {
    fn name(&self) -> &'static str {
        "search"
    }
    fn description(&self) -> &'static str {
        "Find this workspace's commands by words and meaning; one line per command: label (type), relevance, id."
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn execute(&self, _api: &dyn SkillApi, host: &Host<'_>, p: &Params) -> Result<String> {
        let query = params::string(p, "query")
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| params::missing("query"))?;
        let limit = p.get("limit").and_then(Value::as_u64).unwrap_or(10).max(1) as usize;
        let mut loaded = host.load()?;
        let embedder = search::ready(&mut loaded, true)?;
        let found = search::search(
            &mut loaded,
            &embedder,
            query,
            search::DEFAULT_THRESHOLD,
            limit,
            &host.cancel,
            &NoProgress,
        )?;
        if found.hits.is_empty() {
            return Ok(format!("No command matches `{query}`."));
        }
        Ok(found
            .hits
            .iter()
            .map(|h| {
                let c = &h.command;
                format!("{} ({}) {:.0}% {}", c.label, c.kind, h.score * 100.0, c.id)
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }
}
