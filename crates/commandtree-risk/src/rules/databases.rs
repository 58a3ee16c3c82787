//! Dropping or emptying databases: `dropdb`, SQL handed to a client (`DROP DATABASE`,
//! `DROP TABLE`, `TRUNCATE`), Mongo and Redis, Rails' and Rake's database tasks.

use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd};

family_rule!(Family::Databases, Reach::Machine, Level::Danger);

pub(crate) const DROPDB: Rule = rule(
    "dropdb",
    "`dropdb`, `dropuser`",
    "drops a database ({})",
    "dropdb app_development",
);
pub(crate) const DROP_DATABASE: Rule = rule(
    "sql-drop-database",
    "`DROP DATABASE`/`DROP SCHEMA` given to `psql`, `mysql`, `sqlite3`, … (also piped or in a \
     heredoc)",
    "drops a database (DROP DATABASE)",
    "psql -c 'DROP DATABASE app'",
);
pub(crate) const DROP_TABLE: Rule = rule(
    "sql-drop-table",
    "`DROP TABLE` given to a database client",
    "drops a table (DROP TABLE)",
    "mysql -e 'DROP TABLE users'",
);
pub(crate) const TRUNCATE: Rule = rule(
    "sql-truncate",
    "`TRUNCATE` given to a database client",
    "empties a table (TRUNCATE)",
    "echo 'TRUNCATE users;' | psql",
);
pub(crate) const MONGO_DROP: Rule = rule(
    "mongo-drop",
    "`mongo`/`mongosh` with `dropDatabase` or `.drop()`",
    "drops a database (mongo)",
    "mongosh app --eval 'db.dropDatabase()'",
);
pub(crate) const REDIS_FLUSH: Rule = rule(
    "redis-flush",
    "`redis-cli flushall`, `flushdb`",
    "erases a Redis database",
    "redis-cli FLUSHALL",
);
pub(crate) const TASK_DROP: Rule = rule(
    "task-drops-database",
    "`rails`/`rake` `db:drop`, `db:reset`, `db:purge`, `db:schema:load`, …",
    "drops the database ({} {})",
    "bin/rails db:drop",
);

impl Analyser<'_> {
    pub(crate) fn databases(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        match name {
            "dropdb" | "dropuser" => {
                self.hit(&DROPDB, c.line, &c.snippet, &[name]);
            }
            "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd" | "cockroach"
            | "clickhouse-client" => {
                let mut take = false;
                for (i, a) in args.iter().enumerate() {
                    let inline = a
                        .strip_prefix("--command=")
                        .or_else(|| a.strip_prefix("--execute="))
                        .or_else(|| a.strip_prefix("--query="));
                    let sql = if let Some(s) = inline {
                        Some(s.to_string())
                    } else if take || (name == "sqlite3" && i > 0 && !a.starts_with('-')) {
                        Some(a.clone())
                    } else {
                        None
                    };
                    take = matches!(
                        a.as_str(),
                        "-c" | "-e" | "--command" | "--execute" | "-q" | "-Q" | "--query"
                    );
                    if let Some(sql) = sql {
                        self.sql(&sql, c.line, &c.snippet);
                    }
                }
            }
            "mongo" | "mongosh"
                if args
                    .iter()
                    .any(|a| a.contains("dropDatabase") || a.contains(".drop()")) =>
            {
                self.hit(&MONGO_DROP, c.line, &c.snippet, &[]);
            }
            "redis-cli"
                if args.iter().any(|a| {
                    a.eq_ignore_ascii_case("flushall") || a.eq_ignore_ascii_case("flushdb")
                }) =>
            {
                self.hit(&REDIS_FLUSH, c.line, &c.snippet, &[]);
            }
            "rails" | "rake" if args.iter().any(|a| drops_database(a)) => {
                let task = args.iter().find(|a| drops_database(a)).cloned();
                let task = task.unwrap_or_default();
                self.hit(&TASK_DROP, c.line, &c.snippet, &[name, &task]);
            }
            _ => {}
        }
    }

    /// SQL handed to a database client (an argument, a pipe, a heredoc).
    pub fn sql(&mut self, sql: &str, line: u32, snippet: &str) {
        let words: Vec<String> = sql
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_uppercase())
            .collect();
        for w in words.windows(2) {
            let rule = match (w[0].as_str(), w[1].as_str()) {
                ("DROP", "DATABASE" | "SCHEMA") => &DROP_DATABASE,
                ("DROP", "TABLE") => &DROP_TABLE,
                ("TRUNCATE", _) => &TRUNCATE,
                _ => continue,
            };
            self.hit(rule, line, snippet, &[]);
            return;
        }
    }
}

/// A Rails/Rake task that drops a database: `db:drop`, `db:reset`, `db:purge`,
/// `db:schema:load`, and the per-adapter forms (`db:mysql:drop`, `db:postgresql:rebuild`).
fn drops_database(task: &str) -> bool {
    let t = task.split('[').next().unwrap_or(task);
    let Some(rest) = t.strip_prefix("db:") else {
        return false;
    };
    rest == "schema:load"
        || rest
            .rsplit(':')
            .next()
            .is_some_and(|last| matches!(last, "drop" | "reset" | "purge" | "rebuild"))
}
