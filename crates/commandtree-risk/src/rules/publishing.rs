//! Publishing, deploying and uploading: package registries, release tools, hosting services,
//! image registries, cloud storage, other machines, remote services changed over HTTP, and the
//! project's own scripts named for publishing or deploying. All count wherever the code runs.

use super::infrastructure::cloud_destructive;
use super::{Family, NPM_FAMILY, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Word, basename};

family_rule!(Family::Publishing, Reach::Shared, Level::Caution);

pub(crate) const SCRIPT: Rule = rule(
    "publishing-script",
    "a project script whose name says publish or deploy (`./scripts/deploy-worker.sh`, \
     `tsx scripts/publishCI.ts`)",
    "runs a script made to {} ({})",
    "./scripts/deploy-worker.sh",
);
pub(crate) const CURL_CHANGES: Rule = rule(
    "curl-changes-service",
    "`curl -X PUT`, `DELETE`, `PATCH`",
    "changes a remote service (curl -X {})",
    "curl -X DELETE https://api.example.com/items/1",
);
pub(crate) const CURL_UPLOAD: Rule = rule(
    "curl-upload",
    "`curl -T file`, `curl -F f=@file`",
    "uploads a file to a remote service (curl)",
    "curl -T dist/app.tgz https://uploads.example.com/",
);
pub(crate) const COPY_TO_HOST: Rule = rule(
    "copy-to-host",
    "`scp`/`sftp`/`rsync`/`cp` to `host:path`",
    "copies files to another machine ({})",
    "rsync -av dist/ deploy@web1:/srv/site",
);
pub(crate) const RCLONE: Rule = rule(
    "rclone-upload",
    "`rclone copy|sync|move … remote:path`",
    "uploads files to remote storage (rclone)",
    "rclone sync dist s3remote:bucket/site",
);
pub(crate) const CLOUD_UPLOAD: Rule = rule(
    "cloud-upload",
    "`aws s3 cp|sync … s3://`, `gsutil cp … gs://`, `az storage blob upload`",
    "uploads files to cloud storage ({})",
    "aws s3 sync dist s3://bucket/site",
);
pub(crate) const HELM_PUSH: Rule = rule(
    "helm-push",
    "`helm push`",
    "publishes a chart (helm push)",
    "helm push chart.tgz oci://registry.example.com/charts",
);
pub(crate) const IMAGE_PUSH: Rule = rule(
    "image-push",
    "`docker push`, `docker image push`, `docker manifest push`",
    "pushes an image to a registry ({} push)",
    "docker push example/app:1.0",
);
pub(crate) const IMAGE_BUILD_PUSH: Rule = rule(
    "image-build-push",
    "`docker build --push`, `docker buildx build --push`",
    "pushes an image to a registry ({} build --push)",
    "docker buildx build --push -t example/app .",
);
pub(crate) const IMAGE_COPY: Rule = rule(
    "image-copy",
    "`skopeo copy`, `crane push`, `crane copy`, `regctl image copy`, `oras push` (not into a local layout)",
    "pushes an image to a registry ({} {})",
    "skopeo copy docker-archive:app.tar docker://example/app",
);
/// Where an image copy lands on this machine (skopeo's and regctl's transports).
const LOCAL_IMAGE_PLACES: &[&str] = &[
    "oci:",
    "ocidir:",
    "oci-archive:",
    "dir:",
    "docker-archive:",
    "docker-daemon:",
    "containers-storage:",
];

pub(crate) const CRATES: Rule = rule(
    "cargo-publish",
    "`cargo publish`, `yank`, `owner` (not `--dry-run`)",
    "publishes to crates.io (cargo {})",
    "cargo publish",
);
pub(crate) const RUBYGEMS: Rule = rule(
    "gem-push",
    "`gem push`, `yank`, `owner`",
    "publishes to RubyGems (gem {})",
    "gem push pkg/tool-1.0.gem",
);
pub(crate) const PACKAGE_INDEX: Rule = rule(
    "python-publish",
    "`uv publish`, `poetry publish`, `twine upload`, `hatch publish`, … (not `--dry-run`)",
    "publishes to a package index ({} {})",
    "twine upload dist/*",
);
pub(crate) const SETUP_PY: Rule = rule(
    "setup-py-upload",
    "`python setup.py upload`, `register`",
    "publishes to PyPI (setup.py upload)",
    "python setup.py sdist upload",
);
pub(crate) const NUGET: Rule = rule(
    "nuget-push",
    "`dotnet nuget push`, `nuget push`",
    "publishes a NuGet package (nuget push)",
    "dotnet nuget push bin/app.nupkg --api-key $KEY",
);
pub(crate) const CHOCOLATEY: Rule = rule(
    "choco-push",
    "`choco push`",
    "publishes a Chocolatey package (choco push)",
    "choco push app.1.0.0.nupkg --key $KEY",
);
pub(crate) const MAVEN: Rule = rule(
    "mvn-deploy",
    "`mvn deploy`, `mvn …:deploy`",
    "publishes artifacts to a repository (mvn deploy)",
    "mvn -B deploy",
);
pub(crate) const GRADLE: Rule = rule(
    "gradle-publish",
    "`gradle publish…` (not to Maven Local)",
    "publishes artifacts to a repository (gradle publish)",
    "./gradlew publishToSonatype",
);
pub(crate) const RELEASE_TOOL: Rule = rule(
    "release-tool",
    "`lerna publish`, `changeset publish`, `vsce publish`, `np`, `release-it`, \
     `semantic-release`, `release-plz` (not `--dry-run`)",
    "publishes a release ({})",
    "npx semantic-release",
);
pub(crate) const GORELEASER: Rule = rule(
    "goreleaser",
    "`goreleaser release` (not `--snapshot`, not skipping publishing)",
    "publishes a release (goreleaser)",
    "goreleaser release --clean",
);
pub(crate) const DPUT: Rule = rule(
    "dput",
    "`dput`",
    "uploads packages to an archive (dput)",
    "dput ppa:me/tools tool_1.0_source.changes",
);
pub(crate) const COPR: Rule = rule(
    "copr-build",
    "`copr-cli build`",
    "submits package builds (copr-cli build)",
    "copr-cli build me/tools tool.src.rpm",
);
pub(crate) const SNAPCRAFT: Rule = rule(
    "snapcraft-publish",
    "`snapcraft upload`, `push`, `release`",
    "publishes to the Snap Store (snapcraft {})",
    "snapcraft upload tool.snap",
);
pub(crate) const HOSTING: Rule = rule(
    "hosting-deploy",
    "`netlify deploy`, `wrangler deploy`, `firebase deploy`, `vercel --prod`, `fly deploy`, \
     `heroku container:…`, `surge`, …",
    "deploys to a hosting service ({} {})",
    "netlify deploy --prod --dir dist",
);
pub(crate) const MKDOCS: Rule = rule(
    "mkdocs-gh-deploy",
    "`mkdocs gh-deploy`",
    "publishes the website (mkdocs gh-deploy)",
    "mkdocs gh-deploy --force",
);
pub(crate) const GH_PAGES: Rule = rule(
    "gh-pages",
    "`gh-pages -d dist`",
    "publishes the website (gh-pages)",
    "npx gh-pages -d dist",
);
pub(crate) const NPM: Rule = rule(
    "npm-publish",
    "`npm`/`pnpm`/`yarn`/`bun` `publish`, `unpublish`, `deprecate` (not `--dry-run`)",
    "publishes to a package registry ({} {})",
    "npm publish --access public",
);
pub(crate) const NPM_DIST_TAG: Rule = rule(
    "npm-dist-tag",
    "`npm dist-tag add|rm`",
    "changes a published package's tags ({} dist-tag)",
    "npm dist-tag add tool@1.0.0 latest",
);

/// `host:path`, `user@host:path`, `remote:bucket/x` (rclone): somewhere on another machine.
pub(super) fn remote_spec(s: &str) -> bool {
    let Some((host, _)) = s.split_once(':') else {
        return false;
    };
    !host.is_empty()
        && !host.contains('/')
        && !host.starts_with('$')
        && !host.starts_with('-')
        && host.len() > 1
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
}

impl Analyser<'_> {
    /// Runs one of the project's scripts whose name says it publishes or deploys
    /// (`./scripts/deploy-worker.sh`, `tsx scripts/publishCI.ts`): that is what it is for.
    pub(crate) fn publishing_script(&mut self, c: &Cmd) {
        let script = if c.name.is_empty() {
            None
        } else if matches!(
            c.name.as_str(),
            "node"
                | "tsx"
                | "ts-node"
                | "bun"
                | "deno"
                | "ruby"
                | "python"
                | "python3"
                | "sh"
                | "bash"
                | "zsh"
        ) {
            c.operands()
                .into_iter()
                .map(Word::text)
                .find(|t| t != "run" && t.contains('.'))
        } else if [".sh", ".bash", ".ts", ".js", ".mjs", ".py", ".rb"]
            .iter()
            .any(|e| c.name.ends_with(e))
        {
            Some(c.name.clone())
        } else {
            None
        };
        let Some(script) = script else { return };
        let file = basename(&script);
        let words = name_words(file.rsplit_once('.').map_or(file, |(stem, _)| stem));
        if let Some(w) = words
            .iter()
            .find(|w| matches!(w.as_str(), "publish" | "deploy"))
        {
            self.hit(&SCRIPT, c.line, &c.snippet, &[w, file]);
        }
    }

    /// Files sent elsewhere and remote services changed: `curl -X PUT`, uploads, copies to
    /// another machine, cloud storage, image and chart registries.
    pub(crate) fn transfers(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        match name {
            "curl" => {
                let args = c.arg_texts();
                let method = args.iter().enumerate().find_map(|(i, a)| {
                    if a == "-X" || a == "--request" {
                        args.get(i + 1).map(|m| m.to_ascii_uppercase())
                    } else {
                        a.strip_prefix("-X")
                            .filter(|m| !m.is_empty())
                            .or_else(|| a.strip_prefix("--request="))
                            .map(str::to_ascii_uppercase)
                    }
                });
                if let Some(m) = method.filter(|m| matches!(m.as_str(), "PUT" | "DELETE" | "PATCH"))
                {
                    self.hit(&CURL_CHANGES, c.line, &c.snippet, &[&m]);
                }
                let uploads = args.iter().enumerate().any(|(i, a)| {
                    matches!(a.as_str(), "-T" | "--upload-file")
                        || (matches!(a.as_str(), "-F" | "--form")
                            && args.get(i + 1).is_some_and(|v| v.contains("=@")))
                        || a.starts_with("--form=") && a.contains("=@")
                });
                if uploads {
                    self.hit(&CURL_UPLOAD, c.line, &c.snippet, &[]);
                }
            }
            "cp" | "rsync" => {
                let ops = c.operands();
                if ops.len() >= 2
                    && let Some(t) = ops.last()
                    && remote_spec(&t.text())
                {
                    self.hit(&COPY_TO_HOST, c.line, &c.snippet, &[name]);
                }
            }
            "scp" | "sftp" if c.operands().last().is_some_and(|w| remote_spec(&w.text())) => {
                self.hit(&COPY_TO_HOST, c.line, &c.snippet, &[name]);
            }
            "rclone"
                if matches!(
                    c.subcommand(&[]).map(|s| s.1).as_deref(),
                    Some("copy" | "sync" | "move" | "copyto" | "moveto")
                ) && c.operands().last().is_some_and(|w| remote_spec(&w.text())) =>
            {
                self.hit(&RCLONE, c.line, &c.snippet, &[]);
            }
            "aws" | "gcloud" | "az" | "gsutil" | "doctl" if !cloud_destructive(c) => {
                let ops: Vec<String> = c.operands().iter().map(|w| w.text()).collect();
                // `aws s3 cp SRC DST …`: an upload when a bucket comes after the first path.
                let bucket = |d: &String| d.starts_with("s3://") || d.starts_with("gs://");
                let uploads = ops
                    .iter()
                    .position(|a| {
                        matches!(
                            a.as_str(),
                            "cp" | "sync" | "mv" | "rsync" | "upload" | "upload-batch"
                        )
                    })
                    .is_some_and(|at| {
                        ops.iter().skip(at + 2).any(bucket) && !ops.get(at + 1).is_some_and(bucket)
                    })
                    || (name == "az"
                        && ops.iter().any(|a| a == "blob")
                        && ops.iter().any(|a| a.starts_with("upload")));
                if uploads {
                    self.hit(&CLOUD_UPLOAD, c.line, &c.snippet, &[name]);
                }
            }
            "helm"
                if c.subcommand(&["-n", "--namespace"]).map(|s| s.1).as_deref() == Some("push") =>
            {
                self.hit(&HELM_PUSH, c.line, &c.snippet, &[]);
            }
            "docker" | "podman" | "nerdctl" => {
                let args = c.arg_texts();
                let pos = super::not_options(&args);
                match pos.as_slice() {
                    // Docker's own data, judged by `containers`.
                    ["system", "prune", ..] | ["volume", "prune", ..] | ["volume", "rm", ..] => {}
                    [_, "prune", ..] => {}
                    ["compose", "down", ..] | ["compose", ..]
                        if args.iter().any(|a| a == "-v" || a == "--volumes")
                            && pos.get(1) == Some(&"down") => {}
                    ["push", ..] | ["image", "push", ..] | ["manifest", "push", ..] => {
                        self.hit(&IMAGE_PUSH, c.line, &c.snippet, &[name]);
                    }
                    ["buildx", ..] | ["build", ..] if args.iter().any(|a| a == "--push") => {
                        self.hit(&IMAGE_BUILD_PUSH, c.line, &c.snippet, &[name]);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// Package registries, release tools, hosting services and websites.
    pub(crate) fn publishing(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        let args = c.arg_texts();
        let sub = c.subcommand(&[]).map(|s| s.1).unwrap_or_default();
        let dry = args
            .iter()
            .any(|a| a == "--dry-run" || a == "-n" && name == "git" || a == "--dryrun");
        let line = c.line;
        let snip = c.snippet.clone();
        match name {
            "cargo" if matches!(sub.as_str(), "publish" | "yank" | "owner") && !dry => {
                self.hit(&CRATES, line, &snip, &[&sub])
            }
            "gem" if matches!(sub.as_str(), "push" | "yank" | "owner") => {
                self.hit(&RUBYGEMS, line, &snip, &[&sub])
            }
            "uv" | "poetry" | "flit" | "hatch" | "pdm" | "twine"
                if (sub == "publish" || (name == "twine" && sub == "upload")) && !dry =>
            {
                self.hit(&PACKAGE_INDEX, line, &snip, &[name, &sub])
            }
            "python" | "python3"
                if args.iter().any(|a| a.ends_with("setup.py"))
                    && args.iter().any(|a| a == "upload" || a == "register") =>
            {
                self.hit(&SETUP_PY, line, &snip, &[])
            }
            "dotnet" | "nuget"
                if args.iter().any(|a| a == "push")
                    && args.iter().any(|a| a == "nuget" || name == "nuget") =>
            {
                self.hit(&NUGET, line, &snip, &[])
            }
            "choco" | "choco.exe" if sub == "push" => self.hit(&CHOCOLATEY, line, &snip, &[]),
            "mvn" | "mvnw" | "./mvnw"
                if args.iter().any(|a| a == "deploy" || a.ends_with(":deploy")) =>
            {
                self.hit(&MAVEN, line, &snip, &[])
            }
            "gradle" | "gradlew"
                if args.iter().any(|a| {
                    let t = a.rsplit(':').next().unwrap_or(a);
                    t.starts_with("publish") && !t.contains("MavenLocal") && !t.contains("Local")
                }) =>
            {
                self.hit(&GRADLE, line, &snip, &[])
            }
            "lerna" | "changeset" | "vsce" | "ovsx" | "np" | "release-it"
                if sub == "publish" || matches!(name, "np" | "release-it") =>
            {
                self.hit(&RELEASE_TOOL, line, &snip, &[name])
            }
            "semantic-release" | "release-plz" if !dry => {
                self.hit(&RELEASE_TOOL, line, &snip, &[name])
            }
            "goreleaser"
                if (sub == "release" || sub.is_empty())
                    && !args.iter().any(|a| {
                        a == "--snapshot" || a == "--skip-publish" || a.contains("publish")
                    }) =>
            {
                self.hit(&GORELEASER, line, &snip, &[])
            }
            "dput" => self.hit(&DPUT, line, &snip, &[]),
            "copr-cli" | "copr" if sub == "build" => self.hit(&COPR, line, &snip, &[]),
            "snapcraft" if matches!(sub.as_str(), "upload" | "push" | "release") => {
                self.hit(&SNAPCRAFT, line, &snip, &[&sub])
            }
            "netlify" | "wrangler" | "firebase" | "fly" | "flyctl" | "serverless" | "sls"
            | "surge" | "heroku" | "vercel" | "now" | "railway" | "render" => {
                let deploys = match name {
                    "vercel" | "now" => {
                        sub.is_empty() || sub == "deploy" || args.iter().any(|a| a == "--prod")
                    }
                    "surge" => true,
                    "heroku" => sub.starts_with("container:") || sub.starts_with("releases"),
                    "wrangler" => matches!(sub.as_str(), "deploy" | "publish" | "pages"),
                    "railway" => sub == "up",
                    _ => sub == "deploy",
                };
                if deploys {
                    self.hit(&HOSTING, line, &snip, &[name, &sub]);
                }
            }
            "mkdocs" if sub == "gh-deploy" => self.hit(&MKDOCS, line, &snip, &[]),
            "gh-pages" => self.hit(&GH_PAGES, line, &snip, &[]),
            "skopeo" | "crane" | "regctl" | "oras" => {
                // `regctl image copy SRC DST`: the verb after the object.
                let pos = super::not_options(&args);
                let verb = match pos.as_slice() {
                    ["image", verb, ..] if name == "regctl" => *verb,
                    [verb, ..] => *verb,
                    [] => "",
                };
                // Into a local layout, archive or daemon, nothing leaves the machine.
                let local = pos
                    .last()
                    .is_some_and(|dest| LOCAL_IMAGE_PLACES.iter().any(|p| dest.starts_with(p)));
                if matches!(verb, "copy" | "push" | "cp") && !local {
                    self.hit(&IMAGE_COPY, line, &snip, &[name, verb])
                }
            }
            _ => {}
        }
        if NPM_FAMILY.contains(&name) {
            match sub.as_str() {
                "publish" | "unpublish" | "deprecate" if !dry => {
                    self.hit(&NPM, line, &snip, &[name, &sub])
                }
                "dist-tag" if args.iter().any(|a| a == "add" || a == "rm") => {
                    self.hit(&NPM_DIST_TAG, line, &snip, &[name])
                }
                _ => {}
            }
        }
    }
}

/// The lowercase words of a file name: `publishCI` → `publish`, `ci`; `deploy-worker` →
/// `deploy`, `worker`.
fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        cur.push(ch.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
