//! Security warnings through the real `ct`, one workspace per class of false warning or miss
//! found on real repositories: only what runs is analysed, each in its language and in the
//! context it runs in, and `ct list` says why a command has its ⚠.

use crate::support::Workspace;

/// `(type, label, securityWarning)` of every command `ct list --json --all` shows.
fn listing(w: &Workspace) -> Vec<(String, String, Option<String>)> {
    w.json(["list", "--json", "--all"])
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_string(),
                c["label"].as_str().unwrap().to_string(),
                c["securityWarning"].as_str().map(str::to_string),
            )
        })
        .collect()
}

#[track_caller]
fn warning(w: &Workspace, kind: &str, label: &str) -> Option<String> {
    let all = listing(w);
    all.iter()
        .find(|(k, l, _)| k == kind && l == label)
        .unwrap_or_else(|| panic!("no {kind} `{label}` in {all:#?}"))
        .2
        .clone()
}

#[test]
fn a_readme_with_rm_rf_in_a_fence_gets_no_warning() {
    let w = Workspace::new();
    w.write(
        "README.md",
        "# Tool\n\n```python\nprint('hi')\n```\n\nInstall:\n\n```sh\ncurl -fsSL https://x.io/i | sh\nrm -rf /\n```\n\nThen `$(whoami)` and `rm -rf ~`.\n",
    );
    w.write(
        "AGENTS.md",
        "# Agents\n\nNever run `git push --force`.\n\n```bash\nrm -rf ~\n```\n",
    );
    assert_eq!(warning(&w, "markdown", "README.md"), None);
    for (k, l, warned) in listing(&w) {
        assert_eq!(warned, None, "{k} {l}");
    }
}

#[test]
fn a_dockerfile_run_step_cleaning_apt_lists_gets_no_warning() {
    let w = Workspace::new();
    w.write(
        "Dockerfile",
        "FROM debian:12\nRUN apt-get update && apt-get install -y curl \\\n    && rm -rf /var/lib/apt/lists/*\nRUN printf \"key: value\\n\" > /etc/app.conf\nRUN curl -fsSL https://x.io/i | sh && sudo chmod 777 /opt\n",
    );
    assert_eq!(warning(&w, "docker", "build Dockerfile"), None);
}

#[test]
fn a_compose_service_mounting_the_docker_socket_is_a_caution() {
    let w = Workspace::new();
    w.write(
        "docker-compose.yml",
        "services:\n  web:\n    image: nginx\n    command: rm -rf /\n  agent:\n    image: agent\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n",
    );
    for label in ["up", "up -d", "up agent"] {
        let warned = warning(&w, "docker", label).unwrap_or_else(|| panic!("{label}"));
        assert!(warned.starts_with("Caution:"), "{label}: {warned}");
        assert!(warned.contains("docker.sock"), "{label}: {warned}");
    }
    // Starting only `web` gives it nothing of the host; stopping or listing starts nothing.
    for label in ["up web", "down", "build", "logs", "ps"] {
        assert_eq!(warning(&w, "docker", label), None, "{label}");
    }
}

#[test]
fn compose_runs_the_base_file_with_its_override_and_warns_for_both() {
    let w = Workspace::new();
    w.write(
        "compose.yml",
        "services:\n  web:\n    image: nginx\n  db:\n    image: postgres\n",
    );
    w.write(
        "compose.override.yml",
        "services:\n  web:\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n  mail:\n    image: mailpit\n",
    );
    w.write("compose.prod.yml", "services:\n  web:\n    image: nginx\n");
    let all = w.json(["list", "--json", "--all"]);
    let of = |file: &str, label: &str| {
        all.as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["id"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("/{file}:{label}"))
            })
            .unwrap_or_else(|| panic!("no {file} {label} in {all:#}"))
            .clone()
    };
    for label in ["up", "up -d", "up web"] {
        let warned = of("compose.yml", label)["securityWarning"]
            .as_str()
            .unwrap_or_else(|| panic!("{label}"))
            .to_string();
        assert!(
            warned.starts_with("Caution: with `compose.override.yml` merged in, service web")
                && warned.contains("docker.sock"),
            "{label}: {warned}"
        );
    }
    assert!(of("compose.yml", "up db")["securityWarning"].is_null());
    assert!(of("compose.prod.yml", "up")["securityWarning"].is_null());
    // `docker compose up` there reads both files; the override lists what it adds.
    let plan = w
        .run(["run", "--dry-run", "--yes", "up"])
        .success()
        .stdout();
    assert!(
        plan.contains("-f")
            && plan.contains("compose.yml")
            && plan.contains("compose.override.yml"),
        "{plan}"
    );
    assert!(!plan.contains("compose.prod.yml"), "{plan}");
    assert!(
        of("compose.override.yml", "up mail")["command"]
            .as_str()
            .unwrap()
            .contains("compose.yml")
    );
    let listed = w.json(["list", "--json"]);
    let ups = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["label"] == "up web")
        .count();
    assert_eq!(
        ups, 2,
        "compose.yml's and compose.prod.yml's, not the override's: {listed:#}"
    );
}

#[test]
fn a_tox_environment_is_judged_by_its_own_command_lines() {
    let w = Workspace::new();
    w.write(
        "tox.ini",
        "[tox]\nenvlist = lint, wipe\n\n[testenv:lint]\ndescription = rm -rf / is not run here\ncommands = ruff check .\n\n[testenv:wipe]\ncommands =\n    lint: pytest\n    - rm -rf {env:HOME}/.cache ~/.config/app\n\n[testenv:docs]\ncommands = sphinx-build docs out\n",
    );
    let wipe = warning(&w, "tox", "wipe").expect("wipe warned");
    // Lines count from the environment's own section, as every command's text does.
    assert!(
        wipe.contains("~/.config/app") && wipe.contains("line 4"),
        "{wipe}"
    );
    assert_eq!(warning(&w, "tox", "lint"), None);
    assert_eq!(warning(&w, "tox", "docs"), None);
    // `tox` runs the default list, which holds `wipe`; not `docs`.
    let all = warning(&w, "tox", "tox").expect("tox warned through wipe");
    assert!(all.contains("runs `wipe`"), "{all}");
    w.run(["run", "--dry-run", "--yes", "wipe"])
        .success()
        .stdout_has("tox -e wipe");
}

#[test]
fn a_nox_session_is_judged_by_what_it_hands_session_run() {
    let w = Workspace::new();
    w.write(
        "noxfile.py",
        "import nox\n\nnox.options.sessions = [\"lint\"]\n\n@nox.session\ndef lint(session):\n    \"\"\"rm -rf / is only words here\"\"\"\n    session.run(\"ruff\", \"check\", \".\")\n\n@nox.session(python=[\"3.12\", \"3.13\"])\ndef wipe(session):\n    session.run(\"rm\", \"-rf\", \"~/.config/app\", external=True)\n",
    );
    let wipe = warning(&w, "nox", "wipe").expect("wipe warned");
    assert!(wipe.contains("~/.config/app"), "{wipe}");
    assert_eq!(warning(&w, "nox", "lint"), None);
    // `nox` runs the default sessions only: `lint`.
    assert_eq!(warning(&w, "nox", "nox"), None);
    w.run(["run", "--dry-run", "--yes", "wipe"])
        .success()
        .stdout_has("nox -s wipe");
}

#[test]
fn a_rakefile_that_drops_a_database_with_sh_is_warned() {
    let w = Workspace::new();
    w.write(
        "Rakefile",
        "desc 'Drop the production database'\ntask :reset do\n  sh \"dropdb prod\"\nend\n\ntask railties: :reset\n\ntask :check do\n  sh(Gem.ruby, \"-r\", \"x/railtie\", \"-e\", \"'OK'\")\n  puts \"rm -rf / | sh\"\nend\n",
    );
    let reset = warning(&w, "rake", "reset").expect("reset warned");
    assert!(reset.contains("drops a database (dropdb)"), "{reset}");
    // Its prerequisite runs it: the warning comes along.
    let through = warning(&w, "rake", "railties").expect("railties warned");
    assert!(through.contains("runs `reset`"), "{through}");
    assert_eq!(warning(&w, "rake", "check"), None);
}

#[test]
fn a_csproj_with_msbuild_properties_gets_no_warning() {
    let w = Workspace::new();
    w.write(
        "App/App.csproj",
        // The shape of a real project's file that the shell grammar used to misread.
        "<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <UserSecretsId>0c5e2f5a-1b7d-4f4e-9a51-2f7b8d6c4e10</UserSecretsId>\n    <Nullable>enable</Nullable>\n    <RootNamespace>eShop.WebApp</RootNamespace>\n\n    <!-- Disable RZ10021, which is failing due to a Razor bug, according to Mackinnon. -->\n    <NoWarn>$(NoWarn);RZ10021</NoWarn>\n  </PropertyGroup>\n\n  <PropertyGroup>\n    <OutputPath>$(OutDir)</OutputPath>\n  </PropertyGroup>\n\n</Project>\n",
    );
    let dotnet: Vec<_> = listing(&w)
        .into_iter()
        .filter(|(k, _, _)| k == "dotnet")
        .collect();
    assert!(!dotnet.is_empty(), "the project is listed");
    for (_, l, warned) in dotnet {
        assert_eq!(warned, None, "{l}");
    }
}

#[test]
fn a_kotlin_build_with_backticked_names_gets_no_warning() {
    let w = Workspace::new();
    w.write_executable("gradlew", "#!/bin/sh\n");
    w.write("settings.gradle.kts", "rootProject.name = \"x\"\n");
    w.write(
        "build.gradle.kts",
        "plugins {\n    `kotlin-dsl`\n    `java-library`\n}\n\ntasks.register(\"hello\") {\n    doLast { println(\"${project.name}\") }\n}\n",
    );
    let gradle: Vec<_> = listing(&w)
        .into_iter()
        .filter(|(k, _, _)| k == "gradle")
        .collect();
    assert!(!gradle.is_empty(), "the build is listed");
    for (_, l, warned) in gradle {
        assert_eq!(warned, None, "{l}");
    }
}

#[test]
fn a_make_target_is_warned_for_the_installer_its_file_prerequisite_pipes_to_sh() {
    let w = Workspace::new();
    w.write(
        "Makefile",
        "PREFIX ?= /usr/local\nLINT := $(BIN)/golangci-lint\n\n\
         all: lint\n\n\
         lint: $(LINT)\n\t$(LINT) run\n\n\
         $(LINT):\n\tcurl -sfL https://x.io/install.sh | sh -s -- -b $(BIN)\n\n\
         install:\n\tinstall -m 0755 app $(DESTDIR)$(PREFIX)/bin\n\n\
         local:\n\t$(MAKE) install PREFIX=./out\n\n\
         format:\n\tgofmt -w .\n",
    );
    let lint = warning(&w, "make", "lint").expect("lint warned");
    assert!(
        lint.starts_with("Danger: makes `$(LINT)`, which pipes a download (curl) into sh"),
        "{lint}"
    );
    let all = warning(&w, "make", "all").expect("all warned through lint");
    assert!(all.contains("runs `lint`"), "{all}");
    let install = warning(&w, "make", "install").expect("install warned");
    assert!(install.contains("/usr/local/bin"), "{install}");
    // Installing into the project is not outside it; `format` is a target, not a disk tool.
    assert_eq!(warning(&w, "make", "local"), None);
    assert_eq!(warning(&w, "make", "format"), None);
}

#[test]
fn a_dispatched_workflow_is_warned_only_for_what_it_does_to_shared_things() {
    let w = Workspace::new();
    w.write(
        ".github/workflows/ci.yml",
        "name: CI\non: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: sudo apt-get install -y jq && sudo rm -rf /opt/hostedtoolcache\n",
    );
    w.write(
        ".github/workflows/sync.yml",
        "name: Sync\non: workflow_dispatch\njobs:\n  sync:\n    runs-on: ubuntu-latest\n    steps:\n      - run: git push --force origin HEAD:main\n",
    );
    assert_eq!(warning(&w, "workflow", "CI"), None);
    let sync = warning(&w, "workflow", "Sync").expect("sync warned");
    assert!(
        sync.starts_with("Danger: dispatches a job that overwrites remote history"),
        "{sync}"
    );
}

#[test]
fn scripts_called_by_a_release_script_bring_their_warnings() {
    let w = Workspace::new();
    w.write_executable(
        "scripts/release.sh",
        "#!/bin/sh\nset -e\n./scripts/publish.sh\n",
    );
    w.write_executable(
        "scripts/publish.sh",
        "#!/bin/sh\nnpm publish --access public\n",
    );
    w.write_executable(
        "scripts/tmp.sh",
        "#!/bin/sh\nd=$(mktemp -d)\nchmod 777 \"$d\"\nrm -rf \"$d\"\n",
    );
    let release = warning(&w, "shell", "release.sh").expect("release warned");
    assert!(
        release.contains("runs `publish.sh`, which publishes to a package registry (npm publish)"),
        "{release}"
    );
    assert_eq!(warning(&w, "shell", "tmp.sh"), None);
}

#[test]
fn the_listing_shows_why_a_command_is_warned() {
    let w = Workspace::new();
    w.write(
        "justfile",
        "install:\n    cargo install --path .\n\ntest:\n    cargo test\n",
    );
    let text = w.run(["list"]).success().stdout();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("⚠ install"))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        lines[at + 1].trim(),
        "Caution: installs a program globally (cargo install)",
        "{text}"
    );
    let test = lines.iter().position(|l| l.trim() == "test").unwrap();
    assert!(
        lines.get(test + 1).is_none_or(|l| !l.contains("Caution")),
        "{text}"
    );
}

#[test]
fn a_bin_script_brings_the_warnings_of_the_programs_beside_it_it_runs_by_name() {
    let w = Workspace::new();
    w.write_executable(
        "plugins/tool/bin/tool-install",
        "#!/usr/bin/env bash\nset -e\ntool-build \"$1\" \"$PREFIX\"\n",
    );
    w.write_executable(
        "plugins/tool/bin/tool-build",
        "#!/usr/bin/env bash\ncurl -fsSL https://example.com/get.sh | sh\n",
    );
    // Outside a program folder a bare name goes through PATH.
    w.write_executable("scripts/ci.sh", "#!/bin/sh\ntool-build x\n");
    let install = warning(&w, "shell", "tool-install").expect("tool-install warned");
    assert!(
        install.contains("runs `tool-build`, which pipes a download (curl) into sh"),
        "{install}"
    );
    assert_eq!(warning(&w, "shell", "ci.sh"), None);
}

#[test]
fn a_test_runner_brings_the_warnings_of_the_scripts_in_the_suites_it_runs() {
    let w = Workspace::new();
    w.write(
        "Makefile",
        "SHELLS := sh bash\n\
         SHELL_TARGETS := $(addprefix test-,$(SHELLS))\n\
         TEST_SUITE := $(shell find ./test/* -type d -prune -exec basename {} \\;)\n\
         $(SHELL_TARGETS):\n\
         \t@shell='$@'; for suite in $(TEST_SUITE); do urchin -f -s $${shell##*-} test/$$suite || exit; done\n\
         test: $(SHELL_TARGETS)\n",
    );
    w.write(
        "package.json",
        r#"{"scripts": {
            "test/quick": "make TEST_SUITE=quick test-$shell",
            "test/global": "make TEST_SUITE=global test-$shell"
        }}"#,
    );
    w.write_executable("test/quick/adds", "#!/bin/sh\n[ $((1 + 1)) = 2 ]\n");
    w.write_executable(
        "test/global/installs a tool",
        "#!/bin/sh\nnpm install -g some-tool\n",
    );
    let make = warning(&w, "make", "test").expect("make test warned");
    assert!(
        make.contains("runs `installs a tool`, which installs packages globally"),
        "{make}"
    );
    assert!(warning(&w, "npm", "test/global").is_some());
    assert_eq!(warning(&w, "npm", "test/quick"), None);
}

#[test]
fn a_tool_home_is_outside_the_project_unless_a_sourced_project_file_sets_it() {
    let w = Workspace::new();
    w.write(
        "tool.sh",
        "if [ -z \"${TOOL_DIR-}\" ]; then\n  TOOL_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nfi\n",
    );
    w.write_executable(
        "test/fast/cleans up",
        "#!/bin/sh\n: tool.sh\n\\. ../../tool.sh\nrm -rf \"${TOOL_DIR}/versions/v1\"\n",
    );
    w.write_executable(
        "bin/tool-uninstall",
        "#!/bin/sh\ntool --version\nrm -rf \"$TOOL_DIR/versions/$1\"\n",
    );
    assert_eq!(warning(&w, "shell", "cleans up"), None);
    let uninstall = warning(&w, "shell", "tool-uninstall").expect("tool-uninstall warned");
    assert!(
        uninstall.contains("under $TOOL_DIR, outside the project"),
        "{uninstall}"
    );
}

#[test]
fn a_runner_looping_over_the_scripts_of_its_folder_brings_their_warnings() {
    let w = Workspace::new();
    w.write_executable(
        "test/run.sh",
        "#!/usr/bin/env bash\nsource \"$(dirname \"${0}\")/common.sh\"\n\
         targets=\"$(\\ls \"$(dirname \"${0}\")\" | grep 'test_')\"\n\
         for t in ${targets}; do\n  bash \"$(dirname \"${0}\")/${t}\" || errors+=( \"${t}\" )\ndone\n",
    );
    w.write(
        "test/common.sh",
        "#!/usr/bin/env bash\nlog() { echo \"$@\"; }\n",
    );
    w.write_executable(
        "test/test_version_file.sh",
        "#!/usr/bin/env bash\necho '0.15.0' > \"${HOME}/.terraform-version\"\n",
    );
    w.write_executable("test/test_list.sh", "#!/usr/bin/env bash\necho list\n");
    // A loop that only reads the same scripts runs none of them.
    w.write_executable(
        "lint.sh",
        "#!/bin/sh\nfor f in test/test_*.sh; do shellcheck \"$f\"; cat \"$f\"; done\n",
    );
    let run = warning(&w, "shell", "run.sh").expect("run.sh warned");
    assert!(
        run.contains(
            "runs `test_version_file.sh`, which writes to ~/.terraform-version, outside the project"
        ),
        "{run}"
    );
    assert_eq!(warning(&w, "shell", "lint.sh"), None);
    let deps = w.run(["deps", "shell:run.sh"]).success().stdout();
    assert!(
        deps.contains("test_version_file.sh (shell, call)"),
        "{deps}"
    );
    assert!(deps.contains("test_list.sh (shell, call)"), "{deps}");
    assert!(!deps.contains("common.sh (shell, call)"), "{deps}");
}

#[test]
fn syncing_the_project_into_the_home_folder_is_a_danger() {
    let w = Workspace::new();
    w.write_executable(
        "bootstrap.sh",
        "#!/usr/bin/env bash\ncd \"$(dirname \"${BASH_SOURCE}\")\";\n\
         rsync --exclude \".git/\" --exclude \"README.md\" -avh --no-perms . ~;\n",
    );
    w.write_executable(
        "build.sh",
        "#!/bin/sh\nrsync -a src/ build/\ncp ~/.bashrc backup/\nrsync -a ./ deploy@example.com:~/\n",
    );
    let boot = warning(&w, "shell", "bootstrap.sh").expect("bootstrap.sh warned");
    assert!(
        boot.starts_with(
            "Danger: copies the project folder into the home folder, over the user's own dot files"
        ),
        "{boot}"
    );
    let build = warning(&w, "shell", "build.sh").unwrap_or_default();
    assert!(!build.contains("home folder"), "{build}");
}

#[test]
fn a_release_whose_prerequisite_downloads_a_program_and_makes_it_runnable_is_a_danger() {
    let w = Workspace::new();
    w.write(
        "Makefile",
        "release: bin/gh-release-body\n\tbin/gh-release-body owner/repo v1\n\nbin/gh-release-body:\n\tmkdir -p bin\n\tcurl -o bin/gh-release-body \"https://raw.githubusercontent.com/o/gh-release-body/master/gh-release-body\"\n\tchmod +x bin/gh-release-body\n\nbuild:\n\tmkdir -p bin\n\tcurl -o bin/data.json https://example.com/data.json\n",
    );
    let release = warning(&w, "make", "release").expect("release is warned");
    assert!(
        release.starts_with("Danger:") && release.contains("makes `bin/gh-release-body`"),
        "{release}"
    );
    // Data fetched into the project is no program.
    assert_eq!(warning(&w, "make", "build"), None);
}

#[test]
fn a_script_running_a_sibling_through_its_own_folder_carries_the_siblings_warning() {
    let w = Workspace::new();
    w.write_executable(
        "packaging/build_component.sh",
        "#!/bin/bash\nname=\"simple-http-server\"\nv=\"$(curl -s https://github.com/o/s/releases/latest)\"\ncurl -LOk \"https://github.com/o/s/releases/download/$v/$name\"\nchmod u+x \"$name\"\n\"./$name\" --ip 127.0.0.1 &\n",
    );
    w.write_executable(
        "packaging/build_and_notarize.sh",
        "#!/bin/bash\nscript_dir=\"$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &>/dev/null && pwd)\"\nbash \"$script_dir/build_component.sh\" app docs\n",
    );
    let own = warning(&w, "shell", "build_component.sh").expect("the download is run");
    assert!(own.starts_with("Danger:"), "{own}");
    let caller = warning(&w, "shell", "build_and_notarize.sh").expect("warned through its step");
    assert!(
        caller.starts_with("Danger:") && caller.contains("build_component.sh"),
        "{caller}"
    );
    w.run(["deps", "build_and_notarize.sh"])
        .success()
        .stdout_has("packaging/build_component.sh");
}

#[test]
fn a_powershell_release_step_pushing_to_chocolatey_publishes() {
    let w = Workspace::new();
    w.write(
        "install/choco/update.ps1",
        "choco pack ./app.nuspec\nif ($null -ne $ENV:PUSH_TOKEN) {\n    choco push app.1.0.nupkg --key $ENV:PUSH_TOKEN --source=\"'https://push.chocolatey.org/'\"\n}\n",
    );
    w.write(
        "install/choco/chocolateyInstall.ps1",
        "$packageArgs = @{ packageName = 'app'; fileType = 'msi'; silentArgs = '/qn /norestart' }\nInstall-ChocolateyPackage @packageArgs\n",
    );
    w.write(
        "build.ps1",
        "dotnet build -c Release\nWrite-Host 'choco push later'\n",
    );
    let push = warning(&w, "powershell", "update.ps1").expect("the push is warned");
    assert!(push.contains("choco push"), "{push}");
    assert!(warning(&w, "powershell", "chocolateyInstall.ps1").is_some());
    assert_eq!(warning(&w, "powershell", "build.ps1"), None);
}

#[test]
fn a_plugin_managers_scripts_delete_and_clone_under_a_path_its_helpers_print() {
    let w = Workspace::new();
    w.write(
        "scripts/helpers/plugin_functions.sh",
        "_expand() {\n\tlocal path=\"$1\"\n\tlocal t=\"${path/#\\~/$HOME}\"\n\techo \"${t/#\\$HOME/$HOME}\"\n}\n\
         _path() {\n\tlocal p=\"$(tmux show-environment -g PLUGIN_PATH | cut -f2 -d=)/\"\n\t_expand \"$p\"\n}\n\
         _CACHED=\"$(_path)\"\nplugins_path() {\n\techo \"$_CACHED\"\n}\n",
    );
    let head = "#!/usr/bin/env bash\nCURRENT_DIR=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" && pwd )\"\n\
                HELPERS_DIR=\"$CURRENT_DIR/helpers\"\nsource \"$HELPERS_DIR/plugin_functions.sh\"\n";
    w.write_executable(
        "scripts/clean_plugins.sh",
        format!("{head}clean() {{\n\tlocal d\n\tfor d in \"$(plugins_path)\"/*; do\n\t\trm -rf \"${{d}}\"\n\tdone\n}}\nclean\n"),
    );
    w.write_executable(
        "scripts/install_plugins.sh",
        format!(
            "{head}clone() {{\n\tcd \"$(plugins_path)\" && git clone \"$1\"\n}}\nclone \"$1\"\n"
        ),
    );
    w.write_executable(
        "bin/clean_plugins",
        "#!/usr/bin/env bash\nCURRENT_DIR=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" && pwd )\"\n\
         SCRIPTS_DIR=\"$CURRENT_DIR/../scripts\"\n\"$SCRIPTS_DIR/clean_plugins.sh\"\n",
    );
    let clean = warning(&w, "shell", "clean_plugins.sh").expect("deletes under the plugin path");
    assert!(
        clean.starts_with("Caution:") && clean.contains("under the home folder"),
        "{clean}"
    );
    let install = warning(&w, "shell", "install_plugins.sh").expect("clones into it");
    assert!(install.contains("under the home folder"), "{install}");
    let bin = warning(&w, "shell", "clean_plugins").expect("warned through the script it runs");
    assert!(bin.contains("clean_plugins.sh"), "{bin}");
}
