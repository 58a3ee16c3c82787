//! Running as root (`sudo`, `doas`, `su`), and permissions and ownership: files made writable by
//! everyone, setuid, recursive changes outside the project.

use super::paths::is_temp;
use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Word};

family_rule!(Family::Privileges, Reach::Machine);

/// Found where the words are read (`shell`): the wrapper is taken off and what it runs judged.
pub(crate) const AS_ROOT: Rule = rule(
    "runs-as-root",
    Level::Caution,
    "`sudo`, `doas`, `pkexec`, `run0` before a command",
    "runs as root ({})",
    "sudo systemctl restart nginx",
);
pub(crate) const SU_ROOT: Rule = rule(
    "su-root",
    Level::Caution,
    "`su`, `su -`, `su root`",
    "runs as root (su)",
    "su root -c 'systemctl restart nginx'",
);
pub(crate) const CHOWN_OUTSIDE: Rule = rule(
    "chown-outside",
    Level::Danger,
    "`chown -R`/`chgrp -R` of a folder outside the project",
    "changes the owner of files outside the project, recursively",
    "chown -R me /usr/local",
);
pub(crate) const WORLD_WRITABLE: Rule = rule(
    "world-writable",
    Level::Caution,
    "`chmod 777`, `o+w`, `a=rwx` of the project's files",
    "makes files writable by everyone (chmod {}{})",
    "chmod 777 build/out.sock",
);
pub(crate) const WORLD_WRITABLE_WIDE: Rule = rule(
    "world-writable-wide",
    Level::Danger,
    "the same, recursive or outside the project",
    "makes files writable by everyone (chmod {}{})",
    "chmod -R 777 .",
);
pub(crate) const CHMOD_OUTSIDE: Rule = rule(
    "chmod-outside",
    Level::Danger,
    "`chmod -R` of a folder outside the project",
    "changes permissions outside the project, recursively",
    "chmod -R 755 /usr/local",
);
pub(crate) const SETUID: Rule = rule(
    "setuid",
    Level::Caution,
    "`chmod u+s`, `chmod 4755`",
    "sets the setuid bit",
    "chmod 4755 ./tool",
);

impl Analyser<'_> {
    pub(crate) fn su(&mut self, c: &Cmd) {
        if c.name == "su" {
            let user = c.operands().into_iter().map(Word::text).next();
            if user.as_deref().is_none_or(|u| u == "root" || u == "-") {
                self.hit(&SU_ROOT, c.line, &c.snippet, &[]);
            }
        }
    }

    pub(crate) fn permissions(&mut self, c: &Cmd) {
        match c.name.as_str() {
            "chmod" => self.chmod(c),
            "chown" | "chgrp"
                if c.has_flag('R', "recursive")
                    && c.operands()
                        .iter()
                        .skip(1)
                        .any(|w| self.outside(&w.text()).is_some()) =>
            {
                self.hit(&CHOWN_OUTSIDE, c.line, &c.snippet, &[]);
            }
            _ => {}
        }
    }

    fn chmod(&mut self, c: &Cmd) {
        let ops = c.operands();
        let Some(mode) = ops.first().map(|w| w.text()) else {
            return;
        };
        // `curl -o bin/tool URL` then `chmod +x bin/tool`: a program fetched to be run (by
        // this command or another that needs it, as a make prerequisite is).
        let runnable = if mode.chars().all(|ch| ch.is_ascii_digit()) {
            mode.chars()
                .any(|d| d.to_digit(10).is_some_and(|d| d % 2 == 1))
        } else {
            mode.contains('x')
        };
        if runnable
            && let Some(tool) = ops
                .iter()
                .skip(1)
                .find_map(|w| self.facts.downloaded_by(&w.raw))
                .map(str::to_string)
        {
            self.hit(&crate::rules::RUNS_DOWNLOADED, c.line, &c.snippet, &[&tool]);
        }
        let targets: Vec<String> = ops.iter().skip(1).map(|w| w.text()).collect();
        if !targets.is_empty() && targets.iter().all(|t| is_temp(t)) {
            // A folder the script made for itself.
            return;
        }
        let m = mode.trim_start_matches('0');
        // Symbolic modes: a clause whose "who" includes others (`o`, `a`) granting `w`. A bare
        // `+w` is limited by the umask (the owner only, as usually set up).
        let symbolic_world = mode.split(',').any(|clause| {
            let who: String = clause
                .chars()
                .take_while(|ch| matches!(ch, 'u' | 'g' | 'o' | 'a'))
                .collect();
            let rest = &clause[who.len()..];
            (who.contains('o') || who.contains('a'))
                && (rest.starts_with('+') || rest.starts_with('='))
                && rest.contains('w')
        });
        let world_writable = (m.len() == 3 && matches!(m.as_bytes()[2], b'2' | b'3' | b'6' | b'7'))
            || (m.len() == 4 && matches!(m.as_bytes()[3], b'2' | b'3' | b'6' | b'7'))
            || symbolic_world;
        let targets_outside = targets.iter().any(|t| self.outside(t).is_some());
        if world_writable {
            let recursive = c.has_flag('R', "recursive");
            let rule = if recursive || targets_outside {
                &WORLD_WRITABLE_WIDE
            } else {
                &WORLD_WRITABLE
            };
            let how = if recursive { ", recursively" } else { "" };
            self.hit(rule, c.line, &c.snippet, &[&mode, how]);
        } else if c.has_flag('R', "recursive") && targets_outside {
            self.hit(&CHMOD_OUTSIDE, c.line, &c.snippet, &[]);
        }
        if mode.contains("+s") || (m.len() == 4 && matches!(m.as_bytes()[0], b'4' | b'6')) {
            self.hit(&SETUID, c.line, &c.snippet, &[]);
        }
    }
}
