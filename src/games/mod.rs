//! The small games the judge runs besides Diplomacy, one module each, every one an
//! implementation of [`crate::turn::TurnGame`].
//!
//! A game module owns its rules, its turn-file grammar and its reports. It rolls only
//! through the [`crate::dice::Dice`] it is handed, reads no clock but `ctx.now`, does no
//! IO, and imports nothing of Diplomacy (`map`, `order`, `judge`, `variant`). This file is
//! the one list of the games: [`create`] makes a new game of a kind, [`load`] reads a
//! stored one back.

use std::collections::BTreeMap;

use crate::turn::{Ending, TurnContext, TurnGame};

pub mod duple;
pub mod duplexity;
pub mod kit;
pub mod overdue;

/// The kinds of game this module runs, as written in game.toml (`game = "..."`).
pub const KINDS: &[&str] = &[duplexity::KIND, overdue::KIND, duple::KIND];

/// Whether `kind` names one of the small games.
pub fn is_known(kind: &str) -> bool {
    KINDS.contains(&kind)
}

/// Options as given on the command line (`--option pawn_limit=12`) or in game.toml.
pub type Options = BTreeMap<String, String>;

/// Create a new game of `kind` for these players (seat order), with its setup rolls made
/// through `ctx`. Errors say what is wrong with the players or options.
pub fn create(
    kind: &str,
    players: Vec<String>,
    options: &Options,
    ctx: &mut TurnContext<'_>,
) -> Result<Box<dyn TurnGame>, String> {
    match kind {
        duplexity::KIND => Ok(Box::new(duplexity::create(players, options, ctx)?)),
        overdue::KIND => Ok(Box::new(overdue::Overdue::new(players, options, ctx)?)),
        duple::KIND => Ok(Box::new(duple::Duple::create(players, options, ctx)?)),
        _ => Err(unknown(kind)),
    }
}

/// Read a stored game back (from state.json or the journal).
pub fn load(kind: &str, state: &serde_json::Value) -> Result<Box<dyn TurnGame>, String> {
    match kind {
        duplexity::KIND => Ok(Box::new(duplexity::load(state)?)),
        overdue::KIND => Ok(Box::new(overdue::Overdue::load(state)?)),
        duple::KIND => Ok(Box::new(duple::Duple::load(state)?)),
        _ => Err(unknown(kind)),
    }
}

/// How a game ended, the same three fields in every small game's `status --json`:
/// `ended` (null while the game goes on; `"won"`, `"drawn"`, or `"lost"` when every
/// player lost), `winner` (the one winner's name; null when nobody won or the win is
/// shared) and `winners` (every winner's name: one, or all who share the win; empty when
/// nobody won; null while the game goes on). A name is never a stand-in for "nobody".
pub fn ending_json(ending: Option<&Ending>, names: &[String]) -> [(&'static str, serde_json::Value); 3] {
    use serde_json::Value;
    let (ended, winners) = match ending {
        None => return [("ended", Value::Null), ("winner", Value::Null), ("winners", Value::Null)],
        Some(Ending::Won { players }) => ("won", players.iter().filter_map(|p| names.get(*p).cloned()).collect()),
        Some(Ending::Drawn) => ("drawn", Vec::new()),
        Some(Ending::Lost) => ("lost", Vec::new()),
    };
    let winner = match winners.as_slice() {
        [one] => Value::from(one.clone()),
        _ => Value::Null,
    };
    [("ended", ended.into()), ("winner", winner), ("winners", winners.into())]
}

/// Put the fields of [`ending_json`] into a game's status.
pub fn insert_ending(status: &mut serde_json::Value, ending: Option<&Ending>, names: &[String]) {
    if let Some(obj) = status.as_object_mut() {
        for (key, value) in ending_json(ending, names) {
            obj.insert(key.into(), value);
        }
    }
}

fn unknown(kind: &str) -> String {
    if KINDS.is_empty() {
        format!("unknown game `{kind}`")
    } else {
        format!("unknown game `{kind}`: the judge runs {}", KINDS.join(", "))
    }
}
