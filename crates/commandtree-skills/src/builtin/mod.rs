//! The built-in skills.

pub mod file;
pub mod run;
pub mod search;
pub mod task;

use crate::Skill;

pub fn all() -> Vec<Box<dyn Skill>> {
    vec![
        Box::new(task::Task),
        Box::new(file::File),
        Box::new(run::Run),
        Box::new(search::Search),
    ]
}
