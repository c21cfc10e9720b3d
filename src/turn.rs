//! The turn-game contract: what every game the judge runs is, seen from the store, the
//! journal, the deadlines, the mail host and the CLI.
//!
//! A game is created from its players and options, takes one player's turn file at a
//! time, says whose input it awaits, runs its automatic steps by itself, applies deadline
//! defaults when forced, and reports as text and JSON. All randomness comes through the
//! [`Dice`] in the [`TurnContext`]; the clock only through `ctx.now`. An engine does no IO.
//!
//! The layer above ([`crate::game::session::turn`]) journals every submission with the
//! rolls it caused, replays the journal to rebuild or check the state, rolls back, and
//! runs deadlines; it knows nothing of any particular game. The small games live in
//! [`crate::games`] and never import Diplomacy code; the Diplomacy engine implements this
//! contract too ([`crate::diplomacy::engine::Game`]).

use chrono::{DateTime, Utc};

use crate::answer::{Nouns, Receipt, Refusal, Taken};
use crate::dice::Dice;

/// What an engine gets for one call: the game's dice and the time the input counts as
/// received (journaled, so a replay sees the same time).
pub struct TurnContext<'a> {
    pub dice: &'a mut Dice,
    pub now: DateTime<Utc>,
    /// Whether a step that takes every player's input together is held once all of it
    /// is in, to go on only at its deadline: the judge's early-processing rule (early
    /// processing off, or a player's `wait`), decided by the layer for every call.
    pub hold: bool,
}

/// Why a step's defaults are applied, which the words of each default give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defaulted {
    /// The deadline passed, or the game master went on without waiting.
    Deadline,
    /// Only seats whose players resigned were awaited: the judge went on early.
    Vacant,
}

/// The answer to one line of a turn file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineAnswer {
    /// 1-based line in the text submitted.
    pub line: usize,
    /// 1-based column where the problem is (1 for an accepted line).
    pub column: usize,
    /// For an accepted line, what was understood and done (`P3: shift +1 to NF3`); for a
    /// refused one, the reason.
    pub text: String,
    pub accepted: bool,
    /// A suggestion for a refused line.
    pub hint: Option<String>,
    /// Refused only because the deadline came first (a turn sent ahead, dropped): the
    /// line was right when sent. Told apart by this, never by the reason's words.
    pub dropped: bool,
}

impl LineAnswer {
    pub fn accepted(line: usize, text: impl Into<String>) -> LineAnswer {
        LineAnswer { line, column: 1, text: text.into(), accepted: true, hint: None, dropped: false }
    }

    pub fn refused(line: usize, column: usize, reason: impl Into<String>) -> LineAnswer {
        LineAnswer { line, column, text: reason.into(), accepted: false, hint: None, dropped: false }
    }

    /// A line right when sent that the deadline dropped (see [`LineAnswer::dropped`]).
    pub fn dropped(line: usize, reason: impl Into<String>) -> LineAnswer {
        LineAnswer { dropped: true, ..LineAnswer::refused(line, 1, reason) }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> LineAnswer {
        self.hint = Some(hint.into());
        self
    }
}

/// An engine's answer to a turn file: one answer per line that said something, and
/// events the submission caused at once (a roll and what it allows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnAck {
    pub lines: Vec<LineAnswer>,
    pub events: Vec<String>,
}

impl TurnAck {
    /// The answer to lines from the master of a game whose master sends none: each
    /// refused, in one sentence for every game.
    pub fn no_master_lines(text: &str) -> TurnAck {
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, _)| LineAnswer::refused(i + 1, 1, "the game master has no lines to send in this game"))
            .collect();
        TurnAck { lines, events: Vec::new() }
    }

    /// Whether anything was accepted (and so must be journaled).
    pub fn changed(&self) -> bool {
        self.lines.iter().any(|l| l.accepted)
    }

    /// What the turn caused, to be rendered ([`Receipt::render`]): `who` sent it for
    /// `step`; `awaited` is what the game awaits now (`None`: not said).
    pub fn receipt(&self, who: &str, step: &str, awaited: Option<Vec<String>>) -> Receipt {
        let (taken, refused): (Vec<&LineAnswer>, Vec<&LineAnswer>) = self.lines.iter().partition(|l| l.accepted);
        Receipt {
            who: who.to_string(),
            step: step.to_string(),
            taken: taken.into_iter().map(|l| Taken { line: l.line, words: l.text.clone(), note: None }).collect(),
            refused: refused
                .into_iter()
                .map(|l| Refusal { line: l.line, column: l.column, reason: l.text.clone(), hint: l.hint.clone() })
                .collect(),
            events: self.events.clone(),
            awaited,
            nouns: Nouns::TURN,
        }
    }
}

/// A refusal, as a line's answer (the line it names).
impl From<Refusal> for LineAnswer {
    fn from(r: Refusal) -> LineAnswer {
        LineAnswer { line: r.line, column: r.column, text: r.reason, accepted: false, hint: r.hint, dropped: false }
    }
}

/// Whose input the game waits for, and for what.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Awaiting {
    /// Player indexes (seat order).
    pub players: Vec<usize>,
    /// What is awaited, in the words of the game (`bids`, `Ann's activation`).
    pub what: String,
    /// Input the game can do without (a challenge, if anyone has one): nobody is reminded
    /// of it or told they are late, and the step goes on at its deadline.
    pub optional: bool,
    /// The game master's input is awaited too (a ruling): the master is reminded, and
    /// the step is not processed without `--force` until it comes.
    pub master: bool,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ending {
    /// These players won (one, or a shared win).
    Won { players: Vec<usize> },
    /// Nobody won: every player lost.
    Lost,
    /// The game was drawn (a round limit).
    Drawn,
}

/// Whether the step under way takes its input together ([`TurnGame::together`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Together {
    /// It awaits one player's move, or nothing.
    Not,
    /// It takes input from several players together, and some is still to come.
    Gathering,
    /// All of its input is in, and it waits to go on.
    Held,
}

impl Together {
    /// The step takes its input together (gathering it, or holding it all).
    pub fn is_together(self) -> bool {
        self != Together::Not
    }

    /// All of its input is in, and it waits.
    pub fn is_held(self) -> bool {
        self == Together::Held
    }
}

/// Who sends a turn file: a player (by seat) or the game master.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seat {
    Player(usize),
    Master,
}

/// One game the judge runs (Send and Sync: a Python object may hold one).
pub trait TurnGame: std::fmt::Debug + Send + Sync {
    /// The players' names in seat order.
    fn players(&self) -> Vec<String>;

    /// Take one player's turn file: check every line, apply what is legal, refuse the
    /// rest with its reason. Never panics on any text.
    fn submit(&mut self, player: usize, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck;

    /// Whose input is awaited now (empty when the game is over).
    fn awaiting(&self) -> Awaiting;

    /// Run the automatic steps that need no input, as far as they go; return what
    /// happened, one line per event (empty when there was nothing to do). The layer calls
    /// it after every accepted submission and every forced deadline.
    fn advance(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String>;

    /// Apply the defaults for every awaited input, `why` saying why (the deadline passed;
    /// or only seats whose players resigned are awaited, and each line says the seat is
    /// vacant). Returns what was done, one line per default.
    fn force(&mut self, why: Defaulted, ctx: &mut TurnContext<'_>) -> Vec<String>;

    /// The end of the game, once it is over.
    fn ending(&self) -> Option<Ending>;

    /// The round under way, from 1 (0 before the first round: setup). `rollback DIR N`
    /// goes back to the start of round N.
    fn round(&self) -> u32;

    /// Where the game stands, short (`round 3, act`): headers, history, rollback targets.
    fn step_label(&self) -> String;

    /// The rules options in force, one line each, named as in game.toml.
    fn option_lines(&self) -> Vec<String>;

    /// The whole position at a glance, as text for players.
    fn report_text(&self) -> String;

    /// The position as JSON for `status --json` (the layer adds the common fields).
    fn status_json(&self) -> serde_json::Value;

    /// The state to store (state.json and the journal); [`crate::games::load`] reads it back.
    fn save(&self) -> serde_json::Value;

    /// The windows the game sets itself (a capability: `None`, the default, is a game
    /// whose schedule gives each awaited input its deadline).
    fn windows(&self) -> Option<&dyn Windows> {
        None
    }

    /// [`TurnGame::windows`], to move them.
    fn windows_mut(&mut self) -> Option<&mut dyn Windows> {
        None
    }

    /// Whether the step under way takes its input from several players together and goes
    /// on once all of it is in (Duplexity's sealed bids, a Diplomacy phase), and whether
    /// all of it is in and waits ([`Together::Held`]: for [`TurnGame::advance`] without
    /// [`TurnContext::hold`], or the deadline). Such a step follows the game's
    /// early-processing option (`[deadlines] early`) and the players' `wait`: see
    /// [`TurnContext::hold`]. A step that awaits one player's move is not one. Default:
    /// the game has no such step.
    fn together(&self) -> Together {
        Together::Not
    }

    /// Turn files `seat` (a player, or the master of a game with [`MasterLines`]) might
    /// send now, each one whole: what random play draws from (the shared conformance
    /// check, the Python environments). A game lists what its grammar offers at this step;
    /// those it accepts are the legal moves (a kind whose `Offers::legal_candidates` is
    /// set lists only those). Default: none.
    fn candidate_lines(&self, _seat: Seat) -> Vec<String> {
        Vec::new()
    }

    /// The game master's lines, in a game where the master rules on something (a
    /// capability: `None`, the default, is a game whose master sends no lines; the frame
    /// says so once, [`TurnAck::no_master_lines`]). Its kind's `Offers::master_lines`
    /// says the same (the conformance check holds them together).
    fn master_lines(&mut self) -> Option<&mut dyn MasterLines> {
        None
    }
}

/// Windows a game sets itself: an answer or challenge window that closes at a set time,
/// and the answers sent in them ([`TurnGame::windows`]).
pub trait Windows {
    /// The answers under way as (player, answer), for a game whose answers are words: the
    /// layer flags for the master those its word list does not hold.
    fn answers(&self) -> Vec<(String, String)>;

    /// The deadline of the window open now (`None`: none). When it passes, the layer
    /// calls [`TurnGame::force`].
    fn deadline(&self) -> Option<DateTime<Utc>>;

    /// What is awaited at `now`, for the answer to a message: [`TurnGame::awaiting`],
    /// unless a window closed before `now` and only waits for the tick to settle it; then
    /// the window is not named as open (nobody is awaited, and `what` says what closed).
    fn awaiting_at(&self, now: DateTime<Utc>) -> Awaiting;

    /// The game was rolled back to a state saved at an earlier time: let its windows run
    /// from `now` as they ran from the saved time, so the round is played again with its
    /// whole time.
    fn rebase(&mut self, now: DateTime<Utc>);
}

/// The deadline `game` set itself, if it sets its own windows and one is open.
pub fn own_deadline(game: &dyn TurnGame) -> Option<DateTime<Utc>> {
    game.windows().and_then(|w| w.deadline())
}

/// What `game` awaits at `now` ([`Windows::awaiting_at`]; [`TurnGame::awaiting`] for a
/// game without windows).
pub fn awaiting_at(game: &dyn TurnGame, now: DateTime<Utc>) -> Awaiting {
    game.windows().map_or_else(|| game.awaiting(), |w| w.awaiting_at(now))
}

/// Lines from the game master (`uphold`, `reject`) ([`TurnGame::master_lines`]).
pub trait MasterLines {
    fn master(&mut self, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck;
}

/// The name a master's lines are journaled under (no player may take it).
pub const MASTER: &str = "master";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_answer_keeps_every_line_and_event_in_its_receipt() {
        let ack = TurnAck {
            lines: vec![
                LineAnswer::accepted(1, "P3: shift +1 to NF3"),
                Refusal::at(7, "no space `Z9`").hint("spaces are A1 to H5").on(2).into(),
            ],
            events: vec!["Ann rolls 4".into()],
        };
        let r = ack.receipt("ann", "round 1, act", None);
        assert_eq!(r.taken, [Taken { line: 1, words: "P3: shift +1 to NF3".into(), note: None }]);
        assert_eq!(r.refused, [Refusal::at(7, "no space `Z9`").hint("spaces are A1 to H5").on(2)]);
        assert_eq!(r.events, ["Ann rolls 4"]);
        assert_eq!(r.nouns, Nouns::TURN);
        assert_eq!(LineAnswer::from(r.refused[0].clone()), ack.lines[1]);
    }
}
