//! One test per class of false warning and miss found on real repositories: only what runs is
//! analysed, in its language and in the context it runs in.

use super::*;
use commandtree_core::{CommandItem, ShellCode};
use sha2::Digest;
use std::path::Path;

fn lvl(kind: &str, text: &str) -> Option<Level> {
    level(&analyse(kind, text))
}

#[track_caller]
fn warned(kind: &str, text: &str, want: Level) {
    let f = analyse(kind, text);
    assert_eq!(level(&f), Some(want), "{kind}: {text}\n{f:#?}");
}

#[track_caller]
fn quiet(kind: &str, text: &str) {
    let f = analyse(kind, text);
    assert!(f.is_empty(), "{kind}: {text}\n{f:#?}");
}

#[test]
fn a_dockerfile_changes_only_the_image_it_builds() {
    quiet(
        "docker",
        "FROM debian:12\n\
         RUN apt-get update && apt-get install -y curl && rm -rf /var/lib/apt/lists/*\n\
         RUN curl https://pyenv.run | bash\n\
         RUN echo 'packager ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers && chmod 777 /__w\n\
         RUN sudo rm -rf ~/.bundle/ \"${BUNDLE_PATH}\"/ruby/*/cache\n",
    );
    quiet(
        "docker",
        "# syntax=docker/dockerfile:1\nARG V=1\nFROM x\nRUN rm -rf /\n",
    );
}

const COMPOSE: &str = "services:
  app:
    image: app
    command: sh -c 'rm -rf / && curl -s https://x | sh'
  agent:
    image: agent
    volumes:
      - ./data:/data
      - /var/run/docker.sock:/var/run/docker.sock
  tools:
    image: tools
    privileged: true
    network_mode: host
";

#[test]
fn a_compose_service_given_the_docker_socket_or_the_host_is_a_caution() {
    let f = analyse("docker", COMPOSE);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    let reasons: Vec<&str> = f.iter().map(|x| x.reason.as_str()).collect();
    assert!(
        reasons.iter().any(|r| r.contains("docker.sock")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("privileged")),
        "{reasons:?}"
    );
    assert!(reasons.iter().any(|r| r.contains("network")), "{reasons:?}");
    // What runs inside a container stays there.
    assert!(
        !reasons
            .iter()
            .any(|r| r.contains("rm") || r.contains("download")),
        "{reasons:?}"
    );
    let line = f
        .iter()
        .find(|x| x.reason.contains("docker.sock"))
        .unwrap()
        .line;
    assert_eq!(line, 9);
    quiet(
        "docker",
        "services:\n  db:\n    image: postgres\n    volumes: [pg:/var/lib/postgresql/data]\n",
    );

    // Only the commands that start containers carry it: `up`, `up -d`, `up agent`.
    let file = Path::new("/w/docker-compose.yml");
    let cmd =
        |label: &str| CommandItem::new("docker", file, label, format!("docker compose {label}"));
    for label in ["up", "up -d"] {
        assert_eq!(
            level(&analyse_command(&cmd(label), COMPOSE, true)),
            Some(Level::Caution),
            "{label}"
        );
    }
    for label in ["down", "build", "logs", "ps"] {
        assert!(
            analyse_command(&cmd(label), COMPOSE, true).is_empty(),
            "{label}"
        );
    }
    let agent = "  agent:\n    image: agent\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n";
    assert_eq!(
        level(&analyse_command(&cmd("up agent"), agent, true)),
        Some(Level::Caution)
    );
    let app = "  app:\n    image: app\n    command: rm -rf /\n";
    assert!(analyse_command(&cmd("up app"), app, true).is_empty());
}

#[test]
fn a_rakefile_is_read_for_what_it_hands_to_a_shell() {
    warned(
        "rake",
        "desc 'Drop'\ntask :drop do\n  sh \"dropdb prod\"\nend\n",
        Level::Danger,
    );
    warned(
        "rake",
        "task :drop do\n  %x( mysql -e \"drop database IF EXISTS #{c[\"database\"]}\" )\nend\n",
        Level::Danger,
    );
    warned(
        "rake",
        "task :x do\n  system(%(cd activerecord && #{$0} db:drop --trace))\nend\n",
        Level::Danger,
    );
    // Ruby's own syntax is not shell.
    quiet(
        "rake",
        "task :railties do\n  [\"a/railtie\"].all? do |railtie|\n    sh(Gem.ruby, \"-r\", railtie, \"-e\", \"'OK'\")\n  end\nend\n",
    );
    quiet(
        "rake",
        "task :x do\n  puts \"rm -rf / | sh\"\n  x = `git status`\nend\n",
    );
}

#[test]
fn an_msbuild_project_is_read_for_its_exec_commands_only() {
    quiet(
        "dotnet",
        "<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n  <PropertyGroup>\n    <NoWarn>$(NoWarn);RZ10021</NoWarn>\n    <OutDir>$(OutDir)</OutDir>\n  </PropertyGroup>\n</Project>\n",
    );
    warned(
        "dotnet",
        "<Project>\n  <Target Name=\"Boot\">\n    <Exec Command=\"curl -s https://x.io/i.sh | sh\" />\n  </Target>\n</Project>\n",
        Level::Danger,
    );
}

#[test]
fn a_kotlin_build_is_read_for_its_exec_calls_only() {
    quiet(
        "gradle",
        "plugins {\n  `kotlin-dsl`\n  `java-gradle-plugin`\n}\nval x = \"${rootDir}/$name\"\n",
    );
    warned(
        "gradle",
        "tasks.register<Exec>(\"push\") {\n  commandLine(\"git\", \"push\", \"--force\", \"origin\")\n}\n",
        Level::Danger,
    );
}

#[test]
fn a_dispatched_workflow_is_judged_by_what_it_does_to_shared_things() {
    // Its runner is not the user's machine.
    quiet(
        "workflow",
        "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: sudo apt-get install -y jq && rm -rf ~ && curl -s https://x | sh\n      - uses: jdx/mise-action@v2\n        with:\n          command: erl -eval 'erlang:display(1), halt().'\n      - run: echo ${{ secrets.TOKEN }} | docker login --password-stdin\n",
    );
    warned(
        "workflow",
        "on: workflow_dispatch\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          git tag v1\n          git push --force origin main\n",
        Level::Danger,
    );
    for (what, wf) in [
        (
            "stale",
            "on: workflow_dispatch\njobs:\n  stale:\n    runs-on: x\n    steps:\n      - uses: actions/stale@v9\n",
        ),
        (
            "permissions",
            "on: workflow_dispatch\npermissions:\n  issues: write\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: some/action@v1\n",
        ),
        (
            "job name",
            "on: workflow_dispatch\njobs:\n  publish-ppa:\n    runs-on: x\n    steps:\n      - run: ./build.sh\n",
        ),
        (
            "gh",
            "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: gh pr merge \"$PR\" --squash --auto\n",
        ),
        (
            "upload",
            "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n          curl --form token=${{ secrets.T }} \\\n            --form file=@cov-int.tgz https://scan.example.com/builds\n",
        ),
        (
            "push",
            "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: docker/build-push-action@v6\n        with:\n          push: true\n",
        ),
        (
            "push by a buildx output",
            "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: docker/build-push-action@v4\n        with:\n          outputs: type=image,push-by-digest=true,push=true\n",
        ),
    ] {
        let f = analyse("workflow", wf);
        assert_eq!(level(&f), Some(Level::Caution), "{what}: {f:#?}");
        assert!(f[0].reason.starts_with("dispatches"), "{what}: {f:#?}");
    }
    quiet(
        "workflow",
        "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: docker/build-push-action@v6\n        with:\n          push: false\n",
    );
}

#[test]
fn sudo_in_an_installer_is_a_caution() {
    let installer = "#!/bin/sh\nset -e\ncurl -fsSLo /tmp/tool.tgz https://x.io/tool.tgz\ntar -xzf /tmp/tool.tgz -C /tmp\nsudo install -m 0755 /tmp/tool /usr/local/bin/tool\nsudo apt-get install -y jq\n";
    warned("shell", installer, Level::Caution);
    warned(
        "shell",
        "su -m root -c 'pkg install -y git'\n",
        Level::Caution,
    );
    warned(
        "shell",
        "choco upgrade --no-progress -y msys2\nrm -rf C:/tools/msys64\n",
        Level::Caution,
    );
    warned("shell", "(cd rust-1.80 && ./install.sh)\n", Level::Caution);
}

#[test]
fn paths_inside_the_project_or_made_for_the_script_are_not_outside_it() {
    for t in [
        "rm -rf \"$fixture/dist\"",
        "rm -rf \"${BUNDLE_PATH}\"/ruby/*/cache",
        "RELEASE_DIR=\"$(pwd)/tmp\"\nrm -rf \"$RELEASE_DIR\"",
        "d=$(mktemp -d)\nchmod 777 \"$d\"\nrm -rf \"$d\"",
        "tmpdir=$(mktemp -d)\nchmod a+wx ${tmpdir}",
        "host_tmp=\"$(mktemp -d \"$root/x.XXXXXX\")\"\nchmod 777 \"$host_tmp\"",
        "cd \"$(dirname \"$0\")/..\" && rm -rf \"$(pwd)/build\"",
        "cp out.txt \"$TMPDIR/out.txt\"",
        "cp a ~/.cache/tool/a",
    ] {
        quiet("shell", t);
    }
    // Still the root when the variable is empty.
    warned("shell", "rm -rf \"$PREFIX\"/*", Level::Danger);
    warned("shell", "rm -rf \"$DIR/usr\"", Level::Danger);
}

#[test]
fn a_tools_own_shell_hook_is_not_a_warning() {
    for t in [
        "eval \"$(JUST_COMPLETE=bash just)\"",
        "eval \"$(\"$mise_bin\" activate bash --shims)\"",
        "eval \"$_mise_cmd_not_found_handle\"",
        "bash -c \"$1\"",
    ] {
        quiet("shell", t);
    }
    quiet(
        "powershell",
        "mise activate pwsh | Out-String | Invoke-Expression\n",
    );
    // Where the text comes from still counts.
    warned(
        "shell",
        "eval \"$(curl -fsSL https://x.io/env)\"",
        Level::Danger,
    );
}

#[test]
fn words_that_look_like_commands_are_not_commands() {
    // A function wrapping the program it is named after is no fork bomb.
    quiet(
        "shell",
        "timeout() {\n  if type -P timeout >/dev/null; then\n    command timeout \"$@\"\n    return $?\n  fi\n}\n",
    );
    warned("shell", ":(){ :|:& };:", Level::Danger);
    quiet("make", "format:\n\tgofmt -w .\n\tnpm run format\n");
    quiet("just", "format:\n    cargo fmt --all\n");
    warned("shell", "format C:", Level::Danger);
    // A mise file task in TypeScript: its template literals are not command substitutions.
    quiet(
        "mise",
        "#!/usr/bin/env -S node --experimental-strip-types\n//MISE description=\"render\"\nthrow new Error(`unsupported ref: ${ref}`);\n",
    );
    warned(
        "mise",
        "#!/usr/bin/env bash\n#MISE description=\"x\"\ngit push --force\n",
        Level::Danger,
    );
}

#[test]
fn global_installs_change_the_machine() {
    for t in [
        "cargo install -f just",
        "cargo install --path . --debug",
        "go install golang.org/x/tools/cmd/goyacc@v0.1",
        "GO111MODULE=on go install \"$pkg\"",
        "npm install -g typescript",
        "pnpm add --global x",
        "yarn global add x",
        "rustup install nightly",
        "mise use -g tiny@3.1.0",
        "gem install bundler",
        "pipx install poetry",
        "cp target/release/app ~/.local/bin/",
        "dest=\"$HOME/bin\"\ncp \"$td/just\" \"$dest/just\"",
        "unzip -u protoc.zip bin/protoc -d \"$FIRST_GOPATH\"",
        "curl -s -o ~/bin/tool https://x.io/tool",
        "git config --global user.name bot",
        "echo x > ~/.rpmmacros",
    ] {
        warned("shell", t, Level::Caution);
    }
    for t in [
        "GOBIN=$(pwd)/bin go install ./tools/...",
        "npm install",
        "cargo build --release",
        "pip install -r requirements.txt",
        "git config user.name bot",
        "git config --global --get user.name",
        "mise use node@20",
        "mise install",
    ] {
        quiet("shell", t);
    }
}

#[test]
fn publishing_pushing_and_deploying_are_cautions() {
    for t in [
        "cargo publish",
        "npm publish --access public",
        "pnpm publish --access public --no-git-checks --tag next",
        "cmd=\"pnpm publish --access public --tag ${tag}\"\neval \"${cmd}\"",
        "cmd=\"pnpm publish --tag ${tag}\"\nif [ \"$1\" = dry ]; then\n  cmd+=\" --dry-run\"\nfi\neval \"${cmd}\"",
        "docker push ghcr.io/x/y:1",
        "docker buildx build --push -t x .",
        "DOCKER_CLI_EXPERIMENTAL=enabled docker manifest push x:1",
        "twine upload dist/*",
        "python -m twine upload dist/*",
        "python setup.py sdist upload",
        "gh release create v1 dist/*",
        "pnpm netlify deploy --prod --no-build",
        "npx wrangler deploy",
        "mkdocs gh-deploy",
        "aws s3 cp \"$DIR/$V\" \"s3://$BUCKET/$V/\" --recursive --cache-control max-age=60",
        "scp /tmp/redis.tar.gz ubuntu@host.example.com:/var/www/releases/",
        "curl -s -X PUT \"https://api.example.com/scripts/$NAME\" --data-binary @dist/w.js",
        "git push origin v1",
        "git push origin :test-release",
        "dput ppa:x/y ../x.changes",
        "tsx scripts/publishCI.ts",
        "./scripts/deploy-worker.sh",
        "node scripts/deploy.mjs --prod",
    ] {
        warned("shell", t, Level::Caution);
    }
    for t in [
        "cargo publish --dry-run",
        "dotnet publish -c Release",
        "prisma migrate deploy",
        "pnpm deploy --filter api out",
        "aws s3 cp s3://bucket/x ./x",
        "curl -X POST https://hooks.example.com -d '{}'",
        "docker build -t x .",
        "npm pack",
        "tsx scripts/release-notes.ts",
        "./scripts/republisher-check.sh",
    ] {
        quiet("shell", t);
    }
    warned("shell", "GIT=git\n$GIT clean -xdf", Level::Danger);
    warned("make", "distclean:\n\t$(GIT) clean -xdf\n", Level::Danger);
}

#[test]
fn a_make_target_is_read_from_the_recipe_its_parser_worked_out() {
    let mut item = CommandItem::new("make", Path::new("/w/Makefile"), "lint", "make lint");
    item.line = Some(3);
    item.run_code = vec![
        ShellCode {
            code: "@$(FIRST_GOPATH)/bin/golangci-lint run".into(),
            line: 4,
            via: None,
        },
        ShellCode {
            code: "curl -sfL https://x.io/install.sh \\\n\t\t| sh -s -- -b $(FIRST_GOPATH)/bin"
                .into(),
            line: 3,
            via: Some("$(GOLANGCI_LINT)".into()),
        },
    ];
    // The excerpt the listing cuts out: a comment line, the rule, its recipe.
    let text = "# Lint the code\nlint: $(GOLANGCI_LINT)\n\t@$(GOLANGCI_LINT) run\n";
    let f = analyse_command(&item, text, true);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].level, Level::Danger);
    assert_eq!(f[0].line, 2);
    assert_eq!(
        f[0].reason,
        "makes `$(GOLANGCI_LINT)`, which pipes a download (curl) into sh"
    );
    // Without code from its parser, the excerpt is read.
    item.run_code.clear();
    assert!(analyse_command(&item, text, true).is_empty());
    assert_eq!(
        lvl("make", "install:\n\tsudo cp app /usr/local/bin\n"),
        Some(Level::Caution)
    );
}

#[test]
fn other_languages_build_files_and_documents_never_read_as_shell() {
    // Maven and Ant: only their exec calls.
    quiet(
        "maven",
        "<project><build><directory>$(rm -rf /)</directory></build></project>",
    );
    warned(
        "ant",
        "<project><target name=\"x\"><exec executable=\"git\"><arg line=\"push --force\"/></exec></target></project>",
        Level::Danger,
    );
    // Cargo aliases are cargo's arguments.
    warned(
        "cargo",
        "[alias]\ninst = \"install --path .\"\n",
        Level::Caution,
    );
    quiet("cargo", "[alias]\nxtask = \"run --package xtask --\"\n");
    quiet("csharp-script", "Process.Start(\"rm\", \"-rf /\");\n");
}

#[test]
fn a_models_warning_about_an_ai_definition_is_marked_as_such() {
    let w = "Tells the agent to delete the user's home folder.";
    let shown = effective_warning_for("agent", Some(w), Some(Risk::Danger), &[]).unwrap();
    assert_eq!(shown, format!("{AGENT_MARK}{w}"));
    // Marking twice (a listing annotated again) changes nothing.
    assert_eq!(
        effective_warning_for("agent", Some(&shown), None, &[]).as_deref(),
        Some(shown.as_str())
    );
    assert_eq!(
        effective_warning_for("prompt", Some(w), Some(Risk::None), &[]),
        None
    );
    assert_eq!(
        effective_warning_for("prompt", Some("None"), None, &[]),
        None
    );
    // Other commands keep the model's words; a model's danger without a static finding shows.
    assert_eq!(
        effective_warning_for("shell", Some("Wipes the disk."), Some(Risk::Danger), &[]).as_deref(),
        Some("Wipes the disk.")
    );
}

#[test]
fn user_accounts_of_the_machine_are_a_caution_and_deleting_a_home_a_danger() {
    for text in [
        "groupadd -g 1000 celery\nuseradd -u 1000 -g celery -m celery\n",
        "addgroup --system app && adduser --system --ingroup app app",
        "usermod -aG docker \"$USER\"",
        "echo 'app:secret' | chpasswd",
    ] {
        warned("shell", text, Level::Caution);
    }
    warned("shell", "userdel -r olduser", Level::Danger);
    warned("shell", "deluser --remove-home olduser", Level::Danger);
    warned("shell", "userdel olduser", Level::Caution);
    // Inside an image being built, accounts are the image's own.
    quiet(
        "docker",
        "FROM debian:12\nRUN groupadd -r app && useradd -r -g app app\n",
    );
    // Named, not run.
    quiet("shell", "echo 'run useradd as root'\n");
}

#[test]
fn a_relative_path_is_judged_from_the_commands_own_folder() {
    let script = "#!/bin/sh\nrm -rf ../../../alias/test\nrm -R \"../../$V\"\n";
    let mut item = CommandItem::new(
        "shell",
        Path::new("/w/test/fast/Aliases/teardown"),
        "teardown",
        "\"/w/test/fast/Aliases/teardown\"",
    );
    // Three folders down, `../../..` is the project root: inside.
    item.below_root = 3;
    let f = analyse_command(&item, script, true);
    assert!(f.is_empty(), "{f:#?}");
    // One more `..` than that leaves the project.
    let f = analyse_command(&item, "rm -rf ../../../../sibling\n", true);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    // At the root, any `..` is outside.
    item.below_root = 0;
    let f = analyse_command(&item, script, true);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    // The depth is part of the stored findings' key.
    let mut deeper = item.clone();
    deeper.below_root = 3;
    assert_ne!(scan_hash(&item, script), scan_hash(&deeper, script));
    assert_ne!(analysis_key(&item, true), analysis_key(&deeper, true));
}

#[test]
fn a_guarded_part_after_an_empty_variable_is_not_the_root() {
    // Empty VERSIONS gives `/v0.2.4`, a folder under the root, never `/` itself.
    quiet("shell", "rm -rf \"${VERSIONS}/${TEST_VERSION:?}\" .nvmrc");
    quiet("shell", "rm -rf \"$DIR/${NAME:-build}\"");
    // An unguarded one can be empty, and then it is the root.
    warned("shell", "rm -rf \"$DIR/$NAME\"", Level::Danger);
}

#[test]
fn a_program_started_by_xargs_or_a_node_version_manager_is_analysed() {
    warned(
        "shell",
        "echo \"$PKGS\" | xargs npm install -g --quiet",
        Level::Caution,
    );
    warned("shell", "ls | xargs -n 1 -I {} sudo rm {}", Level::Caution);
    warned(
        "shell",
        "nvm exec 0.10.28 npm install -g npm@~1.4.11",
        Level::Caution,
    );
    warned(
        "shell",
        "nvm exec --silent lts/iron npm publish",
        Level::Caution,
    );
    quiet("shell", "git ls-files | xargs -n 1 markdown-link-check -p");
    quiet("shell", "nvm exec 20 node --version");
}

#[test]
fn an_installer_adding_lines_to_the_users_shell_startup_file_is_a_caution() {
    warned(
        "shell",
        "NVM_PROFILE=\"$(nvm_detect_profile)\"\ncommand printf '%b' \"${SOURCE_STR}\" >> \"$NVM_PROFILE\"",
        Level::Caution,
    );
    warned(
        "shell",
        "echo 'export PATH=x' >> \"$SHELL_RC\"",
        Level::Caution,
    );
    // A profile folder of the project's own is a folder, not a startup file.
    quiet("shell", "cp out.json \"$PROFILE_DIR/out.json\"");
    quiet("shell", "echo x > \"$BUILD_PROFILE_DIR/x\"");
}

#[test]
fn a_function_runs_only_when_something_that_runs_calls_it() {
    // A library of functions (a shell plugin, a sourced helper): running it runs none of them.
    quiet(
        "shell",
        "grename() {\n  git push origin :\"$1\"\n  git push --set-upstream origin \"$2\"\n}\nalias gp='git push'\n",
    );
    warned(
        "shell",
        "main() {\n  rm -rf ~/.cache/x ~/old\n}\nmain \"$@\"\n",
        Level::Caution,
    );
    warned(
        "shell",
        "deploy() { git push --force origin main; }\ncase \"$1\" in\n  deploy) deploy ;;\nesac\n",
        Level::Danger,
    );
    // Called through another called function, a wrapper, or a trap.
    warned(
        "shell",
        "inner() { sudo apt-get install -y x; }\nouter() { inner; }\nouter\n",
        Level::Caution,
    );
    warned(
        "shell",
        "cleanup() { rm -rf ~; }\ntrap cleanup EXIT\necho hi\n",
        Level::Danger,
    );
    // Dispatch by the script's arguments may call any function.
    warned(
        "shell",
        "wipe() { rm -rf ~; }\nhelp() { echo usage; }\n\"$@\"\n",
        Level::Danger,
    );
    // zsh syntax the grammar does not know: the functions are found in the text.
    let zsh = "(( $+commands[pacman] )) && alias pacin='sudo pacman -S'\n\
               function upgrade() {\n  sudo pacman -Sy\n  local v=\"${(f)$(pacman -Qi x)}\"\n}\n";
    quiet("shell", zsh);
    warned("shell", &format!("{zsh}upgrade\n"), Level::Caution);
}

#[test]
fn a_python_wrapper_handed_an_argument_list_runs_it() {
    warned(
        "python",
        "class Git:\n    def push(branch):\n        CommandRunner.run_or_fail(\n            [\"git\", \"push\", \"-u\", \"origin\", branch], stage=\"PushBranch\"\n        )\n",
        Level::Caution,
    );
    quiet(
        "python",
        "CommandRunner.run_or_fail([\"git\", \"status\", \"--porcelain\"], stage=\"Status\")\nitems.extend([\"git\", \"push\"])\n",
    );
}

#[test]
fn a_read_only_mount_of_a_world_readable_file_is_not_a_risk() {
    quiet(
        "shell",
        "docker run --init -v $(PWD):/code:ro -v /etc/passwd:/etc/passwd:ro -v /etc/group:/etc/group:ro img bats test",
    );
    // Writable, or a file with secrets, still is.
    warned(
        "shell",
        "docker run -v /etc/passwd:/etc/passwd img",
        Level::Caution,
    );
    warned(
        "shell",
        "docker run -v /etc/shadow:/etc/shadow:ro img",
        Level::Caution,
    );
}

#[test]
fn deleting_under_a_tool_home_the_script_never_sets_is_outside_the_project() {
    // The user's own install of the tool: pyenv's versions, nvm's node versions.
    warned(
        "shell",
        "rm -rf \"$PYENV_ROOT/versions/3.12.0\"",
        Level::Caution,
    );
    warned(
        "shell",
        "rm -rf \"${NVM_DIR:?}\"/versions/node",
        Level::Caution,
    );
    // Through a variable set from it, in a function something calls.
    let uninstall = "uninstall-python() {\n  local PREFIX=\"${PYENV_ROOT}/versions/${1##*/}\"\n  \
                     if [ -d \"$PREFIX\" ]; then\n    rm -rf \"$PREFIX\"\n  fi\n}\n\
                     for v in \"$@\"; do uninstall-python \"$v\"; done\n";
    let f = analyse("shell", uninstall);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    assert!(
        f[0].reason
            .contains("under $PYENV_ROOT, outside the project"),
        "{f:#?}"
    );
    // A default for the caller's value is still the caller's (or the home folder).
    warned(
        "shell",
        "NVM_DIR=\"${NVM_DIR:-$HOME/.nvm}\"\nrm -rf \"$NVM_DIR/versions\"\n",
        Level::Caution,
    );
    // `<TOOL>_DIR` of a tool the script runs; a project's own folders are not tools.
    warned(
        "shell",
        "frob --version\nrm -rf \"$FROB_DIR/cache\"\n",
        Level::Caution,
    );
    quiet(
        "shell",
        "build --all\nrm -rf \"$BUILD_DIR/out\" \"$OUT_DIR\"\n",
    );
    // Set by the script itself: a temporary folder, the checkout.
    quiet("shell", "NVM_DIR=\"$(mktemp -d)\"\nrm -rf \"$NVM_DIR\"\n");
    quiet(
        "shell",
        "export NVM_DIR=\"$(cd ../../.. && pwd)\"\n\\. \"${NVM_DIR}/nvm.sh\"\nrm -rf \"${NVM_DIR}/v0.8.1\"\n",
    );
    quiet(
        "shell",
        "read -r PYENV_ROOT\nrm -rf \"$PYENV_ROOT/versions/x\"\n",
    );
    // Reading or listing it is no risk.
    quiet(
        "shell",
        "ls \"$PYENV_ROOT/versions\"\nrm -f \"$PYENV_ROOT/shims/.lock\"\n",
    );
}

#[test]
fn a_tool_home_set_by_a_sourced_project_file_is_the_projects() {
    let text = "#!/bin/sh\n: nvm.sh\n\\. ../../nvm.sh\nrm -rf \"${NVM_DIR}/v0.8.1\"\n";
    let mut item = CommandItem::new("shell", Path::new("/w/test/fast/t"), "t", "t");
    item.below_root = 2;
    assert_eq!(
        level(&analyse_command(&item, text, true)),
        Some(Level::Caution)
    );
    // Discovery found that the sourced nvm.sh sets NVM_DIR.
    item.sourced_vars = vec!["NVM_DIR".into()];
    assert_eq!(analyse_command(&item, text, true), []);
    // What decides the findings is part of the key and the hash.
    let bare = CommandItem::new("shell", Path::new("/w/test/fast/t"), "t", "t");
    assert_ne!(analysis_key(&item, true), analysis_key(&bare, true));
    assert_ne!(scan_hash(&item, text), scan_hash(&bare, text));
}

#[test]
fn a_shell_startup_file_picked_at_run_time_is_a_write_outside_the_project() {
    // `pyenv init --install`: a `case` picks the file, a function expands it, an array holds
    // it and a helper appends to its `$1`.
    let init = r#"
detect_profile() {
  case "$shell" in
  bash ) rc='~/.bashrc' ;;
  zsh ) rc='~/.zshrc' ;;
  * ) rc= ;;
  esac
}
expand_home_path() {
  local path="$1"
  printf '%s\n' "${path/#\~/$HOME}"
}
install_startup_files() {
  detect_profile
  local files=()
  local rc_path
  rc_path="$(expand_home_path "$rc")"
  files=("$rc_path")
  for ((i = 0; i < ${#files[@]}; i++)); do
    append_lines "${files[$i]}" "$setup"
  done
}
append_lines() {
  local file="$1"
  local lines="$2"
  mkdir -p "${file%/*}"
  printf '%s\n' "$lines" >> "$file"
}
case "$1" in
--install) install_startup_files ;;
esac
"#;
    let f = analyse("shell", init);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    assert!(
        f.iter()
            .any(|x| x.reason == "edits the user's shell startup file ($file, picked at run time)"),
        "{f:#?}"
    );
    // A loop over the files, a function printing the path.
    warned(
        "shell",
        "for rc in ~/.bashrc \"$HOME/.zshrc\"; do\n  echo 'eval \"$(tool init)\"' >> \"$rc\"\ndone\n",
        Level::Caution,
    );
    warned(
        "shell",
        "detect() {\n  echo \"${ZDOTDIR:-$HOME}/.zshrc\"\n}\nprofile=\"$(detect)\"\nprintf 'x\\n' | tee -a \"$profile\"\n",
        Level::Caution,
    );
    // A file given to the script, or a backup beside the startup file, is not one.
    quiet(
        "shell",
        "append() {\n  local file=\"$1\"\n  echo x >> \"$file\"\n}\nappend \"$out\"\nrc=~/.bashrc\ngrep -q tool \"$rc\"\n",
    );
}

#[test]
fn a_default_the_script_gives_a_variable_is_its_value_when_run() {
    // tj/n: `N_PREFIX` is /usr/local unless the caller set it.
    warned(
        "shell",
        "N_PREFIX=\"${N_PREFIX-/usr/local}\"\nN_PREFIX=${N_PREFIX%/}\ncp -f node \"$N_PREFIX/bin\"\n",
        Level::Caution,
    );
    quiet(
        "shell",
        "OUT=\"${OUT:-build}\"\nrm -rf \"$OUT/cache\"\ncp app \"$OUT/bin\"\n",
    );
}

#[test]
fn make_install_from_a_script_installs_outside_the_project() {
    warned(
        "shell",
        "./configure --prefix=\"$1\"\nmake\nmake install\n",
        Level::Caution,
    );
    warned(
        "shell",
        "MAKE=gmake\n\"$MAKE\" install $MAKE_INSTALL_OPTS PREFIX=\"${PREFIX_PATH}\"",
        Level::Caution,
    );
    quiet(
        "shell",
        "make install DESTDIR=\"$PWD/stage\"\nmake install PREFIX=build/local\nmake test\nmake -j 4\n",
    );
}

#[test]
fn a_function_running_its_arguments_runs_them() {
    // ruby-build: `capture_command "$MAKE" ${MAKE_INSTALL_TARGET:-install}`.
    warned(
        "shell",
        "capture_command() {\n  echo \"-> $*\"\n  \"$@\" >&4 2>&1\n}\nMAKE=make\n\
         capture_command \"$MAKE\" ${MAKE_INSTALL_TARGET:-install}\n",
        Level::Caution,
    );
    warned(
        "shell",
        "run() { echo \"+ $*\"; command \"$@\"; }\nrun sudo rm -rf /opt/tool\n",
        Level::Caution,
    );
    quiet("shell", "run() { echo \"+ $*\"; \"$@\"; }\nrun make test\n");
}

#[test]
fn functions_reached_by_a_name_made_at_run_time_or_a_sourced_file_may_run() {
    // `"build_package_${step}"` calls the build_package_* functions.
    warned(
        "shell",
        "build_package_standard() { make install; }\nfor step in \"$@\"; do \"build_package_${step}\"; done\n",
        Level::Caution,
    );
    // A definition picked at run time calls the script's functions.
    warned(
        "shell",
        "install_package() { make install; }\nsource \"$DEFINITION_PATH\"\n",
        Level::Caution,
    );
    // A library nobody reaches still runs nothing.
    quiet(
        "shell",
        "install_package() { make install; }\nsource ./lib.sh\n",
    );
}

#[test]
fn a_tools_own_history_file_is_its_routine() {
    quiet(
        "shell",
        "SCD_HISTFILE=${SCD_HISTFILE:-~/.scdhistory}\nprint -lr -- $m >| ${SCD_HISTFILE}\n",
    );
    warned("shell", "echo > ~/.bash_history", Level::Caution);
}

#[test]
fn what_a_containers_command_does_to_shared_things_counts() {
    // docker/docker-install: `$(AWS) s3 cp` with `AWS?=docker run … amazon/aws-cli`.
    warned(
        "shell",
        "docker run -v ./build:/build -e AWS_ACCESS_KEY_ID --rm amazon/aws-cli \\\n  \
         s3 cp --acl public-read /build/install.sh s3://bucket/index\n",
        Level::Caution,
    );
    warned(
        "shell",
        "docker run --rm -it node:20 npm publish\n",
        Level::Caution,
    );
    warned(
        "shell",
        "podman run --rm --entrypoint git -v \"$PWD\":/src img push origin main\n",
        Level::Caution,
    );
    // What the container does to its own machine stays there.
    quiet(
        "shell",
        "docker run --rm -v \"$PWD\":/v -w /v koalaman/shellcheck:stable -e SC1091 install.sh\n\
         docker run --rm ubuntu:22.04 sh -c 'rm -rf / && apt-get install -y curl'\n\
         docker run --rm -e HOME=/tmp -w /v ubuntu sh install.sh\n",
    );
}

#[test]
fn a_command_held_in_a_variable_may_run_with_any_value_the_script_gives_it() {
    // docker/docker-install: `sh_c='sudo -E sh -c'` unless root, `sh_c=echo` for a dry run.
    warned(
        "shell",
        "do_install() {\n  sh_c='sh -c'\n  if [ \"$user\" != root ]; then\n    sh_c='sudo -E sh -c'\n  fi\n  \
         if is_dry_run; then\n    sh_c=\"echo\"\n  fi\n  $sh_c 'apt-get -qq update'\n}\ndo_install\n",
        Level::Caution,
    );
    quiet(
        "shell",
        "say=echo\nif [ -n \"$QUIET\" ]; then say=true; fi\n$say 'sudo rm -rf /'\n",
    );
}

#[test]
fn a_default_from_a_variable_the_script_never_sets_is_the_value_when_run() {
    // docker/docker-install's rootless installer: `BIN="${DOCKER_BIN:-$HOME/bin}"`.
    warned(
        "shell",
        "BIN=\"${DOCKER_BIN:-$HOME/bin}\"\ncp dockerd \"$BIN/dockerd\"\n",
        Level::Caution,
    );
    // Set by the script: its value is the script's business.
    quiet(
        "shell",
        "DOCKER_BIN=./out\nBIN=\"${DOCKER_BIN:-$HOME/bin}\"\ncp dockerd \"$BIN/dockerd\"\n",
    );
    // HOME is always set: its default is not what runs.
    let f = analyse(
        "shell",
        "top=\"${HOME:-/usr/local}\"\nrm -rf \"$top/build\"\n",
    );
    assert!(f.len() == 1 && f[0].reason.contains("~/build"), "{f:#?}");
}

#[test]
fn a_function_runs_where_it_is_called() {
    // What a called function sets is set for what follows the call.
    warned(
        "shell",
        "init_vars() { DEST=/usr/local/bin; }\nmain() { init_vars; cp tool \"$DEST/tool\"; }\nmain\n",
        Level::Caution,
    );
    // A callee's `local` does not change the caller's variable.
    warned(
        "shell",
        "helper() { local dir=/tmp/x; echo \"$dir\"; }\n\
         main() { local dir=\"$HOME/.config/app\"; helper; rm -rf \"$dir\"; }\nmain\n",
        Level::Caution,
    );
    // A value unknown on some paths does not hide the one the others keep.
    warned(
        "shell",
        "dir=/usr/local/lib/app\nif [ -n \"$1\" ]; then dir=\"$1\"; fi\nrm -rf \"$dir\"\n",
        Level::Caution,
    );
    // Set before the call, not after: the function sees the project folder.
    quiet(
        "shell",
        "clean() { rm -rf \"$OUT\"; }\nOUT=./build\nclean\nOUT=/usr/local\n",
    );
}

#[test]
fn an_archive_extracted_after_cd_lands_in_that_folder() {
    // docker/docker-install: `( mkdir -p "$BIN"; cd "$BIN"; tar zxf "$tmp/docker.tgz" )`.
    warned(
        "shell",
        "tmp=$(mktemp -d)\n(\n  mkdir -p ~/bin\n  cd ~/bin\n  tar zxf \"$tmp/docker.tgz\" --strip-components=1\n)\n",
        Level::Caution,
    );
    warned("shell", "cd /opt/tool && unzip tool.zip\n", Level::Caution);
    // A `cd` in a subshell is over when it ends; the project's own folders are fine.
    quiet(
        "shell",
        "(cd ~/bin && ls)\ntar xzf vendor.tgz\ncd build && tar xzf ../dist.tgz\ncd \"$(mktemp -d)\" && tar xf x.tar\n",
    );
}

#[test]
fn running_a_program_the_script_downloads_runs_remote_code() {
    warned(
        "shell",
        "curl -fsSL -o /tmp/get.sh https://example.com/get.sh\nsh /tmp/get.sh\n",
        Level::Danger,
    );
    // rust-lang/rustup's rustup-init.sh: a function downloads into its `$2`, a wrapper calls
    // it with the file, another runs the file.
    warned(
        "shell",
        "downloader() {\n  _err=$(curl --silent --fail --location \"$1\" --output \"$2\" 2>&1)\n}\n\
         ensure() { if ! \"$@\"; then exit 1; fi; }\nignore() { \"$@\"; }\n\
         main() {\n  local _dir=\"$(ensure mktemp -d)\"\n  local _file=\"${_dir}/rustup-init\"\n  \
         ensure downloader \"$_url\" \"$_file\" \"$_arch\"\n  ensure chmod u+x \"$_file\"\n  \
         ignore \"$_file\" \"$@\"\n}\nmain \"$@\" || exit 1\n",
        Level::Danger,
    );
    // Downloaded and unpacked, checked or read: nothing fetched runs.
    quiet(
        "shell",
        "curl -L -o sccache.tgz https://example.com/s.tgz\nsha256sum --check sums\n\
         tar -xzf sccache.tgz\nwget -O notes.txt https://example.com/n\ncat notes.txt\n",
    );
}

#[test]
fn a_script_that_points_home_elsewhere_writes_there() {
    // asdf-vm/asdf's test helpers: `HOME="$BASE_DIR"` before `ASDF_DIR="$HOME/.asdf"`.
    quiet(
        "shell",
        "setup_asdf_dir() {\n  HOME=\"$BASE_DIR\"\n  export HOME\n  ASDF_DIR=\"$HOME/.asdf\"\n}\n\
         write_plugin() { echo x > \"$ASDF_DIR/plugins/dummy/bin/exec-path\"; }\n\
         setup_asdf_dir\nwrite_plugin\n",
    );
    // A fallback when HOME is empty finds the user's home; one command's HOME is its own.
    warned(
        "shell",
        "if [ -z \"$HOME\" ]; then\n  HOME=$(getent passwd \"$USER\" | cut -d: -f6)\nfi\n\
         rm -rf \"$HOME/.oh-my-zsh\"\n",
        Level::Caution,
    );
    warned(
        "shell",
        "HOME=/tmp/h npm test\necho x >> \"$HOME/.bashrc\"\n",
        Level::Caution,
    );
}

#[test]
fn a_dispatched_action_says_what_it_does_in_its_name() {
    // getsentry/self-hosted: forks of listed actions, and actions of its own.
    for wf in [
        "on: workflow_dispatch\njobs:\n  lock:\n    runs-on: x\n    steps:\n      - uses: getsentry/forked-action-lock-threads@master\n        with:\n          github-token: ${{ github.token }}\n",
        "on: workflow_dispatch\njobs:\n  revert:\n    runs-on: x\n    steps:\n      - uses: getsentry/action-fast-revert@v2\n        with:\n          pr: ${{ github.event.inputs.pr }}\n",
    ] {
        warned("workflow", wf, Level::Caution);
    }
    // Words inside other words, and actions that only build or test, say nothing.
    quiet(
        "workflow",
        "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - uses: actions/setup-node@v4\n      - uses: pnpm/action-setup@v4\n      - uses: some/lockfile-check@v1\n      - uses: taiki-e/install-action@v2\n",
    );
}

#[test]
fn a_dispatched_step_handed_a_write_token_changes_shared_things() {
    // prometheus/prometheus `Sync repo files`: the project's script with the bot's tokens.
    warned(
        "workflow",
        "on: workflow_dispatch\npermissions:\n  contents: read\njobs:\n  repo_sync:\n    runs-on: x\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./scripts/sync_repo_files.sh\n        env:\n          GITHUB_TOKEN: ${{ secrets.PROMBOT_REPOSYNC_TOKEN }}\n",
        Level::Caution,
    );
    // ohmyzsh/ohmyzsh `Update dependencies`: a GitHub App token a step made.
    warned(
        "workflow",
        "on: workflow_dispatch\njobs:\n  check:\n    runs-on: x\n    steps:\n      - id: app\n        uses: actions/create-github-app-token@v2\n        with:\n          client-id: ${{ secrets.CLIENT_ID }}\n      - run: python3 updater.py\n        env:\n          GH_TOKEN: ${{ steps.app.outputs.token }}\n",
        Level::Caution,
    );
    // A token with the run's own as fallback (an API rate limit), a step told it is a dry run
    // when dispatched (jdx/mise `docs`), the run's own token, a coverage token or a token for
    // the clone only: nothing shared.
    quiet(
        "workflow",
        "on: workflow_dispatch\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: mise run test-tool-retry --check-only\n        env:\n          GITHUB_TOKEN: ${{ secrets.MISE_GH_TOKEN || secrets.GITHUB_TOKEN }}\n      - run: mise run docs:release\n        env:\n          AWS_ACCESS_KEY_ID: ${{ secrets.CLOUDFLARE_ACCESS_KEY_ID }}\n          DRY_RUN: ${{ github.event_name != 'push' || github.ref != 'refs/heads/main' }}\n",
    );
    // The run's own token, a coverage token or a token for the clone only: nothing shared.
    quiet(
        "workflow",
        "on: workflow_dispatch\njobs:\n  test:\n    runs-on: x\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          token: ${{ secrets.SUBMODULES_PAT }}\n      - run: make test\n        env:\n          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n          CODECOV_TOKEN: ${{ secrets.CODECOV_TOKEN }}\n",
    );
}

#[test]
fn a_release_workflow_that_only_validates_when_dispatched_is_not_a_release() {
    // junegunn/fzf: goreleaser publishes on a tag push; dispatched it builds a snapshot.
    let wf = |args: &str| {
        format!(
            "name: Release\non:\n  push:\n    tags: ['v*']\n  workflow_dispatch:\npermissions:\n  contents: write\njobs:\n  release:\n    runs-on: x\n    steps:\n      - uses: goreleaser/goreleaser-action@v7\n        with:\n          args: {args}\n        env:\n          GITHUB_TOKEN: ${{{{ secrets.RELEASE_PAT }}}}\n"
        )
    };
    quiet(
        "workflow",
        &wf(
            "${{ github.event_name == 'push' && 'release --clean' || 'release --snapshot --clean --skip=publish' }}",
        ),
    );
    warned(
        "workflow",
        &wf(
            "${{ github.event_name == 'workflow_dispatch' && 'release --clean' || 'release --snapshot' }}",
        ),
        Level::Caution,
    );
    warned("workflow", &wf("release --clean"), Level::Caution);
}

#[test]
fn changing_a_system_service_or_the_network_is_a_caution() {
    // pi-hole/pi-hole `piholeLogFlush.sh`, `piholeNetworkFlush.sh --arp`.
    for code in [
        "service pihole-FTL stop\n",
        "sudo systemctl restart nginx\n",
        "systemctl daemon-reload\n",
        "launchctl load ~/Library/LaunchAgents/x.plist\n",
        "flushArp() { ip -s -s neigh flush all; }\nif [ \"$doARP\" = true ]; then flushArp; fi\n",
        "iptables -A INPUT -p tcp --dport 53 -j ACCEPT\n",
        "ufw allow 53/udp\n",
        "sysctl -w net.ipv4.ip_forward=1\n",
    ] {
        warned("shell", code, Level::Caution);
    }
    // Reading a service's or the network's state changes nothing.
    quiet(
        "shell",
        "systemctl status nginx\nsystemctl is-active firewalld\nservice nginx status\n\
         ip addr show\nip route get 1.1.1.1\nip -4 a\niptables -L -n\nsysctl -a\nufw status\n",
    );
}

#[test]
fn a_services_runtime_files_and_a_home_written_in_full_are_outside_the_project() {
    // pi-hole/pi-hole `pihole-FTL-poststop.sh`.
    warned(
        "shell",
        "rm -f /run/pihole/FTL.sock /dev/shm/FTL-*\n",
        Level::Caution,
    );
    // getsentry/self-hosted `workstation/299_setup-completed.sh`.
    warned(
        "shell",
        "echo \"ready_at: $(date)\" >/home/user/.sentry.workstation.remote\n",
        Level::Caution,
    );
    quiet(
        "shell",
        "rm -f /dev/shm/app-*\nmkdir /home/user/getsentry\necho x > /home/$USER\n",
    );
}

#[test]
fn the_rc_file_of_a_shell_picked_at_run_time_is_a_startup_file() {
    // junegunn/fzf `uninstall`: `remove_line ~/.${shell}rc …` rewrites the file it is given.
    warned(
        "shell",
        "remove_line() {\n  src=$1\n  temp=$(mktemp)\n  grep -v \"$2\" \"$src\" > \"$temp\"\n  cat \"$temp\" > \"$src\"\n}\n\
         for shell in bash zsh; do\n  remove_line ~/.${shell}rc \"source ~/.fzf.${shell}\"\ndone\n",
        Level::Caution,
    );
}

#[test]
fn a_python_function_that_runs_a_command_runs_the_lines_it_is_given() {
    // rust-lang/rustup `ci/sync-dist.py`: uploads through the script's own runner.
    warned(
        "python",
        "import subprocess\n\ndef run_s3cmd(command):\n    s3cmd = command.split(\" \")\n    subprocess.check_call(s3cmd)\n\n\
         run_s3cmd(\"aws s3 cp ./local-rustup/rustup-init.sh s3://{}/rustup/rustup-init.sh\".format(bucket))\n",
        Level::Caution,
    );
    // A function that runs nothing is only a function.
    quiet(
        "python",
        "import subprocess\n\ndef note(msg):\n    print(msg)\n\nnote(\"aws s3 cp x s3://bucket/x\")\n\n\
         def build():\n    subprocess.check_call([\"make\"])\n",
    );
}

#[test]
fn a_heredoc_written_to_a_file_is_text_also_in_zsh_syntax() {
    // ohmyzsh/ohmyzsh `plugins/rust`: a completion file written from a quoted heredoc.
    quiet(
        "shell",
        "zmodload -F zsh/files b:zf_mv\n() {\n  local TMPPREFIX=\"$ZSH_CACHE_DIR/completions/_rustup\"\n  zf_mv -f -- =( rustup completions zsh ) \"$TMPPREFIX\"\n} &|\n\
         cat >| \"$ZSH_CACHE_DIR/completions/_cargo\" <<'EOF'\n#compdef cargo\nsource \"$(rustup run ${${(z)$(rustup default)}[1]} rustc --print sysroot)\"/share/zsh/site-functions/_cargo\nEOF\n",
    );
}

#[test]
fn resetting_a_repository_the_script_makes_itself_loses_no_work() {
    // Homebrew/install: `git init`, `fetch`, then `reset --hard origin/main` in its own prefix.
    let own = "cd \"${HOMEBREW_REPOSITORY}\"\nexecute \"git\" \"-c\" \"init.defaultBranch=main\" \"init\" \"--quiet\"\n\
               execute \"git\" \"fetch\" \"--force\" \"origin\"\nexecute \"git\" \"reset\" \"--hard\" \"origin/main\"\n";
    let f = analyse("shell", &format!("execute() {{ \"$@\"; }}\n{own}"));
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    warned(
        "shell",
        "git clone -q https://example.com/core.git /etc/.core\ncd /etc/.core\ngit clean --quiet --force -d\n",
        Level::Caution,
    );
    // In the project it is the user's work.
    warned(
        "shell",
        "git fetch origin\ngit reset --hard origin/main\n",
        Level::Danger,
    );
}

#[test]
fn a_script_named_as_an_installer_runs_an_installer() {
    // pi-hole/pi-hole `update.sh`: the installed copy of the project's installer.
    warned(
        "shell",
        "PI_HOLE_FILES_DIR=\"/etc/.pihole\"\n${PI_HOLE_FILES_DIR}/automated\\ install/basic-install.sh --repair --unattended\n",
        Level::Caution,
    );
    warned(
        "shell",
        "bash ./tools/docker-installer.sh\n",
        Level::Caution,
    );
    // The `install` program copies files; a script about installs is not one.
    quiet(
        "shell",
        "install -m 644 a.conf build/a.conf\n./scripts/check-install.txt\n./verify-installation\n",
    );
}

#[test]
fn docker_volume_remove_is_docker_volume_rm() {
    // getsentry/self-hosted `reset`: every `sentry-*` volume, by the long name of `rm`.
    warned(
        "shell",
        "for volume in $(docker volume list --format '{{ .Name }}' | grep '^sentry-'); do\n  docker volume remove \"$volume\"\ndone\n",
        Level::Danger,
    );
    quiet(
        "shell",
        "docker volume list\ndocker volume inspect sentry-data\n",
    );
}

/// A script whose sourced project files (`path` → text) discovery found, each sourced at the
/// given line of the script (`from: None`) or of an earlier file.
fn sourcing(files: &[(&str, Option<usize>, u32, &str)]) -> (CommandItem, Vec<String>) {
    let mut item = CommandItem::new("shell", Path::new("/w/scripts/run.sh"), "run.sh", "run.sh");
    let mut texts = Vec::new();
    for (rel, from, line, text) in files {
        item.sourced.push(commandtree_core::SourcedFile {
            path: Path::new("/w").join(rel),
            rel: rel.to_string(),
            root: "/w".into(),
            from: *from,
            line: *line,
            hash: sha2::Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        });
        texts.push(text.to_string());
    }
    (item, texts)
}

fn analyse_sourcing(item: &CommandItem, texts: &[String], script: &str) -> Vec<Finding> {
    let read = |f: &commandtree_core::SourcedFile| {
        item.sourced
            .iter()
            .position(|g| g.path == f.path)
            .map(|i| texts[i].clone())
    };
    analyse_command_with(item, script, true, &read)
}

#[test]
fn a_sourced_files_code_runs_where_it_is_sourced() {
    // scripts/reset.sh of a Compose stack: the function `$cmd` names is the sourced file's.
    let lib = "#!/usr/bin/env bash\nset -e\nfunction reset() {\n  docker volume remove \"$1\"\n}\nfunction backup() {\n  echo backup\n}\n";
    let script = "#!/usr/bin/env bash\ncmd=reset\nsource scripts/_lib.sh\n$cmd sentry-data\n";
    let (item, texts) = sourcing(&[("scripts/_lib.sh", None, 3, lib)]);
    let f = analyse_sourcing(&item, &texts, script);
    assert_eq!(level(&f), Some(Level::Danger), "{f:#?}");
    assert_eq!(f[0].line, 3, "{f:#?}");
    assert!(
        f[0].reason
            .starts_with("sources `scripts/_lib.sh`, whose line 4 deletes Docker volumes"),
        "{f:#?}"
    );
    // The same library sourced by a script that calls none of its functions: nothing.
    let quiet_script = "#!/usr/bin/env bash\nsource scripts/_lib.sh\necho done\n";
    let (item2, texts2) = sourcing(&[("scripts/_lib.sh", None, 2, lib)]);
    assert_eq!(analyse_sourcing(&item2, &texts2, quiet_script), []);
    // Top-level code of a sourced step runs, also two files deep; told through the file
    // between.
    let step = "echo stopping\ndocker volume rm sentry-postgres\n";
    let steps = "source install/step.sh\n";
    let script = "#!/bin/bash\nsource install/steps.sh\necho ok\n";
    let (item3, texts3) = sourcing(&[
        ("install/steps.sh", None, 2, steps),
        ("install/step.sh", Some(0), 1, step),
    ]);
    let f = analyse_sourcing(&item3, &texts3, script);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].line, 2);
    assert!(
        f[0].reason.starts_with(
            "sources `install/step.sh` (through `install/steps.sh`), whose line 2 deletes"
        ),
        "{f:#?}"
    );
    // A script's own findings keep their lines after the lines put in.
    let script = "#!/bin/bash\nsource install/steps.sh\nsudo true\n";
    let f = analyse_sourcing(&item3, &texts3, script);
    assert!(
        f.iter().any(|x| x.line == 3 && x.reason.contains("root")),
        "{f:#?}"
    );
    // A sourced file's `rm -rf` of a folder inside the project stays quiet, as inline.
    let clean = "dir=build/out\nrm -rf \"$dir\"\n";
    let (item4, texts4) = sourcing(&[("scripts/clean.sh", None, 2, clean)]);
    assert_eq!(
        analyse_sourcing(&item4, &texts4, "#!/bin/sh\n. scripts/clean.sh\n"),
        []
    );
    // A file that reads otherwise than discovery read it is left out, and what the files are
    // is part of the key and the hash.
    let changed = vec!["function reset() { :; }\n".to_string()];
    let (item5, _) = sourcing(&[("scripts/_lib.sh", None, 3, lib)]);
    let script = "#!/usr/bin/env bash\ncmd=reset\nsource scripts/_lib.sh\n$cmd sentry-data\n";
    assert_eq!(analyse_sourcing(&item5, &changed, script), []);
    let (other, _) = sourcing(&[("scripts/_lib.sh", None, 3, "function reset() { :; }\n")]);
    assert_ne!(analysis_key(&item5, true), analysis_key(&other, true));
    assert_ne!(scan_hash(&item5, script), scan_hash(&other, script));
}

#[test]
fn a_variable_set_from_what_a_command_prints_holds_that_text() {
    // install/dc-detect-version.sh of a Compose stack, then a unit test's cleanup.
    let text = r#"#!/usr/bin/env bash
export CONTAINER_ENGINE="docker"
if [[ "${CONTAINER_ENGINE_PODMAN:-0}" -eq 1 ]]; then
  export CONTAINER_ENGINE="podman"
fi
dc_base="$(${CONTAINER_ENGINE} compose version --short &>/dev/null && echo "$CONTAINER_ENGINE compose" || echo '')"
if [[ "$CONTAINER_ENGINE" == "podman" ]]; then
  NO_ANSI="--no-ansi"
else
  NO_ANSI="--ansi never"
fi
dc="$dc_base $NO_ANSI --env-file .env"
$dc down -v --remove-orphans
"#;
    let f = analyse("shell", text);
    assert_eq!(level(&f), Some(Level::Caution), "{f:#?}");
    assert!(f[0].reason.contains("compose down -v"), "{f:#?}");
    // The standalone Compose too.
    warned(
        "shell",
        "dc=\"$(docker-compose version &>/dev/null && echo docker-compose)\"\n$dc down --volumes\n",
        Level::Caution,
    );
    // What else it runs may print: then what it holds is not known.
    quiet(
        "shell",
        "dc=\"$(find_compose || echo 'docker compose')\"\n$dc down -v\n",
    );
    quiet(
        "shell",
        "dc=\"$(docker compose version &>/dev/null && echo 'docker compose')\"\n$dc up -d\n",
    );
}

#[test]
fn copying_a_folder_into_the_home_folder_replaces_the_users_dot_files() {
    // A dotfiles installer: the repository's contents over the user's own files.
    let bootstrap = "cd \"$(dirname \"${BASH_SOURCE}\")\";\n\
                     rsync --exclude \".git/\" --exclude \"README.md\" -avh --no-perms . ~;\n";
    warned("shell", bootstrap, Level::Danger);
    let f = analyse("shell", bootstrap);
    assert!(
        f.iter()
            .any(|x| x.reason.contains("the project folder into the home folder")),
        "{f:#?}"
    );
    for code in [
        "cp -r dotfiles/. \"$HOME\"",
        "cp -a home/. ~/",
        "rsync -a \"$DOTFILES/\" \"$HOME/\"",
        "cp .??* ~",
        "ln -sf \"$PWD\"/.[!.]* ~",
        "mv -f dotfiles/.* $HOME",
    ] {
        warned("shell", code, Level::Danger);
    }
    // A named file lands under its own name and is judged there.
    for (code, want) in [
        ("cp .bashrc ~", "a shell startup file"),
        ("ln -sf \"$PWD/.gitconfig\" ~", "a shell startup file"),
        ("cp -t ~ .netrc", "a credentials file"),
        ("install -m 600 netrc ~/.netrc", "a credentials file"),
        ("cp tool.conf ~", "~/tool.conf, outside the project"),
        ("rsync -a dotfiles ~", "~/dotfiles, outside the project"),
        ("tar -xzf tool.tgz -C ~", "writes to ~, outside the project"),
    ] {
        let f = analyse("shell", code);
        assert!(
            level(&f) == Some(Level::Caution) || want.contains("credentials"),
            "{code}\n{f:#?}"
        );
        assert!(f.iter().any(|x| x.reason.contains(want)), "{code}\n{f:#?}");
    }
    // Inside the project, a temporary folder, another machine, or reading from home.
    for code in [
        "rsync -a src/ build/",
        "tmp=\"$(mktemp -d)\"\ncp -r . \"$tmp\"/",
        "cp ~/.bashrc backup/",
        "rsync -avz --exclude .git ./ deploy@example.com:~/",
        "rsync . ~",
    ] {
        let f = analyse("shell", code);
        assert!(
            !f.iter()
                .any(|x| x.reason.contains("home folder") || x.reason.contains("writes to ~")),
            "{code}\n{f:#?}"
        );
    }
    quiet("shell", "rsync -a src/ build/\ncp ~/.bashrc backup/\n");
}

#[test]
fn a_single_startup_or_credentials_file_of_the_home_folder_deleted() {
    warned(
        "make",
        "ci-report:\n\tgo version\n\trm -f ~/.gitconfig\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\nrm -f \"$HOME/.npmrc\"\n",
        Level::Danger,
    );
    // The project's own copy is the project's.
    quiet("shell", "#!/bin/sh\nrm -f ./.gitconfig build/.npmrc\n");
}

#[test]
fn removing_every_container_of_the_machine() {
    warned(
        "make",
        "clean:\n\trm -rf build/*\n\tdocker rm $(shell docker ps -aq) || true\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\ndocker rm -f $(docker ps -a -q)\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\ndocker rmi $(docker images -q)\n",
        Level::Danger,
    );
    // The project's own containers, by name or label.
    quiet(
        "shell",
        "#!/bin/sh\ndocker rm -f $(docker ps -aq --filter label=app=x)\n",
    );
    quiet("shell", "#!/bin/sh\ndocker rm -f myapp-dev\n");
}

#[test]
fn a_program_downloaded_from_a_moving_branch_and_made_runnable() {
    warned(
        "make",
        "bin/gh-release-body:\n\tmkdir -p bin\n\tcurl -o bin/gh-release-body \"https://raw.githubusercontent.com/dokku/gh-release-body/master/gh-release-body\"\n\tchmod +x bin/gh-release-body\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\nwget -O tool https://example.com/tool/latest/tool-linux\nchmod 755 tool\n./tool\n",
        Level::Danger,
    );
    // A pinned release, or a download never made runnable: a build input.
    quiet(
        "shell",
        "#!/bin/sh\ncurl -sLo bin/x.tgz https://github.com/o/x/releases/download/v2.3.3/x.tgz\ntar xf bin/x.tgz -C bin\nchmod +x bin/x\n",
    );
    quiet(
        "shell",
        "#!/bin/sh\ncurl -o data.json https://example.com/master/data.json\n",
    );
}

#[test]
fn a_download_named_after_its_url_then_run() {
    // `curl -O` and a bare `wget` write the file under the URL's last segment.
    warned(
        "shell",
        "#!/bin/sh\nname=\"darwin-simple-http-server\"\nv=\"$(curl -s https://github.com/o/s/releases/latest)\"\ncurl -LOk \"https://github.com/o/s/releases/download/$v/$name\"\nchmod u+x \"$name\"\n\"./$name\" --ip 127.0.0.1 &\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\nwget https://example.com/get/setup.sh?ref=main\nsh setup.sh\n",
        Level::Danger,
    );
    warned(
        "shell",
        "#!/bin/sh\ncurl -sSLo tool https://example.com/tool\n./tool\n",
        Level::Danger,
    );
    // Downloaded and unpacked, or mirrored: nothing downloaded runs as a program.
    quiet(
        "shell",
        "#!/bin/sh\ncurl -LO https://example.com/v1/app.tar.gz\ntar xzf app.tar.gz\n",
    );
    quiet(
        "shell",
        "#!/bin/sh\nwget --mirror --no-parent 127.0.0.1:8000/index.html\n",
    );
}

#[test]
fn copying_an_image_to_a_registry_publishes_it() {
    warned(
        "shell",
        "#!/bin/sh\nregctl image copy \"ocidir://out:1.0\" \"gliderlabs/herokuish:1.0\"\n",
        Level::Caution,
    );
    warned(
        "shell",
        "#!/bin/sh\ncrane push image.tar ghcr.io/o/x:1\n",
        Level::Caution,
    );
    warned(
        "shell",
        "#!/bin/sh\nskopeo copy oci-archive:x.tar docker://docker.io/o/x:1\n",
        Level::Caution,
    );
    // Into a local layout or daemon: nothing leaves the machine.
    quiet(
        "shell",
        "#!/bin/sh\nregctl image mod \"ocidir://out:1.0\" --replace\n",
    );
    quiet(
        "shell",
        "#!/bin/sh\nskopeo copy docker://alpine:3 oci:local-dir:3\n",
    );
}

#[test]
fn the_machines_scheduler_or_service_supervisor_started() {
    warned("shell", "#!/bin/sh\ncd /\nexec cron -f\n", Level::Caution);
    warned(
        "shell",
        "#!/bin/sh\nexec /usr/bin/runsvdir -P /etc/service\n",
        Level::Caution,
    );
    warned("shell", "#!/bin/sh\n/usr/sbin/anacron -s\n", Level::Caution);
    quiet("shell", "#!/bin/sh\necho cron -f\n");
}

#[test]
fn a_database_dropped_in_the_projects_container_is_a_caution() {
    warned(
        "make",
        "test_db:\n\t@for i in `seq 1 5`; do docker compose exec postgres sh -c 'nc -z localhost 5432' && break || sleep 1; done\n\tdocker compose exec postgres sh -c 'psql -U postgres -c \"drop database if exists tests;\" && psql -U postgres -c \"create database tests;\"'\n",
        Level::Caution,
    );
    warned(
        "shell",
        "#!/bin/sh\ndocker compose exec -T db psql -U app -c 'DROP DATABASE app_test'\n",
        Level::Caution,
    );
    warned(
        "shell",
        "#!/bin/sh\ndocker exec -i pg dropdb app\n",
        Level::Caution,
    );
    quiet(
        "shell",
        "#!/bin/sh\ndocker compose exec db psql -U app -c 'select 1'\n",
    );
}

#[test]
fn a_python_script_writing_a_github_release_through_the_api_publishes() {
    let script = "import requests\n\ndef _github_request(method, path, params=None):\n    url = \"https://api.github.com/{}\".format(path)\n    return requests.request(method, url, data=params)\n\ndef create_release(repo, params):\n    return _github_request(\"post\", \"repos/{}/releases\".format(repo), params)\n";
    warned("python", script, Level::Caution);
    // Reading releases publishes nothing.
    quiet(
        "python",
        "import requests\nr = requests.get(\"https://api.github.com/repos/o/x/releases/latest\")\nprint(r.json()[\"tag_name\"])\n",
    );
}

#[test]
fn powershell_runs_programs_by_name() {
    // A program named in a PowerShell script is judged by the shell rules, as in a shell.
    warned(
        "powershell",
        "$v = $env:VERSION\nchoco pack ./app.nuspec\nif ($ENV:PUSH_TOKEN -ne $null) {\n    choco push app.$v.nupkg --key $ENV:PUSH_TOKEN --source=\"'https://push.chocolatey.org/'\"\n} else {\n    Write-Host \"No API key provided, skipping push\"\n}\n",
        Level::Caution,
    );
    warned(
        "powershell",
        "Set-Location $PSScriptRoot\n& git push --force origin main\n",
        Level::Danger,
    );
    warned(
        "powershell",
        "npm install -g yarn; dotnet build\n",
        Level::Caution,
    );
    // A Chocolatey package's install script installs for the whole machine.
    warned(
        "powershell",
        "$packageArgs = @{ packageName = 'app'; fileType = 'msi'; silentArgs = '/qn' }\nInstall-ChocolateyPackage @packageArgs\n",
        Level::Caution,
    );
    // Cmdlets, aliases, strings and a portable package's unzip: PowerShell's own.
    quiet(
        "powershell",
        "Write-Host 'choco push app.nupkg'\ndotnet build -c Release\nrm -r -fo ./build\nGet-ChildItem | ForEach-Object { $_.Name }\nInstall-ChocolateyZipPackage @packageArgs\n",
    );
}

#[test]
fn a_clone_into_the_home_folder_changes_the_machine() {
    warned(
        "shell",
        "#!/usr/bin/env bash\nPLUGINS_DIR=\"$HOME/.tmux/plugins\"\nmkdir -p \"$PLUGINS_DIR\"\ncd \"$PLUGINS_DIR\"\ngit clone --quiet https://github.com/o/example-plugin\n",
        Level::Caution,
    );
    warned(
        "shell",
        "#!/bin/sh\ngit clone --depth 1 https://github.com/o/dotfiles ~/.dotfiles\n",
        Level::Caution,
    );
    // Into the project, or into a folder of its own.
    quiet(
        "shell",
        "#!/bin/sh\ngit clone --depth 1 https://github.com/o/fixtures vendor/fixtures\ncd build && git clone https://github.com/o/x\n",
    );
}

#[test]
fn a_test_harness_runs_the_functions_named_test() {
    // The helper defining `run_tests` is not in the tree (a submodule): it runs `test_*`.
    warned(
        "shell",
        "#!/usr/bin/env bash\nPLUGINS_DIR=\"$HOME/.tmux/plugins\"\nsource \"$(dirname \"$0\")/helpers/helpers.sh\"\nreset_plugins() {\n  rm -rf \"$PLUGINS_DIR\"\n}\ntest_clean() {\n  reset_plugins\n}\nrun_tests\n",
        Level::Caution,
    );
    // shunit2 sourced last runs them too.
    warned(
        "shell",
        "#!/bin/sh\ntestInstall() {\n  sudo make install\n}\n. \"$(dirname \"$0\")/shunit2\"\n",
        Level::Caution,
    );
    // With no harness, a library's functions run only when called; `test -d` is no harness.
    quiet(
        "shell",
        "#!/bin/sh\ntest_clean() {\n  rm -rf \"$HOME/.tmux/plugins\"\n}\ntest -d build || mkdir build\n",
    );
}

#[test]
fn a_folder_under_the_home_picked_at_run_time_through_functions() {
    // A plugin manager: the plugin path is read from its configuration with `~` expanded, and
    // printed by a function the scripts call.
    let lib = "_expand() {\n\tlocal path=\"$1\"\n\tlocal t=\"${path/#\\~/$HOME}\"\n\
               \techo \"${t/#\\$HOME/$HOME}\"\n}\n\
               _path() {\n\tlocal p=\"$(tmux show-environment -g PLUGIN_PATH | cut -f2 -d=)/\"\n\
               \t_expand \"$p\"\n}\n\
               _CACHED=\"$(_path)\"\n\
               plugins_path() {\n\techo >&2 'not configured'\n\techo \"$_CACHED\"\n}\n";
    let clean = format!(
        "{lib}clean() {{\n\tlocal d\n\tfor d in \"$(plugins_path)\"/*; do\n\
         \t\trm -rf \"${{d}}\" >/dev/null 2>&1\n\tdone\n}}\nclean\n"
    );
    warned("shell", &clean, Level::Caution);
    let install = format!(
        "{lib}clone() {{\n\tcd \"$(plugins_path)\" &&\n\t\tgit clone \"$1\"\n}}\nclone x\n"
    );
    warned("shell", &install, Level::Caution);
    let update = format!(
        "{lib}pull() {{\n\tlocal p=\"$(plugins_path)$1/\"\n\tcd \"$p\" && git pull && \
         git submodule update --init\n}}\npull x\n"
    );
    warned("shell", &update, Level::Caution);
    // `$HOME` with a part made at run time, directly.
    warned(
        "shell",
        "d=\"$HOME/$name\"\nrm -rf \"$d\"\n",
        Level::Caution,
    );
    // A function printing a path of the project, or a cache under the home folder, is not
    // the user's own folder; neither is a pull in the project.
    quiet(
        "shell",
        "out() { echo \"$(pwd)/build\"; }\nrm -rf \"$(out)\"/*\n\
         cache() { echo \"$HOME/.cache/$tool\"; }\nrm -rf \"$(cache)\"\n\
         cd \"$(dirname \"$0\")\" && git pull\n",
    );
}

#[test]
fn a_runtime_installed_into_the_users_version_manager() {
    warned(
        "shell",
        "#!/bin/bash\neval \"$(fnm env)\"\nfnm install v10.11.0\n",
        Level::Caution,
    );
    warned(
        "shell",
        "export NVM_DIR=\"$HOME/.nvm\"\n\\. \"$NVM_DIR/nvm.sh\"\nnvm install v10.11.0\n",
        Level::Caution,
    );
    warned("shell", "pyenv install 3.12.1\n", Level::Caution);
    // A shell picked at run time given code whose values are put in by the outer shell.
    warned(
        "shell",
        "SHELL_TO_RUN=\"$1\"\n$SHELL_TO_RUN -c \"\n  . $PROFILE_FILE\n  fnm install 12.5.0\n\"\n",
        Level::Caution,
    );
    // The project's own nvm (its tests source it, `\.` after another line too), a temporary
    // folder, listing or using versions: nothing of the user's changes.
    quiet(
        "shell",
        "#!/bin/sh\nset -ex\n: nvm.sh\n\\. ../../nvm.sh\nnvm install -b v0.10.7\nnvm uninstall v0.0.1\n",
    );
    quiet(
        "shell",
        "FNM_DIR=\"$(mktemp -d)\"\nexport FNM_DIR\nfnm install 20\nfnm use 20\nnvm ls\npyenv versions\n",
    );
}
