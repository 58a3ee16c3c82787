//! The context store: the messages a conversation sends to the model before a skill's own
//! (`ct context`, `commandtree/context|addContext|clearContext`, what the editor's `@agent`
//! participant sends first). They live in the workspace database, one list per conversation;
//! what goes to a model is [`Conversation::to_send`], the rows as workspace data
//! ([`crate::api::context_as_data`]), never as instructions.

use crate::api::{self, SkillMessage};
use crate::{Error, Result};
use commandtree_engine::Engine;
use commandtree_store::Store;
pub use commandtree_store::{ContextMessage, ContextType, DEFAULT_CONVERSATION};

/// One conversation's stored context.
pub struct Conversation<'a> {
    engine: &'a Engine,
    name: String,
}

/// What [`Conversation::add`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Added {
    /// The new message's row id.
    pub id: i64,
    /// Messages in the conversation now.
    pub count: usize,
}

/// Stored messages as a model is sent them: one `user` message of workspace data that says
/// where they come from (see [`api::context_as_data`]); nothing when there are none.
pub fn as_data(rows: &[ContextMessage]) -> Vec<SkillMessage> {
    let pairs: Vec<(ContextType, String)> =
        rows.iter().map(|r| (r.kind, r.content.clone())).collect();
    api::context_as_data(&pairs).into_iter().collect()
}

fn failed(e: impl std::fmt::Display) -> Error {
    Error::failed(e.to_string())
}

impl<'a> Conversation<'a> {
    /// The conversation called `name`; none, or a blank name, is [`DEFAULT_CONVERSATION`].
    pub fn new(engine: &'a Engine, name: Option<&str>) -> Conversation<'a> {
        let name = name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(DEFAULT_CONVERSATION);
        Conversation {
            engine,
            name: name.to_string(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn read_only(&self) -> Result<Option<Store>> {
        Store::open_read_only(&self.engine.db_path()).map_err(failed)
    }

    /// The stored messages, oldest first; none without a database.
    pub fn messages(&self) -> Result<Vec<ContextMessage>> {
        match self.read_only()? {
            Some(s) => s.context(&self.name).map_err(failed),
            None => Ok(Vec::new()),
        }
    }

    /// What a model is sent in front of a skill's messages: [`as_data`] of the stored ones.
    pub fn to_send(&self) -> Result<Vec<SkillMessage>> {
        Ok(as_data(&self.messages()?))
    }

    /// Appends a message (the database is created when there is none yet).
    pub fn add(&self, kind: ContextType, text: &str) -> Result<Added> {
        let mut store = Store::open(&self.engine.db_path(), true)
            .map_err(failed)?
            .ok_or_else(|| Error::failed("the workspace database cannot be created"))?;
        let id = store.add_context(&self.name, kind, text).map_err(failed)?;
        let count = store.context(&self.name).map_err(failed)?.len();
        Ok(Added { id, count })
    }

    /// Removes every message; returns how many there were.
    pub fn clear(&self) -> Result<usize> {
        match Store::open(&self.engine.db_path(), false).map_err(failed)? {
            Some(mut s) => s.clear_context(&self.name).map_err(failed),
            None => Ok(0),
        }
    }
}
