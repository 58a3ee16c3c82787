//! GitHub Actions workflows that can be started by hand (`on: workflow_dispatch`), one item per
//! workflow: `gh workflow run FILE`, run from the repository root. gh starts the whole workflow
//! (it cannot run a single job), so the item is the workflow and its description lists the
//! jobs. Workflows without a manual trigger are not runnable from here and are skipped.
//!
//! `workflow_dispatch.inputs` become parameters. gh takes them as `--raw-field NAME=VALUE`
//! (`-f`); each parameter uses format `flag-equals` with flag `--raw-field=NAME`, which renders
//! as `--raw-field=NAME=VALUE`: one argument, which gh's flag parser splits at the first `=`
//! into the flag and `NAME=VALUE`. An empty value is left out, so gh applies the workflow's
//! default. Choice inputs carry their options, boolean inputs `true`/`false`.

use super::common::with_line;
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat};
use crate::syntax::yaml::{self, Spans};
use crate::text::{sh_word, yaml_to_json};
use serde_json::{Map, Value};
use std::collections::HashMap;

const KIND: &str = "workflow";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let (doc, spans) = match yaml::parse(file.content) {
        Ok(d) => (yaml_to_json(d.value), d.spans),
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(doc) = doc.as_object() else {
        return Parsed::with_warning(file.path, None, "workflow is not a YAML map");
    };
    // YAML 1.1 readers turn a bare `on` key into `true`; accept that spelling too.
    let Some((on_key, on)) = ["on", "true"]
        .into_iter()
        .find_map(|k| Some((k, doc.get(k)?)))
    else {
        return Parsed::default();
    };
    let dispatch = match on {
        Value::String(s) if s == "workflow_dispatch" => Some(&Value::Null),
        Value::Array(a) if a.iter().any(|e| e.as_str() == Some("workflow_dispatch")) => {
            Some(&Value::Null)
        }
        Value::Object(m) => m.get("workflow_dispatch"),
        _ => None,
    };
    let Some(dispatch) = dispatch else {
        return Parsed::default();
    };
    let mut out = Parsed::default();
    let on_spans = spans.get(on_key);
    let dispatch_spans = on_spans.and_then(|s| s.entry("workflow_dispatch"));
    let inputs_spans = dispatch_spans.and_then(|d| d.value.entry("inputs"));
    let inputs_line = inputs_spans.map(|i| i.line);
    let params = match dispatch.get("inputs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(inputs)) => inputs_to_params(inputs, inputs_spans.map(|i| &i.value)),
        Some(_) => {
            out.warn(
                file.path,
                inputs_line,
                "`workflow_dispatch.inputs` is not a map",
            );
            Vec::new()
        }
    };
    let file_name = &*file.file_name();
    let label = doc
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or(file_name);
    let mut item = CommandItem::new(
        KIND,
        file.path,
        file_name,
        format!("gh workflow run {}", sh_word(file_name)),
    )
    .label(label)
    .opt_description(jobs_description(
        doc.get("jobs"),
        spans.key_lines_under("jobs"),
    ))
    .params(params);
    if let Some(repo) = repo_root(file) {
        item = item.cwd(&repo);
    }
    let line = dispatch_spans
        .map(|d| d.line)
        .or_else(|| spans.key_line(on_key));
    out.commands.push(with_line(item, line));
    out
}

fn inputs_to_params(inputs: &Map<String, Value>, spans: Option<&Spans>) -> Vec<ParamDef> {
    let lines = spans.map(Spans::key_lines).unwrap_or_default();
    let mut params: Vec<(Option<usize>, ParamDef)> = inputs
        .iter()
        .map(|(name, spec)| {
            let mut p = ParamDef::new(name);
            let description = spec
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .trim();
            let required = spec.get("required").and_then(Value::as_bool) == Some(true);
            let description = match (description.is_empty(), required) {
                (false, true) => format!("{description} (required)"),
                (true, true) => "(required)".to_string(),
                _ => description.to_string(),
            };
            p = p.with_description(description);
            if let Some(d) = spec.get("default").and_then(scalar) {
                p = p.with_default(d);
            }
            match spec.get("type").and_then(Value::as_str) {
                Some("choice") => {
                    p.options = spec
                        .get("options")
                        .and_then(Value::as_array)
                        .map(|o| o.iter().filter_map(scalar).collect())
                        .unwrap_or_default();
                }
                Some("boolean") => p.options = vec!["true".to_string(), "false".to_string()],
                _ => {}
            }
            p.format = Some(ParamFormat::FlagEquals);
            p.flag = Some(format!("--raw-field={name}"));
            (lines.get(name.as_str()).copied(), p)
        })
        .collect();
    // Inputs arrive sorted by name; the form should follow the file.
    params.sort_by_key(|(line, _)| line.unwrap_or(usize::MAX));
    params.into_iter().map(|(_, p)| p).collect()
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `Jobs: Build, test, Deploy to prod` — each job's `name` when it is plain text, else its id,
/// in file order.
fn jobs_description(jobs: Option<&Value>, lines: HashMap<&str, usize>) -> Option<String> {
    let jobs = jobs?.as_object()?;
    let mut entries: Vec<(Option<usize>, String)> = jobs
        .iter()
        .map(|(id, job)| {
            let shown = job
                .get("name")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|n| !n.is_empty() && !n.contains("${{"))
                .unwrap_or(id);
            (lines.get(id.as_str()).copied(), shown.to_string())
        })
        .collect();
    entries.sort_by_key(|(line, _)| line.unwrap_or(usize::MAX));
    let names: Vec<String> = entries.into_iter().map(|(_, n)| n).collect();
    (!names.is_empty()).then(|| format!("Jobs: {}", names.join(", ")))
}

/// `.github/workflows/x.yml` → the folder holding `.github`, where gh finds the repository.
fn repo_root(file: &SourceFile<'_>) -> Option<std::path::PathBuf> {
    let workflows = file.dir();
    let github = workflows.parent()?;
    if workflows.file_name()? == "workflows" && github.file_name()? == ".github" {
        github.parent().map(Into::into)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const DEPLOY: &str = r#"name: Deploy
on:
  push:
    branches: [main]
  workflow_dispatch:
    inputs:
      environment:
        description: Target environment
        type: choice
        required: true
        default: staging
        options:
          - staging
          - production
      dry_run:
        description: 'Only print what would change'
        type: boolean
        default: false
      version:
        type: string
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
  deploy:
    name: Deploy to ${{ inputs.environment }}
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: ./deploy.sh
  announce:
    name: Announce
    needs: deploy
    runs-on: ubuntu-latest
    steps:
      - run: echo done
"#;

    const PATH: &str = "/w/.github/workflows/deploy.yml";

    #[test]
    fn dispatchable_workflow_is_one_item() {
        let p = parse_with(parse, PATH, DEPLOY);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["Deploy"]);
        let w = &p.commands[0];
        assert_eq!(w.id, "workflow:/w/.github/workflows/deploy.yml:deploy.yml");
        assert_eq!(w.command, "gh workflow run deploy.yml");
        assert_eq!(w.cwd, "/w");
        assert_eq!(w.line, Some(5));
        assert_eq!(
            w.description.as_deref(),
            Some("Jobs: build, deploy, Announce")
        );
    }

    #[test]
    fn inputs_become_raw_field_params_in_file_order() {
        let p = parse_with(parse, PATH, DEPLOY);
        let params = &p.commands[0].params;
        let names: Vec<_> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["environment", "dry_run", "version"]);
        let env = &params[0];
        assert_eq!(
            env.description.as_deref(),
            Some("Target environment (required)")
        );
        assert_eq!(env.default.as_deref(), Some("staging"));
        assert_eq!(env.options, ["staging", "production"]);
        assert_eq!(env.format, Some(ParamFormat::FlagEquals));
        assert_eq!(env.flag.as_deref(), Some("--raw-field=environment"));
        let dry = &params[1];
        assert_eq!(dry.options, ["true", "false"]);
        assert_eq!(dry.default.as_deref(), Some("false"));
        assert_eq!(
            dry.description.as_deref(),
            Some("Only print what would change")
        );
        assert_eq!(params[2].description, None);
        assert_eq!(params[2].default, None);
        assert!(params[2].options.is_empty());
    }

    /// serde_yaml_ng reads YAML 1.2, where `on` is a string, not the boolean `true`.
    #[test]
    fn on_key_stays_a_string() {
        let v = crate::text::parse_yaml("on: push\nyes: 1\n").unwrap();
        assert_eq!(v["on"], "push");
        assert!(v.get("true").is_none());
    }

    #[test]
    fn on_as_string_list_and_bare_map_key() {
        let p = parse_with(
            parse,
            "/w/.github/workflows/a.yaml",
            "on: workflow_dispatch\njobs:\n  x:\n    runs-on: ubuntu-latest\n",
        );
        assert_eq!(labels(&p), ["a.yaml"]);
        assert_eq!(p.commands[0].line, Some(1));
        assert_eq!(p.commands[0].command, "gh workflow run a.yaml");
        assert!(p.commands[0].params.is_empty());
        assert_eq!(p.commands[0].description.as_deref(), Some("Jobs: x"));
        let p = parse_with(
            parse,
            "/w/.github/workflows/b.yml",
            "name: B\non: [push, workflow_dispatch]\njobs: {}\n",
        );
        assert_eq!(labels(&p), ["B"]);
        assert_eq!(p.commands[0].description, None);
        let p = parse_with(
            parse,
            "/w/.github/workflows/c.yml",
            "name: C\n\"on\":\n  workflow_dispatch:\n",
        );
        assert_eq!(labels(&p), ["C"]);
        // The YAML 1.1 spelling some tools write back.
        let p = parse_with(
            parse,
            "/w/.github/workflows/d.yml",
            "name: D\ntrue:\n  workflow_dispatch:\n",
        );
        assert_eq!(labels(&p), ["D"]);
    }

    #[test]
    fn not_dispatchable_gives_nothing() {
        for text in [
            "name: CI\non: [push, pull_request]\njobs:\n  t:\n    runs-on: x\n",
            "name: CI\non:\n  push:\n  workflow_call:\n",
            "name: CI\non: push\n",
            "name: no trigger\n",
        ] {
            let p = parse_with(parse, "/w/.github/workflows/ci.yml", text);
            assert!(p.commands.is_empty() && p.warnings.is_empty(), "{text}");
        }
    }

    #[test]
    fn input_and_job_order_ignores_same_keys_elsewhere() {
        let text = "name: Release\non:\n  workflow_call:\n    inputs:\n      tag:\n        type: string\n  workflow_dispatch:\n    inputs:\n      tag:\n        type: string\n      name:\n        type: string\njobs:\n  name:\n    runs-on: x\n  build:\n    runs-on: x\n";
        let p = parse_with(parse, PATH, text);
        let names: Vec<_> = p.commands[0]
            .params
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["tag", "name"]);
        assert_eq!(p.commands[0].line, Some(7));
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Jobs: name, build")
        );
    }

    #[test]
    fn odd_names_are_quoted() {
        let p = parse_with(
            parse,
            "/w/.github/workflows/my flow.yml",
            "on: workflow_dispatch\n",
        );
        assert_eq!(p.commands[0].command, "gh workflow run 'my flow.yml'");
    }

    #[test]
    fn malformed_warns() {
        let p = parse_with(
            parse,
            PATH,
            "name: x\non:\n  workflow_dispatch:\n    inputs: [a, b\n",
        );
        assert!(p.commands.is_empty());
        assert!(p.warnings[0].message.starts_with("invalid YAML"));
        assert!(p.warnings[0].line.is_some());

        let p = parse_with(parse, PATH, "on:\n  workflow_dispatch:\n    inputs: nope\n");
        assert_eq!(p.commands.len(), 1);
        assert_eq!(
            p.warnings[0].message,
            "`workflow_dispatch.inputs` is not a map"
        );
        assert_eq!(p.warnings[0].line, Some(3));

        let p = parse_with(parse, PATH, "- just\n- a list\n");
        assert_eq!(p.warnings[0].message, "workflow is not a YAML map");
        let p = parse_with(parse, PATH, "\u{1}\u{FFFD}: : :\n\t- [");
        assert_eq!(p.warnings.len(), 1);
        assert!(p.commands.is_empty());
    }
}
