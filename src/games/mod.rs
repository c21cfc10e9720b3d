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

/// One kind of game the judge runs: everything the layers above need to know of it,
/// in one value. A new game is its folder (a module implementing [`TurnGame`]) and one
/// line in [`KINDS`].
pub struct GameKind {
    /// As written in game.toml (`game = "duplexity"`) and on the command line.
    pub name: &'static str,
    /// In the game's own words (`Duplexity`), for help and errors.
    pub title: &'static str,
    /// What it is, in one line.
    pub summary: &'static str,
    /// How many players it seats: at least, at most.
    pub players: (usize, usize),
    /// The rules options it takes (`--option KEY=VALUE`, game.toml `[options]`).
    pub options: &'static [kit::OptionSpec],
    /// Where its rulings are written, from the repository's root.
    pub rulings: &'static str,
    /// A new game for these players (seat order), its setup rolled through `ctx`.
    pub create: CreateFn,
    /// A stored game read back (from state.json or the journal).
    pub load: LoadFn,
}

/// How a kind makes a new game: players, options, the setup's dice and time.
pub type CreateFn = fn(Vec<String>, &Options, &mut TurnContext<'_>) -> Result<Box<dyn TurnGame>, String>;

/// How a kind reads a stored game back.
pub type LoadFn = fn(&serde_json::Value) -> Result<Box<dyn TurnGame>, String>;

impl GameKind {
    /// `2 players`, `3 to 6 players`.
    pub fn seats_in_words(&self) -> String {
        match self.players {
            (low, high) if low == high => format!("{low} players"),
            (low, high) => format!("{low} to {high} players"),
        }
    }

    /// The help text: what it is, its seats, its options and where its rulings are.
    pub fn help(&self) -> String {
        let mut out =
            format!("{} (`--game {}`): {}; {}.\n", self.title, self.name, self.summary, self.seats_in_words());
        for line in kit::option_help(self.options) {
            out.push_str(&format!("  --option {line}\n"));
        }
        out.push_str(&format!("  Rulings: {}\n", self.rulings));
        out
    }
}

/// The small games the judge runs, one line each.
pub const KINDS: &[&GameKind] = &[
    &duplexity::GAME,
    &overdue::GAME,
    &duple::GAME,
    // A toy game that lives beside the tests: what adding a game takes.
    #[cfg(test)]
    &toy::GAME,
];

#[cfg(test)]
#[path = "../../tests/toy_game/mod.rs"]
pub mod toy;

/// The kind named `name` (as game.toml writes it; any case).
pub fn kind(name: &str) -> Option<&'static GameKind> {
    KINDS.iter().copied().find(|k| k.name.eq_ignore_ascii_case(name.trim()))
}

/// Whether `kind` names one of the small games.
pub fn is_known(kind: &str) -> bool {
    self::kind(kind).is_some()
}

/// The names of the kinds, for errors: `duplexity, overdue, duple`.
pub fn names() -> String {
    KINDS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
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
    (self::kind(kind).ok_or_else(|| unknown(kind))?.create)(players, options, ctx)
}

/// Read a stored game back (from state.json or the journal).
pub fn load(kind: &str, state: &serde_json::Value) -> Result<Box<dyn TurnGame>, String> {
    (self::kind(kind).ok_or_else(|| unknown(kind))?.load)(state)
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
    format!("unknown game `{kind}`: the judge runs {}", names())
}
