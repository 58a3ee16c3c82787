use super::*;

fn place() -> Place {
    Place::new(Path::new("/w"), Path::new("/w/app"))
}

fn read(output: &str) -> Vec<Problem> {
    parse(&Matcher::default(), place(), output.as_bytes())
}

/// `file:line:col: severity: message [code] (source)`, one string per problem.
fn lines(output: &str) -> Vec<String> {
    shown(&read(output))
}

fn shown(ps: &[Problem]) -> Vec<String> {
    ps.iter()
        .map(|p| {
            let col = p.column.map(|c| format!(":{c}")).unwrap_or_default();
            let code = p
                .code
                .as_ref()
                .map(|c| format!(" [{c}]"))
                .unwrap_or_default();
            format!(
                "{}:{}{col}: {}: {}{code} ({})",
                p.file,
                p.line,
                p.severity.as_str(),
                p.message,
                p.source
            )
        })
        .collect()
}

#[test]
fn a_rustc_error_and_a_tsc_error_are_two_problems_with_their_file_and_line() {
    let out = "   Compiling app v0.1.0 (/w/app)\n\
               error[E0308]: mismatched types\n \
               --> src/main.rs:2:18\n  \
               |\n\
               2 |     let x: i32 = \"a\";\n  \
               |            ---   ^^^ expected `i32`, found `&str`\n\
               \n\
               src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n";
    let ps = read(out);
    assert_eq!(ps.len(), 2, "{ps:#?}");
    assert_eq!((ps[0].file.as_str(), ps[0].line), ("app/src/main.rs", 2));
    assert_eq!((ps[1].file.as_str(), ps[1].line), ("app/src/index.ts", 3));
    assert_eq!(
        shown(&ps),
        [
            "app/src/main.rs:2:18: error: mismatched types [E0308] (rustc)",
            "app/src/index.ts:3:7: error: Type 'string' is not assignable to type 'number'. [TS2322] (tsc)"
        ]
    );
    assert_eq!(ps[0].path, "/w/app/src/main.rs");
    assert_eq!(ps[0].output_line, 3);
    assert_eq!(ps[1].output_line, 8);
}

#[test]
fn rustc_warnings_short_form_and_headers_without_a_location() {
    let out = "warning: unused variable: `y`\n --> src/lib.rs:4:9\n  |\n\
               error: could not compile `app` (lib) due to 1 previous error\n\
               \n\
               src/lib.rs:7:1: error[E0425]: cannot find value `z` in this scope\n\
               error: aborting due to 2 previous errors\n";
    assert_eq!(
        lines(out),
        [
            "app/src/lib.rs:4:9: warning: unused variable: `y` (rustc)",
            "app/src/lib.rs:7:1: error: cannot find value `z` in this scope [E0425] (rustc)"
        ]
    );
}

#[test]
fn rust_panics_old_and_new() {
    let out = "thread 'main' panicked at src/main.rs:4:5:\nindex out of bounds\n\
               thread 'it_works' panicked at 'boom', tests/a.rs:10:9\n";
    assert_eq!(
        lines(out),
        [
            "app/src/main.rs:4:5: error: index out of bounds (rust-panic)",
            "app/tests/a.rs:10:9: error: boom (rust-panic)"
        ]
    );
}

#[test]
fn gcc_and_clang() {
    let out = "a.c: In function 'main':\n\
               a.c:3:5: error: 'x' undeclared (first use in this function)\n\
               a.c:4:9: warning: unused variable 'y' [-Wunused-variable]\n\
               In file included from a.c:1:\n\
               inc/b.h:2:1: note: previous declaration is here\n\
               /w/my project/c.c:1:2: fatal error: 'z.h' file not found\n\
               Makefile:12: *** missing separator.  Stop.\n\
               make: *** [Makefile:3: build] Error 1\n";
    assert_eq!(
        lines(out),
        [
            "app/a.c:3:5: error: 'x' undeclared (first use in this function) (gcc)",
            "app/a.c:4:9: warning: unused variable 'y' [-Wunused-variable] (gcc)",
            "app/inc/b.h:2:1: info: previous declaration is here (gcc)",
            "my project/c.c:1:2: error: 'z.h' file not found (gcc)",
            "app/Makefile:12: error: *** missing separator.  Stop. (plain)"
        ]
    );
}

#[test]
fn tsc_both_forms_and_msbuild() {
    let out = "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\
               \n\
               3 const x: number = \"a\";\n        ~\n\
               src/b.tsx(10,1): warning TS6133: 'React' is declared but its value is never read.\n\
               Program.cs(12,5): error CS1002: ; expected\n\
               C:\\src\\a.c(7): error C2065: 'x': undeclared identifier\n\
               Found 2 errors in 2 files.\n";
    assert_eq!(
        lines(out),
        [
            "app/src/a.ts:3:7: error: Type 'string' is not assignable to type 'number'. [TS2322] (tsc)",
            "app/src/b.tsx:10:1: warning: 'React' is declared but its value is never read. [TS6133] (tsc)",
            "app/Program.cs:12:5: error: ; expected [CS1002] (msbuild)",
            "app/C:\\src\\a.c:7: error: 'x': undeclared identifier [C2065] (msbuild)"
        ]
    );
}

#[test]
fn eslint_stylish_unix_and_compact() {
    let out = "\n/w/web/src/a.js\n\
               \x20 1:10  error    Missing semicolon                semi\n\
               \x20 3:1   warning  'x' is defined but never used    no-unused-vars\n\
               \x20 9:2   error    Parsing error: Unexpected token\n\
               \n\
               \u{2716} 3 problems (2 errors, 1 warning)\n\
               \x20 1:1  error  after the summary, no file\n\
               /w/web/b.js:2:3: Unexpected console statement. [Warning/no-console]\n\
               /w/web/c.js: line 4, col 8, Error - 'y' is not defined. (no-undef)\n";
    assert_eq!(
        lines(out),
        [
            "web/src/a.js:1:10: error: Missing semicolon [semi] (eslint)",
            "web/src/a.js:3:1: warning: 'x' is defined but never used [no-unused-vars] (eslint)",
            "web/src/a.js:9:2: error: Parsing error: Unexpected token (eslint)",
            "web/b.js:2:3: warning: Unexpected console statement. [no-console] (eslint)",
            "web/c.js:4:8: error: 'y' is not defined. [no-undef] (eslint)"
        ]
    );
}

#[test]
fn go_build_vet_and_test() {
    let out = "# example.com/app\n\
               ./main.go:5:2: undefined: foo\n\
               vet: ./util.go:7:14: fmt.Printf format %d has arg s of wrong type string\n\
               --- FAIL: TestAdd (0.00s)\n    \
               add_test.go:12: got 1, want 2\n\
               FAIL\texample.com/app\t0.002s\n";
    assert_eq!(
        lines(out),
        [
            "app/main.go:5:2: error: undefined: foo (go)",
            "app/add_test.go:12: error: got 1, want 2 (go)"
        ]
    );
}

#[test]
fn python_tracebacks_point_at_the_innermost_frame_of_the_workspace() {
    let out = "Traceback (most recent call last):\n  \
               File \"/w/app/main.py\", line 8, in <module>\n    \
               run()\n  \
               File \"/w/app/lib/run.py\", line 3, in run\n    \
               json.loads(\"{\")\n    \
               ~~~~~~~~~~^^^^^\n  \
               File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    \
               return _default_decoder.decode(s)\n\
               json.decoder.JSONDecodeError: Expecting property name: line 1 column 2 (char 1)\n\
               \n\
               During handling of the above exception, another exception occurred:\n\
               \n\
               Traceback (most recent call last):\n  \
               File \"<frozen runpy>\", line 198, in _run_module_as_main\n  \
               File \"/usr/lib/python3.11/x.py\", line 1, in <module>\n\
               KeyboardInterrupt\n  \
               File \"tool.py\", line 2\n    \
               def f(:\n          ^\n\
               SyntaxError: invalid syntax\n\
               tests/test_a.py:12: AssertionError\n\
               app.py:3: DeprecationWarning: old api\n";
    let ps = read(out);
    assert_eq!(
        shown(&ps),
        [
            "app/lib/run.py:3: error: json.decoder.JSONDecodeError: Expecting property name: line 1 column 2 (char 1) (python)",
            "/usr/lib/python3.11/x.py:1: error: KeyboardInterrupt (python)",
            "app/tool.py:2: error: SyntaxError: invalid syntax (python)",
            "app/tests/test_a.py:12: error: AssertionError (python)",
            "app/app.py:3: warning: DeprecationWarning: old api (python)"
        ]
    );
    assert!(ps[1].outside_root && !ps[0].outside_root);
}

#[test]
fn ordinary_output_is_no_problem() {
    let out = "   Compiling serde v1.0.0\n\
               > app@1.0.0 build\n\
               > tsc -p .\n\
               make[1]: Entering directory '/w/app'\n\
               2024-05-01 12:30:45 INFO server started\n\
               12:30:45: tick\n\
               2024-05-01T12:30:45Z: tick\n\
               listening on http://localhost:8080/ now\n\
               see https://example.com:443/x: done\n\
               10.0.0.1:8080: connection refused\n\
               \x20   at Object.<anonymous> (/w/app/x.js:10:5)\n\
               error: something failed\n\
               Error: Cannot find module 'x'\n\
               INFO:root:12 done\n\
               ok  \texample.com/app\t0.002s\n\
               test result: ok. 3 passed; 0 failed\n\
               1:10  error  no file line above\n\
               foo(1): bar\n";
    assert_eq!(lines(out), Vec::<String>::new());
}

#[test]
fn paths_are_taken_from_the_run_folder_and_shown_from_the_root() {
    let out = "../lib/a.c:1:1: error: up one\n\
               ./b.c:2:1: error: here\n\
               /w/c.c:3:1: error: absolute\n\
               /etc/d.c:4:1: error: elsewhere\n\
               ../../e.c:5:1: error: above the root\n";
    let ps = read(out);
    let got: Vec<(&str, &str, bool)> = ps
        .iter()
        .map(|p| (p.file.as_str(), p.path.as_str(), p.outside_root))
        .collect();
    assert_eq!(
        got,
        [
            ("lib/a.c", "/w/lib/a.c", false),
            ("app/b.c", "/w/app/b.c", false),
            ("c.c", "/w/c.c", false),
            ("/etc/d.c", "/etc/d.c", true),
            ("/e.c", "/e.c", true)
        ]
    );
    // Only outside files say so in JSON.
    let json = serde_json::to_value(&ps).unwrap();
    assert_eq!(json[0].get("outsideRoot"), None);
    assert_eq!(json[3]["outsideRoot"], true);
    assert_eq!(json[0]["column"], 1);
    assert_eq!(json[0].get("code"), None);
}

#[test]
fn pieces_of_any_size_read_like_the_whole() {
    let out = "error[E0308]: mismatched types\n --> src/main.rs:2:18\n\
               src/a.ts(3,7): error TS2322: x\r\n\
               Traceback (most recent call last):\n  File \"/w/a.py\", line 1, in <module>\nValueError: v\n\
               /w/web/a.js\n  1:1  error  Missing semicolon  semi\n\
               last.go:1:1: no newline at the end";
    let whole = read(out);
    assert_eq!(whole.len(), 5, "{whole:#?}");
    for size in [1, 2, 3, 7, 64] {
        let m = Matcher::default();
        let mut p = Parser::new(&m, place());
        for chunk in out.as_bytes().chunks(size) {
            p.feed(chunk);
        }
        assert_eq!(p.finish(), whole, "pieces of {size}");
    }
}

#[test]
fn colours_progress_redraws_and_repeats() {
    let out = "\x1b[1m\x1b[31merror[E0308]\x1b[0m\x1b[1m: mismatched types\x1b[0m\n\
               \x1b[0m  \x1b[1m\x1b[38;5;12m--> \x1b[0msrc/main.rs:2:18\n\
               \x1b]8;;file:///w/x\x07src/x.c\x1b]8;;\x07:1:2: error: linked\n\
               [=====>    ] 50%\r[==========] 100%\rsrc/y.c:3:4: warning: after a progress bar\n\
               src/y.c:3:4: warning: after a progress bar\n";
    assert_eq!(
        lines(out),
        [
            "app/src/main.rs:2:18: error: mismatched types [E0308] (rustc)",
            "app/src/x.c:1:2: error: linked (gcc)",
            "app/src/y.c:3:4: warning: after a progress bar (gcc)"
        ]
    );
}

#[test]
fn a_huge_line_is_cut_not_kept() {
    let mut out = vec![b'x'; 3 * MAX_LINE];
    out.extend_from_slice(b"\nsrc/a.c:1:1: error: after it\n");
    let m = Matcher::default();
    let mut p = Parser::new(&m, place());
    for chunk in out.chunks(1000) {
        p.feed(chunk);
        assert!(p.carry.len() <= MAX_LINE);
    }
    assert_eq!(
        shown(&p.finish()),
        ["app/src/a.c:1:1: error: after it (gcc)"]
    );
}

fn matcher(toml_text: &str) -> (Matcher, Vec<String>) {
    let table = commandtree_core::text::parse_toml(toml_text).unwrap();
    let (m, w) = Matcher::from_config(table.get("problems"), &|_| {
        PathBuf::from("/home/me/.config/commandtree/config.toml")
    });
    (m, w.iter().map(|w| w.to_string()).collect())
}

#[test]
fn user_patterns_one_line_and_several_lines() {
    let (m, warnings) = matcher(
        r#"
[[problems.patterns]]
name = "mytool"
regex = '^(?P<severity>ERROR|WARN) (?P<file>[^:]+):(?P<line>\d+) (?P<message>.*)$'

[[problems.patterns]]
name = "checker"
lines = ['^== (?P<file>\S+)$', '^\s+L(?P<line>\d+)(?:\.(?P<column>\d+))? (?P<code>[A-Z]\d+) (?P<message>.+)$']
loop = true
severity = "warning"
"#,
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(m.patterns().len(), 2);
    let out = "WARN lib/a.x:4 something odd\n\
               ERROR lib/b.x:5 broken\n\
               == src/c.y\n  L3.2 C101 first\n  L9 C102 second\n\
               then something else\n  L1 C103 not under a file\n\
               src/main.rs:1:1: error: built-in still\n";
    let ps = parse(&m, place(), out.as_bytes());
    assert_eq!(
        shown(&ps),
        [
            "app/lib/a.x:4: warning: something odd (mytool)",
            "app/lib/b.x:5: error: broken (mytool)",
            "app/src/c.y:3:2: warning: first [C101] (checker)",
            "app/src/c.y:9: warning: second [C102] (checker)",
            "app/src/main.rs:1:1: error: built-in still (rustc)"
        ]
    );
}

#[test]
fn a_user_pattern_takes_its_line_from_the_built_in_formats() {
    let (m, _) = matcher(
        r#"
[[problems.patterns]]
name = "mine"
regex = '^(?P<file>[^:]+):(?P<line>\d+):\d+: error: (?P<message>.*)$'
severity = "hint"
"#,
    );
    let out = "a.c:1:2: error: taken\nb.c:3:4: warning: not mine\n";
    assert_eq!(
        shown(&parse(&m, place(), out.as_bytes())),
        [
            "app/a.c:1: hint: taken (mine)",
            "app/b.c:3:4: warning: not mine (gcc)"
        ]
    );
    let (off, w) = matcher("[problems]\nbuiltin = false\n");
    assert!(w.is_empty());
    assert!(parse(&off, place(), out.as_bytes()).is_empty());
}

#[test]
fn bad_patterns_are_left_out_with_a_warning_that_says_why() {
    let (m, warnings) = matcher(
        r#"
[problems]
colour = true

[[problems.patterns]]
name = "broken"
regex = '^(?P<file>[^:]+:(?P<line>\d+)'

[[problems.patterns]]
regex = '^(?P<file>\S+) (?P<message>.*)$'

[[problems.patterns]]
name = "typo"
regex = '^(?P<file>\S+):(?P<col>\d+) (?P<line>\d+) (?P<message>.*)$'

[[problems.patterns]]
name = "both"
regex = '^(?P<file>\S+)$'
lines = ['a', 'b']

[[problems.patterns]]
name = "keys"
regexp = '^x$'

[[problems.patterns]]
name = "sev"
regex = '^(?P<file>\S+):(?P<line>\d+) (?P<message>.*)$'
severity = "fatal-ish"

[[problems.patterns]]
name = "good"
regex = '^(?P<file>\S+):(?P<line>\d+) (?P<message>.*)$'
"#,
    );
    assert_eq!(m.patterns().len(), 1);
    assert_eq!(m.patterns()[0].name(), "good");
    let file = "/home/me/.config/commandtree/config.toml";
    let expect = [
        "unknown key `problems.colour` (known: builtin, patterns); ignored",
        "[[problems.patterns]] #1 (`broken`): the regex does not compile: regex parse error:",
        "[[problems.patterns]] #2 (pattern 2): no `line` group",
        "[[problems.patterns]] #3 (`typo`): unknown group `col` (known: file, line, column, severity, message, code)",
        "[[problems.patterns]] #4 (`both`): give `regex` or `lines`, not both",
        "[[problems.patterns]] #5 (`keys`): unknown key `regexp`",
        "[[problems.patterns]] #6 (`sev`): `severity` must be error, warning, info or hint",
    ];
    assert_eq!(warnings.len(), expect.len(), "{warnings:#?}");
    for (w, e) in warnings.iter().zip(expect) {
        assert!(w.starts_with(&format!("{file}: {e}")), "{w}\nwanted {e}");
    }
    assert!(
        warnings[1].ends_with("this pattern is not used"),
        "{}",
        warnings[1]
    );
}

#[test]
fn any_bytes_read_without_a_panic() {
    const PARTS: &[&[u8]] = &[
        b"a.c",
        b":",
        b"12",
        b"(",
        b")",
        b",",
        b" ",
        b"  ",
        b"\t",
        b"error",
        b"warning",
        b"[E1]",
        b" - ",
        b"TS1",
        b"--> ",
        b"File \"",
        b"\", line ",
        b"Traceback (most recent call last):",
        b"thread 'x' panicked at ",
        b"'",
        b"\n",
        b"\r",
        b"\x1b[",
        b"\x1b]",
        b"\x07",
        b"/",
        b"C:\\",
        b"\xff",
        b"\xe2\x80\xae",
        b": line ",
        b", col ",
        b"Error",
        b"99999999999",
        b"",
    ];
    let (m, _) = matcher(
        "[[problems.patterns]]\nlines = ['^(?P<file>\\S+)$', '^ (?P<line>\\d+) (?P<message>.*)$']\nloop = true\n",
    );
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        let mut out = Vec::new();
        for _ in 0..40 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            out.extend_from_slice(PARTS[(seed >> 33) as usize % PARTS.len()]);
        }
        for p in parse(&m, place(), &out) {
            assert!(!p.file.is_empty() && !p.message.trim().is_empty(), "{p:?}");
        }
    }
}
