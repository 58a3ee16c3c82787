//! Containers given the host (`--privileged`, the Docker socket or a host folder mounted, the
//! host's network or processes) and Docker's own data deleted (`prune`, volumes). What a
//! container's command does to its own machine stays there; what it does to shared things
//! (`docker run amazon/aws-cli s3 cp … s3://…`) is checked like any command's.

use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Piece, Word};

family_rule!(Family::Containers, Reach::Machine);

pub(crate) const SYSTEM_PRUNE: Rule = rule(
    "docker-system-prune",
    Level::Danger,
    "`docker system prune`",
    "deletes all unused containers, images and networks (docker system prune)",
    "docker system prune -af",
);
pub(crate) const VOLUMES: Rule = rule(
    "docker-volumes",
    Level::Danger,
    "`docker volume prune`, `docker volume rm` (`remove`)",
    "deletes Docker volumes and their data",
    "docker volume rm app_pgdata",
);
pub(crate) const PRUNE: Rule = rule(
    "docker-prune",
    Level::Caution,
    "`docker image prune`, `container prune`, `builder prune`, …",
    "deletes unused Docker objects (prune)",
    "docker image prune -f",
);
pub(crate) const COMPOSE_VOLUMES: Rule = rule(
    "compose-down-volumes",
    Level::Caution,
    "`docker compose down -v`",
    "deletes the project's volumes and their data (compose down -v)",
    "docker compose down -v",
);
pub(crate) const PRIVILEGED: Rule = rule(
    "container-privileged",
    Level::Caution,
    "`docker run --privileged`",
    "runs a container with full access to the host (--privileged)",
    "docker run --rm --privileged ubuntu true",
);
pub(crate) const HOST_MOUNT: Rule = rule(
    "container-host-mount",
    Level::Caution,
    "`-v /var/run/docker.sock:…`, `-v /:/host`, `-v ~/.ssh:…`, a system folder mounted",
    "gives a container {}",
    "docker run --rm -v /var/run/docker.sock:/var/run/docker.sock docker:cli ps",
);
pub(crate) const HOST_NAMESPACES: Rule = rule(
    "container-host-namespaces",
    Level::Caution,
    "`--network host`, `--pid host`, `--ipc host`",
    "runs a container in the host's network or process space",
    "docker run --rm --network host nginx",
);

pub(crate) const CONTAINER_DATABASE: Rule = rule(
    "container-database",
    Level::Caution,
    "`docker compose exec db psql -c 'DROP DATABASE …'`, `docker exec` of the same: a database in a container",
    "{} in a container ({})",
    "docker compose exec postgres psql -U postgres -c 'drop database if exists tests'",
);
pub(crate) const EVERY_CONTAINER: Rule = rule(
    "docker-rm-every",
    Level::Danger,
    "`docker rm $(docker ps -aq)`, `docker rmi $(docker images -q)`: not filtered",
    "removes every {} on the machine, other projects' too",
    "docker rm -f $(docker ps -aq)",
);

impl Analyser<'_> {
    /// `docker exec [options] NAME CMD…` from argument `from` on (the options, the container or
    /// service, its command): a command there that drops or empties a database loses the data
    /// of the project's container, not the machine's: a caution.
    fn database_in_container(&mut self, c: &Cmd, from: usize, how: &str) {
        let mut i = from;
        while let Some(t) = c.args.get(i).map(Word::text) {
            if !t.starts_with('-') {
                break;
            }
            i += if EXEC_VALUE_OPTIONS.contains(&t.as_str()) {
                2
            } else {
                1
            };
        }
        // The container or service, then its command.
        let words: Vec<Word> = c.args.iter().skip(i + 1).cloned().collect();
        if words.is_empty() {
            return;
        }
        let Some(inner) = self.unwrap(words, c.line, &c.snippet, 1) else {
            return;
        };
        let mut found = Vec::new();
        let code = crate::shell::is_shell(&inner.name)
            .then(|| inner.args.iter().position(|w| w.text() == "-c"))
            .flatten()
            .and_then(|at| inner.args.get(at + 1))
            .and_then(Word::literal);
        if let Some(code) = code {
            // `sh -c 'psql … && psql …'`: the code the container's shell runs.
            crate::shell::analyse(&code, c.line, &mut found);
        } else {
            let before = self.out.len();
            self.databases(&inner);
            found = self.out.drain(before..).collect();
        }
        let of_a_database = |reason: &str| {
            super::RULES.iter().any(|r| {
                r.family == super::Family::Databases
                    && reason.starts_with(r.reason.split("{}").next().unwrap_or(r.reason))
            })
        };
        if let Some(f) = found.iter().find(|f| of_a_database(&f.reason)) {
            let what = f.reason.clone();
            self.hit(&CONTAINER_DATABASE, c.line, &c.snippet, &[&what, how]);
        }
    }
}

/// Options of `docker exec` and `docker compose exec`/`run` that take a value.
const EXEC_VALUE_OPTIONS: &[&str] = &[
    "-u",
    "--user",
    "-w",
    "--workdir",
    "-e",
    "--env",
    "--env-file",
    "--index",
    "--name",
    "-p",
    "--publish",
    "-v",
    "--volume",
    "--entrypoint",
    "-l",
    "--label",
];

/// What `docker ps -aq` (every container) or `docker images -q` (every image) lists, when a
/// command substitution's text is that with no filter.
fn lists_every(subst: &str) -> Option<&'static str> {
    let inner = subst
        .trim()
        .strip_prefix("$(")
        .and_then(|t| t.strip_suffix(')'))
        .or_else(|| subst.trim().strip_prefix('`')?.strip_suffix('`'))
        .unwrap_or(subst)
        .trim();
    // Make's `$(shell docker ps -aq)` is the shell's `$(docker ps -aq)`.
    let text = inner.strip_prefix("shell ").unwrap_or(inner);
    let words: Vec<&str> = text.split_whitespace().collect();
    if !matches!(words.first(), Some(&("docker" | "podman" | "nerdctl")))
        || text.contains('|')
        || words.iter().any(|w| {
            w.starts_with("--filter")
                || (w.starts_with('-') && !w.starts_with("--") && w.contains('f'))
        })
    {
        return None;
    }
    let quiet = words.iter().any(|w| {
        *w == "--quiet" || (w.starts_with('-') && !w.starts_with("--") && w.contains('q'))
    });
    let all = words
        .iter()
        .any(|w| *w == "--all" || (w.starts_with('-') && !w.starts_with("--") && w.contains('a')));
    match &words[1..] {
        [sub, ..]
            if quiet && all && (*sub == "ps" || words.get(1..3) == Some(&["container", "ls"])) =>
        {
            Some("container")
        }
        [sub, ..] if quiet && (*sub == "images" || words.get(1..3) == Some(&["image", "ls"])) => {
            Some("image")
        }
        _ => None,
    }
}

/// Options of `docker compose` itself that take a value.
const COMPOSE_OPTIONS_WITH_VALUE: &[&str] = &[
    "--ansi",
    "--env-file",
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--profile",
    "--project-directory",
    "--progress",
    "--parallel",
];

impl Analyser<'_> {
    pub(crate) fn containers(&mut self, c: &Cmd) {
        // The standalone Compose (`docker-compose down -v`) is `docker compose`.
        if matches!(c.name.as_str(), "docker-compose" | "podman-compose") {
            let mut args = vec![Word::lit("compose")];
            args.extend(c.args.iter().cloned());
            let c = Cmd {
                name: "docker".into(),
                args,
                line: c.line,
                snippet: c.snippet.clone(),
            };
            return self.containers(&c);
        }
        if !matches!(c.name.as_str(), "docker" | "podman" | "nerdctl") {
            return;
        }
        let args = c.arg_texts();
        // `compose --ansi never --env-file .env down -v`: Compose's own options and their values
        // come before its command.
        if args.first().is_some_and(|a| a == "compose") {
            let mut rest = args[1..].iter().enumerate();
            while let Some((i, a)) = rest.next() {
                if COMPOSE_OPTIONS_WITH_VALUE.contains(&a.as_str()) {
                    rest.next();
                    continue;
                }
                if a.starts_with('-') {
                    continue;
                }
                if a == "down" && args.iter().any(|a| a == "-v" || a == "--volumes") {
                    self.hit(&COMPOSE_VOLUMES, c.line, &c.snippet, &[]);
                }
                if matches!(a.as_str(), "exec" | "run") {
                    // `args[i + 1]` is the subcommand; what follows its options is the
                    // service and its command.
                    self.database_in_container(c, i + 2, "docker compose exec");
                }
                break;
            }
            return;
        }
        if let Some(i) = args.iter().position(|a| !a.starts_with('-'))
            && (args[i] == "exec"
                || (args[i] == "container" && args.get(i + 1).is_some_and(|a| a == "exec")))
        {
            let from = if args[i] == "exec" { i + 1 } else { i + 2 };
            self.database_in_container(c, from, "docker exec");
        }
        let pos = super::not_options(&args);
        if matches!(
            pos.as_slice(),
            ["rm" | "rmi", ..] | ["container" | "image", "rm" | "remove", ..]
        ) && let Some(what) = c.args.iter().find_map(|w| {
            w.pieces.iter().find_map(|p| match p {
                Piece::Subst(t) => lists_every(t),
                _ => None,
            })
        }) {
            self.hit(&EVERY_CONTAINER, c.line, &c.snippet, &[what]);
        }
        match pos.as_slice() {
            ["system", "prune", ..] => self.hit(&SYSTEM_PRUNE, c.line, &c.snippet, &[]),
            ["volume", "prune" | "rm" | "remove", ..] => {
                self.hit(&VOLUMES, c.line, &c.snippet, &[])
            }
            [_, "prune", ..] => self.hit(&PRUNE, c.line, &c.snippet, &[]),
            // Pushing an image is publishing's.
            _ => {}
        }
        if !matches!(
            pos.first(),
            Some(&("run" | "create" | "container" | "exec"))
        ) {
            return;
        }
        // `docker run … amazon/aws-cli s3 cp … s3://bucket`: what the container's command does
        // to shared things is done, wherever it runs; its own machine is the container.
        if let Some(inner) = container_command(c) {
            let scope = self.scope;
            self.scope = crate::shell::Scope::Remote;
            if let Some(inner) = self.unwrap(inner, c.line, &c.snippet, 1) {
                self.check_command(&inner);
            }
            self.scope = scope;
        }
        if args.iter().any(|a| a == "--privileged") {
            self.hit(&PRIVILEGED, c.line, &c.snippet, &[]);
        }
        let mounts: Vec<String> = args
            .windows(2)
            .filter(|w| w[0] == "-v" || w[0] == "--volume")
            .map(|w| w[1].clone())
            .chain(
                args.iter()
                    .filter_map(|a| a.strip_prefix("--volume=").map(str::to_string)),
            )
            .collect();
        for m in mounts {
            if let Some(what) = crate::container::host_mount(&m) {
                self.hit(&HOST_MOUNT, c.line, &c.snippet, &[&what]);
            }
        }
        if args.iter().any(|a| {
            matches!(
                a.as_str(),
                "--network=host" | "--net=host" | "--pid=host" | "--ipc=host"
            )
        }) || args
            .windows(2)
            .any(|w| matches!(w[0].as_str(), "--network" | "--net" | "--pid") && w[1] == "host")
        {
            self.hit(&HOST_NAMESPACES, c.line, &c.snippet, &[]);
        }
    }
}

/// `docker run` options that take a value (the next word unless written `--opt=value`).
const RUN_VALUE_OPTIONS: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--cpu-period",
    "--cpu-quota",
    "--device",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-timeout",
    "--health-start-period",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--pid",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volumes-from",
    "-w",
    "--workdir",
];

/// Images whose entrypoint is a command-line tool: `docker run amazon/aws-cli s3 cp …` runs
/// `aws s3 cp …`.
const CLI_IMAGES: &[(&str, &str)] = &[
    ("amazon/aws-cli", "aws"),
    ("public.ecr.aws/aws-cli/aws-cli", "aws"),
    ("hashicorp/terraform", "terraform"),
    ("bitnami/kubectl", "kubectl"),
    ("alpine/helm", "helm"),
    ("rclone/rclone", "rclone"),
    ("alpine/git", "git"),
];

/// The command a `docker run` (`podman run`, `docker container run`) starts in its container,
/// with the entrypoint of a tool's image put first, when there is one.
fn container_command(c: &Cmd) -> Option<Vec<Word>> {
    let mut i = c.args.iter().position(|w| !w.text().starts_with('-'))?;
    if c.args[i].text() == "container" {
        i += 1;
    }
    if c.args.get(i)?.text() != "run" {
        return None;
    }
    i += 1;
    let mut entrypoint = None;
    while let Some(w) = c.args.get(i) {
        let t = w.text();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        if let Some(v) = t.strip_prefix("--entrypoint=") {
            entrypoint = Some(Word::lit(v));
        }
        if RUN_VALUE_OPTIONS.contains(&t.as_str()) {
            if t == "--entrypoint" {
                entrypoint = c.args.get(i + 1).cloned();
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    let image = c.args.get(i)?.text();
    let bare = image.split(['@']).next().unwrap_or(&image);
    let bare = match bare.rsplit_once(':') {
        Some((b, tag)) if !tag.contains('/') => b,
        _ => bare,
    };
    let bare = bare.strip_prefix("docker.io/").unwrap_or(bare);
    let entrypoint = entrypoint.or_else(|| {
        CLI_IMAGES
            .iter()
            .find(|(img, _)| *img == bare)
            .map(|(_, tool)| Word::lit(tool))
    });
    let mut words: Vec<Word> = entrypoint.into_iter().collect();
    words.extend(c.args[i + 1..].iter().cloned());
    (!words.is_empty()).then_some(words)
}
