//! The `embedding` column of `commands` and the table of our own that says what each embedding
//! was made from, `embedding_sources` (never extra columns in the shared seed tables).
//!
//! `embedding_sources` has no foreign key on purpose: rows of commands that disappeared are
//! harmless (a row only counts when the `commands` row also has an embedding of the right size)
//! and it keeps the table independent of a rebuild of the seed tables.

use crate::{Result, Store};
use std::collections::HashMap;

/// What is stored for one `commands` row, as the embedding pipeline needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingState {
    pub summary: String,
    /// Length in bytes of the stored embedding, `None` when there is none.
    pub embedding_len: Option<usize>,
    /// `embedding_sources.text_hash`: what the embedding was made from.
    pub text_hash: Option<String>,
}

/// One embedding to store.
#[derive(Debug, Clone, Copy)]
pub struct NewEmbedding<'a> {
    pub command_id: &'a str,
    pub embedding: &'a [u8],
    /// The `summary` column as it was when the text was chosen: the embedding is stored only if
    /// it is still the same, so a summary written meanwhile is never paired with a stale vector.
    pub summary: &'a str,
    pub text_hash: &'a str,
    pub source: &'a str,
    pub model: &'a str,
    /// Create a placeholder `commands` row first (the command had none when planned).
    pub create_row: bool,
}

/// A stored summary: `(content_hash, summary)`.
pub type StoredSummary = (String, String);

impl Store {
    /// Every `commands` row with its summary, embedding size and source hash, by command id.
    pub fn embedding_states(&self) -> Result<HashMap<String, EmbeddingState>> {
        let sources = self.has_table("embedding_sources")?;
        let sql = if sources {
            "SELECT c.command_id, c.summary, length(c.embedding), e.text_hash
             FROM commands c LEFT JOIN embedding_sources e ON e.command_id = c.command_id"
        } else {
            "SELECT command_id, summary, length(embedding), NULL FROM commands"
        };
        self.read(|c| {
            let mut st = c.prepare(sql)?;
            st.query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    EmbeddingState {
                        summary: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                        embedding_len: r.get::<_, Option<i64>>(2)?.map(|n| n as usize),
                        text_hash: r.get(3)?,
                    },
                ))
            })?
            .collect()
        })
    }

    /// Stores `items` in one transaction; returns how many were stored (the others' summary
    /// changed meanwhile).
    pub fn store_embeddings(&mut self, items: &[NewEmbedding<'_>]) -> Result<usize> {
        self.write(|tx| {
            let mut written = 0;
            for item in items {
                if item.create_row {
                    crate::ops::ensure_command(tx, item.command_id)?;
                }
                let now = crate::time::iso_now();
                let n = tx.execute(
                    "UPDATE commands SET embedding = ?2, last_updated = ?4
                     WHERE command_id = ?1 AND summary = ?3",
                    (item.command_id, item.embedding, item.summary, &now),
                )?;
                if n == 0 {
                    continue;
                }
                tx.execute(
                    "INSERT INTO embedding_sources (command_id, text_hash, source, model, embedded_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(command_id) DO UPDATE SET text_hash = excluded.text_hash,
                       source = excluded.source, model = excluded.model, embedded_at = excluded.embedded_at",
                    (item.command_id, item.text_hash, item.source, item.model, &now),
                )?;
                written += 1;
            }
            Ok(written)
        })
    }

    /// Stored embeddings of the commands `keep` accepts (NULL ones left out), for search.
    pub fn embeddings(&self, keep: &dyn Fn(&str) -> bool) -> Result<Vec<(String, Vec<u8>)>> {
        let mut out = Vec::new();
        self.each_embedding(keep, &mut |id, blob| {
            out.push((id.to_string(), blob.to_vec()))
        })?;
        Ok(out)
    }

    /// Hands each stored embedding of the commands `keep` accepts to `f` (NULL ones and
    /// values that are not BLOBs left out) without copying it: a search index of 100,000
    /// commands is built straight from the rows.
    pub fn each_embedding(
        &self,
        keep: &dyn Fn(&str) -> bool,
        f: &mut dyn FnMut(&str, &[u8]),
    ) -> Result<()> {
        self.read(|c| {
            let mut st = c.prepare(
                "SELECT command_id, embedding FROM commands WHERE embedding IS NOT NULL",
            )?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let Some(id) = r.get_ref(0)?.as_str_or_null()? else {
                    continue;
                };
                if !keep(id) {
                    continue;
                }
                if let Ok(blob) = r.get_ref(1)?.as_blob() {
                    f(id, blob);
                }
            }
            Ok(())
        })
    }

    /// Stored `(content_hash, summary)` by command id, for deciding what to summarize.
    pub fn summaries(&self) -> Result<HashMap<String, StoredSummary>> {
        self.read(|c| {
            let mut st = c.prepare("SELECT command_id, content_hash, summary FROM commands")?;
            st.query_map([], |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                    (
                        r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                        r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    ),
                ))
            })?
            .collect()
        })
    }

    /// Stores a summary with the hash of the content it was made from. An existing row is
    /// updated in place, so its tags stay; its embedding goes when the summary text changed
    /// (it was made from the old text).
    pub fn save_summary(
        &mut self,
        command_id: &str,
        content_hash: &str,
        summary: &str,
        security_warning: Option<&str>,
    ) -> Result<()> {
        let now = crate::time::iso_now();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO commands (command_id, content_hash, summary, embedding, security_warning, last_updated)
                 VALUES (?1, ?2, ?3, NULL, ?4, ?5)
                 ON CONFLICT(command_id) DO UPDATE SET
                   content_hash = excluded.content_hash,
                   embedding = CASE WHEN commands.summary = excluded.summary THEN commands.embedding END,
                   summary = excluded.summary,
                   security_warning = excluded.security_warning,
                   last_updated = excluded.last_updated",
                (command_id, content_hash, summary, security_warning, &now),
            )?;
            Ok(())
        })
    }
}
