//! Terminal prompts on stderr (the CLI's; the engine crates only name the `Prompter` trait) (so stdout stays clean for pipes): one question per missing
//! parameter, its description as the prompt, the default pre-filled, options as a pick list.

use commandtree_core::ParamDef;
use commandtree_exec::params::{Prompter, is_required};
use commandtree_exec::{Error, Result};
use dialoguer::console::Term;
use dialoguer::theme::{ColorfulTheme, SimpleTheme, Theme};
use dialoguer::{Confirm, FuzzySelect, Input, Select};
use std::io::IsTerminal;

/// Whether questions can be asked: stdin and stderr are both terminals.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

pub struct TermPrompter {
    theme: Box<dyn Theme>,
}

impl Default for TermPrompter {
    fn default() -> Self {
        let plain = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        TermPrompter {
            theme: if plain {
                Box::new(SimpleTheme)
            } else {
                Box::new(ColorfulTheme::default())
            },
        }
    }
}

const EMPTY_CHOICE: &str = "(leave empty)";

impl Prompter for TermPrompter {
    fn ask(&mut self, p: &ParamDef) -> Result<String> {
        let prompt = match &p.description {
            Some(d) => format!("{} ({})", p.name, d),
            None => p.name.clone(),
        };
        let term = Term::stderr();
        if !p.options.is_empty() {
            let mut items = p.options.clone();
            if !is_required(p) && !items.iter().any(String::is_empty) {
                items.push(EMPTY_CHOICE.to_string());
            }
            let default = p
                .default
                .as_ref()
                .and_then(|d| {
                    if d.is_empty() {
                        items.iter().position(|i| i == EMPTY_CHOICE)
                    } else {
                        items.iter().position(|i| i == d)
                    }
                })
                .unwrap_or(0);
            let picked = Select::with_theme(&*self.theme)
                .with_prompt(prompt)
                .items(&items)
                .default(default)
                .interact_on_opt(&term)
                .map_err(|_| Error::Cancelled)?
                .ok_or(Error::Cancelled)?;
            let v = &items[picked];
            return Ok(if v == EMPTY_CHOICE {
                String::new()
            } else {
                v.clone()
            });
        }
        let mut input = Input::<String>::with_theme(&*self.theme)
            .with_prompt(prompt)
            .allow_empty(!is_required(p));
        if let Some(d) = p.default.as_deref().filter(|d| !d.is_empty()) {
            input = input.with_initial_text(d);
        }
        input.interact_text_on(&term).map_err(|_| Error::Cancelled)
    }

    fn confirm(&mut self, question: &str) -> Result<bool> {
        Ok(Confirm::with_theme(&*self.theme)
            .with_prompt(question)
            .default(false)
            .interact_on_opt(&Term::stderr())
            .map_err(|_| Error::Cancelled)?
            .unwrap_or(false))
    }
}

impl TermPrompter {
    /// A fuzzy pick among `items`, starting from `query`; `None` when cancelled.
    pub fn pick(&self, prompt: &str, items: &[String], query: &str) -> Option<usize> {
        FuzzySelect::with_theme(&*self.theme)
            .with_prompt(prompt)
            .items(items)
            .default(0)
            .with_initial_text(query)
            .interact_on_opt(&Term::stderr())
            .ok()
            .flatten()
    }
}
