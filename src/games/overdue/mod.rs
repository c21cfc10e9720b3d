//! Overdue, the dice-and-deadline game (Game Design #28), played by turn files.
//!
//! Each round every player's dice are rolled at once; then, in seat order from the
//! round's first player, each player scores a die, puts one on the time, discards one,
//! cashes, or (with no die left) passes. The time die decays by one after every pass of
//! the table; when it reaches 0 the deadline arrives at once, and every player who has
//! not cashed tries to squeeze in with a roll (re-rolls bought from the game total).
//! The project's rulings are docs/overdue.md; this module follows them and nothing else.
//!
//! The engine owns the rules, the turn-file answers and the reports; it rolls only
//! through the [`Dice`] it is handed and does no IO. `lines` reads turn files,
//! `report` draws the position, `random` plays random legal games (tests, benchmark).

pub mod lines;
pub mod random;
mod report;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::dice::Dice;
use crate::games::kit::{self, Kind, OptionSpec};
use crate::games::Options;
use crate::text::count;
use crate::turn::{Awaiting, Defaulted, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};
pub use lines::{Line, Squeeze, Turn, MAX_REROLLS};

/// The kind, as written in game.toml.
pub const KIND: &str = "overdue";
/// The fewest and most players.
pub const MIN_PLAYERS: usize = 3;
pub const MAX_PLAYERS: usize = 10;

/// Overdue in the judge's registry of games.
pub const GAME: crate::games::GameKind = crate::games::GameKind {
    name: KIND,
    title: "Overdue",
    summary: "dice scored against a shared deadline die",
    players: (MIN_PLAYERS, MAX_PLAYERS),
    options: OPTIONS,
    rulings: "docs/overdue.md",
    create: |players, options, ctx| Ok(Box::new(Overdue::new(players, options, ctx)?)),
    load: |state| Ok(Box::new(Overdue::load(state)?)),
    offers: crate::games::Offers { legal_candidates: true, ..crate::games::Offers::SMALL },
};
/// What one re-roll costs, in points of the game total.
pub const REROLL_COST: u32 = 10;
/// The most turns one turn file may hold (the first now, the rest queued).
pub const MAX_TURNS_PER_FILE: usize = 20;

/// The rules options (game.toml / `--option`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Rounds in the game (each ends at its deadline).
    pub rounds: u32,
    /// Six-sided dice per player.
    pub dice_per_player: u32,
    /// Each later round starts with the next player in seat order.
    pub rotate_first: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules { rounds: 10, dice_per_player: 3, rotate_first: true }
    }
}

/// The options Overdue takes.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "rounds",
        kind: Kind::Number { low: 1, high: 100, none: false },
        default: "10",
        help: "rounds in the game, each ending at its deadline",
    },
    OptionSpec {
        name: "dice_per_player",
        kind: Kind::Number { low: 3, high: 12, none: false },
        default: "3",
        help: "six-sided dice per player",
    },
    OptionSpec {
        name: "rotate_first",
        kind: Kind::Flag,
        default: "true",
        help: "each later round starts with the next player in seat order",
    },
];

impl Rules {
    /// Read the options given, each checked; any other key is refused.
    pub fn from_options(options: &Options) -> Result<Rules, String> {
        let v = kit::read_options("Overdue", OPTIONS, options)?;
        let number = |name| v.number(name).expect("a number, never `none`");
        Ok(Rules {
            rounds: number("rounds"),
            dice_per_player: number("dice_per_player"),
            rotate_first: v.flag("rotate_first"),
        })
    }
}

/// What became of a die this round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Use {
    Score,
    Time,
    Discard,
}

/// One die of a player: the value it shows, and what it went to (`None`: unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Die {
    pub value: u8,
    pub used: Option<Use>,
}

/// One seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub name: String,
    pub dice: Vec<Die>,
    pub round_score: u32,
    pub cashed: bool,
    pub total: u32,
    /// The standing squeeze-in line (until replaced); `None`: one free attempt on 6.
    pub squeeze: Option<Squeeze>,
    /// Turns sent ahead, used on the player's next turns in this round.
    pub queue: Vec<Turn>,
}

impl Player {
    fn unused(&self, value: u8) -> Option<usize> {
        self.dice.iter().position(|d| d.used.is_none() && d.value == value)
    }

    /// The values of the unused dice, in order.
    pub fn unused_values(&self) -> Vec<u8> {
        self.dice.iter().filter(|d| d.used.is_none()).map(|d| d.value).collect()
    }

    pub fn has_unused(&self) -> bool {
        self.dice.iter().any(|d| d.used.is_none())
    }

    /// Skipped on every pass: cashed with no die left.
    pub fn skipped(&self) -> bool {
        self.cashed && !self.has_unused()
    }

    /// Whether this player may take `turn` now; the reason if not. `forced` is a pass
    /// applied at a missed deadline (always allowed).
    fn check(&self, turn: Turn) -> Result<(), TurnRefusal> {
        let die = |value: u8| -> Result<(), TurnRefusal> {
            if self.unused(value).is_some() {
                return Ok(());
            }
            let unused = self.unused_values();
            Err(if unused.is_empty() {
                TurnRefusal::AllDiceUsed { value }
            } else {
                TurnRefusal::NoSuchDie { value, unused }
            })
        };
        match turn {
            Turn::Score(v) => {
                if self.cashed {
                    return Err(TurnRefusal::ScoreAfterCash);
                }
                die(v)
            }
            Turn::Time(v) | Turn::Discard(v) => die(v),
            Turn::Cash if self.cashed => Err(TurnRefusal::CashedAlready),
            Turn::Cash => Ok(()),
            Turn::Pass if self.skipped() => Err(TurnRefusal::Skipped),
            Turn::Pass if self.has_unused() => Err(TurnRefusal::PassWithDice { unused: self.unused_values() }),
            Turn::Pass => Ok(()),
        }
    }
}

/// Why a player may not take a turn now (`Player::check`): told apart by its kind, said
/// to the player in these words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TurnRefusal {
    /// A die of that value is wanted and every die is used.
    #[error("you hold no unused {value}: all your dice are used")]
    AllDiceUsed { value: u8 },
    /// No unused die shows that value; the values the unused dice show.
    #[error("you hold no unused {value}: your unused dice show {}", join_values(.unused))]
    NoSuchDie { value: u8, unused: Vec<u8> },
    /// `score` after cashing.
    #[error("you have cashed this round: your dice may only go to time or be discarded")]
    ScoreAfterCash,
    /// `cash` twice in a round.
    #[error("you have already cashed this round")]
    CashedAlready,
    /// `pass` by a player who is skipped (cashed, no die left).
    #[error("you have cashed and hold no die: you are skipped until the round ends, with nothing to pass")]
    Skipped,
    /// `pass` while holding unused dice; their values.
    #[error(
        "you may pass only with no die left; your unused dice show {}: discard one if you want none of them",
        join_values(.unused)
    )]
    PassWithDice { unused: Vec<u8> },
}

fn join_values(values: &[u8]) -> String {
    values.iter().map(u8::to_string).collect::<Vec<_>>().join(", ")
}

/// Where the round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    /// Turns are being taken; `pos` counts the seats of this pass already visited, from
    /// the round's first player (`pos == players`: the pass is over).
    Turns { pos: usize },
    /// The time reached 0: the squeeze-ins and the totals are due.
    Deadline,
    /// The last round is over.
    Over,
}

/// How one player's round ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundResult {
    pub round_score: u32,
    /// Cashed by a turn before the deadline.
    pub cashed: bool,
    /// The squeeze-in at the deadline, for a player who had not cashed.
    pub squeeze: Option<SqueezeResult>,
    /// What went into the game total (the round score if cashed or squeezed in, else 0).
    pub banked: u32,
}

/// One player's squeeze-in: the number named, every roll, re-rolls bought and their cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqueezeResult {
    pub number: u8,
    pub rolls: Vec<u8>,
    pub rerolls: u8,
    pub cost: u32,
    pub hit: bool,
}

/// A game of Overdue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overdue {
    pub rules: Rules,
    pub players: Vec<Player>,
    /// The round under way, from 1.
    pub round: u32,
    /// The pass under way in this round, from 1.
    pub pass: u32,
    /// The time die.
    pub time: u8,
    /// The seat who plays first this round.
    pub first: usize,
    pub stage: Stage,
    /// How each player's last finished round ended (seat order).
    #[serde(default)]
    pub last_round: Vec<RoundResult>,
}

impl Overdue {
    /// A new game: the first player drawn, round 1 rolled.
    pub fn new(players: Vec<String>, options: &Options, ctx: &mut TurnContext<'_>) -> Result<Overdue, String> {
        let rules = Rules::from_options(options)?;
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players.len()) {
            return Err(format!("Overdue is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {}", players.len()));
        }
        let n = players.len();
        let players = players
            .into_iter()
            .map(|name| Player {
                name,
                dice: Vec::new(),
                round_score: 0,
                cashed: false,
                total: 0,
                squeeze: None,
                queue: Vec::new(),
            })
            .collect();
        let first = ctx.dice.roll(n as u32, "first player") as usize - 1;
        let mut game = Overdue {
            rules,
            players,
            round: 0,
            pass: 0,
            time: 0,
            first,
            stage: Stage::Turns { pos: 0 },
            last_round: Vec::new(),
        };
        game.start_round(1, ctx.dice);
        Ok(game)
    }

    /// Read a stored game back, checking what a damaged file could break.
    pub fn load(state: &serde_json::Value) -> Result<Overdue, String> {
        let game: Overdue = Overdue::deserialize(state).map_err(|e| format!("not a stored game of Overdue: {e}"))?;
        let n = game.players.len();
        let fault = if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&n) {
            Some(format!("{n} players"))
        } else if game.first >= n {
            Some(format!("first player {} of {n}", game.first))
        } else if matches!(game.stage, Stage::Turns { pos } if pos > n) {
            Some("a turn past the end of the pass".into())
        } else if game.players.iter().flat_map(|p| &p.dice).any(|d| !(1..=6).contains(&d.value)) {
            Some("a die showing a value outside 1-6".into())
        } else if game.time > 6 {
            Some(format!("time {}", game.time))
        } else {
            None
        };
        match fault {
            Some(f) => Err(format!("not a valid game of Overdue: {f}")),
            None => Ok(game),
        }
    }

    fn seat(&self, pos: usize) -> usize {
        (self.first + pos) % self.players.len()
    }

    /// Seats in order from the round's first player.
    pub fn seat_order(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.players.len()).map(|pos| self.seat(pos))
    }

    /// The seat whose turn it is and who must send it (`None`: nobody, or the game is over).
    pub fn to_play(&self) -> Option<usize> {
        match self.stage {
            Stage::Turns { pos } if pos < self.players.len() => {
                let p = self.seat(pos);
                let player = &self.players[p];
                (!player.skipped() && player.queue.is_empty()).then_some(p)
            }
            _ => None,
        }
    }

    /// The turns `player` may take now, if it is their turn (tests, random play).
    pub fn legal_turns(&self, player: usize) -> Vec<Turn> {
        legal_turns(&self.players[player])
    }

    /// A new round: every die rolled, the time set, round scores cleared.
    fn start_round(&mut self, round: u32, dice: &mut Dice) {
        let n = self.players.len();
        if round > 1 && self.rules.rotate_first {
            self.first = (self.first + 1) % n;
        }
        self.round = round;
        self.pass = 1;
        self.time = n.min(6) as u8;
        self.stage = Stage::Turns { pos: 0 };
        for p in &mut self.players {
            p.round_score = 0;
            p.cashed = false;
            p.queue.clear();
            let name = p.name.clone();
            p.dice = (1..=self.rules.dice_per_player)
                .map(|i| Die { value: dice.roll(6, format!("round {round}: {name}'s die {i}")) as u8, used: None })
                .collect();
        }
    }

    /// Apply a legal turn of the player whose turn it is; what happened, in words.
    fn apply(&mut self, player: usize, turn: Turn) -> String {
        let Stage::Turns { pos } = self.stage else { unreachable!("turns are applied only while turns are taken") };
        let before = self.time;
        if let Turn::Time(v) = turn {
            self.time = if v > before { before + 1 } else { before - 1 };
        }
        let p = &mut self.players[player];
        apply_to(p, turn);
        let text = match turn {
            Turn::Score(v) => format!("{} scores {v} (round score {})", p.name, p.round_score),
            Turn::Time(v) if v > before => {
                format!("{} puts {v} on the time: above {before}, the time rises to {}", p.name, self.time)
            }
            Turn::Time(v) => {
                format!("{} puts {v} on the time: not above {before}, the time falls to {}", p.name, self.time)
            }
            Turn::Discard(v) => format!("{} discards {v}", p.name),
            Turn::Cash => format!("{} cashes {}", p.name, p.round_score),
            Turn::Pass => format!("{} passes", p.name),
        };
        self.stage = if self.time == 0 { Stage::Deadline } else { Stage::Turns { pos: pos + 1 } };
        text
    }

    /// The deadline: squeeze-ins in seat order, totals, then the next round or the end.
    fn deadline(&mut self, dice: &mut Dice) -> Vec<String> {
        let round = self.round;
        let mut events = vec![format!("Round {round}: the deadline arrives.")];
        for p in &mut self.players {
            p.queue.clear();
        }
        let mut results: Vec<RoundResult> = self
            .players
            .iter()
            .map(|p| RoundResult { round_score: p.round_score, cashed: p.cashed, squeeze: None, banked: 0 })
            .collect();
        let order: Vec<usize> = self.seat_order().collect();
        for seat in order {
            let p = &mut self.players[seat];
            if p.cashed {
                continue;
            }
            let line = p.squeeze.unwrap_or(Squeeze::DEFAULT);
            let name = p.name.clone();
            let mut rolls = vec![dice.roll(6, format!("round {round}: {name} squeezes in on {}", line.number)) as u8];
            let mut cost = 0;
            let mut rerolls = 0u8;
            // Re-rolls are bought only to save something, and only with the points to pay.
            while rolls.last() != Some(&line.number)
                && rerolls < line.rerolls.min(MAX_REROLLS)
                && p.round_score > 0
                && p.total >= REROLL_COST
            {
                p.total -= REROLL_COST;
                cost += REROLL_COST;
                rerolls += 1;
                rolls.push(dice.roll(6, format!("round {round}: {name} re-roll {rerolls} on {}", line.number)) as u8);
            }
            let hit = rolls.last() == Some(&line.number);
            p.cashed = hit;
            let shown = rolls.iter().map(u8::to_string).collect::<Vec<_>>().join(", ");
            let bought = match rerolls {
                0 => String::new(),
                1 => format!(" (1 re-roll bought for {cost} points)"),
                r => format!(" ({r} re-rolls bought for {cost} points)"),
            };
            events.push(if hit {
                format!(
                    "{name} squeezes in on {}: rolls {shown}{bought}; hit, the round score of {} is cashed",
                    line.number, p.round_score
                )
            } else {
                format!(
                    "{name} squeezes in on {}: rolls {shown}{bought}; missed, the round score of {} is lost",
                    line.number, p.round_score
                )
            });
            results[seat].squeeze = Some(SqueezeResult { number: line.number, rolls, rerolls, cost, hit });
        }
        for (p, r) in self.players.iter_mut().zip(&mut results) {
            if p.cashed {
                p.total += p.round_score;
                r.banked = p.round_score;
            }
        }
        self.last_round = results;
        events.push(format!(
            "Totals after round {round}: {}.",
            self.players.iter().map(|p| format!("{} {}", p.name, p.total)).collect::<Vec<_>>().join(", ")
        ));
        if round >= self.rules.rounds {
            self.stage = Stage::Over;
            let winners = self.winners();
            let names: Vec<&str> = winners.iter().map(|&w| self.players[w].name.as_str()).collect();
            let best = self.players[winners[0]].total;
            events.push(match names.as_slice() {
                [one] => format!("The game is over: {one} wins with {best}."),
                [many @ .., last] => {
                    format!("The game is over: {} and {last} share the win with {best}.", many.join(", "))
                }
                [] => unreachable!("a game has players"),
            });
        } else {
            self.start_round(round + 1, dice);
            events.push(self.round_start_text());
        }
        events
    }

    /// The players with the highest total (more than one: a shared win).
    pub fn winners(&self) -> Vec<usize> {
        let best = self.players.iter().map(|p| p.total).max().unwrap_or(0);
        (0..self.players.len()).filter(|&i| self.players[i].total == best).collect()
    }

    fn round_start_text(&self) -> String {
        let dice: Vec<String> = self
            .players
            .iter()
            .map(|p| format!("{} {}", p.name, p.dice.iter().map(|d| d.value.to_string()).collect::<Vec<_>>().join(" ")))
            .collect();
        format!(
            "Round {} begins: time {}, {} plays first. Dice: {}.",
            self.round,
            self.time,
            self.players[self.first].name,
            dice.join("; ")
        )
    }

    /// Turns sent ahead that the deadline will drop for certain (the turns before it need
    /// nobody's input, like the end of a pass that takes the time to 0) are answered as
    /// a turn sent after a `time` turn that brings the deadline: not used. Those that
    /// wait for another player's turn stay queued (the report shows them).
    fn drop_what_the_deadline_takes(&mut self, player: usize, queued: &[usize], ack: &mut TurnAck) {
        if queued.is_empty() {
            return;
        }
        let mut probe = self.clone();
        probe.run_turns(&mut Vec::new());
        if probe.stage != Stage::Deadline {
            return;
        }
        let left = probe.players[player].queue.len();
        let dropped = &queued[queued.len() - left.min(queued.len())..];
        let keep = self.players[player].queue.len() - dropped.len();
        let turns: Vec<Turn> = self.players[player].queue.drain(keep..).collect();
        for (&index, turn) in dropped.iter().zip(turns) {
            let l = &mut ack.lines[index];
            *l = LineAnswer::dropped(l.line, deadline_drops(turn));
        }
    }

    /// The turns that need no input, as far as they go: the end of a pass, skipped
    /// players, turns sent ahead. Stops where a player's turn is awaited or the
    /// deadline is due (which rolls: see [`Overdue::deadline`]).
    fn run_turns(&mut self, events: &mut Vec<String>) {
        let n = self.players.len();
        // Each step below uses up a die, a seat or a pass, so this ends; the bound only
        // keeps a damaged state from looping.
        for _ in 0..1_000_000 {
            match self.stage {
                Stage::Over | Stage::Deadline => break,
                Stage::Turns { pos } if pos >= n => {
                    self.time = self.time.saturating_sub(1);
                    if self.time == 0 {
                        events.push(format!("End of pass {}: the time decays to 0.", self.pass));
                        self.stage = Stage::Deadline;
                    } else {
                        events.push(format!("End of pass {}: the time decays to {}.", self.pass, self.time));
                        self.pass += 1;
                        self.stage = Stage::Turns { pos: 0 };
                    }
                }
                Stage::Turns { pos } => {
                    let seat = self.seat(pos);
                    let p = &mut self.players[seat];
                    if p.skipped() {
                        self.stage = Stage::Turns { pos: pos + 1 };
                    } else if let Some(&turn) = p.queue.first() {
                        p.queue.remove(0);
                        match p.check(turn) {
                            Ok(()) => {
                                let text = self.apply(seat, turn);
                                events.push(format!("{text} (sent ahead)."));
                            }
                            Err(reason) => {
                                let name = p.name.clone();
                                p.queue.clear();
                                events.push(format!(
                                    "{name}'s turn sent ahead, `{turn}`, is refused: {reason}; the rest are dropped"
                                ));
                            }
                        }
                    } else {
                        break;
                    }
                }
            }
        }
    }

    /// What the judge waits for from `player`, in the words of the game.
    fn turn_words(&self, player: usize) -> &'static str {
        let p = &self.players[player];
        match (p.cashed, p.has_unused()) {
            (false, true) => "a turn (score, time, discard or cash)",
            (true, _) => "a turn (time or discard)",
            (false, false) => "a turn (cash or pass)",
        }
    }
}

impl Overdue {
    /// The player to play passes, the default: a line saying why.
    fn pass_for(&mut self, why: Defaulted) -> Vec<String> {
        let Some(p) = self.to_play() else { return Vec::new() };
        let name = self.players[p].name.clone();
        self.apply(p, Turn::Pass);
        match why {
            Defaulted::Deadline => vec![format!("{name} missed the turn's deadline and passes")],
            Defaulted::Vacant => vec![format!("{name}'s seat is vacant: {name} passes")],
        }
    }
}

impl TurnGame for Overdue {
    fn candidate_lines(&self, seat: crate::turn::Seat) -> Vec<String> {
        let crate::turn::Seat::Player(player) = seat else { return Vec::new() };
        if self.to_play() != Some(player) {
            return Vec::new();
        }
        self.legal_turns(player).iter().map(|t| t.to_string()).collect()
    }

    fn players(&self) -> Vec<String> {
        self.players.iter().map(|p| p.name.clone()).collect()
    }

    fn submit(&mut self, player: usize, text: &str, _ctx: &mut TurnContext<'_>) -> TurnAck {
        let mut ack = TurnAck::default();
        if player >= self.players.len() {
            return ack;
        }
        let over = self.stage == Stage::Over;
        let my_turn = self.to_play() == Some(player);
        // The player's own state, as their earlier lines leave it: nothing else changes
        // it within a round, so a queued turn legal here is legal when it comes.
        let mut ahead = self.players[player].clone();
        let mut taken = 0;
        // Once a turn line is refused, the turns after it are dropped (their order matters).
        let mut stopped: Option<String> = None;
        // The answers of the turns sent ahead (indexes into `ack.lines`).
        let mut queued: Vec<usize> = Vec::new();
        for read in kit::lines(text) {
            let line = read.number;
            let answer = match lines::parse_line(&read) {
                Err(d) => {
                    stopped.get_or_insert_with(|| format!("line {line} was not understood"));
                    d.on(line).into()
                }
                Ok(_) if over => LineAnswer::refused(line, 1, "the game is over"),
                Ok(Line::Squeeze(s)) => {
                    self.players[player].squeeze = Some(s);
                    let text = if s == Squeeze::DEFAULT {
                        format!("{s}: back to the default: if the deadline finds you uncashed you roll once for 6")
                    } else if s.rerolls == 0 {
                        format!("{s}: if the deadline finds you uncashed you roll once for {}, no re-roll", s.number)
                    } else {
                        format!(
                            "{s}: if the deadline finds you uncashed you roll for {}, buying at most {}",
                            s.number,
                            count(s.rerolls, "re-roll", "re-rolls")
                        )
                    };
                    LineAnswer::accepted(line, format!("{text}; it stands until you send another"))
                }
                Ok(Line::Turn(turn)) => {
                    if let Some(why) = &stopped {
                        LineAnswer::refused(
                            line,
                            1,
                            format!("`{turn}` not used: {why}, so the turns after it are dropped"),
                        )
                    } else if !my_turn {
                        let whose = match self.to_play() {
                            Some(p) => format!("it is {}'s turn", self.players[p].name),
                            None => "no turn is awaited now".to_string(),
                        };
                        stopped = Some(format!("line {line} was refused"));
                        LineAnswer::refused(line, 1, format!("not your turn: {whose}"))
                            .with_hint("turns go in seat order; send yours when the judge says it is your turn")
                    } else if taken >= MAX_TURNS_PER_FILE {
                        stopped = Some(format!("line {line} was refused"));
                        LineAnswer::refused(line, 1, format!("a turn file holds at most {MAX_TURNS_PER_FILE} turns"))
                    } else if self.stage == Stage::Deadline {
                        LineAnswer::dropped(line, deadline_drops(turn))
                    } else if let Err(reason) = ahead.check(turn) {
                        stopped = Some(format!("line {line} was refused"));
                        let reason = if taken == 0 { reason.to_string() } else { format!("by then: {reason}") };
                        LineAnswer::refused(line, 1, format!("`{turn}`: {reason}"))
                    } else {
                        apply_to(&mut ahead, turn);
                        taken += 1;
                        if taken == 1 {
                            let said = self.apply(player, turn);
                            // What the others read in the report: the move itself.
                            ack.events.push(format!("{said}."));
                            LineAnswer::accepted(line, said)
                        } else {
                            self.players[player].queue.push(turn);
                            queued.push(ack.lines.len());
                            LineAnswer::accepted(line, format!("`{turn}` queued for your next turn in this round"))
                        }
                    }
                }
            };
            ack.lines.push(answer);
        }
        self.drop_what_the_deadline_takes(player, &queued, &mut ack);
        ack
    }

    fn awaiting(&self) -> Awaiting {
        match self.to_play() {
            Some(p) => {
                Awaiting { players: vec![p], what: self.turn_words(p).to_string(), optional: false, master: false }
            }
            None => Awaiting::default(),
        }
    }

    fn advance(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut events = Vec::new();
        // Each deadline ends a round (the next begins, or the game is over): at most
        // `rounds` times round.
        loop {
            self.run_turns(&mut events);
            if self.stage != Stage::Deadline {
                break;
            }
            events.extend(self.deadline(ctx.dice));
        }
        events
    }

    fn force(&mut self, why: Defaulted, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        self.pass_for(why)
    }

    fn ending(&self) -> Option<Ending> {
        (self.stage == Stage::Over).then(|| Ending::Won { players: self.winners() })
    }

    fn round(&self) -> u32 {
        self.round
    }

    fn step_label(&self) -> String {
        match self.stage {
            Stage::Over => format!("round {}, over", self.round),
            Stage::Deadline => format!("round {}, deadline", self.round),
            Stage::Turns { .. } => format!("round {}, pass {}", self.round, self.pass),
        }
    }

    fn option_lines(&self) -> Vec<String> {
        vec![
            format!("rounds = {}", self.rules.rounds),
            format!("dice_per_player = {}", self.rules.dice_per_player),
            format!("rotate_first = {}", self.rules.rotate_first),
        ]
    }

    fn report_text(&self) -> String {
        report::text(self)
    }

    fn status_json(&self) -> serde_json::Value {
        report::json(self)
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("an Overdue game serializes")
    }
}

/// The answer to a turn sent ahead that the deadline comes before.
fn deadline_drops(turn: Turn) -> String {
    format!("`{turn}` not used: the deadline comes before your next turn (turns sent ahead are dropped then)")
}

/// A turn applied to a copy of the player (to check the turns sent ahead).
fn apply_to(p: &mut Player, turn: Turn) {
    let mut take = |v: u8, how: Use| {
        if let Some(i) = p.unused(v) {
            p.dice[i].used = Some(how);
        }
    };
    match turn {
        Turn::Score(v) => {
            take(v, Use::Score);
            p.round_score += u32::from(v);
        }
        Turn::Time(v) => take(v, Use::Time),
        Turn::Discard(v) => take(v, Use::Discard),
        Turn::Cash => p.cashed = true,
        Turn::Pass => {}
    }
}

/// The turns a player in this state may take on their turn.
pub fn legal_turns(p: &Player) -> Vec<Turn> {
    if p.skipped() {
        return Vec::new();
    }
    let mut values = p.unused_values();
    values.sort_unstable();
    values.dedup();
    let mut out = Vec::new();
    for v in values {
        if !p.cashed {
            out.push(Turn::Score(v));
        }
        out.push(Turn::Time(v));
        out.push(Turn::Discard(v));
    }
    if !p.cashed {
        out.push(Turn::Cash);
    }
    if !p.has_unused() {
        out.push(Turn::Pass);
    }
    out
}
