//! Parameter values: where they come from (`--param`, prompts, defaults) and how each format
//! puts them on a command line (seed spec "Parameter Formats"; empty values add nothing).

use crate::quote::{Shell, split_words};
use crate::{Error, Result};
use commandtree_core::{ParamDef, ParamFormat};
use std::collections::BTreeMap;

/// Parameter values by name.
pub type Values = BTreeMap<String, String>;

/// Asks the user for values. Front ends implement it: the CLI's terminal prompts
/// (`crates/ct/src/prompt.rs`), the terminal UI's form, an editor's or an MCP client's questions.
pub trait Prompter {
    /// A value for `p`; `Err(Error::Cancelled)` when the user gives up.
    fn ask(&mut self, p: &ParamDef) -> Result<String>;
    /// A yes/no question; `false` unless the user says yes.
    fn confirm(&mut self, question: &str) -> Result<bool>;
}

/// `name=value` from `--param`. The value may hold anything, `=` included.
pub fn parse_assignment(s: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(Error::usage(format!(
            "--param `{s}`: expected NAME=VALUE (e.g. --param env=prod)"
        ))),
    }
}

/// The `--param` values as a map; a name given twice is a usage error.
pub fn parse_assignments(list: &[String]) -> Result<Values> {
    let mut out = Values::new();
    for s in list {
        let (k, v) = parse_assignment(s)?;
        if out.insert(k.clone(), v).is_some() {
            return Err(Error::usage(format!("--param `{k}` is given twice")));
        }
    }
    Ok(out)
}

/// A value the command cannot go without: a positional parameter with no default. Flags are
/// optional by nature, and parsers give optional positionals an empty default.
pub fn is_required(p: &ParamDef) -> bool {
    p.default.is_none() && !p.switch && p.format.unwrap_or_default() == ParamFormat::Positional
}

/// Checks user-given values against the command's parameters: every name must exist, no value
/// may hold a NUL byte, and a value of a parameter with options must be one of them.
pub fn check_given(label: &str, params: &[ParamDef], given: &Values) -> Result<()> {
    for (name, value) in given {
        let Some(p) = params.iter().find(|p| &p.name == name) else {
            let known = if params.is_empty() {
                "it takes no parameters".to_string()
            } else {
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                format!("its parameters: {}", names.join(", "))
            };
            return Err(Error::usage(format!(
                "--param `{name}`: `{label}` has no such parameter ({known})"
            )));
        };
        check_value(label, p, value).map_err(|e| match e {
            Error::Failed(m) => Error::Usage(m),
            e => e,
        })?;
    }
    Ok(())
}

fn check_value(label: &str, p: &ParamDef, value: &str) -> Result<()> {
    if value.contains('\0') {
        return Err(Error::failed(format!(
            "`{label}` parameter `{}`: the value contains a NUL byte, which no program can receive",
            p.name
        )));
    }
    if !p.options.is_empty() && !value.is_empty() && !p.switch {
        let ok = if p.variadic {
            split_words(value)
                .map(|ws| ws.iter().all(|w| p.options.contains(w)))
                .unwrap_or(false)
        } else {
            p.options.iter().any(|o| o == value)
        };
        if !ok {
            return Err(Error::failed(format!(
                "`{label}` parameter `{}`: `{value}` is not one of: {}",
                p.name,
                p.options.join(", ")
            )));
        }
    }
    if p.variadic || p.format == Some(ParamFormat::DashdashArgs) {
        split_words(value)
            .map_err(|e| Error::failed(format!("`{label}` parameter `{}`: {e}", p.name)))?;
    }
    Ok(())
}

/// A value for every parameter: given, else asked (when a prompter is there), else the
/// default, else empty for optional ones. A required value with none of those fails.
pub fn collect(
    label: &str,
    params: &[ParamDef],
    given: &Values,
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<Values> {
    check_given(label, params, given)?;
    let mut out = Values::new();
    for p in params {
        let value = if let Some(v) = given.get(&p.name) {
            v.clone()
        } else if let Some(pr) = prompter.as_deref_mut() {
            let v = pr.ask(p)?;
            check_value(label, p, &v)?;
            if p.variadic && p.default.as_deref() == Some(v.as_str()) {
                String::new()
            } else {
                v
            }
        } else if p.variadic && p.default.is_some() {
            // The runner fills a variadic parameter's default itself, and only when nothing
            // else is passed: written out, it would come before any extra arguments and be
            // taken as one of them (`just watch 'lcheck' foo`).
            String::new()
        } else if let Some(d) = &p.default {
            d.clone()
        } else if is_required(p) {
            return Err(Error::failed(format!(
                "`{label}` needs a value for `{}` and it has no default: pass --param {}=VALUE",
                p.name, p.name
            )));
        } else {
            String::new()
        };
        out.insert(p.name.clone(), value);
    }
    Ok(out)
}

/// True for the values that turn a switch on.
pub fn is_yes(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "true" | "yes" | "y" | "1" | "on"
    )
}

/// The words the parameters add to a command line, already quoted for `shell`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Formatted {
    pub words: Vec<String>,
    /// A `dashdash-args` parameter wrote `--`, so extra arguments go straight after.
    pub dashdash: bool,
}

/// Formats every parameter with its value, in order, skipping empty values.
pub fn format_params(params: &[ParamDef], values: &Values, shell: Shell) -> Result<Formatted> {
    let mut out = Formatted::default();
    for p in params {
        let value = values.get(&p.name).map(String::as_str).unwrap_or("");
        format_one(p, value, shell, &mut out)?;
    }
    Ok(out)
}

fn format_one(p: &ParamDef, value: &str, shell: Shell, out: &mut Formatted) -> Result<()> {
    if value.is_empty() {
        return Ok(());
    }
    let bad = |e: String| Error::failed(format!("parameter `{}`: the value {e}", p.name));
    let flag = || p.flag.clone().unwrap_or_else(|| format!("--{}", p.name));
    if p.switch {
        let f = flag();
        if is_yes(value) || value == f {
            out.words.push(shell.word(&f).map_err(bad)?);
        }
        return Ok(());
    }
    let format = p.format.unwrap_or_default();
    let values: Vec<String> = if p.variadic || format == ParamFormat::DashdashArgs {
        split_words(value).map_err(|e| Error::failed(format!("parameter `{}`: {e}", p.name)))?
    } else {
        vec![value.to_string()]
    };
    match format {
        ParamFormat::Positional => {
            for v in &values {
                out.words.push(shell.quote(v).map_err(bad)?);
            }
        }
        ParamFormat::Flag => {
            out.words.push(shell.word(&flag()).map_err(bad)?);
            for v in &values {
                out.words.push(shell.quote(v).map_err(bad)?);
            }
        }
        ParamFormat::FlagEquals => {
            let f = shell.word(&flag()).map_err(bad)?;
            for v in &values {
                out.words
                    .push(format!("{f}={}", shell.quote(v).map_err(bad)?));
            }
        }
        ParamFormat::DashdashArgs => {
            if !out.dashdash {
                out.words.push("--".to_string());
                out.dashdash = true;
            }
            for v in &values {
                out.words.push(shell.quote(v).map_err(bad)?);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, format: Option<ParamFormat>, flag: Option<&str>) -> ParamDef {
        ParamDef {
            format,
            flag: flag.map(String::from),
            ..ParamDef::new(name)
        }
    }

    fn fmt(params: &[ParamDef], vals: &[(&str, &str)]) -> String {
        let values: Values = vals
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        format_params(params, &values, Shell::Posix)
            .unwrap()
            .words
            .join(" ")
    }

    #[test]
    fn formats_like_the_spec_table_but_quoted() {
        assert_eq!(fmt(&[p("x", None, None)], &[("x", "hello")]), "'hello'");
        assert_eq!(
            fmt(
                &[p("output", Some(ParamFormat::Flag), None)],
                &[("output", "/tmp/out")]
            ),
            "--output '/tmp/out'"
        );
        assert_eq!(
            fmt(
                &[p("output", Some(ParamFormat::Flag), Some("-o"))],
                &[("output", "/tmp/out")]
            ),
            "-o '/tmp/out'"
        );
        assert_eq!(
            fmt(
                &[p("config", Some(ParamFormat::FlagEquals), Some("-c"))],
                &[("config", "prod")]
            ),
            "-c='prod'"
        );
        assert_eq!(
            fmt(
                &[p("args", Some(ParamFormat::DashdashArgs), None)],
                &[("args", "--verbose --dry-run")]
            ),
            "-- '--verbose' '--dry-run'"
        );
        assert_eq!(
            fmt(
                &[p("a", None, None), p("b", None, None)],
                &[("a", ""), ("b", "it's $HOME")]
            ),
            r"'it'\''s $HOME'"
        );
        assert_eq!(fmt(&[p("a", None, None)], &[("a", "")]), "");
    }

    #[test]
    fn switches_and_variadics() {
        let mut sw = p("verbose", Some(ParamFormat::Flag), Some("--verbose"));
        sw.switch = true;
        assert_eq!(fmt(&[sw.clone()], &[("verbose", "yes")]), "--verbose");
        assert_eq!(fmt(&[sw.clone()], &[("verbose", "TRUE")]), "--verbose");
        assert_eq!(fmt(&[sw], &[("verbose", "false")]), "");
        let mut files = p("files", None, None);
        files.variadic = true;
        assert_eq!(fmt(&[files], &[("files", "a 'b c'")]), "'a' 'b c'");
    }

    #[test]
    fn a_variadic_default_is_left_to_the_runner() {
        let mut args = ParamDef::new("args").with_default("lcheck");
        args.variadic = true;
        let v = collect("watch", std::slice::from_ref(&args), &Values::new(), None).unwrap();
        assert_eq!(v["args"], "", "the runner applies its own default");
        let mut given = Values::new();
        given.insert("args".into(), "a b".into());
        let v = collect("watch", &[args], &given, None).unwrap();
        assert_eq!(v["args"], "a b");
    }

    #[test]
    fn collection_order_and_failures() {
        let params = vec![
            ParamDef::new("env").with_default("dev"),
            ParamDef::new("target"),
            p("flag", Some(ParamFormat::Flag), None),
        ];
        let mut given = Values::new();
        given.insert("target".into(), "x".into());
        let v = collect("deploy", &params, &given, None).unwrap();
        assert_eq!(v["env"], "dev");
        assert_eq!(v["target"], "x");
        assert_eq!(v["flag"], "");
        let e = collect("deploy", &params, &Values::new(), None).unwrap_err();
        assert!(e.to_string().contains("needs a value for `target`"), "{e}");
        assert_eq!(e.exit_code(), 1);
        given.insert("nope".into(), "1".into());
        let e = collect("deploy", &params, &given, None).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string().contains("its parameters: env, target, flag"),
            "{e}"
        );
    }

    #[test]
    fn options_are_enforced() {
        let mut env = ParamDef::new("env");
        env.options = vec!["dev".into(), "prod".into()];
        let given: Values = [("env".to_string(), "staging".to_string())].into();
        let e = check_given("d", &[env], &given).unwrap_err();
        assert!(e.to_string().contains("not one of: dev, prod"), "{e}");
    }

    #[test]
    fn assignments() {
        assert_eq!(
            parse_assignment("a=b=c").unwrap(),
            ("a".to_string(), "b=c".to_string())
        );
        assert!(parse_assignment("novalue").is_err());
        assert!(parse_assignment("=x").is_err());
        assert!(parse_assignments(&["a=1".into(), "a=2".into()]).is_err());
    }
}
