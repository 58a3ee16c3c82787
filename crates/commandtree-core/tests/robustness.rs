//! Every parser gets malformed, truncated, mutated, deeply nested and binary input and must
//! return (commands and/or warnings) without panicking. Parsers are called directly, not through
//! discovery's panic guard, so a panic fails this test.

use commandtree_core::discover::sample_path;
use commandtree_core::fs::{MemFs, decode};
use commandtree_core::sources::{SOURCES, SourceFile};
use std::path::Path;

const SAMPLES: &[&str] = &[
    "{\"scripts\": {\"build\": \"tsc\", \"test\": [1, {\"a\": null}]}, \"tasks\": {\"x\": {\"command\": \"y\"}}}",
    "version: '3'\ntasks:\n  build:\n    desc: Build\n    cmds: [go build]\n    requires: { vars: [A, {name: B, enum: [x]}] }\nservices:\n  web: {image: x}\non: { workflow_dispatch: { inputs: { a: { type: choice, options: [x] } } } }\njobs: { b: {} }\n",
    "[package]\nname = \"a-b\"\n[[bin]]\nname = \"x-y\"\n[tasks.build]\nrun = \"x\"\n[tasks]\nquick = \"y\"\n[project.scripts]\nc = \"m:f\"\n[tool.poe.tasks]\nd = \"e\"\n",
    "<Project><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup><target name=\"t\" description=\"d\"/><build><plugins><plugin><artifactId>maven-x-plugin</artifactId><executions><execution><id>i</id><goals><goal>g</goal></goals></execution></executions></plugin></plugins></build></Project>",
    "#!/usr/bin/env bash\n# @param a b (default: c) (options: x, y)\n# @param\n# @description\nparam([Parameter(Mandatory=$true)][string]$X = 'a', [switch]$Y)\nif __name__ == \"__main__\":\n    p.add_argument('--n', help='h', default=3, choices=['a'])\n",
    "all b c: d ## doc\n\tcc\nX := y\ndefine T\nq:\nendef\n_p::\nrecipe a +b *c $d='x':\n    echo \"a: b\"\nmod m\n[private]\n[group('g')]\n_h:\ntask :x => [:y]\nnamespace :db do\n  desc \"m\"\n  task :migrate\nend\nweb: bundle exec puma\n",
    "---\ntitle: \"x\ndescription: |\n+++\n<!-- a <b> -->\n[![x](y)](z)\ninclude $(A)/*.mk $(\n%: common-%\n%w(a b).each do |fw|\n  namespace fw do\n    task \"t#{fw\"\n    %x(if do\n[task_config]\nincludes = [\"x\", 3, \"../..\", \"/\"]\nrelease:*:\n  a:b:c:\nMicrosoft Visual Studio Solution File\nplugins { id(\"com.diffplug.spotless\") apply false\n",
    "# Title\n\n```\n---\n<#\n.SYNOPSIS\nx\n#>\nREM y\n:: z\n// c\n(* f *)\n",
];

fn mutations(sample: &str) -> Vec<Vec<u8>> {
    let bytes = sample.as_bytes();
    let mut out: Vec<Vec<u8>> = vec![bytes.to_vec(), Vec::new(), b"\xEF\xBB\xBF".to_vec()];
    for cut in (0..bytes.len()).step_by(3) {
        out.push(bytes[..cut].to_vec());
    }
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let specials = b"\"'{}[]()<>:=#$`\\\n\r\t -*+%@!,.\xff\xfe\xc3";
    for _ in 0..150 {
        let mut m = bytes.to_vec();
        for _ in 0..(1 + next() % 6) {
            if m.is_empty() {
                break;
            }
            let i = (next() as usize) % m.len();
            m[i] = specials[(next() as usize) % specials.len()];
        }
        out.push(m);
    }
    out.push(sample.replace('\n', "\r\n").into_bytes());
    out
}

fn adversarial() -> Vec<Vec<u8>> {
    vec![
        "[".repeat(50_000).into_bytes(),
        "{\"a\":".repeat(20_000).into_bytes(),
        "- ".repeat(20_000).into_bytes(),
        "a:\n".repeat(10_000).into_bytes(),
        format!("tasks:\n{}", "  x:\n    ".repeat(5_000)).into_bytes(),
        "<a>".repeat(20_000).into_bytes(),
        "(".repeat(50_000).into_bytes(),
        format!("# @param {}", "x".repeat(200_000)).into_bytes(),
        "&a [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n".repeat(50).into_bytes(),
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n".as_bytes().to_vec(),
        vec![0xff; 4096],
        (0u8..=255).cycle().take(10_000).filter(|b| *b != 0).collect(),
    ]
}

fn run_all(inputs: &[Vec<u8>]) -> usize {
    let mut runs = 0;
    for (row, source) in SOURCES.iter().enumerate() {
        let rel = sample_path(row);
        let path = Path::new("/fuzz").join(&rel);
        for data in inputs {
            let Ok(text) = decode(data) else { continue };
            for exe in [false, true] {
                let fs = MemFs::new().file(&path, &text);
                let file = SourceFile {
                    path: &path,
                    content: &text,
                    executable: exe,
                    root: Path::new("/fuzz"),
                    fs: &fs,
                };
                let parsed = (source.parse)(&file);
                for c in &parsed.commands {
                    assert!(
                        !c.id.is_empty() && !c.label.is_empty(),
                        "{} gave an empty id/label",
                        source.kind
                    );
                    assert!(
                        c.description.as_deref() != Some(""),
                        "{} gave an empty description",
                        source.kind
                    );
                }
                runs += 1;
            }
        }
    }
    runs
}

#[test]
fn parsers_survive_mutated_input() {
    let inputs: Vec<Vec<u8>> = SAMPLES.iter().flat_map(|s| mutations(s)).collect();
    assert!(run_all(&inputs) > 10_000);
}

#[test]
fn parsers_survive_adversarial_input() {
    // Deep nesting runs on a big stack, as discovery threads may not: see the dedicated check
    // below for the default stack.
    let inputs = adversarial();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || run_all(&inputs))
        .unwrap()
        .join()
        .expect("no panic on adversarial input");
}

#[test]
fn deep_nesting_fits_the_default_thread_stack() {
    // Test threads get 2 MiB, like the walker's threads: a parser recursing without a limit
    // overflows here (an abort, not a panic), which is why nesting must be bounded.
    run_all(&adversarial());
}

#[test]
fn binary_input_is_rejected_before_parsing() {
    let d = commandtree_core::discover::parse_bytes("package.json", b"{\"scripts\":\0}", false);
    assert!(d.commands.is_empty());
}
