//! Duplexity (Jonathan Leistiko, 2009) for two players by turn files and email, as our
//! rulings read it (docs/duplexity.md).
//!
//! - [`board`]: the 8 x 5 board, spaces, pieces and the invariant.
//! - [`rules`]: the game state and every rule, one file each: setup, the round, actions,
//!   landing, the deadline defaults. A typed API for programs that play.
//! - [`turnfile`]: the nom grammar of turn-file lines.
//! - [`report`]: the grid report and `status --json`.
//!
//! [`DuplexityGame`] is the [`TurnGame`] the judge runs: it reads turn files line by line
//! (each line applied at once, so a later line sees what an earlier one did), runs the
//! automatic steps as soon as no input is awaited, and rolls only through the context's
//! dice. Nothing here does IO or reads a clock, and nothing imports Diplomacy code.

pub mod board;
pub mod random;
pub mod report;
pub mod rules;
pub mod turnfile;

#[cfg(test)]
mod tests;

use crate::answer::Refusal;
use crate::turn::{Awaiting, Defaulted, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};

pub use self::board::{Space, Zone};
pub use self::rules::{Action, Bid, Duplexity, Log, Order, Settings, Stage, Token, Way};
use self::turnfile::{parse_line, Command};
use super::kit::{self, Kind, OptionSpec};
use super::Options;

/// The game kind, as written in game.toml.
pub const KIND: &str = "duplexity";

/// Duplexity in the judge's registry of games.
pub const GAME: crate::games::GameKind = crate::games::GameKind {
    name: KIND,
    title: "Duplexity",
    summary: "time-travel pawns on a ring of 8 locations in 5 time zones",
    players: (2, 2),
    options: OPTIONS,
    rulings: "docs/duplexity.md",
    create: |players, options, ctx| Ok(Box::new(create(players, options, ctx)?)),
    load: |state| Ok(Box::new(load(state)?)),
    offers: crate::games::Offers::SMALL,
};

/// The options a game takes.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "pawn_limit",
        kind: Kind::Number { low: 1, high: u32::MAX, none: true },
        default: "none",
        help: "the most pawns a player may have on the board (a number, or `none`: unlimited)",
    },
    OptionSpec {
        name: "max_rounds",
        kind: Kind::Number { low: 1, high: u32::MAX, none: true },
        default: "none",
        help: "the game is drawn after this round (a number, or `none`: no limit)",
    },
];

/// Duplexity as the judge runs it: the game, and what it said that no call returned yet
/// (who places first, told at creation).
#[derive(Debug)]
pub struct DuplexityGame {
    pub game: Duplexity,
    news: Vec<String>,
}

/// Read the options of a new game.
pub fn settings(options: &Options) -> Result<Settings, String> {
    let v = kit::read_options("Duplexity", OPTIONS, options)?;
    Ok(Settings { pawn_limit: v.number("pawn_limit"), max_rounds: v.number("max_rounds") })
}

/// A new game: exactly two players; the judge rolls who places first.
pub fn create(players: Vec<String>, options: &Options, ctx: &mut TurnContext<'_>) -> Result<DuplexityGame, String> {
    let settings = settings(options)?;
    let names: [String; 2] =
        players.try_into().map_err(|p: Vec<String>| format!("Duplexity is for exactly 2 players, not {}", p.len()))?;
    let mut log = Log::new();
    let game = Duplexity::new(names, settings, ctx.dice, &mut log);
    Ok(DuplexityGame { game, news: log.lines })
}

/// A stored game, checked.
pub fn load(state: &serde_json::Value) -> Result<DuplexityGame, String> {
    let game: Duplexity = serde_json::from_value(state.clone()).map_err(|e| format!("not a Duplexity game: {e}"))?;
    if let Some(fault) = game.fault() {
        return Err(format!("not a possible Duplexity game: {fault}"));
    }
    Ok(DuplexityGame { game, news: Vec::new() })
}

impl DuplexityGame {
    /// Whether both sealed bids are in and not opened yet.
    fn bids_in(&self) -> bool {
        matches!(self.game.stage, Stage::Bid { bids: [Some(_), Some(_)] })
    }

    /// Run the automatic steps, unless the bids are in and held.
    fn settle(&mut self, ctx: &mut TurnContext<'_>, log: &mut Log) {
        if !(ctx.hold && self.bids_in()) {
            self.game.settle(ctx.dice, log);
        }
    }

    /// One line, understood: apply it for `player`.
    fn apply(
        &mut self,
        player: u8,
        command: Command,
        ctx: &mut TurnContext<'_>,
        log: &mut Log,
    ) -> Result<String, Refusal> {
        let g = &mut self.game;
        match command {
            Command::Place(s) => g.place(player, s, log),
            Command::Bid(b) => g.bid(player, b, log),
            Command::Pawn { pawn, actions } => g.activate(player, pawn, actions, ctx.dice, log),
            Command::To { location, zone, actions } => g.choose(player, location, zone, actions, ctx.dice, log),
        }
    }
}

impl TurnGame for DuplexityGame {
    fn candidate_lines(&self, seat: crate::turn::Seat) -> Vec<String> {
        let crate::turn::Seat::Player(player) = seat else { return Vec::new() };
        u8::try_from(player).map(|p| random::candidate_lines(&self.game, p)).unwrap_or_default()
    }

    fn players(&self) -> Vec<String> {
        self.game.players.iter().map(|p| p.name.clone()).collect()
    }

    fn submit(&mut self, player: usize, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        let mut log = Log::new();
        let mut lines = Vec::new();
        let seat = u8::try_from(player).ok().filter(|p| *p < 2);
        for read in kit::lines(text) {
            let n = read.number;
            let Some(seat) = seat else {
                lines.push(LineAnswer::refused(n, 1, format!("seat {player} does not play in this game")));
                continue;
            };
            if self.game.ending.is_some() {
                lines.push(LineAnswer::refused(n, 1, "the game is over"));
                continue;
            }
            match parse_line(read.text) {
                Err(d) => lines.push(Refusal { reason: format!("not understood: {}", d.reason), ..d }.on(n).into()),
                Ok(command) => match self.apply(seat, command, ctx, &mut log) {
                    Ok(done) => {
                        lines.push(LineAnswer::accepted(n, done));
                        self.settle(ctx, &mut log);
                    }
                    Err(r) => lines.push(Refusal { reason: format!("illegal: {}", r.reason), ..r }.on(n).into()),
                },
            }
        }
        TurnAck { lines, events: log.lines }
    }

    fn awaiting(&self) -> Awaiting {
        let players = self.game.awaited().into_iter().map(usize::from).collect();
        let what = match &self.game.stage {
            Stage::Setup { next, .. } => {
                // The example is a space this player may really take.
                let example = self.game.placeable(*next).first().map_or("P3".to_string(), |s| s.to_string());
                format!("a pawn placed in the Present (`place {example}`)")
            }
            Stage::Bid { .. } => "bids (`bid 2`, or `bid 2 first`)".to_string(),
            Stage::Act { pending: Some(p), .. } => format!(
                "where the pawn at {} moves, with its roll of {} (`to {}` or `to {}`)",
                p.pawn,
                p.roll,
                p.choices[0].location(),
                p.choices[1].location()
            ),
            Stage::Act { turn, .. } => {
                // The example is a pawn this player may really activate.
                let example = self.game.unspent(*turn).first().map_or("P3".to_string(), |s| s.to_string());
                format!("a pawn's activation (`pawn {example}: move +, gather`)")
            }
            Stage::Over => String::new(),
        };
        Awaiting { players, what, optional: false, master: false }
    }

    fn advance(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut log = Log::new();
        log.lines = std::mem::take(&mut self.news);
        self.settle(ctx, &mut log);
        log.lines
    }

    fn force(&mut self, why: Defaulted, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut log = Log::new();
        self.game.force_as(why, ctx.dice, &mut log);
        log.lines
    }

    fn together(&self) -> crate::turn::Together {
        match self.game.stage {
            _ if self.bids_in() => crate::turn::Together::Held,
            Stage::Bid { .. } => crate::turn::Together::Gathering,
            _ => crate::turn::Together::Not,
        }
    }

    fn ending(&self) -> Option<Ending> {
        self.game.ending.clone()
    }

    fn round(&self) -> u32 {
        self.game.round
    }

    fn step_label(&self) -> String {
        report::step_label(&self.game)
    }

    fn option_lines(&self) -> Vec<String> {
        let s = &self.game.settings;
        vec![
            match s.pawn_limit {
                Some(n) => format!("pawn_limit = {n} (pawns on the board per player)"),
                None => "pawn_limit = none (unlimited pawns)".into(),
            },
            match s.max_rounds {
                Some(n) => format!("max_rounds = {n} (drawn after round {n})"),
                None => "max_rounds = none (no round limit)".into(),
            },
        ]
    }

    fn report_text(&self) -> String {
        report::text(&self.game)
    }

    fn status_json(&self) -> serde_json::Value {
        report::status_json(&self.game)
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(&self.game).unwrap_or_default()
    }
}
