//! `ct doctor`: what CommandTree found and whether the LLM answers: the workspace, its
//! database, whether its configuration is trusted, the provider (and how it was found), where
//! requests go and with which key, the model, and one live summary request. Where requests go
//! is printed before the first one is made.

use crate::{Exit, output};
use anyhow::Result;
use clap::Args;
use commandtree_core::Workspace;
use commandtree_core::trust::Status;
use commandtree_engine::summaries::detect;
use commandtree_llm::provider::{Detection, HOW_TO_CONFIGURE};
use commandtree_llm::summary;
use commandtree_llm::{CancelToken, Client};
use serde_json::{Value, json};
use std::io::Write;

#[derive(Args)]
pub struct DoctorArgs {
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Skip the live request to the model.
    #[arg(long)]
    offline: bool,
}

/// Text lines, written as soon as they are known (so where requests go is on the screen before
/// a request is made); nothing in JSON mode, where the report is written whole at the end.
struct Lines {
    json: bool,
}

impl Lines {
    fn push(&mut self, (k, v): (String, String)) {
        if !self.json {
            let mut out = anstream::stdout().lock();
            let _ = writeln!(out, "{k:<10} {}", output::clean(&v));
            let _ = out.flush();
        }
    }
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    host.rsplit_once('@').map_or(host, |(_, h)| h)
}

fn trust_line(ws: &Workspace) -> (String, Value) {
    let path = commandtree_core::trust::config_path(&ws.root);
    match &ws.settings.trust {
        Status::NotNeeded => (
            "not needed (the workspace config sets no LLM or program settings)".into(),
            json!({"state": "not-needed"}),
        ),
        Status::Trusted => (
            format!("trusted: {} is honoured in full", path.display()),
            json!({"state": "trusted"}),
        ),
        Status::Untrusted {
            ignored,
            changed,
            why,
        } => (
            format!(
                "{}: ignoring {} from {} ({why}; review it, then `ct trust`)",
                if *changed {
                    "changed since trusted"
                } else {
                    "not trusted"
                },
                ignored.join(", "),
                path.display()
            ),
            json!({"state": "untrusted", "changed": changed, "ignored": ignored, "why": why}),
        ),
    }
}

pub fn doctor(ws: &Workspace, args: DoctorArgs) -> Result<()> {
    let mut report = json!({"workspace": ws.root});
    let mut lines = Lines { json: args.json };
    lines.push(("workspace".into(), ws.root.display().to_string()));
    let mut ok = true;

    let db = commandtree_store::db_path(&ws.root);
    match commandtree_store::Store::open_read_only(&db) {
        Ok(Some(store)) => {
            let c = store.counts()?;
            lines.push((
                "database".into(),
                format!(
                    "{} ({} commands, {} with summaries)",
                    db.display(),
                    c.commands,
                    c.summaries
                ),
            ));
            report["database"] =
                json!({"path": db, "commands": c.commands, "summaries": c.summaries});
        }
        Ok(None) => {
            lines.push((
                "database".into(),
                format!("{} (not created yet)", db.display()),
            ));
            report["database"] = json!({"path": db, "exists": false});
        }
        Err(e) => {
            ok = false;
            lines.push(("database".into(), format!("cannot open: {e}")));
            report["database"] = json!({"path": db, "error": e.to_string()});
        }
    }

    let (line, v) = trust_line(ws);
    lines.push(("trust".into(), line));
    report["trust"] = v;

    // Search's model: optional, so its absence is reported, not a failure.
    match commandtree_engine::search::model_status(&ws.root) {
        Ok(dir) => {
            lines.push(("search".into(), format!("model in {}", dir.display())));
            report["searchModel"] = json!({"path": dir});
        }
        Err(why) => {
            lines.push(("search".into(), why.clone()));
            report["searchModel"] = json!({"missing": why});
        }
    }

    match detect(ws).map_err(|e| anyhow::anyhow!(e.to_string()))? {
        Detection::NotFound => {
            ok = false;
            lines.push(("provider".into(), "none found".into()));
            report["provider"] = Value::Null;
            report["help"] = json!(HOW_TO_CONFIGURE);
        }
        Detection::Disabled(by) => {
            lines.push((
                "provider".into(),
                format!("switched off (provider = none, in {by})"),
            ));
            report["provider"] = json!({"disabled": by});
        }
        Detection::Found(cfg) => {
            lines.push((
                "provider".into(),
                format!("{} (found through {})", cfg.name, cfg.source),
            ));
            let host = host_of(&cfg.base_url).to_string();
            lines.push((
                "sends to".into(),
                format!("{host} ({}, from {})", cfg.base_url, cfg.base_source),
            ));
            let key_from = cfg.api_key.as_ref().and(cfg.key_source.clone());
            let named_by = ws
                .settings
                .origin("llm.api_key_env")
                .filter(|_| {
                    key_from.is_some()
                        && ws
                            .settings
                            .config
                            .get("llm")
                            .and_then(|l| l.get("api_key_env"))
                            .and_then(|v| v.as_str())
                            == key_from.as_deref()
                })
                .map(|o| o.to_string());
            lines.push((
                "API key".into(),
                match (&key_from, &named_by) {
                    (Some(var), Some(o)) => {
                        format!("${var} (named by `llm.api_key_env` in {o}), sent to {host}")
                    }
                    (Some(var), None) => format!("${var} (environment), sent to {host}"),
                    _ => "none".into(),
                },
            ));
            let mut p = json!({
                "name": cfg.name, "source": cfg.source, "baseUrl": cfg.base_url,
                "host": host, "baseUrlFrom": cfg.base_source,
                "wire": format!("{:?}", cfg.wire).to_lowercase(),
                "apiKeyFrom": key_from,
            });
            let configured = cfg.model.is_some();
            let client = Client::new(*cfg);
            let cancel = CancelToken::new();
            match client.model(&cancel) {
                Ok(m) => {
                    let how = if configured {
                        "configured"
                    } else {
                        "the first the server lists"
                    };
                    lines.push(("model".into(), format!("{m} ({how})")));
                    p["model"] = json!(m);
                    if args.offline {
                        lines.push(("live test".into(), "skipped (--offline)".into()));
                    } else {
                        let (line, v) = live_test(&client, &cancel);
                        ok &= v["ok"] == true;
                        lines.push(("live test".into(), line));
                        p["liveTest"] = v;
                    }
                }
                Err(e) => {
                    ok = false;
                    lines.push(("model".into(), format!("unknown: {e}")));
                    p["error"] = json!(e.message);
                }
            }
            report["provider"] = p;
        }
    }
    report["ok"] = json!(ok);

    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &report)?;
    } else {
        if report.get("help").is_some() {
            writeln!(out, "\n{HOW_TO_CONFIGURE}")?;
        }
    }
    out.flush()?;
    if ok { Ok(()) } else { Err(Exit(1).into()) }
}

/// The live request the summary pipeline would send, formatted for the report.
fn live_test(client: &Client, cancel: &CancelToken) -> (String, Value) {
    let t = summary::live_test(client, cancel);
    let secs = t.seconds;
    match t.answer {
        Ok(a) => (
            format!(
                "ok in {secs:.1} s: \"{}\"",
                commandtree_core::text::truncate(&a.summary, 80)
            ),
            json!({"ok": true, "seconds": secs, "summary": a.summary, "securityWarning": a.security_warning}),
        ),
        Err(e) => (
            format!("failed: {e}"),
            json!({"ok": false, "error": e.message}),
        ),
    }
}
