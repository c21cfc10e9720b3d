//! The registry of every game kind the judge runs, each an implementation of
//! [`crate::turn::TurnGame`]: Diplomacy, standard and Shadow Worlds (its engine behind
//! the contract, [`crate::diplomacy::kind`]), and the small games, one module each.
//!
//! A small game's module owns its rules, its turn-file grammar and its reports. It rolls
//! only through the [`crate::dice::Dice`] it is handed, reads no clock but `ctx.now`, does
//! no IO, and imports nothing of Diplomacy (`map`, `order`, `judge`, `variant`); this file
//! alone names Diplomacy's kind. This file is the one list of the kinds: [`create`] makes
//! a new game of a kind, [`load`] reads a stored one back.

use std::collections::BTreeMap;

use crate::diplomacy::kind::DiplomacyGame;
use crate::game::settings::VariantKind;
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
    /// What the kind offers beyond the contract every kind keeps.
    pub offers: Offers,
}

/// What a kind offers, as values: the frame asks a kind's [`Offers`] once, never the
/// kind's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offers {
    /// It rolls dice: a commitment is published, the seed revealed at the end, and
    /// `verify` recomputes every roll.
    pub dice: bool,
    /// Its seats are powers, made with `new --variant NAME` and played by orders
    /// (Diplomacy); else seats are players, made with `new --game NAME`, played by turn
    /// files.
    pub powers: bool,
    /// The master's lines that are not the judge's commands go to the game (a ruling).
    pub master_lines: bool,
    /// Input counts at the time it was received (`--at` on the command line): a race
    /// is decided by it.
    pub timed_input: bool,
    /// Every line its games list as candidates ([`TurnGame::candidate_lines`]) is one
    /// they accept now, so a caller listing the legal moves need not try each (else the
    /// candidates are a grammar's offer, some of it refused).
    pub legal_candidates: bool,
    /// The words its seats and input are named in.
    pub words: Words,
}

/// The words a kind's seats and input are named in, in replies and errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// One seat (`power`, `player`) and many (`powers`, `players`).
    pub seat: &'static str,
    pub seats: &'static str,
    /// What a player names to mean their own seat (`resign france`: `power`).
    pub own_seat: &'static str,
    /// What a seat sends (`orders`, `turn lines`), and its title in a reply (`Orders`).
    pub input: &'static str,
    pub input_title: &'static str,
    /// What becomes of a seat nobody plays.
    pub vacant: &'static str,
    /// The words of its answers.
    pub nouns: crate::answer::Nouns,
}

impl Words {
    /// Diplomacy's: powers and orders.
    pub const POWERS: Words = Words {
        seat: "power",
        seats: "powers",
        own_seat: "power",
        input: "orders",
        input_title: "Orders",
        vacant: "its units hold, and in Winter civil disorder applies",
        nouns: crate::answer::Nouns::ORDERS,
    };
    /// A small game's: players and turn lines.
    pub const PLAYERS: Words = Words {
        seat: "player",
        seats: "players",
        own_seat: "seat",
        input: "turn lines",
        input_title: "Turn",
        vacant: "at each deadline the game's defaults play for it (as for a player who sent nothing)",
        nouns: crate::answer::Nouns::TURN,
    };
}

impl Offers {
    /// A small game's: dice, players' seats, input at its time (a kind whose master rules on
    /// something, Duple, offers master lines too).
    pub const SMALL: Offers = Offers {
        dice: true,
        powers: false,
        master_lines: false,
        timed_input: true,
        legal_candidates: false,
        words: Words::PLAYERS,
    };
    /// Diplomacy's: no dice, one seat a power, orders adjudicated when the judge runs.
    pub const DIPLOMACY: Offers = Offers {
        dice: false,
        powers: true,
        master_lines: false,
        timed_input: false,
        legal_candidates: true,
        words: Words::POWERS,
    };
}

/// How a kind makes a new game: players, options, the setup's dice and time.
pub type CreateFn = fn(Vec<String>, &Options, &mut TurnContext<'_>) -> Result<Box<dyn TurnGame>, String>;

/// How a kind reads a stored game back.
pub type LoadFn = fn(&serde_json::Value) -> Result<Box<dyn TurnGame>, String>;

impl GameKind {
    /// `2 players`, `3 to 6 players`.
    pub fn seats_in_words(&self) -> String {
        match self.players {
            (n, _) if self.offers.powers => format!("{n} powers, a seat each"),
            (low, high) if low == high => format!("{low} players"),
            (low, high) => format!("{low} to {high} players"),
        }
    }

    /// How `new` makes one: `--game duplexity`, `--variant standard`.
    pub fn made_with(&self) -> String {
        format!("--{} {}", if self.offers.powers { "variant" } else { "game" }, self.name)
    }

    /// The help text: what it is, its seats, its options and where its rulings are.
    pub fn help(&self) -> String {
        let mut out =
            format!("{} (`{}`): {}; {}.\n", self.title, self.made_with(), self.summary, self.seats_in_words());
        for line in kit::option_help(self.options) {
            out.push_str(&format!("  {}{line}\n", if self.offers.powers { "--" } else { "--option " }));
        }
        out.push_str(&format!("  Rulings: {}\n", self.rulings));
        out
    }
}

/// Standard Diplomacy: the engine behind the contract, on the standard map.
pub const STANDARD: GameKind = GameKind {
    name: "standard",
    title: "Diplomacy",
    summary: "the standard game of seven powers on one board",
    players: (7, 7),
    options: &[],
    rulings: "README.md (the DATC and the rulebook options)",
    create: |players, options, _ctx| diplomacy_game(VariantKind::Standard, &STANDARD, players, options),
    load: |state| Ok(Box::new(DiplomacyGame::load(state)?)),
    offers: Offers::DIPLOMACY,
};

/// Shadow Worlds Diplomacy: every power on two boards with one combined Winter.
pub const SHADOW_WORLDS: GameKind = GameKind {
    name: "shadow-worlds",
    title: "Shadow Worlds Diplomacy",
    summary: "every power on two boards, A and B, with one combined Winter ledger",
    players: (7, 7),
    options: &[kit::OptionSpec {
        name: "short-game",
        kind: kit::Kind::Flag,
        default: "false",
        help: "the shorter game, won at 18 distinct centers instead of 34",
    }],
    rulings: "README.md (Shadow Worlds)",
    create: |players, options, _ctx| diplomacy_game(VariantKind::ShadowWorlds, &SHADOW_WORLDS, players, options),
    load: |state| Ok(Box::new(DiplomacyGame::load(state)?)),
    offers: Offers::DIPLOMACY,
};

/// A new Diplomacy game of `variant`: one seat a power, the kind's options read as every
/// kind reads them.
fn diplomacy_game(
    variant: VariantKind,
    kind: &GameKind,
    players: Vec<String>,
    options: &Options,
) -> Result<Box<dyn TurnGame>, String> {
    let values = kit::read_options(kind.title, kind.options, options)?;
    let game = DiplomacyGame::new(variant, kind.options.iter().any(|o| values.flag(o.name)));
    let powers = game.players().len();
    if players.len() != powers {
        return Err(format!("{} seats {powers} players (one a power), not {}", kind.title, players.len()));
    }
    Ok(Box::new(game))
}

/// Every kind the judge runs, one line each.
pub const KINDS: &[&GameKind] = &[
    &STANDARD,
    &SHADOW_WORLDS,
    &duplexity::GAME,
    &overdue::GAME,
    &duple::GAME,
    // A toy game that lives beside the tests: what adding a game takes.
    #[cfg(any(test, feature = "toy-game"))]
    &toy::GAME,
];

#[cfg(any(test, feature = "toy-game"))]
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
