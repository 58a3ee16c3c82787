//! A GitHub Actions workflow started by hand (`gh workflow run`): its jobs run on GitHub's
//! runners, not on the user's machine, so what its steps do to that machine does not matter.
//! What matters is what they do to shared things, with the repository's credentials:
//! publishing packages and images, pushing, creating releases, deploying, closing issues.
//!
//! Read from the workflow's own settings: the `run` steps (shell, only the shared rules), the
//! actions it uses (a list of well-known publishing and repository-changing actions), the
//! permissions it asks for beyond reading (`issues: write`, `packages: write`, …) and what its
//! name and jobs say it is for (`publish`, `deploy`, `release`).

use crate::extract::line_of;
use crate::shell::{Scope, analyse_in};
use crate::{Finding, Level};
use serde_json::{Map, Value};

/// Actions that publish or change the shared repository, by `owner/name` (a path under it
/// too), and what they do.
const ACTIONS: &[(&str, &str)] = &[
    ("docker/build-push-action", "pushes an image to a registry"),
    (
        "goreleaser/goreleaser-action",
        "publishes a release (goreleaser)",
    ),
    ("softprops/action-gh-release", "creates a GitHub release"),
    ("ncipollo/release-action", "creates a GitHub release"),
    ("actions/create-release", "creates a GitHub release"),
    (
        "marvinpinto/action-automatic-releases",
        "creates a GitHub release",
    ),
    ("pypa/gh-action-pypi-publish", "publishes to PyPI"),
    ("JS-DevTools/npm-publish", "publishes to npm"),
    ("changesets/action", "publishes packages (changesets)"),
    ("release-plz/action", "publishes crates (release-plz)"),
    (
        "googleapis/release-please-action",
        "opens release pull requests",
    ),
    (
        "google-github-actions/release-please-action",
        "opens release pull requests",
    ),
    ("peaceiris/actions-gh-pages", "publishes GitHub Pages"),
    (
        "JamesIves/github-pages-deploy-action",
        "publishes GitHub Pages",
    ),
    ("actions/deploy-pages", "publishes GitHub Pages"),
    ("cloudflare/wrangler-action", "deploys to Cloudflare"),
    ("cloudflare/pages-action", "deploys to Cloudflare Pages"),
    ("amondnet/vercel-action", "deploys to Vercel"),
    ("nwtgck/actions-netlify", "deploys to Netlify"),
    ("snapcore/action-publish", "publishes to the Snap Store"),
    ("actions/stale", "closes stale issues and pull requests"),
    ("dessant/lock-threads", "locks issues and pull requests"),
    ("peter-evans/create-pull-request", "opens pull requests"),
    ("stefanzweifel/git-auto-commit-action", "pushes commits"),
    ("EndBug/add-and-commit", "pushes commits"),
    ("ad-m/github-push-action", "pushes commits"),
    (
        "aws-actions/amazon-ecs-deploy-task-definition",
        "deploys to AWS ECS",
    ),
    ("azure/webapps-deploy", "deploys to Azure"),
    (
        "google-github-actions/deploy-cloudrun",
        "deploys to Cloud Run",
    ),
    ("appleboy/ssh-action", "runs commands on a server over SSH"),
    ("appleboy/scp-action", "copies files to a server"),
];

/// Permissions that let a workflow change shared things (`contents: write` alone is common in
/// workflows that only build, and is judged by what the steps do).
const WRITE_SCOPES: &[(&str, &str)] = &[
    ("issues", "change issues"),
    ("pull-requests", "change pull requests"),
    ("packages", "publish packages"),
    ("deployments", "create deployments"),
    ("pages", "publish GitHub Pages"),
    ("id-token", "publish with the repository's identity"),
];

/// Words in a workflow's or a job's name that say what it is for.
const PURPOSES: &[&str] = &["publish", "deploy", "release", "deployment"];

pub(crate) fn analyse(text: &str, out: &mut Vec<Finding>) {
    let Some(doc) = crate::extract::yaml_value(text) else {
        return;
    };
    let Some(doc) = doc.as_object() else {
        return;
    };
    let mut found: Vec<Finding> = Vec::new();
    let add = |found: &mut Vec<Finding>, needle: &str, reason: String| {
        if found.iter().any(|f: &Finding| f.reason == reason) {
            return;
        }
        found.push(Finding {
            level: Level::Caution,
            reason,
            line: line_of(text, needle),
            snippet: needle.chars().take(80).collect(),
        });
    };
    if let Some(name) = doc.get("name").and_then(Value::as_str)
        && let Some(word) = purpose(name)
    {
        add(
            &mut found,
            name,
            format!("dispatches a workflow that says it is for {word}s (`{name}`)"),
        );
    }
    permissions(doc.get("permissions"), &mut |n, r| add(&mut found, n, r));
    let jobs = doc.get("jobs").and_then(Value::as_object);
    for (id, job) in jobs.into_iter().flatten() {
        let Some(job) = job.as_object() else { continue };
        if let Some(word) =
            purpose(id).or_else(|| job.get("name").and_then(Value::as_str).and_then(purpose))
        {
            add(
                &mut found,
                &format!("{id}:"),
                format!("dispatches a job for {word}s (`{id}`)"),
            );
        }
        permissions(job.get("permissions"), &mut |n, r| add(&mut found, n, r));
        for step in job
            .get("steps")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
        {
            if let Some(uses) = step.get("uses").and_then(Value::as_str) {
                action(uses, step, &mut |n, r| add(&mut found, n, r));
            }
            if let Some(run) = step.get("run").and_then(Value::as_str) {
                let mut inner = Vec::new();
                let line = line_of(text, run);
                analyse_in(&expressions(run), line, Scope::Remote, &mut inner);
                for f in inner {
                    if !found.iter().any(|o: &Finding| o.reason == f.reason) {
                        found.push(Finding {
                            reason: format!("dispatches a job that {}", f.reason),
                            ..f
                        });
                    }
                }
            }
        }
    }
    out.extend(found);
}

/// `${{ secrets.TOKEN }}` and other expressions GitHub fills in before the shell runs: a value,
/// written as a shell variable so the shell grammar reads the rest.
fn expressions(run: &str) -> String {
    let mut out = String::with_capacity(run.len());
    let mut rest = run;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        match rest[i..].find("}}") {
            Some(j) => {
                out.push_str("${GITHUB_VALUE}");
                rest = &rest[i + j + 2..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The purpose word (`publish`, `deploy`, `release`) a name is made of, if any.
fn purpose(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find_map(|w| PURPOSES.iter().find(|p| **p == w).copied())
        .map(|w| if w == "deployment" { "deploy" } else { w })
}

fn permissions(p: Option<&Value>, add: &mut impl FnMut(&str, String)) {
    match p {
        Some(Value::String(s)) if s == "write-all" => add(
            "write-all",
            "dispatches a workflow that can change everything in the repository (permissions: write-all)"
                .to_string(),
        ),
        Some(Value::Object(m)) => {
            for (scope, what) in WRITE_SCOPES {
                if m.get(*scope).and_then(Value::as_str) == Some("write") {
                    add(
                        &format!("{scope}: write"),
                        format!(
                            "dispatches a workflow that can {what} (permissions: {scope}: write)"
                        ),
                    );
                }
            }
        }
        _ => {}
    }
}

fn action(uses: &str, step: &Map<String, Value>, add: &mut impl FnMut(&str, String)) {
    let name = uses.split('@').next().unwrap_or(uses);
    let with = step.get("with").and_then(Value::as_object);
    let param = |k: &str| with.and_then(|w| w.get(k));
    for (action, what) in ACTIONS {
        let matches = name.eq_ignore_ascii_case(action)
            || name
                .to_ascii_lowercase()
                .starts_with(&format!("{}/", action.to_ascii_lowercase()));
        if !matches {
            continue;
        }
        // Actions that publish only when told to.
        let off = match *action {
            "docker/build-push-action" => !param("push").is_some_and(|v| {
                v.as_bool() == Some(true) || v.as_str().is_some_and(|s| s != "false")
            }),
            "goreleaser/goreleaser-action" => param("args")
                .and_then(Value::as_str)
                .is_some_and(|a| a.contains("--snapshot") || a.contains("--skip=publish")),
            _ => false,
        };
        if !off {
            add(uses, format!("dispatches a job that {what} ({name})"));
        }
    }
}
