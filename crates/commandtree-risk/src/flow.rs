//! What a whole script says about its variables, read once before it is walked and in no
//! particular order (a script's functions may run in any): which variables it sets, which
//! programs it runs, and which variables may hold one of the user's shell startup files.
//!
//! The last is how installers and `init --install` commands pick the file they append to: a
//! `case` over the user's shell (`rc='~/.bashrc'` … `rc='~/.zshrc'`), a function printing the
//! path, arrays of files and a helper taking the file as `$1`. A variable holds a startup file
//! when any assignment, `for` list or argument it gets from may: that is what "picked at run
//! time" means.
//!
//! The same propagation tells which variables and functions' outputs are a folder under the
//! user's home picked at run time: a plugin manager's `tpm_path` prints a path read from the
//! tool's configuration with `~` expanded to `$HOME` (`"${path/#\~/$HOME}"`), and the scripts
//! delete, clone into and pull in folders under it.

use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// Rounds of propagation through assignments, calls and function results: far beyond any real
/// chain, and a bound for crafted ones.
const MAX_ROUNDS: usize = 12;
const MAX_NODES: usize = 200_000;
const MAX_TREE_DEPTH: usize = 400;

/// A function's body, by bytes.
#[derive(Debug, Clone)]
struct Function {
    name: String,
    start: usize,
    end: usize,
}

/// Where a variable lives: the function that declared it `local`, or the script.
type Scoped = (Option<String>, String);

#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// Variables the script sets itself; `X="${X:-…}"` only gives the caller's value a
    /// default, so it is not among them.
    pub assigned: HashSet<String>,
    /// Literal names of the programs and functions it runs.
    pub programs: HashSet<String>,
    /// Functions that run their arguments as a command (`capture_command() { …; "$@"; }`):
    /// `capture_command make install` runs `make install`.
    pub wrappers: HashSet<String>,
    /// Variables it reads (`$X`, `${X…}`).
    pub used: HashSet<String>,
    /// The literal values each variable is given, on whatever path (`sh_c='sh -c'`, then
    /// `sh_c='sudo -E sh -c'` when not root, `sh_c=echo` for a dry run), in text order.
    pub values: HashMap<String, Vec<String>>,
    /// Files it downloads into (`curl -o "$file"`, `wget -O /tmp/x.sh`, a function's
    /// `curl --output "$2"` reached as `downloader "$url" "$file"`): `$name` for a variable,
    /// the path as written otherwise, with the downloader.
    pub downloaded: HashMap<String, String>,
    /// Paths it sources, as written (`../../nvm.sh`, `"$NVM_DIR/nvm.sh"`).
    pub sourced: Vec<String>,
    functions: Vec<Function>,
    /// Variables a function declares `local`.
    locals: HashSet<(String, String)>,
    /// What may hold a shell startup file.
    startup: Held,
    /// What may hold a folder under the user's home whose rest is picked at run time.
    home: Held,
}

/// Where a kind of value may be held, found by propagation.
#[derive(Debug, Default)]
struct Held {
    /// Variables.
    vars: HashSet<Scoped>,
    /// Positional parameters of functions (`append_lines "$rc"`).
    params: HashSet<(String, usize)>,
    /// Functions whose output may be one (`rc_path="$(expand_home_path "$rc")"`).
    yielding: HashSet<String>,
}

/// The kinds of value propagated.
#[derive(Clone, Copy)]
enum Kind {
    Startup,
    Home,
}

/// A place a value comes from, kept to propagate.
struct Flow<'t> {
    scope: Option<String>,
    /// The variable it sets, or the function whose parameter it is, or whose output.
    into: Into,
    from: Vec<Node<'t>>,
}

/// What a value is made of, read once: whether it names a startup file itself or a folder
/// under the home folder with a part made at run time, the variables it reads, and its text
/// when it runs commands (a function's output).
struct Source {
    startup: bool,
    home: bool,
    vars: Vec<String>,
    substituted: Option<String>,
}

impl Source {
    fn of(n: Node, src: &[u8]) -> Source {
        let raw = text(n, src);
        let mut vars = Vec::new();
        let mut stack = vec![(n, 0usize)];
        while let Some((k, depth)) = stack.pop() {
            if depth > MAX_TREE_DEPTH {
                continue;
            }
            if matches!(k.kind(), "simple_expansion" | "expansion") {
                let t = text(k, src);
                if !(t.starts_with("${#") || t.starts_with("${!")) {
                    let name: String = t
                        .trim_start_matches('$')
                        .trim_start_matches('{')
                        .chars()
                        .take_while(|c| {
                            c.is_ascii_alphanumeric() || *c == '_' || *c == '@' || *c == '*'
                        })
                        .collect();
                    if !name.is_empty() && !vars.contains(&name) {
                        vars.push(name);
                    }
                }
            }
            let mut c = k.walk();
            stack.extend(k.named_children(&mut c).map(|x| (x, depth + 1)));
        }
        Source {
            startup: names_startup_file(&raw),
            home: names_home_made(&raw),
            vars,
            substituted: (raw.contains("$(") || raw.contains('`')).then_some(raw),
        }
    }
}

enum Into {
    Var(String),
    Param(String, usize),
    Output,
    /// A call of a function whose output is this function's own (`_tpm_path` ending in
    /// `_manual_expansion "$p"`): held when the callee yields.
    Passes(String),
}

impl Facts {
    pub fn of(root: Node, src: &[u8]) -> Facts {
        let mut facts = Facts::default();
        let mut flows: Vec<Flow> = Vec::new();
        // Each node with the function it lies in (the innermost), found on the way down.
        // One pass with a cursor; what a node needs of its parents (the function it lies in,
        // a `local` declaration around it) is kept on the way down, as `parent()` costs a walk
        // from the root.
        let mut nodes = Vec::new();
        let mut cursor = root.walk();
        // For the children of each node on the path: (function, inside `local`, inside a
        // command substitution or a redirected statement, whose output is not the function's).
        let mut states: Vec<(Option<usize>, bool, bool)> = vec![(None, false, false)];
        let mut visited = 0;
        loop {
            let n = cursor.node();
            let (mut within, in_local, captured) =
                states.last().copied().unwrap_or((None, false, false));
            visited += 1;
            if n.is_named() {
                match n.kind() {
                    "function_definition" => {
                        if let (Some(name), Some(body)) =
                            (n.child_by_field_name("name"), n.child_by_field_name("body"))
                        {
                            facts.functions.push(Function {
                                name: text(name, src),
                                start: body.start_byte(),
                                end: body.end_byte(),
                            });
                            within = Some(facts.functions.len() - 1);
                        }
                    }
                    "variable_assignment" | "declaration_command" | "for_statement" | "command" => {
                        nodes.push((n, within, in_local, captured))
                    }
                    "simple_expansion" | "expansion" => {
                        let mut c = n.walk();
                        for k in n.named_children(&mut c) {
                            let name = match k.kind() {
                                "variable_name" => Some(k),
                                "subscript" => k.child_by_field_name("name"),
                                _ => None,
                            };
                            if let Some(name) = name {
                                facts.used.insert(text(name, src));
                            }
                        }
                    }
                    _ => {}
                }
            }
            if states.len() <= MAX_TREE_DEPTH && visited < MAX_NODES && cursor.goto_first_child() {
                states.push((
                    within,
                    n.is_named() && declares_local(n, src),
                    captured
                        || matches!(
                            n.kind(),
                            "command_substitution"
                                | "process_substitution"
                                | "redirected_statement"
                        ),
                ));
                continue;
            }
            let mut more = false;
            while !more {
                if cursor.goto_next_sibling() {
                    more = true;
                } else if cursor.goto_parent() {
                    states.pop();
                } else {
                    break;
                }
            }
            if !more {
                break;
            }
        }
        // Only a script that names a startup file can pick one at run time.
        let startup_named = {
            let t = String::from_utf8_lossy(src);
            STARTUP_FILES.iter().any(|f| t.contains(f))
                || t.contains("~/.$")
                || t.contains("config.fish")
                || t.contains("profile.ps1")
        };
        // Downloads into a file: (function, target as written, downloader), and every call:
        // (function, program, arguments as written).
        let mut downloads: Vec<(Option<String>, String, String)> = Vec::new();
        let mut calls: Vec<(Option<String>, String, Vec<String>)> = Vec::new();
        for (n, within, in_local, captured) in nodes {
            let scope = within.map(|i| facts.functions[i].name.clone());
            match n.kind() {
                "variable_assignment" => {
                    let Some(name) = n.child_by_field_name("name").map(|v| base_name(v, src))
                    else {
                        continue;
                    };
                    let value = n.child_by_field_name("value");
                    let self_ref = value.is_some_and(|v| mentions(v, src, &name));
                    if !self_ref {
                        facts.assigned.insert(name.clone());
                    }
                    if let Some(v) = value.and_then(|v| literal_value(v, src)) {
                        let values = facts.values.entry(name.clone()).or_default();
                        if !values.contains(&v) {
                            values.push(v);
                        }
                    }
                    if let Some(s) = &scope
                        && in_local
                    {
                        facts.locals.insert((s.clone(), name.clone()));
                    }
                    flows.push(Flow {
                        scope,
                        into: Into::Var(name),
                        from: value.into_iter().collect(),
                    });
                }
                "declaration_command" if declares_local(n, src) => {
                    if let Some(s) = &scope {
                        let mut c = n.walk();
                        for k in n.named_children(&mut c) {
                            if k.kind() == "variable_name" {
                                facts.locals.insert((s.clone(), text(k, src)));
                            }
                        }
                    }
                }
                "for_statement" => {
                    let Some(var) = n.child_by_field_name("variable") else {
                        continue;
                    };
                    let name = text(var, src);
                    facts.assigned.insert(name.clone());
                    let mut c = n.walk();
                    let from: Vec<Node> = n.children_by_field_name("value", &mut c).collect();
                    flows.push(Flow {
                        scope,
                        into: Into::Var(name),
                        from,
                    });
                }
                "command" => {
                    let Some(name) = n.child_by_field_name("name") else {
                        continue;
                    };
                    let name = text(name, src).trim_start_matches('\\').to_string();
                    let mut c = n.walk();
                    let args: Vec<Node> = n.children_by_field_name("argument", &mut c).collect();
                    let words: Vec<String> = args.iter().map(|a| text(*a, src)).collect();
                    match name.as_str() {
                        "read" | "mapfile" | "readarray" => {
                            for w in words.iter().filter(|w| is_name(w)) {
                                facts.assigned.insert(w.clone());
                            }
                        }
                        "." | "source" => facts.sourced.extend(words.first().cloned()),
                        "printf" => {
                            if let Some(i) = words.iter().position(|w| w == "-v")
                                && let Some(v) = words.get(i + 1)
                            {
                                facts.assigned.insert(v.clone());
                            }
                        }
                        _ => {}
                    }
                    if matches!(name.as_str(), "echo" | "printf") {
                        flows.push(Flow {
                            scope: scope.clone(),
                            into: Into::Output,
                            from: args.clone(),
                        });
                    }
                    let runs_args = |w: &str| {
                        matches!(w, "\"$@\"" | "$@" | "\"${@}\"" | "${@}" | "\"$*\"" | "$*")
                    };
                    if let Some(func) = &scope
                        && (runs_args(&name)
                            || (matches!(name.as_str(), "exec" | "command" | "nohup" | "time")
                                && words.first().is_some_and(|w| runs_args(w))))
                    {
                        facts.wrappers.insert(func.clone());
                    }
                    if let Some((target, tool)) = download_target(&name, &words) {
                        downloads.push((scope.clone(), target, tool));
                    }
                    calls.push((scope.clone(), name.clone(), words.clone()));
                    if facts.functions.iter().any(|f| f.name == name) {
                        if !captured && let Some(func) = &scope {
                            flows.push(Flow {
                                scope: Some(func.clone()),
                                into: Into::Passes(name.clone()),
                                from: Vec::new(),
                            });
                        }
                        for (i, a) in args.iter().enumerate() {
                            flows.push(Flow {
                                scope: scope.clone(),
                                into: Into::Param(name.clone(), i + 1),
                                from: vec![*a],
                            });
                        }
                    }
                    facts.programs.insert(name);
                }
                _ => {}
            }
        }
        facts.downloads(downloads, &calls);
        // Only a script that names the home folder can make a folder under it.
        let home_named = {
            let t = String::from_utf8_lossy(src);
            t.contains("$HOME") || t.contains("${HOME") || t.contains('~')
        };
        if !startup_named && !home_named {
            return facts;
        }
        let sources: Vec<Vec<Source>> = flows
            .iter()
            .map(|f| f.from.iter().map(|n| Source::of(*n, src)).collect())
            .collect();
        if startup_named {
            facts.propagate(Kind::Startup, &flows, &sources);
        }
        if home_named {
            facts.propagate(Kind::Home, &flows, &sources);
        }
        facts
    }

    fn held(&self, kind: Kind) -> &Held {
        match kind {
            Kind::Startup => &self.startup,
            Kind::Home => &self.home,
        }
    }

    /// Marks what may hold a value of `kind`, round by round through assignments, calls and
    /// function outputs, until nothing changes.
    fn propagate(&mut self, kind: Kind, flows: &[Flow], sources: &[Vec<Source>]) {
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for (f, from) in flows.iter().zip(sources) {
                let holds = match &f.into {
                    Into::Passes(callee) => self.held(kind).yielding.contains(callee),
                    _ => from.iter().any(|v| self.holds(kind, v, &f.scope)),
                };
                if !holds {
                    continue;
                }
                let key = match &f.into {
                    Into::Var(name) => Some(self.key(&f.scope, name)),
                    _ => None,
                };
                let held = match kind {
                    Kind::Startup => &mut self.startup,
                    Kind::Home => &mut self.home,
                };
                changed |= match &f.into {
                    Into::Var(_) => key.is_some_and(|k| held.vars.insert(k)),
                    Into::Param(func, i) => held.params.insert((func.clone(), *i)),
                    Into::Output | Into::Passes(_) => match &f.scope {
                        Some(func) => held.yielding.insert(func.clone()),
                        None => false,
                    },
                };
            }
            if !changed {
                break;
            }
        }
    }

    /// Follows downloads into a function's positional parameter (`curl --output "$2"` in
    /// `downloader`) to the variables its callers pass there (`ensure downloader "$url"
    /// "$file"`), through functions that run their arguments.
    fn downloads(
        &mut self,
        downloads: Vec<(Option<String>, String, String)>,
        calls: &[(Option<String>, String, Vec<String>)],
    ) {
        let mut params: HashMap<(String, usize), String> = HashMap::new();
        let add = |facts: &mut Facts,
                   params: &mut HashMap<(String, usize), String>,
                   scope: &Option<String>,
                   target: &str,
                   tool: &str| {
            let key = download_key(target);
            match (
                scope,
                key.strip_prefix('$').and_then(|d| d.parse::<usize>().ok()),
            ) {
                (Some(func), Some(i)) => {
                    params.insert((func.clone(), i), tool.to_string()).is_none()
                }
                (_, Some(_)) => false,
                _ => facts.downloaded.insert(key, tool.to_string()).is_none(),
            }
        };
        for (scope, target, tool) in &downloads {
            add(self, &mut params, scope, target, tool);
        }
        if params.is_empty() {
            return;
        }
        for _ in 0..MAX_ROUNDS {
            let mut changed = false;
            for (scope, name, words) in calls {
                // `ensure downloader …`: a function running its arguments calls the next word.
                let mut at = 0;
                let mut callee = name.as_str();
                while self.wrappers.contains(callee) && at < words.len() {
                    callee = words[at].as_str();
                    at += 1;
                }
                let args = &words[at..];
                let hits: Vec<(usize, String)> = params
                    .iter()
                    .filter(|((f, _), _)| f == callee)
                    .map(|((_, i), tool)| (*i, tool.clone()))
                    .collect();
                for (i, tool) in hits {
                    if let Some(w) = args.get(i - 1) {
                        changed |= add(self, &mut params, scope, w, &tool);
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The downloader when `raw` (a command's name or a shell's script operand, as written)
    /// is a file the script downloaded.
    pub fn downloaded_by(&self, raw: &str) -> Option<&str> {
        self.downloaded.get(&download_key(raw)).map(String::as_str)
    }

    /// Whether the script sources a file of the project named for `tool` (`\. ../../nvm.sh`
    /// in nvm's own tests): its `tool` is the project's code, working where the project says.
    pub fn sources_own(&self, tool: &str) -> bool {
        self.sourced.iter().any(|p| {
            let p = p.trim_matches(['"', '\'']);
            let file = p.rsplit('/').next().unwrap_or(p);
            !p.starts_with(['$', '~', '/']) && (file == tool || file == format!("{tool}.sh"))
        })
    }

    /// Whether function `func` declares `name` local.
    pub fn is_local(&self, func: &str, name: &str) -> bool {
        self.locals.contains(&(func.to_string(), name.to_string()))
    }

    /// The innermost function whose body holds byte `at`.
    fn function_at(&self, at: usize) -> Option<&str> {
        self.functions
            .iter()
            .filter(|f| f.start <= at && at < f.end)
            .min_by_key(|f| f.end - f.start)
            .map(|f| f.name.as_str())
    }

    fn key(&self, scope: &Option<String>, name: &str) -> Scoped {
        match scope {
            Some(s) if self.locals.contains(&(s.clone(), name.to_string())) => {
                (Some(s.clone()), name.to_string())
            }
            _ => (None, name.to_string()),
        }
    }

    /// Whether a value, read in function `scope`, may be one of `kind`.
    fn holds(&self, kind: Kind, v: &Source, scope: &Option<String>) -> bool {
        let seeded = match kind {
            Kind::Startup => v.startup,
            Kind::Home => v.home,
        };
        if seeded || v.vars.iter().any(|name| self.var_holds(kind, name, scope)) {
            return true;
        }
        v.substituted
            .as_deref()
            .is_some_and(|raw| self.calls_yielding(kind, raw))
    }

    /// Whether shell text `raw` substitutes the output of a function yielding `kind`
    /// (`$(tpm_path)`, `` `rc_file` ``).
    fn calls_yielding(&self, kind: Kind, raw: &str) -> bool {
        self.held(kind).yielding.iter().any(|f| {
            raw.match_indices(f.as_str()).any(|(i, _)| {
                let before = raw[..i].trim_end_matches(' ');
                let after = raw[i + f.len()..].chars().next();
                (before.ends_with("$(") || before.ends_with('`'))
                    && after.is_none_or(|c| c.is_whitespace() || c == ')' || c == '`')
            })
        })
    }

    fn var_holds(&self, kind: Kind, name: &str, scope: &Option<String>) -> bool {
        let held = self.held(kind);
        if let Some(func) = scope {
            if let Ok(i) = name.parse::<usize>() {
                return held.params.contains(&(func.clone(), i));
            }
            if name == "@" || name == "*" {
                return held.params.iter().any(|(f, _)| f == func);
            }
        }
        held.vars.contains(&self.key(scope, name))
    }

    /// Whether a write to `raw` (a redirect target or file operand as written, quotes
    /// included) at byte `at` goes to a variable that may hold a shell startup file; its name.
    pub fn startup_target(&self, raw: &str, at: usize) -> Option<String> {
        let t = raw.trim().trim_matches('"');
        let inner = t
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| t.strip_prefix('$'))?;
        let name: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = &inner[name.len()..];
        // Only the variable itself (`"$file"`, `"${files[$i]}"`), not a path built on it.
        if name.is_empty() || !(rest.is_empty() || (rest.starts_with('[') && rest.ends_with(']'))) {
            return None;
        }
        let scope = self.function_at(at).map(str::to_string);
        self.var_holds(Kind::Startup, &name, &scope).then_some(name)
    }

    /// Whether variable `name`, read at byte `at` (`"$plugin_dir"`, `"${path}/x"`), may hold
    /// a folder under the user's home picked at run time.
    pub fn home_var(&self, name: &str, at: usize) -> bool {
        let scope = self.function_at(at).map(str::to_string);
        self.var_holds(Kind::Home, name, &scope)
    }

    /// Whether substituted text `raw` (`$(tpm_path)`) prints such a folder.
    pub fn home_output(&self, raw: &str) -> bool {
        self.calls_yielding(Kind::Home, raw)
    }
}

/// The file a `curl`/`wget` command writes its download to, as written, and the tool: the
/// output option's operand (`-o file`, `-Lo file`, `--output=file`), else the URL's last path
/// segment when the tool names the file after it (`curl -LO URL`, a bare `wget URL`).
fn download_target(name: &str, words: &[String]) -> Option<(String, String)> {
    let tool = name.rsplit('/').next().unwrap_or(name);
    let (short, long, remote) = match tool {
        "curl" => ('o', "--output", Some('O')),
        // wget names the file after the URL unless told otherwise; a recursive or
        // folder-prefixed one writes a tree, not one file to run.
        "wget" => ('O', "--output-document", None),
        _ => return None,
    };
    let named = |t: &str| (t != "-" && !t.is_empty()).then(|| (t.to_string(), tool.to_string()));
    let mut remote_name = tool == "wget";
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if w == long {
            return named(it.next()?);
        }
        if let Some(t) = w.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
            return named(t);
        }
        if w == "--remote-name" && tool == "curl" {
            remote_name = true;
        }
        if tool == "wget"
            && (matches!(w.as_str(), "-r" | "-P" | "--mirror" | "--recursive" | "-m")
                || w.starts_with("--directory-prefix"))
        {
            remote_name = false;
        }
        // A cluster of short options: `-o` takes the rest of the word or the next one.
        if let Some(flags) = w.strip_prefix('-')
            && !flags.starts_with('-')
            && flags.chars().all(|c| c.is_ascii_alphabetic())
        {
            if let Some(at) = flags.find(short) {
                let rest = &flags[at + 1..];
                return if rest.is_empty() {
                    named(it.next()?)
                } else {
                    named(rest)
                };
            }
            if remote.is_some_and(|r| flags.contains(r)) {
                remote_name = true;
            }
        }
    }
    if !remote_name {
        return None;
    }
    let url = words.iter().find(|w| w.contains("://"))?;
    let path = url.trim_matches(['"', '\'']);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let last = path.rsplit('/').next().unwrap_or("");
    (!last.is_empty() && !path.ends_with("://")).then(|| named(last))?
}

/// A file as written, for matching a download with what runs it: `$name` for a variable
/// alone (`"$file"`, `${file}`), the text without quotes otherwise.
fn download_key(raw: &str) -> String {
    let t = raw.trim().trim_matches('"');
    // `./file` runs what `curl -O` wrote as `file`.
    let t = t.strip_prefix("./").unwrap_or(t);
    let inner = t
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| t.strip_prefix('$'));
    match inner {
        Some(name) if is_name(name) || name.parse::<usize>().is_ok() => format!("${name}"),
        _ => t.trim_matches('\'').to_string(),
    }
}

/// The value of an assignment's right side when it has no run-time part: `'sudo -E sh -c'`,
/// `"echo"`, `sh`.
fn literal_value(n: Node, src: &[u8]) -> Option<String> {
    match n.kind() {
        "word" if n.named_child_count() == 0 => {
            let t = text(n, src);
            (!t.contains(['$', '`', '\\', '*', '?', '['])).then_some(t)
        }
        "raw_string" => {
            let t = text(n, src);
            Some(
                t.trim_start_matches('\'')
                    .trim_end_matches('\'')
                    .to_string(),
            )
        }
        "string" => {
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            match kids.as_slice() {
                [] => Some(String::new()),
                [k] if k.kind() == "string_content" => {
                    let t = text(*k, src);
                    (!t.contains(['\\', '`'])).then_some(t)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn text(n: Node, src: &[u8]) -> String {
    n.utf8_text(src).unwrap_or("").to_string()
}

fn is_name(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variable an assignment sets (`files` of `files[$i]=…`).
fn base_name(n: Node, src: &[u8]) -> String {
    if n.kind() == "subscript"
        && let Some(name) = n.child_by_field_name("name")
    {
        return text(name, src);
    }
    text(n, src)
}

/// `local x`, `declare x`, `typeset x`: a variable of the function.
fn declares_local(n: Node, src: &[u8]) -> bool {
    n.kind() == "declaration_command"
        && n.child(0)
            .is_some_and(|k| matches!(text(k, src).as_str(), "local" | "declare" | "typeset"))
}

/// Whether `n` reads the variable `name`.
fn mentions(n: Node, src: &[u8], name: &str) -> bool {
    let mut stack = vec![(n, 0usize)];
    while let Some((k, depth)) = stack.pop() {
        if depth > MAX_TREE_DEPTH {
            continue;
        }
        if k.kind() == "variable_name" && text(k, src) == name {
            return true;
        }
        let mut c = k.walk();
        stack.extend(k.named_children(&mut c).map(|x| (x, depth + 1)));
    }
    false
}

/// Whether `raw` (a value as written) is a folder under the home folder with a part made at
/// run time: `"$HOME/$dir"`, `~/"$name"`, a configured path with `~` expanded
/// (`"${path/#\~/$HOME}"`). A literal rest is known where it lands, and `~/.cache` is a
/// tool's own.
fn names_home_made(raw: &str) -> bool {
    let t = raw.trim().trim_matches('"');
    let rest = ["$HOME", "${HOME}", "~"]
        .iter()
        .find_map(|h| t.strip_prefix(h));
    let expanded = t.contains("/$HOME}") || t.contains("/${HOME}}");
    let made = match rest {
        Some(r) => r.contains('$') || r.contains('`'),
        None => expanded,
    };
    made && !t.contains(".cache")
}

/// The shells' startup files in the home folder.
const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".kshrc",
    ".mkshrc",
    ".cshrc",
    ".tcshrc",
];

/// Whether `raw` (shell text, quotes and all) names one of the user's shell startup files:
/// `~/.bashrc`, `"$HOME/.zshrc"`, `${ZDOTDIR:-$HOME}/.zshrc`, `~/.config/fish/config.fish`.
pub(crate) fn names_startup_file(raw: &str) -> bool {
    raw.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ';' | '='))
        .any(|w| {
            let file = w.rsplit('/').next().unwrap_or(w);
            let in_home = w.starts_with('~') || w.starts_with('$');
            // `~/.${shell}rc`: the rc file of a shell picked at run time.
            let picked_rc = w.starts_with('~')
                && file.starts_with('.')
                && file.ends_with("rc")
                && file.contains('$');
            picked_rc
                || in_home
                    && (STARTUP_FILES.contains(&file)
                        || w.ends_with("/fish/config.fish")
                        || w.ends_with("/powershell/profile.ps1")
                        || w.ends_with("/PowerShell/Microsoft.PowerShell_profile.ps1"))
        })
}
