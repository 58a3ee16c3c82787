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
                let mut description = format!("Run execution `{}` of {}", e.id, e.artifact);
                if let Some(phase) = &e.phase {
                    description.push_str(&format!(" (bound to {phase})"));
                }
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
            Some("Run execution `seed-db` of exec-maven-plugin (bound to pre-integration-test)")
        );
        assert_eq!(seed.line, Some(21));
        assert_eq!(
            p.commands[10].description.as_deref(),
            Some("Run execution `gen` of maven-antrun-plugin")
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
