//! History and the shared repository: `git push` (forced, deleting, plain), work thrown away
//! (`reset --hard`, `clean`, `checkout .`), history rewritten, the global git configuration,
//! and `gh` changing releases, pull requests, issues, workflows and settings.

use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Word};

const fn rule(
    name: &'static str,
    level: Level,
    reach: Reach,
    matches: &'static str,
    reason: &'static str,
    example: &'static str,
) -> Rule {
    // History's rules reach either the machine or what is shared, row by row.
    Rule::of(
        Family::History,
        reach,
        name,
        level,
        matches,
        reason,
        example,
    )
}

pub(crate) const PUSH_FORCE: Rule = rule(
    "git-push-force",
    Level::Danger,
    Reach::Shared,
    "`git push --force`, `-f`, `--force-with-lease`, `--mirror`, `+branch`",
    "overwrites remote history (git push --force)",
    "git push --force origin main",
);
pub(crate) const PUSH_DELETE: Rule = rule(
    "git-push-delete",
    Level::Caution,
    Reach::Shared,
    "`git push --delete`, `-d`, `:branch`",
    "deletes a remote branch or tag (git push --delete)",
    "git push origin --delete old-branch",
);
pub(crate) const PUSH: Rule = rule(
    "git-push",
    Level::Caution,
    Reach::Shared,
    "`git push` (not `--dry-run`)",
    "pushes to a shared remote (git push)",
    "git push origin main --follow-tags",
);
pub(crate) const RESET_HARD: Rule = rule(
    "git-reset-hard",
    Level::Danger,
    Reach::Machine,
    "`git reset --hard`",
    "discards uncommitted changes (git reset --hard)",
    "git reset --hard origin/main",
);
pub(crate) const RESET_OWN_REPOSITORY: Rule = rule(
    "git-reset-own-repository",
    Level::Caution,
    Reach::Machine,
    "`git reset --hard`, `git clean -fdx` in a script that clones or creates the repository",
    "resets a repository the script clones or creates itself (git {})",
    "git clone https://example.com/tool.git tool\ncd tool\ngit reset --hard v1",
);
pub(crate) const CLEAN_IGNORED: Rule = rule(
    "git-clean-ignored",
    Level::Danger,
    Reach::Machine,
    "`git clean -f` with `-x`, `-X` or `-d`",
    "deletes untracked and ignored files (git clean -fdx)",
    "git clean -fdx",
);
pub(crate) const CLEAN: Rule = rule(
    "git-clean",
    Level::Caution,
    Reach::Machine,
    "`git clean -f`",
    "deletes untracked files (git clean -f)",
    "git clean -f",
);
pub(crate) const CHECKOUT_DOT: Rule = rule(
    "git-checkout-dot",
    Level::Caution,
    Reach::Machine,
    "`git checkout .`, `git restore .`",
    "discards uncommitted changes (git {} .)",
    "git checkout .",
);
pub(crate) const REWRITES: Rule = rule(
    "git-rewrites-history",
    Level::Caution,
    Reach::Machine,
    "`git filter-branch`, `git filter-repo`",
    "rewrites history (git {})",
    "git filter-repo --path secrets.txt --invert-paths",
);
pub(crate) const GLOBAL_CONFIG: Rule = rule(
    "git-global-config",
    Level::Caution,
    Reach::Machine,
    "`git config --global`/`--system` setting a value",
    "changes the user's global git configuration (git config --global)",
    "git config --global user.name bot",
);
pub(crate) const GH_RELEASE: Rule = rule(
    "gh-release",
    Level::Caution,
    Reach::Shared,
    "`gh release create`, `upload`, `edit`, `delete`, `delete-asset`",
    "changes a GitHub release (gh release {})",
    "gh release create v1.0.0 dist/*",
);
pub(crate) const GH_REPOSITORY: Rule = rule(
    "gh-repository",
    Level::Caution,
    Reach::Shared,
    "`gh pr merge`/`close`, `gh issue close`/`delete`/…, `gh repo delete`/`edit`/…, \
     `gh api -X POST`",
    "changes the shared repository (gh {})",
    "gh pr merge 12 --squash",
);
pub(crate) const GH_WORKFLOW: Rule = rule(
    "gh-workflow",
    Level::Caution,
    Reach::Shared,
    "`gh workflow run`, `gh run rerun`",
    "starts a workflow on GitHub (gh workflow run)",
    "gh workflow run release.yml",
);
pub(crate) const GH_SETTINGS: Rule = rule(
    "gh-settings",
    Level::Caution,
    Reach::Shared,
    "`gh secret set`/`delete`, `gh variable set`/`delete`",
    "changes the repository's settings (gh {} {})",
    "gh secret set NPM_TOKEN < token.txt",
);

impl Analyser<'_> {
    pub(crate) fn history(&mut self, c: &Cmd) {
        match c.name.as_str() {
            "git" => self.git(c),
            "gh" => self.gh(c),
            _ => {}
        }
    }

    fn git(&mut self, c: &Cmd) {
        let Some((i, sub)) = c.subcommand(&["-C", "-c", "--git-dir", "--work-tree"]) else {
            return;
        };
        let rest: Vec<String> = c.args[i + 1..].iter().map(Word::text).collect();
        let flag = |short: char, long: &str| {
            rest.iter().any(|a| {
                a == &format!("--{long}")
                    || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
            })
        };
        match sub.as_str() {
            "push" => {
                if rest.iter().any(|a| a == "--dry-run") || flag('n', "dry-run") {
                    return;
                }
                if flag('f', "force")
                    || rest
                        .iter()
                        .any(|a| a == "--mirror" || a.starts_with("--force"))
                    || rest.iter().any(|a| a.starts_with('+') && a.len() > 1)
                {
                    self.hit(&PUSH_FORCE, c.line, &c.snippet, &[]);
                } else if flag('d', "delete")
                    || rest.iter().any(|a| a.starts_with(':') && a.len() > 1)
                {
                    self.hit(&PUSH_DELETE, c.line, &c.snippet, &[]);
                } else {
                    self.hit(&PUSH, c.line, &c.snippet, &[]);
                }
            }
            // An installer keeping its own clone (Homebrew's `git init` + `fetch` + `reset
            // --hard origin/main`) discards no work of the user's, though it changes the machine.
            "reset" if rest.iter().any(|a| a == "--hard") && self.makes_repository() => {
                self.hit(&RESET_OWN_REPOSITORY, c.line, &c.snippet, &["reset --hard"]);
            }
            "reset" if rest.iter().any(|a| a == "--hard") => {
                self.hit(&RESET_HARD, c.line, &c.snippet, &[]);
            }
            "clean"
                if flag('f', "force")
                    && (flag('x', "") || flag('X', "") || flag('d', ""))
                    && self.makes_repository() =>
            {
                self.hit(&RESET_OWN_REPOSITORY, c.line, &c.snippet, &["clean"]);
            }
            "clean" if flag('f', "force") => {
                if flag('x', "") || flag('X', "") || flag('d', "") {
                    self.hit(&CLEAN_IGNORED, c.line, &c.snippet, &[]);
                } else {
                    self.hit(&CLEAN, c.line, &c.snippet, &[]);
                }
            }
            "checkout" | "restore"
                if rest.iter().any(|a| a == ".") && !rest.iter().any(|a| a == "-b") =>
            {
                self.hit(&CHECKOUT_DOT, c.line, &c.snippet, &[&sub]);
            }
            "filter-branch" | "filter-repo" => {
                self.hit(&REWRITES, c.line, &c.snippet, &[&sub]);
            }
            "config"
                if rest.iter().any(|a| a == "--global" || a == "--system")
                    && !rest.iter().any(|a| {
                        matches!(
                            a.as_str(),
                            "--get" | "--get-all" | "--list" | "-l" | "--get-regexp"
                        )
                    })
                    && rest.iter().filter(|a| !a.starts_with('-')).count() >= 2 =>
            {
                self.hit(&GLOBAL_CONFIG, c.line, &c.snippet, &[]);
            }
            _ => {}
        }
    }

    fn gh(&mut self, c: &Cmd) {
        let ops: Vec<String> = c.operands().iter().map(|w| w.text()).collect();
        let (a, b) = (
            ops.first().map(String::as_str).unwrap_or(""),
            ops.get(1).map(String::as_str).unwrap_or(""),
        );
        let (rule, what): (&'static Rule, Vec<String>) = match (a, b) {
            ("release", "create" | "upload" | "delete" | "edit" | "delete-asset") => {
                (&GH_RELEASE, vec![b.to_string()])
            }
            ("pr", "merge" | "close") => (&GH_REPOSITORY, vec![format!("pr {b}")]),
            ("issue", "close" | "delete" | "transfer" | "lock") => {
                (&GH_REPOSITORY, vec![format!("issue {b}")])
            }
            ("workflow", "run") | ("run", "rerun") => (&GH_WORKFLOW, vec![]),
            ("repo", "delete" | "archive" | "edit" | "rename") => {
                (&GH_REPOSITORY, vec![format!("repo {b}")])
            }
            ("secret" | "variable", "set" | "delete") => {
                (&GH_SETTINGS, vec![a.to_string(), b.to_string()])
            }
            ("api", _) => {
                let args = c.arg_texts();
                let method = args.iter().enumerate().find_map(|(i, x)| {
                    let m = if x == "-X" || x == "--method" {
                        args.get(i + 1).cloned()
                    } else {
                        x.strip_prefix("--method=")
                            .or_else(|| x.strip_prefix("-X").filter(|m| !m.is_empty()))
                            .map(str::to_string)
                    }?;
                    let m = m.to_ascii_uppercase();
                    (m != "GET").then_some(m)
                });
                match method {
                    Some(m) => (&GH_REPOSITORY, vec![format!("api -X {m}")]),
                    None => return,
                }
            }
            _ => return,
        };
        let what: Vec<&str> = what.iter().map(String::as_str).collect();
        self.hit(rule, c.line, &c.snippet, &what);
    }
}

impl Analyser<'_> {
    /// Whether the script clones or creates a git repository (`git clone`, `git init`, also
    /// with the words quoted for a wrapper: `execute "git" "init"`).
    fn makes_repository(&self) -> bool {
        let text = String::from_utf8_lossy(self.src);
        ["git clone", "git init", "\"clone\"", "\"init\""]
            .iter()
            .any(|w| text.contains(w))
            || text.contains("git -c") && (text.contains(" init") || text.contains(" clone"))
    }
}
