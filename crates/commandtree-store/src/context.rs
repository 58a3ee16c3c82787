//! Context messages for LLM skills (`ct context`, the `task` skill, playbooks): a table of our
//! own, one row per message, grouped by conversation and read back in the order they were
//! added. The message type is what the skill layer maps to a chat role (`agent`, `assistant`,
//! `user`); the store only keeps it.

use crate::{Result, Store};
use rusqlite::params;
use serde::Serialize;

pub const TABLE: &str = "context_messages";

pub const TABLE_SQL: &str = "CREATE TABLE IF NOT EXISTS context_messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation TEXT NOT NULL,
    type TEXT NOT NULL,           -- 'agent' | 'assistant' | 'user'
    content TEXT NOT NULL,
    created_at TEXT NOT NULL
);
";

/// The conversation `ct context` and `ct task` use when none is named.
pub const DEFAULT_CONVERSATION: &str = "default";

/// Who a context message speaks for.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextType {
    /// Instructions for the model.
    Agent,
    Assistant,
    User,
}

impl ContextType {
    pub const ALL: [ContextType; 3] = [
        ContextType::Agent,
        ContextType::Assistant,
        ContextType::User,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ContextType::Agent => "agent",
            ContextType::Assistant => "assistant",
            ContextType::User => "user",
        }
    }
}

impl std::str::FromStr for ContextType {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        ContextType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("`{s}` is not a context type (agent, assistant or user)"))
    }
}

/// One stored message.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextMessage {
    pub id: i64,
    pub conversation: String,
    #[serde(rename = "type")]
    pub kind: ContextType,
    pub content: String,
    pub created_at: String,
}

impl Store {
    /// Appends a message to `conversation`; returns its id.
    pub fn add_context(
        &mut self,
        conversation: &str,
        kind: ContextType,
        content: &str,
    ) -> Result<i64> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO context_messages (conversation, type, content, created_at)
                 VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                params![conversation, kind.as_str(), content],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// The messages of `conversation`, oldest first. Empty when the table is absent (a database
    /// opened read-only that predates it). A row whose type another tool wrote in another
    /// spelling is skipped rather than guessed at.
    pub fn context(&self, conversation: &str) -> Result<Vec<ContextMessage>> {
        if !self.has_table(TABLE)? {
            return Ok(Vec::new());
        }
        let rows: Vec<(i64, String, String, String, String)> = self.read(|c| {
            let mut st = c.prepare(
                "SELECT id, conversation, type, content, created_at FROM context_messages
                 WHERE conversation = ?1 ORDER BY id",
            )?;
            st.query_map([conversation], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect()
        })?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, conversation, kind, content, created_at)| {
                Some(ContextMessage {
                    id,
                    conversation,
                    kind: kind.parse().ok()?,
                    content,
                    created_at,
                })
            })
            .collect())
    }

    /// Removes every message of `conversation`; returns how many there were.
    pub fn clear_context(&mut self, conversation: &str) -> Result<usize> {
        if !self.has_table(TABLE)? {
            return Ok(0);
        }
        self.write(|tx| {
            tx.execute(
                "DELETE FROM context_messages WHERE conversation = ?1",
                [conversation],
            )
        })
    }
}
