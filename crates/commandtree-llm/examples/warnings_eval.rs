//! The warnings benchmark's runner (`bench/warnings.sh`): for every command of the labelled
//! workspace, the static analyser's verdict and, with `--model`, the model's answer through
//! the summary pipeline's own request. One JSON object per command on stdout.
//!
//!   warnings_eval <workspace> <manifest.tsv> [--model]
//!
//! The model is found as `ct` finds it (environment, then configuration).

use commandtree_core::{Options, Workspace};
use commandtree_llm::summary::{self, SummaryConfig};
use commandtree_llm::{CancelToken, Client, Detection, provider};
use serde_json::json;
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(&args[0]);
    let manifest = std::fs::read_to_string(&args[1]).expect("manifest");
    let with_model = args.iter().any(|a| a == "--model");
    let root = std::fs::canonicalize(root).expect("workspace");
    let ws = Workspace::open(Some(&root), &root);
    let items = ws
        .discover(&Options {
            types: Vec::new(),
            threads: 1,
        })
        .commands;
    let subjects = summary::subjects(&items);
    let client = with_model.then(|| match provider::detect_for(&ws) {
        Ok(Detection::Found(cfg)) => Client::new(*cfg),
        _ => panic!("no LLM provider found"),
    });
    let cfg = SummaryConfig::default();
    let cancel = CancelToken::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let (label, kind, name, file) = (f[0], f[1], f[2], f[3]);
        let s = subjects
            .iter()
            .find(|s| {
                s.item.kind == kind
                    && s.item.label == name
                    && s.item.file_path.ends_with(&format!("/{file}"))
            })
            .unwrap_or_else(|| panic!("not discovered: {line}"));
        let findings = summary::findings(s);
        let mut out = json!({
            "expected": label,
            "type": kind,
            "label": name,
            "static": !findings.is_empty(),
            "staticWarning": commandtree_risk::warning_text(&findings),
        });
        if let Some(client) = &client {
            let t = std::time::Instant::now();
            match summary::analyse(client, s, &cfg, &cancel) {
                Ok(a) => {
                    out["model"] = json!(a.model_warning.is_some());
                    out["modelRisk"] = json!(a.risk.map(|r| r.as_str()));
                    out["modelWarning"] = json!(a.model_warning);
                    out["combined"] = json!(a.security_warning.is_some());
                    out["summary"] = json!(a.summary);
                }
                Err(e) => {
                    // A failed answer is no warning from the model.
                    out["model"] = json!(false);
                    out["combined"] = json!(!findings.is_empty());
                    out["error"] = json!(e.to_string());
                }
            }
            out["seconds"] = json!(t.elapsed().as_secs_f64());
        }
        println!("{out}");
    }
}
