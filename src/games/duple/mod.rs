//! Duple, the word race, played by email (docs/duple.md; the rulings the project
//! follows are summed up there).
//!
//! The judge draws for each player in turn by itself until a faceoff or an All Play needs
//! answers. The race is won by the first acceptable answer the judge receives (by the
//! time it was received, to the second); the table's judgement becomes a challenge,
//! settled by the game master (`uphold`, `reject`) or by a vote of the players outside the
//! faceoff. Windows close at their times: the engine sets its own deadline and the layer
//! calls [`TurnGame::force`] when it passes.
//!
//! The decks are face down: the state holds which cards are still in them, never their
//! order (`draw`). Every draw is made with the game's dice when the card is drawn.
//! This module does no IO and reads no clock but `ctx.now`.

mod deck;
mod draw;
mod lines;
mod play;
mod report;
mod table;

use std::collections::VecDeque;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

pub use deck::{Deck, Drawn, LetterCard};
pub use draw::DrawPile;
pub use lines::{parse_line, Line};

use crate::games::kit::{self, Kind, OptionSpec};
use crate::span::Span;

use crate::games::Options;
use crate::text::count;
use crate::turn::{Awaiting, Ending, LineAnswer, MasterLines, TurnAck, TurnContext, TurnGame};

/// The kind, as written in game.toml.
pub const KIND: &str = "duple";

/// Duple in the judge's registry of games.
pub const GAME: crate::games::GameKind = crate::games::GameKind {
    name: KIND,
    title: "Duple",
    summary: "a race to name a word holding two letters, with challenges ruled by vote or the master",
    players: (MIN_PLAYERS, MAX_PLAYERS),
    options: OPTIONS,
    rulings: "docs/duple.md",
    create: |players, options, ctx| Ok(Box::new(Duple::create(players, options, ctx)?)),
    load: |state| Ok(Box::new(Duple::load(state)?)),
    offers: crate::games::Offers { master_lines: true, ..crate::games::Offers::SMALL },
};

/// The fewest and the most players a Duple game seats.
pub const MIN_PLAYERS: usize = 2;
pub const MAX_PLAYERS: usize = 8;

/// How many times a stuck faceoff reopens with a new category before it lapses.
pub const MAX_STUCK: u8 = 2;

/// How many answers one player may have under way (received, not out) in a faceoff or
/// All Play: a race needs a few, and one message must not cost the game more.
pub const MAX_ANSWERS: usize = 3;

/// How the refusal of an answer over [`MAX_ANSWERS`] begins.
const CAP_REASON: &str = "you have ";

/// The rulings a new game is played by. Edition 0 is a game begun before these: a lapsed
/// faceoff never played again, lines taken up to the second a window closed, the master's
/// ruling taken until the tick, no cap on answers. A stored game keeps its edition, so its
/// journal replays by the rulings it was played with.
pub const EDITION: u8 = 1;

/// Who settles a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Settle {
    /// The players outside the faceoff vote (the game master may still rule first).
    Vote,
    /// Only the game master rules; votes are refused.
    Master,
}

/// The rules options of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub challenge_hours: Span,
    pub faceoff_hours: Span,
    pub allplay_hours: Span,
    pub challenges: Settle,
    /// `standard`, or `custom` when the game brought its own deck.
    pub deck: String,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            challenge_hours: Span::hours(12),
            faceoff_hours: Span::hours(24),
            allplay_hours: Span::hours(24),
            challenges: Settle::Vote,
            deck: "standard".into(),
        }
    }
}

/// A Play Pile: its owner and its cards, the top one last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pile {
    pub owner: usize,
    pub cards: Vec<u16>,
    /// When its top card became the top card (a counter: drawn or revealed).
    pub since: u64,
}

/// Two top cards that match, as they were when the match was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    pub piles: [usize; 2],
    pub cards: [u16; 2],
}

/// What is being raced for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ContestKind {
    Faceoff { piles: [usize; 2], cards: [u16; 2], by_wild: bool },
    AllPlay { card: u16 },
}

/// A challenge to an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub by: usize,
    pub at: DateTime<Utc>,
    /// Who may vote on it.
    pub voters: Vec<usize>,
    /// (player, accept) in the order received.
    pub votes: Vec<(usize, bool)>,
}

/// An answer that passed the judge's own checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub player: usize,
    pub text: String,
    pub proper: bool,
    /// When it was received, to the second.
    pub at: DateTime<Utc>,
    /// Order of receipt, for answers of the same second from the same player.
    pub seq: u32,
    /// When it became the answer under consideration (its challenge window opens).
    pub announced: Option<DateTime<Utc>>,
    pub window_end: Option<DateTime<Utc>>,
    #[serde(default)]
    pub window_closed: bool,
    pub challenge: Option<Challenge>,
    /// The game master's ruling: `Some(true)` upheld, `Some(false)` rejected.
    pub ruling: Option<bool>,
    /// Why it is out (rejected), if it is.
    pub out: Option<String>,
}

/// The faceoff or All Play under way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contest {
    /// Its number in the game (the game's "round").
    pub number: u32,
    pub kind: ContestKind,
    /// Who may answer, in seat order from the drawer.
    pub players: Vec<usize>,
    pub letters: Vec<char>,
    pub opened: DateTime<Utc>,
    pub closes: DateTime<Utc>,
    #[serde(default)]
    pub answers_closed: bool,
    /// How many times it reopened with a new category (the stuck rule).
    pub stuck: u8,
    pub tiebreaks: u32,
    pub answers: Vec<Answer>,
    pub next_seq: u32,
}

/// The whole game, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub players: Vec<String>,
    pub rules: Rules,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_deck: Option<Deck>,
    pub dealer: usize,
    pub started: bool,
    pub piles: Vec<Pile>,
    /// Per player, the pile their next Letter Card goes on (two-player game).
    pub next_pile: Vec<usize>,
    pub next_drawer: usize,
    /// The player who drew last: faceoffs go in seat order from them.
    pub drawer: usize,
    /// Letter Cards drawn so far.
    pub turns: u32,
    pub letters: DrawPile,
    pub categories: DrawPile,
    pub category: Option<u16>,
    pub discards: Vec<u16>,
    pub wild: Option<u16>,
    pub old_wilds: Vec<u16>,
    pub won: Vec<Vec<u16>>,
    pub won_all_play: Vec<Vec<u16>>,
    pub queue: VecDeque<Match>,
    /// Pairs of top cards whose faceoff lapsed: they do not face off again while both
    /// stay on top (edition 0: ever again).
    pub lapsed: Vec<[u16; 2]>,
    pub contest: Option<Contest>,
    pub contests: u32,
    pub clock: u64,
    pub winners: Option<Vec<usize>>,
    /// The rulings the game is played by ([`EDITION`]; absent in older games: 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub edition: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// A game of Duple.
#[derive(Clone, Debug)]
pub struct Duple {
    pub state: State,
    pub deck: Deck,
}

fn secs(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}

fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn hours(span: Span) -> Duration {
    span.duration()
}

/// The longest a Duple window may be set to: 30 days.
const WINDOW: Kind = Kind::Span { low: Span::minutes(1), high: Span::hours(720) };

/// The options Duple takes.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "challenge_hours",
        kind: WINDOW,
        default: "12",
        help: "how long a challenge stays open after an answer (`90m`, `2h`, `1d`; a number is hours)",
    },
    OptionSpec { name: "faceoff_hours", kind: WINDOW, default: "24", help: "how long a faceoff waits for answers" },
    OptionSpec { name: "allplay_hours", kind: WINDOW, default: "24", help: "how long an all-play waits for answers" },
    OptionSpec {
        name: "challenges",
        kind: Kind::Choice(&["vote", "master"]),
        default: "vote",
        help: "who settles a challenge: the players' vote or the game master",
    },
    OptionSpec {
        name: "deck",
        kind: Kind::Text,
        default: "standard",
        help: "`standard`, or a deck file given as deck=@FILE",
    },
];

/// Read the options of a new game.
pub fn parse_options(options: &Options) -> Result<(Rules, Option<Deck>), String> {
    let v = kit::read_options("Duple", OPTIONS, options)?;
    let hours = |name| v.span(name);
    let given = v.text("deck");
    let deck = if given.eq_ignore_ascii_case("standard") {
        None
    } else if !given.contains('\n') {
        return Err(kit::option_error(
            "deck",
            given,
            "not a deck; name a deck file as deck=@FILE so the judge reads it",
        ));
    } else {
        Some(Deck::parse(given)?)
    };
    let rules = Rules {
        challenge_hours: hours("challenge_hours"),
        faceoff_hours: hours("faceoff_hours"),
        allplay_hours: hours("allplay_hours"),
        challenges: if v.choice("challenges") == "master" { Settle::Master } else { Settle::Vote },
        deck: if deck.is_some() { "custom" } else { "standard" }.into(),
    };
    Ok((rules, deck))
}

impl Duple {
    /// A new game: the dealer drawn, the decks shuffled as the rules spread them.
    pub fn create(players: Vec<String>, options: &Options, ctx: &mut TurnContext<'_>) -> Result<Duple, String> {
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players.len()) {
            return Err(format!("Duple is for 2 to 8 players (2 play the two-player variant), not {}", players.len()));
        }
        let (rules, custom_deck) = parse_options(options)?;
        let deck = custom_deck.clone().unwrap_or_else(Deck::standard);
        let n = players.len();
        let per = if n == 2 { 2 } else { 1 };
        let piles = (0..n * per).map(|i| Pile { owner: i / per, cards: Vec::new(), since: 0 }).collect();
        let letter_count = deck.letters.len() as u16;
        let letters =
            DrawPile::spread((0..letter_count).collect(), (letter_count..deck.letter_deck_size() as u16).collect(), 0);
        let category_count = deck.categories.len() as u16;
        let categories = DrawPile::spread(
            (0..category_count).collect(),
            (category_count..deck.category_deck_size() as u16).collect(),
            5,
        );
        let dealer = ctx.dice.roll(n as u32, "the dealer") as usize - 1;
        let state = State {
            players,
            rules,
            custom_deck,
            dealer,
            started: false,
            piles,
            next_pile: vec![0; n],
            next_drawer: dealer,
            drawer: dealer,
            turns: 0,
            letters,
            categories,
            category: None,
            discards: Vec::new(),
            wild: None,
            old_wilds: Vec::new(),
            won: vec![Vec::new(); n],
            won_all_play: vec![Vec::new(); n],
            queue: VecDeque::new(),
            lapsed: Vec::new(),
            contest: None,
            contests: 0,
            clock: 0,
            winners: None,
            edition: EDITION,
        };
        let mut game = Duple { state, deck };
        game.draw_category(ctx, true, &mut Vec::new());
        Ok(game)
    }

    /// Read a stored game back.
    pub fn load(value: &serde_json::Value) -> Result<Duple, String> {
        let state: State =
            serde_json::from_value(value.clone()).map_err(|e| format!("the stored Duple game cannot be read: {e}"))?;
        let deck = state.custom_deck.clone().unwrap_or_else(Deck::standard);
        if state.piles.iter().flat_map(|p| &p.cards).any(|c| usize::from(*c) >= deck.letter_deck_size()) {
            return Err("the stored Duple game names a card its deck does not have".into());
        }
        Ok(Duple { state, deck })
    }
}

/// The master rules on challenges (`uphold`, `reject`) and may answer for the table.
impl MasterLines for Duple {
    fn master(&mut self, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        self.lines(None, text, ctx)
    }
}

/// Duple's answer, challenge and vote windows, which it sets itself.
impl crate::turn::Windows for Duple {
    /// The answers of the open faceoff or All Play that are not out.
    fn answers(&self) -> Vec<(String, String)> {
        let Some(c) = &self.state.contest else { return Vec::new() };
        Self::live_answers(c)
            .into_iter()
            .map(|i| (self.name(c.answers[i].player).to_string(), c.answers[i].text.clone()))
            .collect()
    }

    fn deadline(&self) -> Option<DateTime<Utc>> {
        if self.state.winners.is_some() {
            return None;
        }
        let c = self.state.contest.as_ref()?;
        let answers = (!c.answers_closed).then_some(c.closes);
        match (answers, Self::open_window(c)) {
            (Some(a), Some(w)) => Some(a.min(w)),
            (a, w) => a.or(w),
        }
    }

    /// A window that closed by `now` (a line sent to it is too late) is not named as
    /// awaited before the tick settles it: nobody is awaited, and the answer says which
    /// window closed; answers stay awaited when they are still taken (the vote rejected
    /// the answer whose window closed). Edition 0: the master rules until the tick.
    fn awaiting_at(&self, now: DateTime<Utc>) -> Awaiting {
        let awaiting = self.awaiting();
        let Some(c) = self.state.contest.as_ref().filter(|_| self.state.winners.is_none()) else {
            return awaiting;
        };
        let now = secs(now);
        let answers_open = !c.answers_closed && !self.past(now, c.closes);
        let closed = |what: String| Awaiting {
            players: Vec::new(),
            what: format!("nobody: {what}; the judge's next tick settles it"),
            optional: false,
            master: false,
        };
        let Some(i) = Self::candidate(c) else {
            if answers_open {
                return awaiting;
            }
            let label = self.contest_label(c);
            return closed(format!("answers to {label} closed at {}", when(c.closes)));
        };
        let a = &c.answers[i];
        let Some(end) = a.window_end.filter(|e| a.window_closed || self.past(now, *e)) else { return awaiting };
        if self.state.edition == 0 && awaiting.master {
            return awaiting;
        }
        if answers_open && !self.stands_when_closed(a) {
            let what = format!("answers to {}", self.contest_label(c));
            return Awaiting { players: c.players.clone(), what, optional: false, master: false };
        }
        closed(format!("the challenge window for {} closed at {}", a.text, when(end)))
    }

    /// After a rollback to the start of a faceoff or All Play: it opens again now, with
    /// all its time (every time it holds moves by as much).
    fn rebase(&mut self, now: DateTime<Utc>) {
        let Some(c) = self.state.contest.as_mut() else { return };
        let shift = secs(now) - c.opened;
        let moved = |t: &mut DateTime<Utc>| *t = t.checked_add_signed(shift).unwrap_or(*t);
        moved(&mut c.opened);
        moved(&mut c.closes);
        for a in &mut c.answers {
            moved(&mut a.at);
            a.announced.iter_mut().chain(a.window_end.iter_mut()).for_each(moved);
            a.challenge.iter_mut().for_each(|ch| moved(&mut ch.at));
        }
    }
}

impl TurnGame for Duple {
    fn windows(&self) -> Option<&dyn crate::turn::Windows> {
        Some(self)
    }

    fn windows_mut(&mut self) -> Option<&mut dyn crate::turn::Windows> {
        Some(self)
    }

    fn players(&self) -> Vec<String> {
        self.state.players.clone()
    }

    fn submit(&mut self, player: usize, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        if player >= self.n() {
            return TurnAck { lines: vec![LineAnswer::refused(1, 1, "no such player")], events: Vec::new() };
        }
        self.lines(Some(player), text, ctx)
    }

    fn master_lines(&mut self) -> Option<&mut dyn MasterLines> {
        Some(self)
    }

    /// Answers made of the contest's letters (words or not: the game and its challenges
    /// sort them out), a challenge and both votes.
    fn candidate_lines(&self, seat: crate::turn::Seat) -> Vec<String> {
        let crate::turn::Seat::Player(player) = seat else {
            // The master's ruling, when one is awaited.
            return if self.awaiting().master { vec!["uphold".into(), "reject".into()] } else { Vec::new() };
        };
        let Some(c) =
            self.state.contest.as_ref().filter(|c| self.state.winners.is_none() && c.players.contains(&player))
        else {
            return Vec::new();
        };
        let stem: String = c.letters.iter().collect::<String>().to_lowercase();
        let mut lines: Vec<String> =
            [format!("{stem}e"), format!("{stem}ar"), format!("a{stem}o")].map(|w| format!("answer {w}")).to_vec();
        lines.extend(["challenge", "vote accept", "vote reject"].map(String::from));
        lines
    }

    fn awaiting(&self) -> Awaiting {
        let Some(c) = self.state.contest.as_ref().filter(|_| self.state.winners.is_none()) else {
            return Awaiting::default();
        };
        let what = self.contest_label(c);
        match Self::candidate(c) {
            None => Awaiting {
                players: c.players.clone(),
                what: format!("answers to {what}"),
                optional: false,
                master: false,
            },
            Some(i) => {
                let a = &c.answers[i];
                match &a.challenge {
                    Some(ch) if self.state.rules.challenges == Settle::Vote && !ch.voters.is_empty() => Awaiting {
                        players: ch.voters.iter().copied().filter(|v| !ch.votes.iter().any(|x| x.0 == *v)).collect(),
                        what: format!("votes on the challenge to {}", a.text),
                        optional: false,
                        master: false,
                    },
                    Some(_) => Awaiting {
                        players: Vec::new(),
                        what: format!("the game master's ruling on {}", a.text),
                        optional: false,
                        master: true,
                    },
                    None => Awaiting {
                        players: c.players.iter().copied().filter(|p| *p != a.player).collect(),
                        what: format!("a challenge to {}, if any", a.text),
                        optional: true,
                        master: false,
                    },
                }
            }
        }
    }

    fn together(&self) -> crate::turn::Together {
        match self.vote_under_way() {
            Some(true) => crate::turn::Together::Held,
            Some(false) => crate::turn::Together::Gathering,
            None => crate::turn::Together::Not,
        }
    }

    fn advance(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut events = Vec::new();
        if self.state.winners.is_some() {
            return events;
        }
        let now = secs(ctx.now);
        if !self.state.started {
            self.state.started = true;
            events.push(format!(
                "{} deals and draws first. The category is {}.",
                self.name(self.state.dealer),
                self.category_text()
            ));
        }
        if self.state.contest.is_some() {
            self.settle(ctx, &mut events);
            if self.state.contest.is_some() {
                return events;
            }
        }
        for _ in 0..10_000 {
            if let Some(card) = self.state.category.filter(|c| self.deck.is_all_play(*c)) {
                let letters = self.face_up_letters();
                if letters.is_empty() {
                    self.state.category = None;
                    self.state.categories.shuffle_back(card);
                    events.push("An All Play Card comes up with no letter face up; it is shuffled back.".into());
                    self.draw_category(ctx, true, &mut events);
                    continue;
                }
                self.open_all_play(card, letters, now, &mut events);
                return events;
            }
            if let Some(m) = self.next_match() {
                self.open_faceoff(m, now, &mut events);
                return events;
            }
            self.draw_turn(ctx, &mut events);
            if self.state.winners.is_some() {
                return events;
            }
        }
        events
    }

    fn force(&mut self, _why: crate::turn::Defaulted, ctx: &mut TurnContext<'_>) -> Vec<String> {
        let mut events = Vec::new();
        let Some(c) = self.state.contest.as_mut() else { return events };
        let label = match c.kind {
            ContestKind::Faceoff { .. } => format!("faceoff {}", c.number),
            ContestKind::AllPlay { .. } => format!("All Play {}", c.number),
        };
        let candidate = Self::candidate(c).filter(|i| !c.answers[*i].window_closed);
        let answers_end = (!c.answers_closed).then_some(c.closes);
        match (candidate, answers_end) {
            (Some(i), end) if end.is_none_or(|e| c.answers[i].window_end.is_none_or(|w| w <= e)) => {
                c.answers[i].window_closed = true;
                events.push(format!(
                    "The window for {}'s answer {} is closed.",
                    self.state.players[c.answers[i].player], c.answers[i].text
                ));
            }
            (_, Some(_)) => {
                c.answers_closed = true;
                events.push(format!("Answers to {label} are closed."));
            }
            _ => {}
        }
        self.settle(ctx, &mut events);
        events
    }

    fn ending(&self) -> Option<Ending> {
        self.state.winners.as_ref().map(|w| Ending::Won { players: w.clone() })
    }

    fn round(&self) -> u32 {
        self.state.contests
    }

    fn step_label(&self) -> String {
        if self.state.winners.is_some() {
            return "the end".into();
        }
        match &self.state.contest {
            Some(c) => {
                let mut label = self.contest_label(c);
                if c.tiebreaks > 0 {
                    label.push_str(&format!(" (tiebreak {})", c.tiebreaks));
                }
                if c.stuck > 0 {
                    label.push_str(&format!(" (new category {} of {MAX_STUCK})", c.stuck));
                }
                label
            }
            None => format!("turn {}", self.state.turns + 1),
        }
    }

    fn option_lines(&self) -> Vec<String> {
        let r = &self.state.rules;
        vec![
            format!("challenge_hours = {}", r.challenge_hours.written()),
            format!("faceoff_hours = {}", r.faceoff_hours.written()),
            format!("allplay_hours = {}", r.allplay_hours.written()),
            format!("challenges = {}", if r.challenges == Settle::Vote { "vote" } else { "master" }),
            format!("deck = {}", r.deck),
        ]
    }

    fn report_text(&self) -> String {
        self.report()
    }

    fn status_json(&self) -> serde_json::Value {
        self.status()
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(&self.state).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
