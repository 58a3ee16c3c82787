//! `@run --command build [--params '{"env":"dev"}'] [--args '["--watch"]'] [--timeout 600]`:
//! runs a CommandTree command to completion without a terminal (as `ct run --no-input` would)
//! and returns its exit code and the end of its output. The security gate applies: a command
//! with a security warning (its own or a step's) runs only after the user confirms.

use crate::params::{self, ParamKind, ParamSpec, Params};
use crate::{Error, Host, LlmSkill, Result, SkillApi};
use commandtree_engine::gate;
use commandtree_engine::runs::{self, CaptureOptions, RunRequest, Target};
use serde_json::Value;
use std::time::Duration;

pub struct Run;

/// The end of the output kept for the reply.
pub const OUTPUT_TAIL: usize = 8 * 1024;
const DEFAULT_TIMEOUT: u64 = 600;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "command",
        ParamKind::String,
        true,
        "The command: its id, a unique label, or type:label.",
    ),
    ParamSpec::new(
        "params",
        ParamKind::Object,
        false,
        "Parameter values by name (strings); the rest take their defaults.",
    ),
    ParamSpec::new(
        "args",
        ParamKind::Array,
        false,
        "Extra arguments for the command (strings).",
    ),
    ParamSpec::new(
        "timeout",
        ParamKind::Integer,
        false,
        "Seconds before the command is ended (default 600).",
    ),
];

impl LlmSkill for Run {
    fn name(&self) -> &'static str {
        "run"
    }
    fn description(&self) -> &'static str {
        "Run a CommandTree command to completion and return its exit code and the end of its output."
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn execute(&self, _api: &dyn SkillApi, host: &Host<'_>, p: &Params) -> Result<String> {
        let query = params::string(p, "command")
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| params::missing("command"))?;
        let mut values = commandtree_exec::params::Values::new();
        if let Some(Value::Object(o)) = p.get("params") {
            for (k, v) in o {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(_) | Value::Bool(_) => v.to_string(),
                    _ => return Err(params::missing(&format!("params: `{k}` is not a string"))),
                };
                values.insert(k.clone(), s);
            }
        }
        let mut extra = Vec::new();
        if let Some(Value::Array(a)) = p.get("args") {
            for v in a {
                extra.push(match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
        }
        let timeout = p
            .get("timeout")
            .and_then(Value::as_u64)
            .unwrap_or(DEFAULT_TIMEOUT)
            .max(1);
        let mut loaded = host.load()?;
        let sel = runs::select(
            &loaded,
            RunRequest {
                target: Target::Query(query.to_string()),
                values,
                extra,
                debug: false,
            },
        )?;
        if sel.item.kind == commandtree_core::sources::playbook::KIND {
            return Err(Error::invalid(format!(
                "`{}` is a playbook: run it with `ct playbook run`, not from inside one",
                sel.item.label
            )));
        }
        let warned: Vec<String> = gate::concerns(&loaded, &sel.item)
            .into_iter()
            .filter(|c| c.needs_confirmation())
            .map(|c| format!("`{}`: {}", c.label, c.text))
            .collect();
        if !warned.is_empty() {
            host.confirm(&format!(
                "⚠ {} Run `{}` anyway?",
                warned.join("; "),
                sel.item.label
            ))?;
        }
        let planned = runs::plan(host.engine.workspace(), &sel, None)?;
        let c = runs::run_captured(
            host.engine.workspace(),
            &mut loaded.store,
            &planned,
            &CaptureOptions {
                timeout: Some(Duration::from_secs(timeout)),
                max_output: OUTPUT_TAIL,
            },
            &host.cancel,
        )?;
        if c.cancelled {
            return Err(Error::Cancelled);
        }
        let mut out = format!(
            "`{}` exited with code {} after {:.1} s",
            sel.item.label,
            c.code,
            c.duration.as_secs_f64()
        );
        if c.timed_out {
            out.push_str(&format!(" (ended after the {timeout} s timeout)"));
        }
        if c.dropped_bytes > 0 {
            out.push_str(&format!(
                "\n(the first {} bytes of output are left out)",
                c.dropped_bytes
            ));
        }
        out.push('\n');
        out.push_str(&c.output);
        Ok(out)
    }
}
