//! The built-in LLM skills.

pub mod file;
pub mod run;
pub mod search;
pub mod task;

use crate::LlmSkill;

pub fn all() -> Vec<Box<dyn LlmSkill>> {
    vec![
        Box::new(task::Task),
        Box::new(file::File),
        Box::new(run::Run),
        Box::new(search::Search),
    ]
}
