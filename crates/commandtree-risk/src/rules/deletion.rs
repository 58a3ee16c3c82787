//! Deleting files outside the project: `rm` (recursive, or single files the system owns) and
//! `find … -delete`.

use super::paths::{SYSTEM_PREFIXES, is_temp, landing, sensitive_path, var_base};
use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Piece, Word, basename};

family_rule!(Family::Deletion, Reach::Machine);

pub(crate) const NO_PRESERVE_ROOT: Rule = rule(
    "rm-no-preserve-root",
    Level::Danger,
    "`rm --no-preserve-root`",
    "deletes the root folder (--no-preserve-root)",
    "rm -rf --no-preserve-root /",
);
pub(crate) const SYSTEM_FILE: Rule = rule(
    "rm-system-file",
    Level::Caution,
    "`rm` (not recursive) of a file under /usr, /opt, /etc, …",
    "deletes {}, outside the project",
    "rm -f /usr/local/bin/tool",
);
pub(crate) const TOOL_HOME: Rule = rule(
    "rm-tool-home",
    Level::Caution,
    "`rm -r \"$PYENV_ROOT\"`: a tool's home the script never sets",
    "deletes ${}, a tool's home outside the project (rm -r)",
    "pyenv install 3\nrm -rf \"$PYENV_ROOT\"",
);
pub(crate) const UNDER_TOOL_HOME: Rule = rule(
    "rm-under-tool-home",
    Level::Caution,
    "`rm -r \"$PYENV_ROOT/versions/x\"`, also through a variable set from it",
    "deletes {} under ${}, outside the project (rm -r)",
    "pyenv install 3\nrm -rf \"$PYENV_ROOT/versions/3\"",
);
pub(crate) const UNDER_HOME_MADE: Rule = rule(
    "rm-under-home-made",
    Level::Caution,
    "`rm -r` of a folder under the home folder whose path is made at run time (a configured \
     path with `~` expanded, `$HOME/$name`), also through functions printing it",
    "deletes {}, a folder under the home folder (rm -r)",
    "plugins() { echo \"${TOOL_PATH/#\\~/$HOME}\"; }\nfor d in \"$(plugins)\"/*; do rm -rf \"$d\"; done",
);
pub(crate) const ROOT_IF_EMPTY: Rule = rule(
    "rm-root-if-empty",
    Level::Danger,
    "`rm -r \"$DIR\"/*` where an unset DIR leaves `/` or a system folder",
    "deletes from / if ${} is empty",
    "rm -rf \"$DIR\"/*",
);
pub(crate) const EVERYTHING: Rule = rule(
    "rm-everything",
    Level::Danger,
    "`rm -r /`, `/*`",
    "deletes everything under / (rm -r)",
    "rm -rf /*",
);
pub(crate) const HOME_FOLDER: Rule = rule(
    "rm-home-folder",
    Level::Danger,
    "`rm -r ~`, `~/*`",
    "deletes the home folder (rm -r)",
    "rm -rf ~",
);
pub(crate) const SYSTEM_FOLDER: Rule = rule(
    "rm-system-folder",
    Level::Danger,
    "`rm -r /usr`, `/etc/*`, `~user`, a drive's root",
    "deletes the system folder {} (rm -r)",
    "rm -rf /usr",
);
pub(crate) const OUTSIDE: Rule = rule(
    "rm-outside",
    Level::Caution,
    "`rm -r` of a folder outside the project (home, absolute, `../`)",
    "deletes {}, outside the project (rm -r)",
    "rm -rf ~/.cache/tool",
);
pub(crate) const SENSITIVE: Rule = rule(
    "rm-sensitive",
    Level::Danger,
    "`rm -r` of credentials or a system account file given without `~`",
    "deletes {}",
    "rm -rf ./x/.ssh/id_rsa",
);
pub(crate) const USER_FILE: Rule = rule(
    "rm-user-file",
    Level::Danger,
    "`rm` (not recursive) of a credentials or startup file in the home folder",
    "deletes {} of the home folder ({})",
    "rm -f ~/.gitconfig",
);
pub(crate) const FIND_SYSTEM: Rule = rule(
    "find-delete-system",
    Level::Danger,
    "`find / -delete`, `find ~ -exec rm`: the root, home or a system folder",
    "deletes files under {}",
    "find / -name '*.log' -delete",
);
pub(crate) const FIND_OUTSIDE: Rule = rule(
    "find-delete-outside",
    Level::Caution,
    "`find DIR -delete` for a folder outside the project",
    "deletes files under {}",
    "find ~/.cache -type f -delete",
);

impl Analyser<'_> {
    pub(crate) fn deletion(&mut self, c: &Cmd) {
        match c.name.as_str() {
            "rm" | "rmdir" => self.rm(c),
            "find" => {
                let args = c.arg_texts();
                let start = c.args.first().map(Word::text).unwrap_or_default();
                let deletes = args.iter().any(|a| a == "-delete")
                    || args.windows(2).any(|w| {
                        (w[0] == "-exec" || w[0] == "-execdir") && basename(&w[1]) == "rm"
                    });
                if deletes && let Some(l) = self.outside(&start) {
                    let rule = match l {
                        Level::Danger => &FIND_SYSTEM,
                        Level::Caution => &FIND_OUTSIDE,
                    };
                    self.hit(rule, c.line, &c.snippet, &[&start]);
                }
            }
            _ => {}
        }
    }

    fn rm(&mut self, c: &Cmd) {
        let recursive = c.has_flag('r', "recursive") || c.has_flag('R', "recursive");
        if c.args.iter().any(|a| a.text() == "--no-preserve-root") {
            self.hit(&NO_PRESERVE_ROOT, c.line, &c.snippet, &[]);
        }
        if !recursive && c.name == "rm" {
            // Single files: only those the system owns matter (an uninstall from
            // /usr/local/bin needs privileges and changes the machine).
            for w in c.operands() {
                let (t, _) = landing(w);
                if let Some(abs) = t.strip_prefix('/')
                    && (SYSTEM_PREFIXES.contains(&abs.split('/').next().unwrap_or(""))
                        || abs.starts_with("etc/")
                        // A service's runtime files (its socket, its PID file).
                        || abs.starts_with("run/"))
                    && !is_temp(&t)
                {
                    self.hit(&SYSTEM_FILE, c.line, &c.snippet, &[&t]);
                } else if let Some((_, what)) = sensitive_path(&t)
                    && super::paths::home_rel(&t).is_some()
                {
                    // The user's git identity, a shell's startup file, a registry token: gone
                    // for every project, not only this one.
                    self.hit(&USER_FILE, c.line, &c.snippet, &[what, &t]);
                }
            }
            return;
        }
        for w in c.operands() {
            // `$PYENV_ROOT/versions/x`, or `$PREFIX` set from it: the user's install of a tool.
            if let Some(home) = self.tool_home_of(w) {
                let t = w.text();
                if t == format!("${home}") {
                    self.hit(&TOOL_HOME, c.line, &c.snippet, &[&home]);
                } else {
                    self.hit(&UNDER_TOOL_HOME, c.line, &c.snippet, &[&t, &home]);
                }
                continue;
            }
            // `"$plugin_dir"` looping over `"$(tpm_path)"/*`, where `tpm_path` prints a
            // configured folder with `~` expanded: the user's own folders, not the project's.
            if self.home_made(w) {
                let t = w.text();
                self.hit(&UNDER_HOME_MADE, c.line, &c.snippet, &[&t]);
                continue;
            }
            // `"$DIR"/…` with DIR empty is `/…`: dangerous when that is the root or a system
            // folder (`"$DIR"/*`, `$PREFIX/`), not for a project path (`"$DIR"/dist`).
            let mut lead = w
                .pieces
                .iter()
                .skip_while(|p| matches!(p, Piece::Lit(t) if t.is_empty()));
            if let Some(Piece::Var {
                name,
                guarded: false,
            }) = lead.next()
            {
                let rest: String = w
                    .pieces
                    .iter()
                    .skip_while(|p| !matches!(p, Piece::Var { .. }))
                    .skip(1)
                    .map(|p| match p {
                        Piece::Lit(t) => t.clone(),
                        // `${V:?}` fails when empty and `${V:-x}` has a default: never empty.
                        Piece::Var { guarded: true, .. } => "x".into(),
                        Piece::Var { .. } => String::new(),
                        Piece::Subst(_) => "x".into(),
                    })
                    .collect();
                if rest.starts_with('/') && self.outside(&rest) == Some(Level::Danger) {
                    let name = name.clone();
                    self.hit(&ROOT_IF_EMPTY, c.line, &c.snippet, &[&name]);
                }
                continue;
            }
            let t = w.text();
            if let Some(level) = self.outside(&t) {
                if level == Level::Danger {
                    match t.trim_end_matches(['/', '*']) {
                        "" => self.hit(&EVERYTHING, c.line, &c.snippet, &[]),
                        "~" => self.hit(&HOME_FOLDER, c.line, &c.snippet, &[]),
                        p => {
                            let p = p.to_string();
                            self.hit(&SYSTEM_FOLDER, c.line, &c.snippet, &[&p])
                        }
                    }
                } else {
                    self.hit(&OUTSIDE, c.line, &c.snippet, &[&t]);
                }
            } else if let Some((_, what)) = sensitive_path(&t) {
                self.hit(&SENSITIVE, c.line, &c.snippet, &[what]);
            }
        }
    }

    /// The tool home (`PYENV_ROOT`) that `w` lies under: it starts with the variable, or with
    /// one set from it (`PREFIX="${PYENV_ROOT}/versions/${VERSION_NAME}"`).
    pub(crate) fn tool_home_of(&self, w: &Word) -> Option<String> {
        let first = w
            .pieces
            .iter()
            .find(|p| !matches!(p, Piece::Lit(t) if t.is_empty()))?;
        let Piece::Var { name, .. } = first else {
            return None;
        };
        let mut name: String = var_base(name);
        for _ in 0..4 {
            if self.homes.contains(&name) {
                return Some(name);
            }
            let next = self.template(&name)?.strip_prefix('$')?;
            name = var_base(next.trim_start_matches('{'));
        }
        None
    }
}
