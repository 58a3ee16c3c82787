//! Maven goals for a `pom.xml`: the lifecycle phases upstream lists, plus one item per goal of
//! every plugin execution with an `<id>` in `<build><plugins>`, run as `mvn PREFIX:GOAL@ID`
//! (Maven's syntax for running one execution's configuration directly).
//!
//! The plugin prefix follows Maven's own rule for the naming conventions (`maven-foo-plugin` and
//! `foo-maven-plugin` both give `foo`); a plugin named otherwise may declare any prefix, so it
//! is addressed by its coordinates (`groupId:artifactId:GOAL@ID`), which always resolve.
//! Executions in `<pluginManagement>` or profiles are not active by default and are skipped.
//! A plugin known for starting the application (`spring-boot-maven-plugin` → `spring-boot:run`,
//! Quarkus, Jetty, Micronaut, JavaFX, Open Liberty) adds that goal: it is what the project's
//! README tells a user to run, and what Gradle's `bootRun` is to a Gradle build.
//!
//! The Maven wrapper is preferred when present: `./mvnw` beside the pom, or the relative path
//! to one in an ancestor folder (`../mvnw`), run from the pom's folder. The wrapper script
//! finds its `.mvn` folder by walking up from the current folder, so a module built through
//! its parent's wrapper still builds just that module.

use super::common::wrapper_command;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text::{LineIndex, sh_word};

const KIND: &str = "maven";

const LIFECYCLE: &[(&str, &str)] = &[
    ("clean", "Remove build artifacts"),
    ("compile", "Compile the source code"),
    ("test", "Run tests"),
    ("package", "Package compiled code"),
    ("install", "Install package locally"),
    ("deploy", "Deploy to remote repository"),
    ("verify", "Run integration tests"),
    ("clean install", "Clean and install"),
    ("clean package", "Clean and package"),
];

/// Plugins whose goal starts the application, by artifact: the goal as typed and what it does.
const RUN_GOALS: &[(&str, &str, &str)] = &[
    (
        "spring-boot-maven-plugin",
        "spring-boot:run",
        "Runs the Spring Boot application",
    ),
    (
        "quarkus-maven-plugin",
        "quarkus:dev",
        "Runs the Quarkus application in dev mode",
    ),
    (
        "jetty-maven-plugin",
        "jetty:run",
        "Runs the web application in Jetty",
    ),
    (
        "micronaut-maven-plugin",
        "mn:run",
        "Runs the Micronaut application",
    ),
    (
        "javafx-maven-plugin",
        "javafx:run",
        "Runs the JavaFX application",
    ),
    (
        "liberty-maven-plugin",
        "liberty:dev",
        "Runs the application in Open Liberty dev mode",
    ),
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mvn = wrapper_command(file, "mvnw").unwrap_or_else(|| "mvn".to_string());
    let mut out = Parsed::default();
    for (goal, description) in LIFECYCLE {
        out.commands.push(
            CommandItem::new(KIND, file.path, goal, format!("{mvn} {goal}"))
                .description(*description),
        );
    }
    match executions(file.content) {
        Ok((execs, runs)) => {
            for (goal, description, line) in runs {
                out.commands.push(
                    CommandItem::new(KIND, file.path, goal, format!("{mvn} {goal}"))
                        .description(description)
                        .line(line),
                );
            }
            for e in execs {
                let label = format!("{}:{}@{}", e.plugin, e.goal, e.id);
                let exec = format!("execution `{}` of {}", e.id, e.artifact);
                let description = match (&e.purpose, &e.phase) {
                    (Some(p), Some(phase)) => format!("{p} ({exec}, bound to {phase})"),
                    (Some(p), None) => format!("{p} ({exec})"),
                    (None, Some(phase)) => format!("Run {exec} (bound to {phase})"),
                    (None, None) => format!("Run {exec}"),
                };
                out.commands.push(
                    CommandItem::new(
                        KIND,
                        file.path,
                        &label,
                        format!("{mvn} {}", sh_word(&label)),
                    )
                    .description(description)
                    .line(e.line),
                );
            }
        }
        Err((line, msg)) => out.warn(file.path, line, msg),
    }
    out
}

struct Execution {
    plugin: String,
    artifact: String,
    goal: String,
    id: String,
    phase: Option<String>,
    line: usize,
    /// What the goal does in plain words, for a well-known plugin (see [`PURPOSES`]).
    purpose: Option<String>,
}

/// What well-known plugins' goals do, by artifact and goal: an execution's id and the plugin's
/// name seldom say it ("enforce-java" of maven-enforcer-plugin checks the JDK's version).
const PURPOSES: &[(&str, &str, &str)] = &[
    (
        "maven-enforcer-plugin",
        "enforce",
        "Check the build's rules",
    ),
    (
        "jacoco-maven-plugin",
        "prepare-agent",
        "Set up the JaCoCo coverage agent for the tests",
    ),
    (
        "jacoco-maven-plugin",
        "prepare-agent-integration",
        "Set up the JaCoCo coverage agent for the integration tests",
    ),
    (
        "jacoco-maven-plugin",
        "report",
        "Write the test coverage report with JaCoCo",
    ),
    (
        "jacoco-maven-plugin",
        "report-aggregate",
        "Write the test coverage report of all modules with JaCoCo",
    ),
    (
        "jacoco-maven-plugin",
        "check",
        "Check the test coverage against its limits with JaCoCo",
    ),
    (
        "maven-checkstyle-plugin",
        "check",
        "Check the code style with Checkstyle",
    ),
    (
        "spotless-maven-plugin",
        "apply",
        "Format the code with Spotless",
    ),
    (
        "spotless-maven-plugin",
        "check",
        "Check the code's formatting with Spotless",
    ),
    (
        "maven-surefire-plugin",
        "test",
        "Run the unit tests with Surefire",
    ),
    (
        "maven-failsafe-plugin",
        "integration-test",
        "Run the integration tests with Failsafe",
    ),
    (
        "maven-failsafe-plugin",
        "verify",
        "Check the integration tests' results with Failsafe",
    ),
    ("exec-maven-plugin", "java", "Run a Java program"),
    ("exec-maven-plugin", "exec", "Run a program"),
    ("maven-antrun-plugin", "run", "Run Ant tasks"),
    (
        "spring-boot-maven-plugin",
        "repackage",
        "Repackage the jar as an executable Spring Boot jar",
    ),
    (
        "spring-boot-maven-plugin",
        "build-info",
        "Write the build's information for Spring Boot",
    ),
    (
        "spring-boot-maven-plugin",
        "build-image",
        "Build a container image of the application",
    ),
    (
        "spring-boot-maven-plugin",
        "process-aot",
        "Prepare the application ahead of time with Spring AOT",
    ),
    (
        "native-maven-plugin",
        "compile",
        "Compile a native executable with GraalVM",
    ),
    (
        "native-maven-plugin",
        "compile-no-fork",
        "Compile a native executable with GraalVM",
    ),
    (
        "jib-maven-plugin",
        "build",
        "Build a container image and push it with Jib",
    ),
    (
        "jib-maven-plugin",
        "dockerBuild",
        "Build a container image into Docker with Jib",
    ),
    (
        "maven-javadoc-plugin",
        "jar",
        "Package the API documentation with Javadoc",
    ),
    (
        "maven-javadoc-plugin",
        "javadoc",
        "Generate the API documentation with Javadoc",
    ),
    ("maven-source-plugin", "jar", "Package the sources"),
    ("maven-source-plugin", "jar-no-fork", "Package the sources"),
    ("maven-gpg-plugin", "sign", "Sign the artifacts with GPG"),
    (
        "cyclonedx-maven-plugin",
        "makeAggregateBom",
        "Write the software bill of materials with CycloneDX",
    ),
    (
        "cyclonedx-maven-plugin",
        "makeBom",
        "Write the software bill of materials with CycloneDX",
    ),
    (
        "git-commit-id-maven-plugin",
        "revision",
        "Record the Git commit in the build",
    ),
    (
        "git-commit-id-plugin",
        "revision",
        "Record the Git commit in the build",
    ),
    (
        "frontend-maven-plugin",
        "install-node-and-npm",
        "Install Node and npm for the frontend build",
    ),
    (
        "frontend-maven-plugin",
        "install-node-and-yarn",
        "Install Node and Yarn for the frontend build",
    ),
    ("frontend-maven-plugin", "npm", "Run npm for the frontend"),
    ("frontend-maven-plugin", "yarn", "Run Yarn for the frontend"),
    (
        "protobuf-maven-plugin",
        "compile",
        "Generate code from the protobuf definitions",
    ),
    (
        "openapi-generator-maven-plugin",
        "generate",
        "Generate code from the OpenAPI specification",
    ),
    (
        "flyway-maven-plugin",
        "migrate",
        "Migrate the database with Flyway",
    ),
    (
        "liquibase-maven-plugin",
        "update",
        "Migrate the database with Liquibase",
    ),
    (
        "maven-pmd-plugin",
        "check",
        "Check the code for problems with PMD",
    ),
    (
        "spotbugs-maven-plugin",
        "check",
        "Check the code for bugs with SpotBugs",
    ),
    (
        "apache-rat-plugin",
        "check",
        "Check the license headers with Apache RAT",
    ),
    ("license-maven-plugin", "check", "Check the license headers"),
    ("license-maven-plugin", "format", "Add the license headers"),
    (
        "build-helper-maven-plugin",
        "add-source",
        "Add a source folder to the build",
    ),
    (
        "maven-dependency-plugin",
        "copy-dependencies",
        "Copy the dependencies into a folder",
    ),
    (
        "maven-dependency-plugin",
        "unpack",
        "Unpack artifacts into a folder",
    ),
    (
        "maven-assembly-plugin",
        "single",
        "Package a distribution archive",
    ),
    (
        "maven-shade-plugin",
        "shade",
        "Package an uber jar with the dependencies",
    ),
];

/// What an execution's goal does (see [`PURPOSES`]); the enforcer's rules named from its
/// configuration (`requireJavaVersion` → "require Java version").
fn purpose(artifact: &str, goal: &str, exec: roxmltree::Node<'_, '_>) -> Option<String> {
    let (_, _, what) = PURPOSES
        .iter()
        .find(|(a, g, _)| *a == artifact && *g == goal)?;
    let mut what = (*what).to_string();
    if artifact == "maven-enforcer-plugin" {
        let rules: Vec<String> = child(exec, "configuration")
            .and_then(|c| child(c, "rules"))
            .into_iter()
            .flat_map(|r| r.children().filter(|n| n.is_element()))
            .map(|n| camel_words(n.tag_name().name()))
            .collect();
        if !rules.is_empty() {
            what.push_str(": ");
            what.push_str(&rules.join(", "));
        }
    }
    Some(what)
}

/// `requireJavaVersion` → "require Java version": a rule's name as words, a proper name kept.
fn camel_words(name: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for c in name.chars() {
        if c.is_uppercase() || words.is_empty() {
            words.push(String::new());
        }
        words.last_mut().expect("pushed").push(c);
    }
    words
        .into_iter()
        .map(|w| match w.as_str() {
            "Java" | "Maven" | "OS" => w,
            _ => w.to_lowercase(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A known plugin's goal that starts the application: the goal, its description, its line.
type RunGoal = (&'static str, &'static str, usize);
/// Where the XML is malformed (its line when known) and why.
type XmlError = (Option<usize>, String);

fn executions(content: &str) -> Result<(Vec<Execution>, Vec<RunGoal>), XmlError> {
    let doc = roxmltree::Document::parse(content)
        .map_err(|e| (Some(e.pos().row as usize), format!("invalid XML: {e}")))?;
    let lines = LineIndex::new(content);
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err((
            None,
            format!(
                "root element is <{}>, not <project>",
                project.tag_name().name()
            ),
        ));
    }
    let mut out = Vec::new();
    let mut runs: Vec<RunGoal> = Vec::new();
    let plugins = child(project, "build")
        .and_then(|b| child(b, "plugins"))
        .into_iter()
        .flat_map(|p| p.children().filter(|n| n.tag_name().name() == "plugin"));
    for plugin in plugins {
        let Some(artifact) = child_text(plugin, "artifactId") else {
            continue;
        };
        if let Some((_, goal, description)) = RUN_GOALS.iter().find(|(a, ..)| *a == artifact)
            && !runs.iter().any(|(g, ..)| g == goal)
        {
            runs.push((*goal, *description, lines.line(plugin.range().start)));
        }
        let group =
            child_text(plugin, "groupId").unwrap_or_else(|| "org.apache.maven.plugins".to_string());
        let prefix = goal_prefix(&artifact).unwrap_or_else(|| format!("{group}:{artifact}"));
        let execs = child(plugin, "executions")
            .into_iter()
            .flat_map(|e| e.children().filter(|n| n.tag_name().name() == "execution"));
        for exec in execs {
            let Some(id) = child_text(exec, "id") else {
                continue;
            };
            let phase = child_text(exec, "phase");
            let line = lines.line(exec.range().start);
            let goals = child(exec, "goals")
                .into_iter()
                .flat_map(|g| g.children().filter(|n| n.tag_name().name() == "goal"))
                .filter_map(|g| {
                    g.text()
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(str::to_string)
                });
            for goal in goals {
                out.push(Execution {
                    plugin: prefix.clone(),
                    artifact: artifact.clone(),
                    purpose: purpose(&artifact, &goal, exec),
                    goal,
                    id: id.clone(),
                    phase: phase.clone(),
                    line,
                });
            }
        }
    }
    Ok((out, runs))
}

/// Maven's prefix for conventionally named plugins: `-maven-`/`maven-` and `-plugin` dropped
/// (`maven-surefire-plugin` → `surefire`, `spring-boot-maven-plugin` → `spring-boot`).
fn goal_prefix(artifact: &str) -> Option<String> {
    if artifact == "maven-plugin-plugin" {
        return Some("plugin".to_string());
    }
    let core = if let Some(mid) = artifact
        .strip_prefix("maven-")
        .and_then(|a| a.strip_suffix("-plugin"))
    {
        mid
    } else {
        artifact.strip_suffix("-maven-plugin")?
    };
    (!core.is_empty()).then(|| core.to_string())
}

fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|n| n.is_element() && n.tag_name().name() == name)
}

fn child_text(node: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    let t = child(node, name)?.text()?.trim();
    (!t.is_empty()).then(|| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>app</artifactId>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <artifactId>maven-deploy-plugin</artifactId>
          <executions><execution><id>managed</id><goals><goal>deploy</goal></goals></execution></executions>
        </plugin>
      </plugins>
    </pluginManagement>
    <plugins>
      <plugin>
        <groupId>org.codehaus.mojo</groupId>
        <artifactId>exec-maven-plugin</artifactId>
        <executions>
          <execution>
            <id>seed-db</id>
            <phase>pre-integration-test</phase>
            <goals><goal>java</goal></goals>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <artifactId>maven-antrun-plugin</artifactId>
        <executions>
          <execution>
            <id>gen</id>
            <goals>
              <goal>run</goal>
            </goals>
          </execution>
          <execution>
            <goals><goal>run</goal></goals>
          </execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>com.github.eirslett</groupId>
        <artifactId>frontend-plugins</artifactId>
        <executions>
          <execution><id>npm install</id><goals><goal>npm</goal><goal>yarn</goal></goals></execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
"#;

    const LIFECYCLE_LABELS: [&str; 9] = [
        "clean",
        "compile",
        "test",
        "package",
        "install",
        "deploy",
        "verify",
        "clean install",
        "clean package",
    ];

    #[test]
    fn lifecycle_goals_like_upstream() {
        let p = parse_with(parse, "/w/pom.xml", "<project/>");
        assert!(p.warnings.is_empty());
        assert_eq!(labels(&p), LIFECYCLE_LABELS);
        let ci = &p.commands[7];
        assert_eq!(ci.id, "maven:/w/pom.xml:clean install");
        assert_eq!(ci.command, "mvn clean install");
        assert_eq!(ci.description.as_deref(), Some("Clean and install"));
        assert_eq!(
            p.commands[6].description.as_deref(),
            Some("Run integration tests")
        );
        assert_eq!(p.commands[0].cwd, "/w");
    }

    #[test]
    fn a_plugin_that_starts_the_application_adds_its_goal() {
        let pom = r#"<project>
  <build>
    <pluginManagement><plugins><plugin>
      <artifactId>quarkus-maven-plugin</artifactId>
    </plugin></plugins></pluginManagement>
    <plugins>
      <plugin>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-maven-plugin</artifactId>
      </plugin>
    </plugins>
  </build>
</project>"#;
        let p = parse_with(parse, "/w/pom.xml", pom);
        let run: Vec<_> = p.commands[9..]
            .iter()
            .map(|c| {
                (
                    c.label.as_str(),
                    c.command.as_str(),
                    c.description.as_deref(),
                    c.line,
                )
            })
            .collect();
        // Managed only (not active) adds nothing.
        assert_eq!(
            run,
            [(
                "spring-boot:run",
                "mvn spring-boot:run",
                Some("Runs the Spring Boot application"),
                Some(7)
            )]
        );
    }

    #[test]
    fn plugin_executions() {
        let p = parse_with(parse, "/w/pom.xml", POM);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let extra: Vec<_> = p.commands[9..]
            .iter()
            .map(|c| (c.label.as_str(), c.command.as_str()))
            .collect();
        assert_eq!(
            extra,
            [
                ("exec:java@seed-db", "mvn exec:java@seed-db"),
                ("antrun:run@gen", "mvn antrun:run@gen"),
                (
                    "com.github.eirslett:frontend-plugins:npm@npm install",
                    "mvn 'com.github.eirslett:frontend-plugins:npm@npm install'"
                ),
                (
                    "com.github.eirslett:frontend-plugins:yarn@npm install",
                    "mvn 'com.github.eirslett:frontend-plugins:yarn@npm install'"
                ),
            ]
        );
        let seed = &p.commands[9];
        assert_eq!(seed.id, "maven:/w/pom.xml:exec:java@seed-db");
        assert_eq!(
            seed.description.as_deref(),
            Some(
                "Run a Java program (execution `seed-db` of exec-maven-plugin, bound to pre-integration-test)"
            )
        );
        assert_eq!(seed.line, Some(21));
        assert_eq!(
            p.commands[10].description.as_deref(),
            Some("Run Ant tasks (execution `gen` of maven-antrun-plugin)")
        );
    }

    #[test]
    fn a_well_known_goal_says_what_it_does_and_the_enforcers_rules_are_named() {
        let pom = r#"<project><build><plugins>
          <plugin><artifactId>maven-enforcer-plugin</artifactId><executions><execution>
            <id>enforce-java</id><goals><goal>enforce</goal></goals>
            <configuration><rules><requireJavaVersion><version>17</version></requireJavaVersion>
              <dependencyConvergence/></rules></configuration>
          </execution></executions></plugin>
          <plugin><groupId>org.jacoco</groupId><artifactId>jacoco-maven-plugin</artifactId>
            <executions><execution><id>report</id><phase>prepare-package</phase>
              <goals><goal>report</goal></goals></execution></executions></plugin>
          <plugin><groupId>x</groupId><artifactId>unknown-maven-plugin</artifactId>
            <executions><execution><id>go</id><goals><goal>go</goal></goals></execution></executions></plugin>
        </plugins></build></project>"#;
        let p = parse_with(parse, "/w/pom.xml", pom);
        let desc = |label: &str| {
            p.commands
                .iter()
                .find(|c| c.label == label)
                .and_then(|c| c.description.clone())
                .unwrap()
        };
        assert_eq!(
            desc("enforcer:enforce@enforce-java"),
            "Check the build's rules: require Java version, dependency convergence (execution `enforce-java` of maven-enforcer-plugin)"
        );
        assert_eq!(
            desc("jacoco:report@report"),
            "Write the test coverage report with JaCoCo (execution `report` of jacoco-maven-plugin, bound to prepare-package)"
        );
        assert_eq!(
            desc("unknown:go@go"),
            "Run execution `go` of unknown-maven-plugin"
        );
    }

    #[test]
    fn prefixes() {
        assert_eq!(
            goal_prefix("maven-surefire-plugin").as_deref(),
            Some("surefire")
        );
        assert_eq!(
            goal_prefix("spring-boot-maven-plugin").as_deref(),
            Some("spring-boot")
        );
        assert_eq!(
            goal_prefix("maven-plugin-plugin").as_deref(),
            Some("plugin")
        );
        assert_eq!(goal_prefix("my-codegen"), None);
        assert_eq!(goal_prefix("maven--plugin"), None);
    }

    #[test]
    fn wrapper_beside_or_in_ancestor() {
        let fs = MemFs::new()
            .exe("/w/mvnw", "#!/bin/sh")
            .file("/w/pom.xml", "<project/>")
            .file("/w/core/api/pom.xml", POM);
        let p = parse_in(parse, &fs, "/w/pom.xml");
        assert_eq!(p.commands[0].command, "./mvnw clean");
        let p = parse_in(parse, &fs, "/w/core/api/pom.xml");
        assert_eq!(p.commands[7].command, "../../mvnw clean install");
        assert_eq!(p.commands[9].command, "../../mvnw exec:java@seed-db");
        assert_eq!(p.commands[9].cwd, "/w/core/api");
        // A wrapper above the workspace root is not used.
        let fs = MemFs::new()
            .file("/mvnw", "")
            .file("/w/pom.xml", "<project/>");
        assert_eq!(
            parse_in(parse, &fs, "/w/pom.xml").commands[0].command,
            "mvn clean"
        );
    }

    #[test]
    fn malformed_xml_warns_and_keeps_lifecycle() {
        let p = parse_with(parse, "/w/pom.xml", "<project>\n  <build>\n    <plugins>\n");
        assert_eq!(labels(&p), LIFECYCLE_LABELS);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.starts_with("invalid XML"));
        assert!(p.warnings[0].line.is_some());

        let p = parse_with(parse, "/w/pom.xml", "<settings/>");
        assert_eq!(
            p.warnings[0].message,
            "root element is <settings>, not <project>"
        );
        let p = parse_with(parse, "/w/pom.xml", "\u{1}\u{FFFD}<<garbage");
        assert_eq!(p.commands.len(), 9);
        assert_eq!(p.warnings.len(), 1);
    }
}
