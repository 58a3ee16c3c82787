//! Docker: Compose files (general `docker compose` commands plus one `up {service}` per service)
//! and Dockerfiles/Containerfiles (`docker build`).
//!
//! In a folder, `docker compose` reads its base file and merges the override file beside it
//! (`compose.yaml` + `compose.override.yaml`, Compose's own default). So the base file's
//! commands run with both files, as the user would by typing `docker compose up` there; the
//! override lists only the services it adds, plus one hidden entry the base's commands step
//! through, so that what the override gives its containers of the host warns on them too. Any
//! other Compose file (`compose.prod.yml`) is a project of its own, run with `-f` alone.

use super::common::{one_command, with_line};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef, StepScope};
use crate::syntax::yaml;
use crate::text;
use serde_yaml_ng::Value as Yaml;
use std::path::{Path, PathBuf};

/// The base files Compose reads by itself in a folder, the first found winning.
const BASE_FILES: &[&str] = &[
    "compose.yaml",
    "compose.yml",
    "docker-compose.yml",
    "docker-compose.yaml",
];
/// The override files it merges over the base, the first found winning.
const OVERRIDE_FILES: &[&str] = &[
    "compose.override.yml",
    "compose.override.yaml",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
];

/// What a Compose file is to the folder's default project.
enum Role {
    /// Run on its own with `-f` (no override beside it, or not one of the default names).
    Alone,
    /// The base file, merged with this override.
    Base(PathBuf),
    /// The override merged over this base file.
    Override(PathBuf),
}

fn first_in(file: &SourceFile<'_>, names: &[&str]) -> Option<PathBuf> {
    names
        .iter()
        .map(|n| file.dir().join(n))
        .find(|p| file.fs.is_file(p))
}

fn role(file: &SourceFile<'_>) -> Role {
    let (Some(base), Some(over)) = (first_in(file, BASE_FILES), first_in(file, OVERRIDE_FILES))
    else {
        return Role::Alone;
    };
    if base == file.path {
        Role::Base(over)
    } else if over == file.path {
        Role::Override(base)
    } else {
        Role::Alone
    }
}

/// The service names of a Compose text, in file order (none when it is not a Compose map).
fn service_names(content: &str) -> Vec<String> {
    let Ok(d) = yaml::parse(content) else {
        return Vec::new();
    };
    match untag(d.value) {
        Yaml::Mapping(root) => match root.get("services").map(|v| untag(v.clone())) {
            Some(Yaml::Mapping(m)) => m.keys().filter_map(service_name).collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn service_name(key: &Yaml) -> Option<String> {
    let name = match untag(key.clone()) {
        Yaml::String(s) => s,
        Yaml::Number(n) => n.to_string(),
        Yaml::Bool(b) => b.to_string(),
        _ => return None,
    };
    // `<<: *defaults` merges keys into the map; it names no service.
    (!name.is_empty() && name != "<<").then_some(name)
}

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
    let role = role(file);
    let files: Vec<&Path> = match &role {
        Role::Alone => vec![file.path],
        Role::Base(over) => vec![file.path, over],
        Role::Override(base) => vec![base, file.path],
    };
    let compose = files.iter().fold("docker compose".to_string(), |c, f| {
        format!("{c} -f {}", text::quote_path(f))
    });
    // The base's commands that start containers start them as the override configures them:
    // `up` steps through the override's whole entry, `up db` through its `db` entry when it
    // has one, so the override's findings are theirs.
    let over_services: Vec<String> = match &role {
        Role::Base(over) => file
            .fs
            .read(over)
            .map(|t| service_names(&t))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let through_override = |item: CommandItem| {
        let Role::Base(over) = &role else {
            return item;
        };
        let step = match started_service(&item.label) {
            Some(svc) => {
                if !over_services.iter().any(|s| s == svc) {
                    return item;
                }
                item.label.clone()
            }
            _ if item.label == "up" || item.label == "up -d" => file_label(over),
            _ => return item,
        };
        let mut item = item;
        item.steps.push(
            StepRef::new(step, StepHow::Hook, false).scope(StepScope::File {
                kind: "docker".into(),
                file: over.clone(),
            }),
        );
        item
    };
    // Services the base file already has are its commands; the override adds the others.
    let in_base: Vec<String> = match &role {
        Role::Override(base) => {
            let mut hidden = CommandItem::new(
                "docker",
                file.path,
                &file.file_name(),
                format!("{compose} config"),
            )
            .description(format!(
                "Merged by Compose into {} (prints the merged configuration)",
                file_label(base)
            ));
            hidden.hidden = true;
            out.commands.push(hidden);
            file.fs
                .read(base)
                .map(|t| service_names(&t))
                .unwrap_or_default()
        }
        _ => {
            // The general commands need only the file; docker reports its own errors when it
            // is broken.
            for (label, args, description) in GENERAL {
                out.commands.push(through_override(
                    CommandItem::new("docker", file.path, label, format!("{compose} {args}"))
                        .description(format!("{description}{}", which(file))),
                ));
            }
            Vec::new()
        }
    };
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
        if !matches!(
            untag(key.clone()),
            Yaml::String(_) | Yaml::Number(_) | Yaml::Bool(_)
        ) {
            out.warn(file.path, None, "a service name is not a string");
            continue;
        }
        let Some(name) = service_name(key) else {
            continue;
        };
        let label = format!("up {name}");
        let mut item = CommandItem::new(
            "docker",
            file.path,
            &label,
            format!("{compose} up {}", text::sh_word(&name)),
        )
        .description(format!(
            "Start {name} service{}{}",
            services
                .get(key)
                .and_then(image_of)
                .and_then(image_purpose)
                .map(|p| format!(": {p}"))
                .unwrap_or_default(),
            which(file)
        ));
        // What the override changes of a service the base defines: the base's `up` of it
        // steps through this (listed there, not here).
        item.hidden = in_base.contains(&name);
        let line = lines.get(name.as_str()).copied();
        out.commands.push(through_override(with_line(item, line)));
    }
    out
}

const MAIL_CATCHER: &str = "mail catcher: a fake SMTP server with a web UI";

/// What well-known images run, by their name without registry, tag or digest (the last one or
/// two segments): a service's own name seldom says it (`db`, `mail`, `proxy`), and a user asks
/// for the thing ("start the mail catcher", "open the database admin UI").
const IMAGES: &[(&str, &str)] = &[
    ("postgres", "PostgreSQL database"),
    ("postgis", "PostgreSQL database with PostGIS"),
    ("mysql", "MySQL database"),
    ("mariadb", "MariaDB (MySQL) database"),
    ("percona", "Percona (MySQL) database"),
    ("mongo", "MongoDB database"),
    ("mssql/server", "SQL Server database"),
    ("cassandra", "Cassandra database"),
    ("clickhouse-server", "ClickHouse database"),
    ("cockroach", "CockroachDB database"),
    ("couchdb", "CouchDB database"),
    ("neo4j", "Neo4j graph database"),
    ("influxdb", "InfluxDB time-series database"),
    ("dynamodb-local", "local DynamoDB database"),
    ("redis", "Redis in-memory store (cache, queues)"),
    ("valkey", "Valkey (Redis) in-memory store (cache, queues)"),
    ("memcached", "Memcached cache"),
    ("rabbitmq", "RabbitMQ message broker"),
    ("kafka", "Kafka message broker"),
    ("cp-kafka", "Kafka message broker"),
    ("zookeeper", "ZooKeeper coordination service"),
    ("cp-zookeeper", "ZooKeeper coordination service"),
    ("nats", "NATS message broker"),
    ("elasticsearch", "Elasticsearch search engine"),
    ("opensearch", "OpenSearch search engine"),
    ("meilisearch", "Meilisearch search engine"),
    ("kibana", "Kibana dashboards for Elasticsearch"),
    ("adminer", "database admin web UI"),
    ("pgadmin4", "PostgreSQL admin web UI"),
    ("phpmyadmin", "MySQL admin web UI"),
    ("mongo-express", "MongoDB admin web UI"),
    ("redisinsight", "Redis admin web UI"),
    ("redis-commander", "Redis admin web UI"),
    ("mailpit", MAIL_CATCHER),
    ("mailhog", MAIL_CATCHER),
    ("maildev", MAIL_CATCHER),
    ("mailcatcher", MAIL_CATCHER),
    ("smtp4dev", MAIL_CATCHER),
    ("traefik", "Traefik reverse proxy"),
    ("nginx", "nginx web server (reverse proxy)"),
    ("caddy", "Caddy web server (reverse proxy)"),
    ("haproxy", "HAProxy load balancer"),
    ("envoy", "Envoy proxy"),
    ("minio", "MinIO S3-compatible object storage"),
    ("localstack", "LocalStack: local AWS cloud emulator"),
    ("azurite", "Azurite: local Azure Storage emulator"),
    ("prometheus", "Prometheus metrics server"),
    ("grafana", "Grafana dashboards"),
    ("loki", "Loki log store"),
    ("jaegertracing/all-in-one", "Jaeger tracing UI"),
    ("zipkin", "Zipkin tracing UI"),
    ("opentelemetry-collector", "OpenTelemetry collector"),
    ("opentelemetry-collector-contrib", "OpenTelemetry collector"),
    ("keycloak", "Keycloak identity server (login, OAuth)"),
    ("vault", "Vault secrets server"),
    ("consul", "Consul service registry"),
    ("etcd", "etcd key-value store"),
    (
        "standalone-chrome",
        "Selenium Chrome browser for end-to-end tests",
    ),
    (
        "standalone-firefox",
        "Selenium Firefox browser for end-to-end tests",
    ),
    ("wiremock", "WireMock HTTP mock server"),
    ("ngrok", "ngrok tunnel to the internet"),
];

/// A service's image as written, the default of `${VAR:-image}` when it is one.
fn image_of(service: &Yaml) -> Option<&str> {
    let image = service.get("image")?.as_str()?.trim();
    match image.strip_prefix("${") {
        Some(var) => var.split_once(":-").map(|(_, d)| d.trim_end_matches('}')),
        None => Some(image),
    }
}

/// What a well-known image runs (see [`IMAGES`]).
fn image_purpose(image: &str) -> Option<&'static str> {
    let name = image.split('@').next()?;
    let segments: Vec<&str> = name.split('/').collect();
    let last = segments.last()?.split(':').next()?;
    // `registry:5000/ns/name:tag`: the tag is on the last segment only.
    let two = (segments.len() >= 2).then(|| format!("{}/{last}", segments[segments.len() - 2]));
    IMAGES
        .iter()
        .find(|(n, _)| *n == last || two.as_deref() == Some(*n))
        .map(|(_, p)| *p)
}

/// The one service a Compose command's label starts (`up web`: `web`); `None` for `up`, `up -d`
/// and the verbs over every service.
pub fn started_service(label: &str) -> Option<&str> {
    label.strip_prefix("up ").filter(|s| *s != "-d")
}

/// Whether `path` has a name `docker compose` reads by itself (a base or an override file).
pub fn is_default_compose(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| BASE_FILES.contains(&n) || OVERRIDE_FILES.contains(&n))
}

/// A hidden entry of an override merged into its base file (the whole override, or what it
/// changes of one service): the base's `up` commands step through it, and what its
/// containers get of the host counts as starting them.
pub fn is_merged_override(item: &CommandItem) -> bool {
    item.kind == "docker"
        && item.hidden
        && Path::new(&item.file_path)
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| OVERRIDE_FILES.contains(&n))
}

/// Which Compose file, said after a description when it is not one `docker compose` reads by
/// itself: `up` of `compose.prod.yml` beside `up` of `compose.yml` tell themselves apart.
fn which(file: &SourceFile<'_>) -> String {
    if is_default_compose(file.path) {
        String::new()
    } else {
        format!(" ({})", file.file_name())
    }
}

fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `path` is a Dockerfile (or Containerfile) by the names the source routes, not a
/// Compose file.
pub fn is_dockerfile(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let lower = name.to_ascii_lowercase();
    // BuildKit reads `Dockerfile.dockerignore` as the ignore file of the Dockerfile beside it.
    !lower.ends_with(".dockerignore")
        && (name == "Dockerfile"
            || name.starts_with("Dockerfile.")
            || lower.ends_with(".dockerfile")
            || name == "Containerfile")
}

pub fn parse_dockerfile(file: &SourceFile<'_>) -> Parsed {
    if !is_dockerfile(file.path) {
        return Parsed::default();
    }
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
    fn a_well_known_image_says_what_its_service_runs() {
        let p = parse_with(
            parse_compose,
            "/w/compose.yml",
            "services:\n  mail:\n    image: axllent/mailpit:v1.20\n  admin:\n    image: adminer\n  \
             sql:\n    image: mcr.microsoft.com/mssql/server:2022-latest\n  db:\n    \
             image: ${POSTGRES_IMAGE:-postgres:17}\n  app:\n    image: node:22\n  \
             proxy:\n    image: registry.local:5000/library/traefik@sha256:abc\n",
        );
        let descs: Vec<(&str, &str)> = p
            .commands
            .iter()
            .filter(|c| started_service(&c.label).is_some())
            .map(|c| (c.label.as_str(), c.description.as_deref().unwrap()))
            .collect();
        assert_eq!(
            descs,
            [
                (
                    "up mail",
                    "Start mail service: mail catcher: a fake SMTP server with a web UI"
                ),
                ("up admin", "Start admin service: database admin web UI"),
                ("up sql", "Start sql service: SQL Server database"),
                ("up db", "Start db service: PostgreSQL database"),
                ("up app", "Start app service"),
                ("up proxy", "Start proxy service: Traefik reverse proxy"),
            ]
        );
    }

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
                "Start db service: PostgreSQL database",
                "Start cache-1 service: Redis in-memory store (cache, queues)",
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
    fn the_base_file_runs_with_its_override_which_lists_only_what_it_adds() {
        use crate::fs::MemFs;
        use crate::sources::testing::{parse_in, steps};
        let fs = MemFs::new()
            .file("/w/compose.yml", "services:\n  db:\n    image: postgres\n")
            .file(
                "/w/compose.override.yml",
                "services:\n  db:\n    ports: ['5432:5432']\n  mail:\n    image: mailpit\n",
            )
            .file(
                "/w/compose.prod.yml",
                "services:\n  db:\n    image: postgres\n",
            );
        let both = "docker compose -f \"/w/compose.yml\" -f \"/w/compose.override.yml\"";

        let base = parse_in(parse_compose, &fs, "/w/compose.yml");
        assert_eq!(labels(&base)[6..], ["up db"]);
        assert_eq!(base.commands[0].command, format!("{both} up"));
        assert_eq!(base.commands[6].command, format!("{both} up db"));
        assert_eq!(
            steps(&base, "up"),
            [("compose.override.yml".to_string(), "hook")]
        );
        assert_eq!(steps(&base, "up db"), [("up db".to_string(), "hook")]);
        assert!(steps(&base, "ps").is_empty(), "lists, starts nothing");

        let over = parse_in(parse_compose, &fs, "/w/compose.override.yml");
        assert_eq!(labels(&over), ["compose.override.yml", "up db", "up mail"]);
        assert!(is_merged_override(&over.commands[0]));
        assert!(is_merged_override(&over.commands[1]), "db is the base's");
        assert!(!over.commands[2].hidden, "mail is the override's own");
        assert_eq!(over.commands[0].command, format!("{both} config"));
        assert_eq!(over.commands[2].command, format!("{both} up mail"));
        assert_eq!(over.commands[2].line, Some(4));

        // Another Compose file is a project of its own, and says which.
        let prod = parse_in(parse_compose, &fs, "/w/compose.prod.yml");
        assert_eq!(
            prod.commands[6].description.as_deref(),
            Some("Start db service: PostgreSQL database (compose.prod.yml)")
        );
        assert_eq!(
            prod.commands[0].command,
            "docker compose -f \"/w/compose.prod.yml\" up"
        );
        assert!(prod.commands[0].steps.is_empty());

        // An override with no base beside it runs alone.
        let fs = MemFs::new().file("/w/docker-compose.override.yml", "services:\n  a: {}\n");
        let alone = parse_in(parse_compose, &fs, "/w/docker-compose.override.yml");
        assert_eq!(labels(&alone).len(), 7);
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
    fn a_dockerfiles_ignore_file_is_not_a_dockerfile() {
        for path in [
            "/w/release/Dockerfile.dockerignore",
            "/w/web.Dockerfile.dockerignore",
        ] {
            let p = parse_with(parse_dockerfile, path, "**/.DS_Store\n");
            assert!(p.commands.is_empty(), "{path}");
        }
    }

    #[test]
    fn dockerfiles_in_one_folder_get_distinct_ids() {
        let a = parse_with(parse_dockerfile, "/w/Dockerfile", "FROM x\n");
        let b = parse_with(parse_dockerfile, "/w/Dockerfile.prod", "FROM x\n");
        assert_ne!(a.commands[0].id, b.commands[0].id);
    }
}
