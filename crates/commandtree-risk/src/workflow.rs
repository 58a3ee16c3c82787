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

/// Words in an action's name that say it changes shared things, for actions not in
/// [`ACTIONS`] (`getsentry/forked-action-lock-threads`, `getsentry/action-fast-revert`), and
/// what they do.
const ACTION_WORDS: &[(&str, &str)] = &[
    ("lock", "locks issues and pull requests"),
    ("stale", "closes stale issues and pull requests"),
    ("revert", "reverts pull requests"),
    ("merge", "merges pull requests"),
    ("release", "publishes a release"),
    ("releaser", "publishes a release"),
    ("publish", "publishes"),
    ("deploy", "deploys"),
    ("push", "pushes"),
];

/// Secrets that only report on a run (coverage, analysis services): no write access to
/// anything the user shares.
const REPORTING_SECRETS: &[&str] = &[
    "CODECOV",
    "COVERALLS",
    "SONAR",
    "CODACY",
    "CODSPEED",
    "SNYK",
    "SEMGREP",
    "DEEPSOURCE",
    "DEVELOCITY",
    "GRADLE_ENTERPRISE",
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
            format!(
                "dispatches a workflow that says it is for {} (`{name}`)",
                plural(word)
            ),
        );
    }
    permissions(doc.get("permissions"), &mut |n, r| add(&mut found, n, r));
    // A publishing action the workflow turns off when dispatched (`--snapshot`) says more
    // than a name: the purpose words then do not count unless something else publishes.
    let (mut known_off, mut acts) = (false, false);
    let jobs = doc.get("jobs").and_then(Value::as_object);
    for (id, job) in jobs.into_iter().flatten() {
        let Some(job) = job.as_object() else { continue };
        if let Some(word) =
            purpose(id).or_else(|| job.get("name").and_then(Value::as_str).and_then(purpose))
        {
            add(
                &mut found,
                &format!("{id}:"),
                format!("dispatches a job for {} (`{id}`)", plural(word)),
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
            let mut off = false;
            if let Some(uses) = step.get("uses").and_then(Value::as_str) {
                match action(uses, step, &mut |n, r| add(&mut found, n, r)) {
                    Some(false) => {
                        known_off = true;
                        off = true;
                    }
                    Some(true) => acts = true,
                    None => {}
                }
            }
            let checkout = step
                .get("uses")
                .and_then(Value::as_str)
                .is_some_and(|u| u.starts_with("actions/checkout@") || u == "actions/checkout");
            // A checkout's token is for the clone; what is pushed with it later is a step's.
            if let Some((needle, secret)) =
                write_token(step).filter(|_| !checkout && !off && !dry_run(step))
            {
                let what = match (step.get("run"), step.get("uses").and_then(Value::as_str)) {
                    (Some(_), _) => "runs the project's code".to_string(),
                    (None, Some(uses)) => {
                        format!("runs `{}`", uses.split('@').next().unwrap_or(uses))
                    }
                    (None, None) => continue,
                };
                acts = true;
                add(
                    &mut found,
                    &needle,
                    format!("dispatches a job that {what} with a write token ({secret})"),
                );
            }
            if let Some(run) = step.get("run").and_then(Value::as_str) {
                let mut inner = Vec::new();
                let line = line_of(text, run);
                analyse_in(&expressions(run), line, Scope::Remote, &mut inner);
                for f in inner {
                    acts = true;
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
    if known_off && !acts {
        found.retain(|f| {
            !(f.reason.starts_with("dispatches a workflow that says")
                || f.reason.starts_with("dispatches a job for"))
        });
    }
    out.extend(found);
}

/// The secret a step is handed that can write to something shared: a token or key of the
/// repository's secrets other than the run's own `GITHUB_TOKEN` (whose rights the
/// `permissions` say) and those of reporting services, or a GitHub App token a step made
/// (`steps.app.outputs.token`). Returns the text to point at and the secret's name.
fn write_token(step: &Map<String, Value>) -> Option<(String, String)> {
    let values = ["env", "with"]
        .iter()
        .filter_map(|k| step.get(*k).and_then(Value::as_object))
        .flat_map(|m| m.values())
        .filter_map(Value::as_str);
    for v in values {
        let mut rest = v;
        while let Some(i) = rest.find("${{") {
            let Some(j) = rest[i..].find("}}") else { break };
            let expr = rest[i + 3..i + j].trim();
            rest = &rest[i + j + 2..];
            // `secrets.X || secrets.GITHUB_TOKEN`: a step that also works with the run's own
            // token needs no more rights than it has (an API rate limit, not a push).
            if expr.contains("||")
                && (expr.contains("secrets.GITHUB_TOKEN") || expr.contains("github.token"))
            {
                continue;
            }
            if let Some(name) = expr.strip_prefix("secrets.") {
                let upper = name.to_ascii_uppercase();
                let credential = ["TOKEN", "PAT", "KEY", "PASSWORD"]
                    .iter()
                    .any(|w| upper.split('_').any(|p| p == *w || p.ends_with(w)));
                if credential
                    && upper != "GITHUB_TOKEN"
                    && !REPORTING_SECRETS.iter().any(|r| upper.contains(r))
                {
                    return Some((v.to_string(), name.to_string()));
                }
            } else if expr.starts_with("steps.") && expr.ends_with(".outputs.token") {
                return Some((v.to_string(), "a GitHub App token".to_string()));
            }
        }
    }
    None
}

/// Whether a dispatched run of `step` is told it is a dry run: an `env` variable named for one
/// (`DRY_RUN`, `dryRun`) that is true, or an expression true for a dispatch
/// (`${{ github.event_name != 'push' || github.ref != 'refs/heads/main' }}`).
fn dry_run(step: &Map<String, Value>) -> bool {
    let Some(env) = step.get("env").and_then(Value::as_object) else {
        return false;
    };
    env.iter().any(|(k, v)| {
        let k = k.to_ascii_lowercase().replace(['_', '-'], "");
        if k != "dryrun" {
            return false;
        }
        match v {
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_u64() == Some(1),
            Value::String(s) => {
                let t = s.trim();
                matches!(t, "true" | "1" | "yes")
                    || t.strip_prefix("${{")
                        .and_then(|r| r.strip_suffix("}}"))
                        .and_then(dispatch_truth)
                        .unwrap_or(false)
            }
            _ => false,
        }
    })
}

/// The truth of an expression of `github.event_name == 'x'` / `!= 'x'` terms joined by `||`
/// or `&&` when a run is dispatched; `None` when it depends on something else.
fn dispatch_truth(expr: &str) -> Option<bool> {
    let term = |t: &str| -> Option<bool> {
        let t = t
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        let (lhs, rhs, equal) = match t.split_once("!=") {
            Some((l, r)) => (l, r, false),
            None => {
                let (l, r) = t.split_once("==")?;
                (l, r, true)
            }
        };
        if lhs.trim() != "github.event_name" {
            return None;
        }
        let event = rhs.trim().trim_matches('\'');
        Some((event == "workflow_dispatch") == equal)
    };
    if expr.contains("||") && !expr.contains("&&") {
        let terms: Vec<Option<bool>> = expr.split("||").map(term).collect();
        if terms.contains(&Some(true)) {
            return Some(true);
        }
        return terms.iter().all(|t| *t == Some(false)).then_some(false);
    }
    if expr.contains("&&") && !expr.contains("||") {
        let terms: Vec<Option<bool>> = expr.split("&&").map(term).collect();
        if terms.contains(&Some(false)) {
            return Some(false);
        }
        return terms.iter().all(|t| *t == Some(true)).then_some(true);
    }
    term(expr)
}

/// `${{ github.event_name == 'push' && 'A' || 'B' }}` as a dispatched run sees it (`B`); other
/// values as they are.
fn dispatched_value(v: &str) -> String {
    let t = v.trim();
    let Some(expr) = t.strip_prefix("${{").and_then(|r| r.strip_suffix("}}")) else {
        return v.to_string();
    };
    let quoted = |s: &str| {
        let s = s.trim();
        s.strip_prefix('\'')
            .and_then(|r| r.strip_suffix('\''))
            .map(str::to_string)
    };
    let Some((cond, rest)) = expr.split_once("&&") else {
        return v.to_string();
    };
    let Some((then, otherwise)) = rest.split_once("||") else {
        return v.to_string();
    };
    let (Some((lhs, event)), Some(then), Some(otherwise)) =
        (cond.split_once("=="), quoted(then), quoted(otherwise))
    else {
        return v.to_string();
    };
    if lhs.trim() != "github.event_name" {
        return v.to_string();
    }
    match quoted(event).as_deref() {
        Some("workflow_dispatch") => then,
        Some(_) => otherwise,
        None => v.to_string(),
    }
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

/// `publishes`, `deploys`, `releases`.
fn plural(word: &str) -> String {
    if word.ends_with("sh") {
        format!("{word}es")
    } else {
        format!("{word}s")
    }
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

/// What a step's action does to shared things: `Some(true)` when it changes them, `Some(false)`
/// for a known publishing action told not to publish, `None` for any other action.
fn action(
    uses: &str,
    step: &Map<String, Value>,
    add: &mut impl FnMut(&str, String),
) -> Option<bool> {
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
            // `push: true`, or a buildx output that pushes (`outputs: type=image,push=true`).
            "docker/build-push-action" => {
                !param("push").is_some_and(|v| {
                    v.as_bool() == Some(true) || v.as_str().is_some_and(|s| s != "false")
                }) && !param("outputs")
                    .and_then(Value::as_str)
                    .is_some_and(|o| o.split([',', '\n']).any(|kv| kv.trim() == "push=true"))
            }
            "goreleaser/goreleaser-action" => param("args")
                .and_then(Value::as_str)
                .map(dispatched_value)
                .is_some_and(|a| a.contains("--snapshot") || a.contains("--skip=publish")),
            _ => false,
        };
        if !off {
            add(uses, format!("dispatches a job that {what} ({name})"));
        }
        return Some(!off);
    }
    // An action not listed says what it is for in its name.
    let path = name
        .split_once('/')
        .map_or(name, |(_, p)| p)
        .to_ascii_lowercase();
    let words: Vec<&str> = path.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    let (word, what) = ACTION_WORDS.iter().find(|(w, _)| words.contains(w))?;
    add(
        uses,
        format!("dispatches a job that {what} ({name}, by its name: {word})"),
    );
    Some(true)
}
