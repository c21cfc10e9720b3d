//! Pebbles, a toy game that is not shipped: it shows what adding a game to the judge
//! takes. This folder and one line in the registry (`src/games/mod.rs`, `KINDS`) are all
//! of it; the store, the command line, mail, deadlines, dice, verify and rollback come
//! from the judge. The library's own tests compile it (and only they), and the shared
//! conformance check plays it like every shipped game.
//!
//! The rules: a pile of pebbles (rolled: 2d6 + 10, or the `pile` option); the players
//! take turns in seat order, the first rolled; a turn is `take N`, from 1 to `max_take`
//! pebbles (never more than are left); whoever takes the last pebble wins. A missed
//! deadline takes 1.

use serde::{Deserialize, Serialize};

use crate::answer::Refusal;
use crate::games::kit::{self, Kind, OptionSpec};
use crate::games::{GameKind, Options};
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};

pub const KIND: &str = "pebbles";

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "pile",
        kind: Kind::Number { low: 1, high: 99, none: true },
        default: "none",
        help: "the pebbles at the start (`none`: rolled, 2d6 + 10)",
    },
    OptionSpec {
        name: "max_take",
        kind: Kind::Number { low: 1, high: 9, none: false },
        default: "3",
        help: "the most pebbles one turn takes",
    },
];

/// Pebbles in the judge's registry of games.
pub const GAME: GameKind = GameKind {
    name: KIND,
    title: "Pebbles",
    summary: "take turns taking pebbles; the last one wins",
    players: (2, 4),
    options: OPTIONS,
    rulings: "tests/toy_game/mod.rs",
    create: |players, options, ctx| Ok(Box::new(Pebbles::create(players, options, ctx)?)),
    load: |state| Ok(Box::new(Pebbles::load(state)?)),
    offers: crate::games::Offers::SMALL,
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pebbles {
    players: Vec<String>,
    pile: u32,
    max_take: u32,
    /// Seat of the player to take next.
    next: usize,
    /// Turns taken so far.
    turns: u32,
    winner: Option<usize>,
}

impl Pebbles {
    fn create(players: Vec<String>, options: &Options, ctx: &mut TurnContext<'_>) -> Result<Pebbles, String> {
        let (low, high) = GAME.players;
        if !(low..=high).contains(&players.len()) {
            return Err(format!("Pebbles is for {low} to {high} players, not {}", players.len()));
        }
        let v = kit::read_options("Pebbles", OPTIONS, options)?;
        let pile = match v.number("pile") {
            Some(n) => n,
            None => ctx.dice.roll(6, "the pile: first die") + ctx.dice.roll(6, "the pile: second die") + 10,
        };
        let next = ctx.dice.roll(players.len() as u32, "who takes first") as usize - 1;
        let max_take = v.number("max_take").unwrap_or(3);
        Ok(Pebbles { players, pile, max_take, next, turns: 0, winner: None })
    }

    fn load(state: &serde_json::Value) -> Result<Pebbles, String> {
        serde_json::from_value(state.clone()).map_err(|e| format!("not a Pebbles state: {e}"))
    }

    fn take(&mut self, n: u32) -> String {
        self.pile -= n;
        self.turns += 1;
        let who = self.players[self.next].clone();
        if self.pile == 0 {
            self.winner = Some(self.next);
            return format!("{who} takes {n} and the last pebble: {who} wins.");
        }
        self.next = (self.next + 1) % self.players.len();
        format!("{who} takes {n}; {} left.", self.pile)
    }

    fn most(&self) -> u32 {
        self.max_take.min(self.pile)
    }
}

impl TurnGame for Pebbles {
    fn players(&self) -> Vec<String> {
        self.players.clone()
    }

    fn submit(&mut self, player: usize, text: &str, _ctx: &mut TurnContext<'_>) -> TurnAck {
        let mut ack = TurnAck::default();
        for line in kit::lines(text) {
            let word = line.words[0];
            let answer = if self.winner.is_some() {
                LineAnswer::refused(line.number, word.column, "the game is over")
            } else if player != self.next {
                LineAnswer::refused(
                    line.number,
                    word.column,
                    format!("not your turn: {} takes next", self.players[self.next]),
                )
            } else if !word.text.eq_ignore_ascii_case("take") {
                Refusal::at(word.column, format!("a turn is `take N`, not `{}`", word.text)).on(line.number).into()
            } else {
                match line.words.get(1).map(|w| (w.column, w.text.parse::<u32>())) {
                    Some((_, Ok(n))) if (1..=self.most()).contains(&n) => {
                        let said = self.take(n);
                        ack.events.push(said);
                        LineAnswer::accepted(line.number, format!("take {n}"))
                    }
                    Some((column, _)) => LineAnswer::refused(
                        line.number,
                        column,
                        format!("take 1 to {} pebbles ({} left)", self.most(), self.pile),
                    ),
                    None => LineAnswer::refused(line.number, line.end_column(), "take how many? `take N`"),
                }
            };
            ack.lines.push(answer);
        }
        ack
    }

    fn awaiting(&self) -> Awaiting {
        match self.winner {
            Some(_) => Awaiting::default(),
            None => Awaiting {
                players: vec![self.next],
                what: format!("{}'s turn", self.players[self.next]),
                ..Awaiting::default()
            },
        }
    }

    fn advance(&mut self, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        Vec::new()
    }

    fn force(&mut self, _why: crate::turn::Defaulted, _ctx: &mut TurnContext<'_>) -> Vec<String> {
        match self.winner {
            Some(_) => Vec::new(),
            None => vec![format!("deadline: {}", self.take(1))],
        }
    }

    fn ending(&self) -> Option<Ending> {
        self.winner.map(|p| Ending::Won { players: vec![p] })
    }

    fn round(&self) -> u32 {
        self.turns / self.players.len() as u32 + 1
    }

    fn step_label(&self) -> String {
        format!("round {}, {} to take", self.round(), self.players[self.next])
    }

    fn option_lines(&self) -> Vec<String> {
        vec![format!("max_take = {}", self.max_take)]
    }

    fn report_text(&self) -> String {
        match self.winner {
            Some(p) => format!("The pile is empty: {} won.\n", self.players[p]),
            None => format!("{} pebbles left; {} takes next.\n", self.pile, self.players[self.next]),
        }
    }

    fn status_json(&self) -> serde_json::Value {
        serde_json::json!({ "pile": self.pile, "next": self.players[self.next] })
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a Pebbles state is plain data")
    }

    fn candidate_lines(&self, seat: crate::turn::Seat) -> Vec<String> {
        let crate::turn::Seat::Player(player) = seat else { return Vec::new() };
        if player != self.next || self.winner.is_some() {
            return Vec::new();
        }
        (1..=self.most()).map(|n| format!("take {n}")).collect()
    }
}
