//! Problem parsing throughput on realistic mixed build output (cargo, make with GCC, tsc,
//! ESLint, go test, pytest and Python tracebacks, npm, timestamps and progress lines), against
//! a plain line count (`memchr`) over the same bytes in the same run. One line in six is a
//! problem, far more than in a usual build log, so the work done per problem (resolving its
//! path, keeping it once) is measured too. Run by `bench/problems.sh`.
//!
//! Usage: problems_bench [lines = 200000] [rounds = 5]

use commandtree_engine::problems::{Matcher, Place, parse};
use std::path::Path;
use std::time::Instant;

mod common;
use common::Lcg;

/// A number below `n`.
fn below(rng: &mut Lcg, n: u64) -> u64 {
    rng.next() % n
}

const CRATES: &[&str] = &[
    "serde", "tokio", "regex", "clap", "anyhow", "memchr", "hyper", "rand", "syn", "quote",
];
const FILES: &[&str] = &[
    "main", "lib", "parser", "server", "config", "util", "db", "api",
];

/// Appends one block of some tool's output; returns the lines written.
fn block(out: &mut String, rng: &mut Lcg, n: u64) -> usize {
    let f = FILES[below(rng, FILES.len() as u64) as usize];
    let l = 1 + below(rng, 900);
    let c = 1 + below(rng, 80);
    let before = out.len();
    match below(rng, 16) {
        0..=3 => {
            let k = CRATES[below(rng, CRATES.len() as u64) as usize];
            out.push_str(&format!(
                "   Compiling {k} v1.{}.{} (registry+https://github.com/rust-lang/crates.io-index)\n",
                n % 40,
                n % 7
            ));
        }
        4 => out.push_str(&format!(
            "warning: unused variable: `x{n}`\n --> src/{f}.rs:{l}:{c}\n  |\n{l} |     let x{n} = compute();\n  |         ^^ help: if this is intentional, prefix it with an underscore: `_x{n}`\n  |\n  = note: `#[warn(unused_variables)]` on by default\n\n"
        )),
        5 => out.push_str(&format!(
            "gcc -c -O2 -g -Wall -Wextra -Iinclude -Ithird_party/zlib -DNDEBUG -o build/{f}.o src/{f}.c\n"
        )),
        6 => out.push_str(&format!(
            "src/{f}.c: In function '{f}_init':\nsrc/{f}.c:{l}:{c}: warning: unused variable 'tmp' [-Wunused-variable]\n  {l} |     int tmp = 0;\n      |         ^~~\n"
        )),
        7 => out.push_str(&format!(
            "src/{f}.ts({l},{c}): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        )),
        8 => out.push_str(&format!(
            "\n/home/ci/work/web/src/{f}.js\n  {l}:{c}  error    Missing semicolon                semi\n  {}:1   warning  'x' is defined but never used    no-unused-vars\n\n",
            l + 3
        )),
        9 => out.push_str(&format!(
            "=== RUN   Test{f}{n}\n--- PASS: Test{f}{n} (0.00s)\n=== RUN   TestEdge{n}\n    {f}_test.go:{l}: got {n}, want {}\n--- FAIL: TestEdge{n} (0.01s)\n",
            n + 1
        )),
        10 => out.push_str(&format!(
            "Traceback (most recent call last):\n  File \"/home/ci/work/app/{f}.py\", line {l}, in <module>\n    main()\n  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    return _default_decoder.decode(s)\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
        )),
        11 => out.push_str(&format!(
            "tests/test_{f}.py::test_case_{n} PASSED                                   [ {}%]\n",
            n % 100
        )),
        12 => out.push_str(&format!(
            "2026-11-26T08:{:02}:{:02}.{:03}Z INFO  request handled method=GET path=/api/{f}/{n} status=200 latency_ms={}\n",
            n % 60,
            (n / 60) % 60,
            n % 1000,
            n % 97
        )),
        13 => out.push_str(&format!(
            "[{:>3}/{}] Building CXX object src/CMakeFiles/app.dir/{f}.cpp.o\n",
            n % 400,
            400
        )),
        14 => out.push_str(&format!(
            "npm WARN deprecated {f}@{}.0.0: this package is no longer maintained, see https://example.com/{f}\n",
            n % 9
        )),
        _ => out.push_str(&format!(
            "make[2]: Entering directory '/home/ci/work/build/{f}'\nmake[2]: Leaving directory '/home/ci/work/build/{f}'\n"
        )),
    }
    out[before..].bytes().filter(|&b| b == b'\n').count()
}

fn output(lines: usize) -> String {
    let mut rng = Lcg(0x5eed);
    let mut out = String::with_capacity(lines * 80);
    let (mut written, mut n) = (0, 0u64);
    while written < lines {
        written += block(&mut out, &mut rng, n);
        n += 1;
    }
    out
}

/// The best of `rounds` timings of `f`, in seconds, and its last result.
fn best<T>(rounds: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..rounds {
        let t = Instant::now();
        let r = std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("at least one round"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let lines: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5).max(1);
    let text = output(lines);
    let bytes = text.as_bytes();
    let mb = bytes.len() as f64 / 1e6;
    let place = Place::new(Path::new("/home/ci/work"), Path::new("/home/ci/work/app"));

    let (count_s, counted) = best(rounds, || memchr::memchr_iter(b'\n', bytes).count());
    let builtin = Matcher::builtin_only();
    let (parse_s, problems) = best(rounds, || parse(&builtin, place.clone(), bytes));
    let table = "[[problems.patterns]]\nname = \"mine\"\nregex = '^(?P<severity>ERROR|WARN) (?P<file>[^:]+):(?P<line>\\d+) (?P<message>.*)$'\n";
    let config: toml::Table = table.parse().expect("the benchmark's pattern");
    let (with_user, warnings) = Matcher::from_config(config.get("problems"), &|_| "bench".into());
    assert!(warnings.is_empty(), "{warnings:?}");
    let (user_s, _) = best(rounds, || parse(&with_user, place.clone(), bytes));

    let rate = |s: f64| mb / s;
    println!(
        "output: {counted} lines, {mb:.1} MB, {} problems found (best of {rounds} rounds)",
        problems.len()
    );
    println!(
        "line count (memchr, reference): {:>8.1} MB/s",
        rate(count_s)
    );
    println!(
        "problems, built-in formats:     {:>8.1} MB/s  ({:.3} of the line count; target >= 100 MB/s: {})",
        rate(parse_s),
        count_s / parse_s,
        if rate(parse_s) >= 100.0 {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "problems, plus one user regex:  {:>8.1} MB/s  ({:.3} of the line count)",
        rate(user_s),
        count_s / user_s
    );
}
