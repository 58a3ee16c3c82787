//! What each command does, by its name and arguments, once `shell` has read the words: one
//! module per family of rules, and [`RULES`], the table of every rule as data.
//!
//! A rule is a row: its name, its family, its severity, where it counts (the machine the code
//! runs on, or shared things), what it matches and the reason a user reads, with an example
//! that sets it off. A family's module holds its rows and the code that matches them; the code
//! reports a match with [`Analyser::hit`], which takes the severity, the reach and the reason
//! from the row. [`Analyser::check_command`] runs the families' checks in the order of
//! [`CHECKS`].
//!
//! Two kinds of findings: about the machine the code runs on (`Reach::Machine`: deletes, writes
//! outside the project, installs, runs as root, runs downloaded code) and about shared things
//! (`Reach::Shared`: publishes a package, pushes to a remote, deploys, changes a cloud or the
//! shared repository). Code that runs on another machine keeps only the second kind.
//!
//! Severity: `Danger` loses data or credentials outside the project, runs remote code or
//! force-rewrites shared history; `Caution` needs privileges, changes the machine or talks to
//! production. Nothing else is a finding: evaluating text made at run time, or a command name
//! computed at run time, is judged by where the text comes from.

/// The `rule` constructor of a family's module (`family_rule!(Family::X, Reach::Y)`): the rows
/// of one family differ only in name, level, what they match, reason and example (with a third
/// argument, a family whose rules share one level, the level too).
macro_rules! family_rule {
    ($family:expr, $reach:expr, $level:expr) => {
        const fn rule(
            name: &'static str,
            matches: &'static str,
            reason: &'static str,
            example: &'static str,
        ) -> super::Rule {
            super::Rule::of($family, $reach, name, $level, matches, reason, example)
        }
    };
    ($family:expr, $reach:expr) => {
        const fn rule(
            name: &'static str,
            level: crate::Level,
            matches: &'static str,
            reason: &'static str,
            example: &'static str,
        ) -> super::Rule {
            super::Rule::of($family, $reach, name, level, matches, reason, example)
        }
    };
}

mod containers;
mod databases;
mod deletion;
mod history;
mod infrastructure;
mod installs;
mod machine;
mod paths;
mod privileges;
mod publishing;
mod remote_code;
mod writes;

pub(crate) use paths::sensitive_path;
pub(crate) use privileges::AS_ROOT;
pub(crate) use remote_code::{PIPES_DECODED, PIPES_DOWNLOAD, RUNS_DOWNLOADED, SENDS_SECRETS};

use crate::Level;
use crate::shell::{Analyser, Cmd};

/// npm-compatible package managers: `X publish` publishes to a registry, `X add -g` installs
/// globally.
pub(super) const NPM_FAMILY: &[&str] = &["npm", "pnpm", "yarn", "bun", "aube", "cnpm"];

/// Subcommands of `pnpm`/`yarn`/`bun` that are theirs; any other first word runs a script or a
/// program of the project (`pnpm netlify deploy`).
const PM_BUILTINS: &[&str] = &[
    "add",
    "install",
    "i",
    "ci",
    "remove",
    "rm",
    "uninstall",
    "un",
    "update",
    "up",
    "upgrade",
    "run",
    "exec",
    "dlx",
    "x",
    "create",
    "init",
    "link",
    "ln",
    "unlink",
    "list",
    "ls",
    "outdated",
    "why",
    "store",
    "config",
    "get",
    "set",
    "audit",
    "import",
    "rebuild",
    "prune",
    "fetch",
    "patch",
    "setup",
    "env",
    "licenses",
    "root",
    "bin",
    "test",
    "t",
    "start",
    "publish",
    "pack",
    "deploy",
    "help",
    "version",
    "global",
    "workspace",
    "workspaces",
    "info",
    "cache",
    "npm",
    "plugin",
    "dedupe",
    "node",
    "login",
    "logout",
    "owner",
    "tag",
    "pm",
    "build",
];

/// What a family of rules is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Deleting files outside the project (`rm -rf`, `find -delete`).
    Deletion,
    /// The machine itself: disks, power, user accounts, its processes.
    Machine,
    /// Running as root, permissions and ownership.
    Privileges,
    /// Code from elsewhere: downloads run, code handed to a shell as text, remote shells.
    RemoteCode,
    /// Shared history and the shared repository (`git push --force`, `gh pr merge`).
    History,
    /// Dropping or emptying databases.
    Databases,
    /// Publishing, deploying and uploading: registries, hosting, storage, other machines.
    Publishing,
    /// Installing: system packages, global tools, installers.
    Installs,
    /// Writing outside the project: the home folder, the system, startup and credentials files.
    Writes,
    /// Containers given the host, and Docker's own data.
    Containers,
    /// Deployed infrastructure: clusters, cloud resources, Terraform.
    Infrastructure,
}

/// Where a rule's finding counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The machine the code runs on: dropped for code that runs elsewhere (a CI runner).
    Machine,
    /// Something shared (a registry, a remote, a deployment): counts wherever the code runs.
    Shared,
}

/// One rule: a row of [`RULES`].
#[derive(Debug)]
pub struct Rule {
    /// Unique, kebab-case.
    pub name: &'static str,
    pub family: Family,
    pub level: Level,
    pub reach: Reach,
    /// What it matches, for a reader of the table.
    pub matches: &'static str,
    /// What the user reads; each `{}` is filled in order by the code that matched.
    pub reason: &'static str,
    /// Shell code that sets it off (the table's test runs every one).
    pub example: &'static str,
}

/// The arguments that do not start with `-` (what a subcommand match looks at: `docker volume
/// rm`, `systemctl restart`), in order.
pub(crate) fn not_options(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect()
}

impl Rule {
    /// A row of `family` reaching `reach` (what [`family_rule!`] builds its `rule` with).
    const fn of(
        family: Family,
        reach: Reach,
        name: &'static str,
        level: Level,
        matches: &'static str,
        reason: &'static str,
        example: &'static str,
    ) -> Rule {
        Rule {
            name,
            family,
            level,
            reach,
            matches,
            reason,
            example,
        }
    }
}

/// Every rule, by family. A rule's code uses its row; a row not listed here is a mistake the
/// table's test finds when the row's code runs.
pub const RULES: &[&Rule] = &[
    // Deletion
    &deletion::NO_PRESERVE_ROOT,
    &deletion::SYSTEM_FILE,
    &deletion::TOOL_HOME,
    &deletion::UNDER_TOOL_HOME,
    &deletion::UNDER_HOME_MADE,
    &deletion::ROOT_IF_EMPTY,
    &deletion::EVERYTHING,
    &deletion::HOME_FOLDER,
    &deletion::SYSTEM_FOLDER,
    &deletion::OUTSIDE,
    &deletion::SENSITIVE,
    &deletion::USER_FILE,
    &deletion::FIND_SYSTEM,
    &deletion::FIND_OUTSIDE,
    // Machine
    &machine::STARTS_SCHEDULER,
    &machine::OVERWRITES_DISK,
    &machine::FORMATS_DISK,
    &machine::FORMATS_DRIVE,
    &machine::FORMATS_WITH,
    &machine::WIPES_DISK,
    &machine::SHUTS_DOWN,
    &machine::USER_ACCOUNTS,
    &machine::DELETES_USER,
    &machine::CRONTAB,
    &machine::SERVICES,
    &machine::NETWORK,
    &machine::FORK_BOMB,
    // Privileges
    &privileges::AS_ROOT,
    &privileges::SU_ROOT,
    &privileges::CHOWN_OUTSIDE,
    &privileges::WORLD_WRITABLE,
    &privileges::WORLD_WRITABLE_WIDE,
    &privileges::CHMOD_OUTSIDE,
    &privileges::SETUID,
    // Remote code
    &remote_code::EVAL_DOWNLOAD,
    &remote_code::EVAL_DECODED,
    &remote_code::SCRIPT_DOWNLOAD,
    &remote_code::RUNS_DOWNLOADED_SCRIPT,
    &remote_code::RUNS_DOWNLOADED,
    &remote_code::PIPES_DOWNLOAD,
    &remote_code::PIPES_DECODED,
    &remote_code::REMOTE_SHELL,
    &remote_code::DEV_TCP,
    &remote_code::SENDS_SECRETS,
    // History
    &history::PUSH_FORCE,
    &history::PUSH_DELETE,
    &history::PUSH,
    &history::RESET_HARD,
    &history::RESET_OWN_REPOSITORY,
    &history::CLEAN_IGNORED,
    &history::CLEAN,
    &history::CHECKOUT_DOT,
    &history::REWRITES,
    &history::GLOBAL_CONFIG,
    &history::GH_RELEASE,
    &history::GH_REPOSITORY,
    &history::GH_WORKFLOW,
    &history::GH_SETTINGS,
    // Databases
    &databases::DROPDB,
    &databases::DROP_DATABASE,
    &databases::DROP_TABLE,
    &databases::TRUNCATE,
    &databases::MONGO_DROP,
    &databases::REDIS_FLUSH,
    &databases::TASK_DROP,
    // Publishing
    &publishing::SCRIPT,
    &publishing::CURL_CHANGES,
    &publishing::CURL_UPLOAD,
    &publishing::COPY_TO_HOST,
    &publishing::RCLONE,
    &publishing::CLOUD_UPLOAD,
    &publishing::HELM_PUSH,
    &publishing::IMAGE_PUSH,
    &publishing::IMAGE_BUILD_PUSH,
    &publishing::CRATES,
    &publishing::RUBYGEMS,
    &publishing::PACKAGE_INDEX,
    &publishing::SETUP_PY,
    &publishing::NUGET,
    &publishing::CHOCOLATEY,
    &publishing::MAVEN,
    &publishing::GRADLE,
    &publishing::RELEASE_TOOL,
    &publishing::GORELEASER,
    &publishing::DPUT,
    &publishing::COPR,
    &publishing::SNAPCRAFT,
    &publishing::HOSTING,
    &publishing::MKDOCS,
    &publishing::GH_PAGES,
    &publishing::IMAGE_COPY,
    &publishing::NPM,
    &publishing::NPM_DIST_TAG,
    // Installs
    &installs::INSTALLER,
    &installs::MAKE_INSTALL,
    &installs::SYSTEM_PACKAGES,
    &installs::PACMAN,
    &installs::DPKG,
    &installs::CARGO,
    &installs::GO,
    &installs::RUSTUP,
    &installs::RUNTIME_VERSIONS,
    &installs::TOOL_VERSIONS,
    &installs::GEMS,
    &installs::PIPX,
    &installs::UV_TOOL,
    &installs::SYSTEM_PYTHON,
    &installs::DOTNET_TOOL,
    &installs::NPM_GLOBAL,
    &installs::NPM_GLOBAL_COMMAND,
    // Writes
    &writes::TOOL_BIN,
    &writes::STARTUP_PICKED,
    &writes::STARTUP_VARIABLE,
    &writes::SECRETS,
    &writes::STARTUP_FILE,
    &writes::SYSTEM_CONFIG,
    &writes::SYSTEM_PREFIX,
    &writes::HOME_BIN,
    &writes::OVER_HOME,
    &writes::HOME,
    &writes::HOME_MADE,
    &writes::WINDOWS,
    // Containers
    &containers::SYSTEM_PRUNE,
    &containers::VOLUMES,
    &containers::PRUNE,
    &containers::COMPOSE_VOLUMES,
    &containers::PRIVILEGED,
    &containers::HOST_MOUNT,
    &containers::HOST_NAMESPACES,
    &containers::EVERY_CONTAINER,
    &containers::CONTAINER_DATABASE,
    // Infrastructure
    &infrastructure::KUBECTL_DELETE,
    &infrastructure::HELM_UNINSTALL,
    &infrastructure::DESTROYS,
    &infrastructure::CHANGES,
    &infrastructure::CLOUD_DELETE,
];

/// A family's check of one command.
pub(crate) type Check = for<'a> fn(&mut Analyser<'a>, &Cmd);

/// The families' checks, in the order a command's findings are listed (findings on one line
/// with one severity keep this order). Each command name is matched by one family, except
/// where a family's check says whose it leaves (`curl -X PUT -o f`: publishing, then writes).
pub(crate) const CHECKS: &[(Family, Check)] = &[
    (Family::RemoteCode, |a, c| a.code_as_text(c)),
    (Family::Privileges, |a, c| a.su(c)),
    (Family::Installs, |a, c| a.installer(c)),
    (Family::Publishing, |a, c| a.publishing_script(c)),
    (Family::Deletion, |a, c| a.deletion(c)),
    (Family::Privileges, |a, c| a.permissions(c)),
    (Family::Machine, |a, c| a.machine(c)),
    (Family::History, |a, c| a.history(c)),
    (Family::Installs, |a, c| a.make_install(c)),
    (Family::Containers, |a, c| a.containers(c)),
    (Family::Infrastructure, |a, c| a.infrastructure(c)),
    (Family::Databases, |a, c| a.databases(c)),
    (Family::RemoteCode, |a, c| a.remote_shell(c)),
    (Family::Publishing, |a, c| a.transfers(c)),
    (Family::Writes, |a, c| a.writes(c)),
    (Family::Installs, |a, c| a.installs(c)),
    (Family::Publishing, |a, c| a.publishing(c)),
    (Family::RemoteCode, |a, c| a.sends_secrets(c)),
];

/// `template` with each `{}` replaced by the next of `args`.
fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    let mut next = args.iter();
    while let Some(at) = rest.find("{}") {
        out.push_str(&rest[..at]);
        out.push_str(next.next().copied().unwrap_or(""));
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
thread_local! {
    /// The rules hit on this thread, for the table's test.
    static HITS: std::cell::RefCell<Vec<&'static str>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Analyser<'_> {
    /// A finding of `rule` at `line`, its reason filled with `args`.
    pub(crate) fn hit(&mut self, rule: &'static Rule, line: u32, snippet: &str, args: &[&str]) {
        // Every test of the crate checks that the rules it sets off are in the table.
        #[cfg(test)]
        {
            assert!(
                RULES.iter().any(|r| r.name == rule.name),
                "{} is not in RULES",
                rule.name
            );
            assert_eq!(
                rule.reason.matches("{}").count(),
                args.len(),
                "{}: one value for each {{}} of its reason",
                rule.name
            );
            HITS.with(|h| h.borrow_mut().push(rule.name));
        }
        let reason = fill(rule.reason, args);
        match rule.reach {
            Reach::Machine => self.add(rule.level, line, reason, snippet),
            Reach::Shared => self.shared(rule.level, line, reason, snippet),
        }
    }

    /// What a command does, rule family by rule family ([`CHECKS`]); then, for `pnpm
    /// netlify deploy`, what the project's program it runs does.
    pub fn check_command(&mut self, c: &Cmd) {
        for (_, check) in CHECKS {
            check(self, c);
        }
        if matches!(c.name.as_str(), "pnpm" | "yarn" | "bun")
            && let Some((i, sub)) = c.subcommand(&["--filter", "-F", "-C", "--dir", "--cwd"])
            && !PM_BUILTINS.contains(&sub.as_str())
            && let Some(inner) = c.shifted(i)
        {
            self.check_command(&inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_rule_is_set_off_by_its_example() {
        let mut missed = Vec::new();
        for rule in RULES {
            HITS.with(|h| h.borrow_mut().clear());
            let found = crate::analyse("shell", rule.example);
            let hit = HITS.with(|h| h.borrow().contains(&rule.name));
            let shown = found
                .iter()
                .any(|f| f.level == rule.level && matches_template(rule.reason, &f.reason));
            if !(hit && shown) {
                missed.push(format!("{} ({}): {found:#?}", rule.name, rule.example));
            }
        }
        assert!(missed.is_empty(), "{}", missed.join("\n"));
    }

    #[test]
    fn the_table_has_every_rule_once_and_every_family() {
        let mut names = HashSet::new();
        for rule in RULES {
            assert!(names.insert(rule.name), "{} twice", rule.name);
            assert!(
                rule.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                rule.name
            );
            assert!(!rule.matches.is_empty() && !rule.example.is_empty());
        }
        for family in [
            Family::Deletion,
            Family::Machine,
            Family::Privileges,
            Family::RemoteCode,
            Family::History,
            Family::Databases,
            Family::Publishing,
            Family::Installs,
            Family::Writes,
            Family::Containers,
            Family::Infrastructure,
        ] {
            assert!(RULES.iter().any(|r| r.family == family), "{family:?}");
            assert!(CHECKS.iter().any(|(f, _)| *f == family), "{family:?}");
        }
    }

    /// Whether `reason` is `template` with its `{}` filled.
    fn matches_template(template: &str, reason: &str) -> bool {
        let parts: Vec<&str> = template.split("{}").collect();
        let mut rest = reason;
        for (i, p) in parts.iter().enumerate() {
            if i == 0 {
                let Some(r) = rest.strip_prefix(p) else {
                    return false;
                };
                rest = r;
            } else if i == parts.len() - 1 {
                return rest.ends_with(p);
            } else {
                let Some(at) = rest.find(p) else {
                    return false;
                };
                rest = &rest[at + p.len()..];
            }
        }
        parts.len() > 1 || rest.is_empty()
    }

    #[test]
    fn templates_are_filled_in_order() {
        assert_eq!(fill("a {} b {}", &["1", "2"]), "a 1 b 2");
        assert!(matches_template(
            "deletes {}, outside",
            "deletes ~/x, outside"
        ));
        assert!(!matches_template("deletes {}, outside", "writes ~/x"));
    }
}
