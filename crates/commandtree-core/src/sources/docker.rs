//! Docker: Compose files (general `docker compose` commands plus one `up {service}` per service)
//! and Dockerfiles/Containerfiles (`docker build`).

use super::common::{one_command, with_line};
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::yaml;
use crate::text;
use serde_yaml_ng::Value as Yaml;
use std::path::Path;

/// (label = id name, arguments after `docker compose -f F`, description).
const GENERAL: &[(&str, &str, &str)] = &[
    ("up", "up", "Start all services"),
    ("up -d", "up -d", "Start in background"),
    ("down", "down", "Stop all services"),
    ("build", "build", "Build all services"),
    ("logs", "logs -f", "View logs"),
    ("ps", "ps", "List containers"),
];

pub fn parse_compose(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let compose = format!("docker compose -f {}", text::quote_path(file.path));
    // The general commands need only the file; docker reports its own errors when it is broken.
    for (label, args, description) in GENERAL {
        out.commands.push(
            CommandItem::new("docker", file.path, label, format!("{compose} {args}"))
                .description(*description),
        );
    }
    // The YAML value itself, not its JSON form: its mappings keep file order.
    let (doc, spans) = match yaml::parse(file.content) {
        Ok(d) => (untag(d.value), d.spans),
        Err((line, msg)) => {
            out.warn(file.path, line, msg);
            return out;
        }
    };
    let root = match doc {
        Yaml::Mapping(m) => m,
        Yaml::Null => return out,
        _ => {
            out.warn(file.path, None, "the top level is not a map");
            return out;
        }
    };
    let services = match root.get("services").map(|v| untag(v.clone())) {
        None | Some(Yaml::Null) => return out,
        Some(Yaml::Mapping(m)) => m,
        Some(_) => {
            out.warn(
                file.path,
                spans.key_line("services"),
                "`services` is not a map",
            );
            return out;
        }
    };
    let lines = spans.key_lines_under("services");
    for key in services.keys() {
        let name = match untag(key.clone()) {
            Yaml::String(s) => s,
            Yaml::Number(n) => n.to_string(),
            Yaml::Bool(b) => b.to_string(),
            _ => {
                out.warn(file.path, None, "a service name is not a string");
                continue;
            }
        };
        // `<<: *defaults` merges keys into the map; it names no service.
        if name.is_empty() || name == "<<" {
            continue;
        }
        let label = format!("up {name}");
        let item = CommandItem::new(
            "docker",
            file.path,
            &label,
            format!("{compose} up {}", text::sh_word(&name)),
        )
        .description(format!("Start {name} service"));
        let line = lines.get(name.as_str()).copied();
        out.commands.push(with_line(item, line));
    }
    out
}

/// Whether `path` is a Dockerfile (or Containerfile) by the names the source routes, not a
/// Compose file.
pub fn is_dockerfile(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    name == "Dockerfile"
        || name.starts_with("Dockerfile.")
        || lower.ends_with(".dockerfile")
        || name == "Containerfile"
}

pub fn parse_dockerfile(file: &SourceFile<'_>) -> Parsed {
    let label = format!("build {}", file.file_name());
    let command = format!("docker build -f {} .", text::quote_path(file.path));
    one_command(
        CommandItem::new("docker", file.path, &label, command).description("Build Docker image"),
    )
}

fn untag(v: Yaml) -> Yaml {
    match v {
        Yaml::Tagged(t) => untag(t.value),
        v => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{assert_one_warning, labels, parse_with};

    const COMPOSE: &str = r#"# Local development stack
name: shop

x-common: &common
  restart: unless-stopped

services:
  web:
    <<: *common
    build: .
    ports:
      - "8080:80"
    depends_on: [db]
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: example
  # a comment between services
  cache-1:
    image: redis:7
    profiles: ["debug"]

volumes:
  data: {}
"#;

    #[test]
    fn compose_general_commands_then_services_in_file_order() {
        let p = parse_with(parse_compose, "/w/docker-compose.yml", COMPOSE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "up",
                "up -d",
                "down",
                "build",
                "logs",
                "ps",
                "up web",
                "up db",
                "up cache-1"
            ]
        );
        let cmds: Vec<&str> = p.commands.iter().map(|c| c.command.as_str()).collect();
        let f = "docker compose -f \"/w/docker-compose.yml\"";
        assert_eq!(
            cmds,
            [
                format!("{f} up"),
                format!("{f} up -d"),
                format!("{f} down"),
                format!("{f} build"),
                format!("{f} logs -f"),
                format!("{f} ps"),
                format!("{f} up web"),
                format!("{f} up db"),
                format!("{f} up cache-1"),
            ]
        );
        let descs: Vec<&str> = p
            .commands
            .iter()
            .map(|c| c.description.as_deref().unwrap())
            .collect();
        assert_eq!(
            descs,
            [
                "Start all services",
                "Start in background",
                "Stop all services",
                "Build all services",
                "View logs",
                "List containers",
                "Start web service",
                "Start db service",
                "Start cache-1 service",
            ]
        );
        let web = &p.commands[6];
        assert_eq!(web.kind, "docker");
        assert_eq!(web.id, "docker:/w/docker-compose.yml:up web");
        assert_eq!(web.cwd, "/w");
        assert_eq!(web.line, Some(8));
        assert_eq!(p.commands[7].line, Some(14));
        assert_eq!(p.commands[8].line, Some(19));
        assert_eq!(p.commands[0].id, "docker:/w/docker-compose.yml:up");
        assert_eq!(p.commands[1].id, "docker:/w/docker-compose.yml:up -d");
        assert_eq!(p.commands[0].line, None);
    }

    #[test]
    fn paths_with_spaces_and_quotes_stay_one_word() {
        let p = parse_with(
            parse_compose,
            "/w/my \"app\"/compose.yaml",
            "services:\n  api:\n    image: x\n",
        );
        assert_eq!(
            p.commands[6].command,
            "docker compose -f \"/w/my \\\"app\\\"/compose.yaml\" up api"
        );
        assert_eq!(p.commands[6].cwd, "/w/my \"app\"");
    }

    #[test]
    fn only_top_level_services_count() {
        // Nested keys, `volumes`, `networks` and extension fields are not services.
        let p = parse_with(
            parse_compose,
            "/w/compose.yml",
            "services:\n  app:\n    services:\n      fake: {}\n    volumes:\n      - data:/d\nnetworks:\n  front: {}\n",
        );
        assert_eq!(labels(&p)[6..], ["up app"]);
    }

    #[test]
    fn flow_style_and_quoted_service_names() {
        let p = parse_with(
            parse_compose,
            "/w/compose.yml",
            "services: {\"api\": {image: a}, 'worker': {image: b}, 2048: {image: c}}\n",
        );
        assert_eq!(labels(&p)[6..], ["up api", "up worker", "up 2048"]);
        let p = parse_with(
            parse_compose,
            "/w/compose.yml",
            "\"services\":\n  \"api\":\n    image: a\n",
        );
        assert_eq!(p.commands[6].line, Some(2));
    }

    #[test]
    fn file_without_services_gets_general_commands_only() {
        for content in [
            "",
            "include:\n  - other.yml\n",
            "services:\n",
            "# only a comment\n",
        ] {
            let p = parse_with(parse_compose, "/w/docker-compose.override.yml", content);
            assert_eq!(p.commands.len(), 6, "{content:?}");
            assert!(p.warnings.is_empty(), "{content:?}");
        }
    }

    #[test]
    fn malformed_compose_warns_without_panicking() {
        let cases: &[(&str, Option<u32>, &str)] = &[
            (
                "services:\n  web:\n    image: [unclosed\n",
                Some(4),
                "invalid YAML",
            ),
            ("services:\n\tweb: {}\n", Some(2), "invalid YAML"),
            ("- just\n- a list\n", None, "the top level is not a map"),
            (
                "services:\n  - web\n  - db\n",
                Some(1),
                "`services` is not a map",
            ),
            ("services: 3\n", Some(1), "`services` is not a map"),
            ("\u{1}\u{2}\u{3}: [", Some(1), "invalid YAML"),
        ];
        for (content, line, msg) in cases {
            let p = parse_with(parse_compose, "/w/compose.yml", content);
            assert_eq!(p.commands.len(), 6, "{content:?}");
            assert_one_warning(&p, *line, msg, content);
        }
    }

    #[test]
    fn alias_bombs_do_not_hang() {
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
                    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n\
                    services: {web: {x: *h}}\n";
        let p = parse_with(parse_compose, "/w/compose.yml", bomb);
        assert_eq!(p.commands.len(), 6);
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn dockerfiles() {
        for (path, label) in [
            ("/w/Dockerfile", "build Dockerfile"),
            ("/w/api/Dockerfile.dev", "build Dockerfile.dev"),
            ("/w/api/web.Dockerfile", "build web.Dockerfile"),
            ("/w/Containerfile", "build Containerfile"),
        ] {
            let p = parse_with(parse_dockerfile, path, "FROM alpine:3.20\nRUN echo hi\n");
            assert!(p.warnings.is_empty());
            assert_eq!(labels(&p), [label]);
            let c = &p.commands[0];
            assert_eq!(c.kind, "docker");
            assert_eq!(c.id, format!("docker:{path}:{label}"));
            assert_eq!(c.command, format!("docker build -f \"{path}\" ."));
            assert_eq!(c.description.as_deref(), Some("Build Docker image"));
        }
        let p = parse_with(parse_dockerfile, "/w/api/Dockerfile.dev", "");
        assert_eq!(p.commands[0].cwd, "/w/api");
        let p = parse_with(parse_dockerfile, "/w/my app/Dockerfile", "\u{1}garbage");
        assert_eq!(
            p.commands[0].command,
            "docker build -f \"/w/my app/Dockerfile\" ."
        );
    }

    #[test]
    fn dockerfiles_in_one_folder_get_distinct_ids() {
        let a = parse_with(parse_dockerfile, "/w/Dockerfile", "FROM x\n");
        let b = parse_with(parse_dockerfile, "/w/Dockerfile.prod", "FROM x\n");
        assert_ne!(a.commands[0].id, b.commands[0].id);
    }
}
