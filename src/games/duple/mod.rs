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
//! order ([`draw`]). Every draw is made with the game's dice when the card is drawn.
//! This module does no IO and reads no clock but `ctx.now`.

mod deck;
mod draw;
mod lines;

use std::collections::VecDeque;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

pub use deck::{Deck, Drawn, LetterCard};
pub use draw::DrawPile;
pub use lines::{parse_line, Line};

use crate::games::kit::{self, Kind, OptionSpec};

use crate::games::Options;
use crate::text::count;
use crate::turn::{Awaiting, Ending, LineAnswer, TurnAck, TurnContext, TurnGame};

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
    pub challenge_hours: u32,
    pub faceoff_hours: u32,
    pub allplay_hours: u32,
    pub challenges: Settle,
    /// `standard`, or `custom` when the game brought its own deck.
    pub deck: String,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            challenge_hours: 12,
            faceoff_hours: 24,
            allplay_hours: 24,
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
    /// Hold a vote whose votes are all in until its window closes (see
    /// [`TurnGame::set_hold`]); not saved.
    hold: bool,
}

fn secs(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}

fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn hours(h: u32) -> Duration {
    Duration::hours(i64::from(h))
}

/// The options Duple takes.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "challenge_hours",
        kind: Kind::Number { low: 1, high: 720, none: false },
        default: "12",
        help: "hours a challenge stays open after an answer",
    },
    OptionSpec {
        name: "faceoff_hours",
        kind: Kind::Number { low: 1, high: 720, none: false },
        default: "24",
        help: "hours a faceoff waits for answers",
    },
    OptionSpec {
        name: "allplay_hours",
        kind: Kind::Number { low: 1, high: 720, none: false },
        default: "24",
        help: "hours an all-play waits for answers",
    },
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
    let hours = |name| v.number(name).expect("a number, never `none`");
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
            return Err(format!(
                "Duple is for 2 to 8 players (2 play the two-player variant); the players file names {}",
                players.len()
            ));
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
        let mut game = Duple { state, deck, hold: false };
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
        Ok(Duple { state, deck, hold: false })
    }

    fn n(&self) -> usize {
        self.state.players.len()
    }

    fn name(&self, p: usize) -> &str {
        self.state.players.get(p).map_or("?", String::as_str)
    }

    fn two_player(&self) -> bool {
        self.n() == 2
    }

    fn pile_name(&self, pile: usize) -> String {
        let owner = self.state.piles[pile].owner;
        if self.two_player() {
            format!("{}'s pile {}", self.name(owner), pile % 2 + 1)
        } else {
            format!("{}'s pile", self.name(owner))
        }
    }

    fn top(&self, pile: usize) -> Option<u16> {
        self.state.piles.get(pile).and_then(|p| p.cards.last().copied())
    }

    fn symbol(&self, card: u16) -> usize {
        self.deck.letter(card).symbol
    }

    /// Whether two top cards match: the same symbol, or the two symbols of the Wild Card.
    fn cards_match(&self, a: u16, b: u16) -> Option<bool> {
        let (sa, sb) = (self.symbol(a), self.symbol(b));
        if sa == sb {
            return Some(false);
        }
        match self.state.wild.map(|w| self.deck.drawn(w)) {
            Some(Drawn::Wild([x, y])) if (sa == x && sb == y) || (sa == y && sb == x) => Some(true),
            _ => None,
        }
    }

    fn lapsed(&self, a: u16, b: u16) -> bool {
        self.state.lapsed.iter().any(|l| (l[0] == a && l[1] == b) || (l[0] == b && l[1] == a))
    }

    /// A lapsed pair is forgotten once either card leaves the top (covered or won): when
    /// it is revealed again, the match is played like any other.
    fn forget_lapsed(&mut self) {
        if self.state.edition == 0 {
            return;
        }
        let tops: Vec<u16> = (0..self.state.piles.len()).filter_map(|p| self.top(p)).collect();
        self.state.lapsed.retain(|l| tops.contains(&l[0]) && tops.contains(&l[1]));
    }

    /// Piles in seat order from the drawer (a player's first pile before their second).
    fn piles_in_seat_order(&self) -> Vec<usize> {
        let n = self.n();
        let drawer = self.state.drawer;
        let mut order: Vec<usize> = (0..self.state.piles.len()).collect();
        order.sort_by_key(|&p| ((self.state.piles[p].owner + n - drawer) % n, p));
        order
    }

    fn live(&self, a: usize, b: usize) -> Option<Match> {
        let (ca, cb) = (self.top(a)?, self.top(b)?);
        (a != b && self.cards_match(ca, cb).is_some() && !self.lapsed(ca, cb))
            .then_some(Match { piles: [a, b], cards: [ca, cb] })
    }

    /// Queue the matches of the card now on top of `pile`, in seat order from the drawer.
    fn queue_matches_of(&mut self, pile: usize) {
        for q in self.piles_in_seat_order() {
            if let Some(m) = self.live(pile, q) {
                self.state.queue.push_back(m);
            }
        }
    }

    /// Every match on the table, in seat order from the drawer.
    fn all_matches(&self) -> Vec<Match> {
        let order = self.piles_in_seat_order();
        let mut out = Vec::new();
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                if let Some(m) = self.live(a, b) {
                    out.push(m);
                }
            }
        }
        out
    }

    /// The next match still on the table: the queue first, then anything left.
    fn next_match(&mut self) -> Option<Match> {
        while let Some(m) = self.state.queue.pop_front() {
            if self.live(m.piles[0], m.piles[1]).is_some_and(|now| now.cards == m.cards) {
                return Some(m);
            }
        }
        let all = self.all_matches();
        let first = all.first().cloned();
        self.state.queue.extend(all.into_iter().skip(1));
        first
    }

    fn tick(&mut self) -> u64 {
        self.state.clock += 1;
        self.state.clock
    }

    fn face_up_letters(&self) -> Vec<char> {
        (0..self.state.piles.len()).filter_map(|p| self.top(p)).map(|c| self.deck.letter(c).letter).collect()
    }

    fn category_text(&self) -> String {
        match self.state.category {
            Some(c) => self.deck.category_name(c).to_string(),
            None => "none".into(),
        }
    }

    fn discard_category(&mut self) {
        if let Some(c) = self.state.category.take() {
            if self.deck.is_all_play(c) {
                self.state.categories.shuffle_back(c);
            } else {
                self.state.discards.push(c);
            }
        }
    }

    /// Turn up the next category card. Without `all_play`, an All Play Card that comes up
    /// goes back into the deck (during a tiebreak or a stuck faceoff).
    fn draw_category(&mut self, ctx: &mut TurnContext<'_>, all_play: bool, events: &mut Vec<String>) {
        for _ in 0..1_000 {
            if self.state.categories.is_empty() || (!all_play && self.state.categories.only_special()) {
                if self.state.discards.is_empty() {
                    break;
                }
                let cards = std::mem::take(&mut self.state.discards);
                self.state.categories.refill(cards);
                events.push("The used Category Cards are shuffled into a new category deck.".into());
            }
            let Some(card) = self.state.categories.draw(ctx.dice, "category deck") else { break };
            if self.deck.is_all_play(card) && !all_play {
                self.state.categories.shuffle_back(card);
                events.push("An All Play Card came up during the faceoff; it goes back into the deck.".into());
                continue;
            }
            self.state.category = Some(card);
            return;
        }
        self.state.category = None;
    }

    fn change_category(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        self.discard_category();
        self.draw_category(ctx, true, events);
    }

    fn letters_text(letters: &[char]) -> String {
        let l: Vec<String> = letters.iter().map(|c| c.to_string()).collect();
        match l.len() {
            0 => "no letters".into(),
            1 => l[0].clone(),
            _ => format!("{} and {}", l[..l.len() - 1].join(", "), l[l.len() - 1]),
        }
    }

    fn open_faceoff(&mut self, m: Match, now: DateTime<Utc>, events: &mut Vec<String>) {
        let [a, b] = m.piles;
        let by_wild = self.cards_match(m.cards[0], m.cards[1]) == Some(true);
        let (oa, ob) = (self.state.piles[a].owner, self.state.piles[b].owner);
        let players: Vec<usize> = if oa == ob {
            let n = self.n();
            (0..n).map(|i| (self.state.drawer + i) % n).collect()
        } else {
            vec![oa, ob]
        };
        let letters = vec![self.deck.letter(m.cards[0]).letter, self.deck.letter(m.cards[1]).letter];
        self.state.contests += 1;
        let closes = now + hours(self.state.rules.faceoff_hours);
        let how = if by_wild {
            format!("match by the Wild Card {}", self.deck.describe_wild(self.state.wild.unwrap_or_default()))
        } else {
            "match".to_string()
        };
        let who: Vec<&str> = players.iter().map(|p| self.name(*p)).collect();
        events.push(format!(
            "Faceoff {}: {} shows {}, {} shows {}: a {}. {}: a word in {} with {}; answers until {}.",
            self.state.contests,
            self.pile_name(a),
            self.deck.describe_letter(m.cards[0]),
            self.pile_name(b),
            self.deck.describe_letter(m.cards[1]),
            how,
            who.join(" and "),
            self.category_text(),
            Self::letters_text(&letters),
            when(closes)
        ));
        self.state.contest = Some(Contest {
            number: self.state.contests,
            kind: ContestKind::Faceoff { piles: m.piles, cards: m.cards, by_wild },
            players,
            letters,
            opened: now,
            closes,
            answers_closed: false,
            stuck: 0,
            tiebreaks: 0,
            answers: Vec::new(),
            next_seq: 0,
        });
    }

    fn open_all_play(&mut self, card: u16, letters: Vec<char>, now: DateTime<Utc>, events: &mut Vec<String>) {
        self.state.contests += 1;
        let closes = now + hours(self.state.rules.allplay_hours);
        events.push(format!(
            "All Play {}: everyone, one word (no proper noun, no category) with {}; answers until {}.",
            self.state.contests,
            Self::letters_text(&letters),
            when(closes)
        ));
        let n = self.n();
        self.state.contest = Some(Contest {
            number: self.state.contests,
            kind: ContestKind::AllPlay { card },
            players: (0..n).map(|i| (self.state.drawer + i) % n).collect(),
            letters,
            opened: now,
            closes,
            answers_closed: false,
            stuck: 0,
            tiebreaks: 0,
            answers: Vec::new(),
            next_seq: 0,
        });
    }

    fn end_game(&mut self, events: &mut Vec<String>) {
        let scores: Vec<usize> = (0..self.n()).map(|p| self.score(p)).collect();
        let best = scores.iter().copied().max().unwrap_or(0);
        let winners: Vec<usize> = (0..self.n()).filter(|p| scores[*p] == best).collect();
        let table: Vec<String> = (0..self.n()).map(|p| format!("{} {}", self.name(p), scores[p])).collect();
        let names: Vec<&str> = winners.iter().map(|p| self.name(*p)).collect();
        events.push(format!(
            "The letter deck is empty: the game is over. Points: {}. {} {}.",
            table.join(", "),
            names.join(" and "),
            if winners.len() == 1 { "wins" } else { "share the win" }
        ));
        self.state.winners = Some(winners);
    }

    /// Points: each Letter Card won 1, each All Play Card 2.
    pub fn score(&self, p: usize) -> usize {
        self.state.won[p].len() + 2 * self.state.won_all_play[p].len()
    }

    /// Draw for the player whose turn it is.
    fn draw_turn(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let p = self.state.next_drawer;
        let Some(card) = self.state.letters.draw(ctx.dice, "letter deck") else {
            self.end_game(events);
            return;
        };
        self.state.drawer = p;
        match self.deck.drawn(card) {
            Drawn::Wild(_) => {
                if let Some(old) = self.state.wild.replace(card) {
                    self.state.old_wilds.push(old);
                }
                events.push(format!(
                    "{} draws a Wild Card: {}. It replaces the Wild Card before it; {} draws again after its faceoffs.",
                    self.name(p),
                    self.deck.describe_wild(card),
                    self.name(p)
                ));
                for m in self.all_matches() {
                    if self.cards_match(m.cards[0], m.cards[1]) == Some(true) {
                        self.state.queue.push_back(m);
                    }
                }
            }
            Drawn::Letter(_) => {
                let per = if self.two_player() { 2 } else { 1 };
                let pile = p * per + self.state.next_pile[p];
                self.state.next_pile[p] = (self.state.next_pile[p] + 1) % per;
                let since = self.tick();
                self.state.piles[pile].cards.push(card);
                self.state.piles[pile].since = since;
                self.state.turns += 1;
                self.state.next_drawer = (p + 1) % self.n();
                self.forget_lapsed();
                events.push(format!(
                    "Turn {}: {} draws {}{}.",
                    self.state.turns,
                    self.name(p),
                    self.deck.describe_letter(card),
                    if self.two_player() { format!(" onto pile {}", pile % 2 + 1) } else { String::new() }
                ));
                self.queue_matches_of(pile);
            }
        }
    }

    // ---- answers, challenges and their windows ----

    /// Indexes of the answers not out, first received first.
    fn live_answers(c: &Contest) -> Vec<usize> {
        let mut live: Vec<usize> = (0..c.answers.len()).filter(|i| c.answers[*i].out.is_none()).collect();
        live.sort_by_key(|i| (c.answers[*i].at, c.answers[*i].seq));
        live
    }

    /// A vote on a challenge under way (the players vote, the window is open, no ruling):
    /// `Some(true)` once every voter has voted.
    fn vote_under_way(&self) -> Option<bool> {
        let c = self.state.contest.as_ref().filter(|_| self.state.winners.is_none())?;
        let a = &c.answers[Self::candidate(c)?];
        let ch = a.challenge.as_ref()?;
        let counted = self.state.rules.challenges == Settle::Vote && !ch.voters.is_empty();
        (counted && a.ruling.is_none() && !a.window_closed).then_some(ch.votes.len() == ch.voters.len())
    }

    /// Whether a window that ends at `end` is over at `now`. A window closes at its time:
    /// a line received in that very second is too late (edition 0: it was still taken).
    fn past(&self, now: DateTime<Utc>, end: DateTime<Utc>) -> bool {
        if self.state.edition > 0 {
            now >= end
        } else {
            now > end
        }
    }

    /// Whether an answer stands when its challenge window closes, as things are: the
    /// master's ruling, else the votes cast (in a game that votes), else it stands.
    fn stands_when_closed(&self, a: &Answer) -> bool {
        match (a.ruling, &a.challenge) {
            (Some(upheld), _) => upheld,
            (None, Some(ch)) if self.state.rules.challenges == Settle::Vote => {
                let accept = ch.votes.iter().filter(|v| v.1).count();
                ch.votes.len() - accept <= accept
            }
            _ => true,
        }
    }

    /// When the challenge window of the answer under consideration ends, while it is open.
    fn open_window(c: &Contest) -> Option<DateTime<Utc>> {
        Self::candidate(c).filter(|i| !c.answers[*i].window_closed).and_then(|i| c.answers[i].window_end)
    }

    /// The answer under consideration (announced, not out).
    fn candidate(c: &Contest) -> Option<usize> {
        Self::live_answers(c).into_iter().next().filter(|i| c.answers[*i].announced.is_some())
    }

    /// Settle what can be settled at `now`: windows that ended, ties, challenges decided.
    fn settle(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let now = secs(ctx.now);
        for _ in 0..1_000 {
            let challenge_hours = hours(self.state.rules.challenge_hours);
            let Some(c) = self.state.contest.as_mut() else { return };
            if !c.answers_closed && now >= c.closes {
                c.answers_closed = true;
            }
            let live = Self::live_answers(c);
            let Some(&first) = live.first() else {
                if c.answers_closed {
                    self.nobody_answered(ctx, events);
                    continue;
                }
                return;
            };
            let first_at = c.answers[first].at;
            let mut tied: Vec<usize> =
                live.iter().filter(|i| c.answers[**i].at == first_at).map(|i| c.answers[*i].player).collect();
            tied.dedup();
            tied.sort();
            tied.dedup();
            if tied.len() >= 2 {
                self.tie(ctx, &tied, events);
                continue;
            }
            let a = &mut c.answers[first];
            if a.announced.is_none() {
                a.announced = Some(now);
                a.window_end = Some(now + challenge_hours);
                let text = format!(
                    "{}'s answer {} (received {}) is the one to beat; a challenge may be made until {}.",
                    self.state.players[a.player],
                    a.text,
                    when(a.at),
                    when(now + challenge_hours)
                );
                events.push(text);
            }
            let a = &self.state.contest.as_ref().expect("open").answers[first];
            let closed = a.window_closed || a.window_end.is_some_and(|e| now >= e);
            let verdict = match (&a.ruling, &a.challenge) {
                (Some(r), _) => Some((*r, "by the game master".to_string())),
                (None, Some(ch)) => {
                    let accept = ch.votes.iter().filter(|v| v.1).count();
                    let reject = ch.votes.len() - accept;
                    // Every vote in ends the vote early, unless it is held (early processing
                    // off, or a `wait`): then it is counted when the window closes.
                    let all_in = !ch.voters.is_empty() && ch.votes.len() == ch.voters.len() && !self.hold;
                    let counted = self.state.rules.challenges == Settle::Vote;
                    if counted && (all_in || closed) {
                        Some((reject <= accept, format!("by vote, {accept} accept, {reject} reject")))
                    } else if closed {
                        Some((true, "no ruling came before the window closed".to_string()))
                    } else {
                        None
                    }
                }
                (None, None) => closed.then(|| (true, "unchallenged".to_string())),
            };
            match verdict {
                None => return,
                Some((true, how)) => {
                    self.win(first, &how, ctx, events);
                }
                Some((false, how)) => {
                    let c = self.state.contest.as_mut().expect("open");
                    let a = &mut c.answers[first];
                    a.out = Some(format!("rejected {how}"));
                    let text =
                        format!("{}'s answer {} is rejected {how}: it is out.", self.state.players[a.player], a.text);
                    events.push(text);
                }
            }
        }
    }

    fn tie(&mut self, ctx: &mut TurnContext<'_>, tied: &[usize], events: &mut Vec<String>) {
        let now = secs(ctx.now);
        let names: Vec<&str> = tied.iter().map(|p| self.name(*p)).collect();
        let names = names.join(" and ");
        let c = self.state.contest.as_ref().expect("open");
        match c.kind {
            ContestKind::Faceoff { .. } => {
                let before = self.category_text();
                self.discard_category();
                self.draw_category(ctx, false, events);
                let closes = now + hours(self.state.rules.faceoff_hours);
                let category = self.category_text();
                let c = self.state.contest.as_mut().expect("open");
                c.tiebreaks += 1;
                c.stuck = 0;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "{names} answered in the same second: a tiebreak. The category changes from {before} to {category}; \
                     the same letters, {}; answers until {}.",
                    Self::letters_text(&c.letters),
                    when(closes)
                ));
            }
            ContestKind::AllPlay { .. } => {
                let closes = now + hours(self.state.rules.allplay_hours);
                let c = self.state.contest.as_mut().expect("open");
                c.tiebreaks += 1;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "{names} answered in the same second: the All Play starts again with the same letters; answers until {}.",
                    when(closes)
                ));
            }
        }
    }

    fn nobody_answered(&mut self, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let now = secs(ctx.now);
        let c = self.state.contest.clone().expect("open");
        match c.kind {
            ContestKind::Faceoff { .. } if c.stuck < MAX_STUCK => {
                self.discard_category();
                self.draw_category(ctx, false, events);
                let closes = now + hours(self.state.rules.faceoff_hours);
                let category = self.category_text();
                let c = self.state.contest.as_mut().expect("open");
                c.stuck += 1;
                c.answers.clear();
                c.opened = now;
                c.closes = closes;
                c.answers_closed = false;
                events.push(format!(
                    "Faceoff {}: no acceptable answer in time. Stuck ({} of {MAX_STUCK}): the category changes to {category}; \
                     the faceoff reopens until {}.",
                    c.number,
                    c.stuck,
                    when(closes)
                ));
            }
            ContestKind::Faceoff { cards, .. } => {
                self.state.lapsed.push(cards);
                self.state.contest = None;
                events.push(format!(
                    "Faceoff {}: no acceptable answer after {MAX_STUCK} new categories: it lapses and no card moves.",
                    c.number
                ));
                self.change_category(ctx, events);
                self.announce_category(events);
            }
            ContestKind::AllPlay { card } => {
                self.state.contest = None;
                self.state.category = None;
                self.state.categories.shuffle_back(card);
                events.push(format!(
                    "All Play {}: no acceptable answer in time; the All Play Card is shuffled back into the category deck.",
                    c.number
                ));
                self.draw_category(ctx, true, events);
                self.announce_category(events);
            }
        }
    }

    fn announce_category(&self, events: &mut Vec<String>) {
        events.push(format!("The category is now {}.", self.category_text()));
    }

    fn win(&mut self, answer: usize, how: &str, ctx: &mut TurnContext<'_>, events: &mut Vec<String>) {
        let c = self.state.contest.take().expect("open");
        let a = &c.answers[answer];
        let p = a.player;
        match c.kind {
            ContestKind::Faceoff { piles: [x, y], .. } => {
                let (ox, oy) = (self.state.piles[x].owner, self.state.piles[y].owner);
                let from = if ox == oy {
                    // A match within one player's piles: the winner takes the card just drawn.
                    if self.state.piles[x].since > self.state.piles[y].since {
                        x
                    } else {
                        y
                    }
                } else if ox == p {
                    y
                } else {
                    x
                };
                let Some(card) = self.state.piles[from].cards.pop() else { return };
                self.state.won[p].push(card);
                events.push(format!(
                    "{} wins faceoff {} with {} ({how}) and takes {} from {}.",
                    self.name(p),
                    c.number,
                    a.text,
                    self.deck.describe_letter(card),
                    self.pile_name(from)
                ));
                let since = self.tick();
                self.state.piles[from].since = since;
                self.forget_lapsed();
                match self.top(from) {
                    Some(top) => {
                        events.push(format!("{} shows {} again.", self.pile_name(from), self.deck.describe_letter(top)))
                    }
                    None => events.push(format!("{} is empty.", self.pile_name(from))),
                }
                self.queue_matches_of(from);
                self.change_category(ctx, events);
            }
            ContestKind::AllPlay { card } => {
                self.state.won_all_play[p].push(card);
                self.state.category = None;
                events.push(format!(
                    "{} wins All Play {} with {} ({how}) and takes the All Play Card (2 points).",
                    self.name(p),
                    c.number,
                    a.text
                ));
                self.draw_category(ctx, true, events);
            }
        }
        self.announce_category(events);
    }

    /// Check an answer's letters: every letter needed, as many times as needed.
    pub fn missing_letters(word: &str, needed: &[char]) -> Option<String> {
        let mut have = [0usize; 26];
        for c in word.chars().filter(char::is_ascii_alphabetic) {
            have[usize::from(c.to_ascii_uppercase() as u8 - b'A')] += 1;
        }
        let mut want = [0usize; 26];
        for c in needed.iter().filter(|c| c.is_ascii_alphabetic()) {
            want[usize::from(c.to_ascii_uppercase() as u8 - b'A')] += 1;
        }
        let short: Vec<String> = (0..26)
            .filter(|i| have[*i] < want[*i])
            .map(|i| {
                let l = (b'A' + i as u8) as char;
                match want[i] {
                    1 => format!("no {l}"),
                    w => format!("{} {l} where {w} are needed", have[i]),
                }
            })
            .collect();
        (!short.is_empty()).then(|| short.join(", "))
    }

    /// Apply one line from `who` (`None`: the game master). Nothing changes on an error.
    fn play(
        &mut self,
        who: Option<usize>,
        line: Line,
        ctx: &mut TurnContext<'_>,
    ) -> Result<(String, Vec<String>), String> {
        let now = secs(ctx.now);
        if self.state.winners.is_some() {
            return Err("the game is over".into());
        }
        let Some(c) = self.state.contest.as_ref() else {
            return Err("no faceoff or All Play is open".into());
        };
        let in_words = match c.kind {
            ContestKind::Faceoff { .. } => format!("faceoff {}", c.number),
            ContestKind::AllPlay { .. } => format!("All Play {}", c.number),
        };
        let master_only = "only the game master rules on an answer (`uphold`, `reject`)";
        let msg = match line {
            Line::Answer { text, proper } => {
                let p = who.ok_or("the game master does not answer; the master's lines are `uphold` and `reject`")?;
                if !c.players.contains(&p) {
                    let names: Vec<&str> = c.players.iter().map(|q| self.name(*q)).collect();
                    return Err(format!("you are not in {in_words}: only {} answer", names.join(" and ")));
                }
                if now < c.opened {
                    return Err(format!("received at {}, before {in_words} opened ({})", when(now), when(c.opened)));
                }
                if c.answers_closed || self.past(now, c.closes) {
                    return Err(format!("too late: answers to {in_words} closed at {}", when(c.closes)));
                }
                if let Some(a) = Self::candidate(c).map(|i| &c.answers[i]).filter(|_| self.state.edition > 0) {
                    if let Some(end) = a.window_end.filter(|e| a.window_closed || now >= *e) {
                        if self.stands_when_closed(a) {
                            return Err(format!(
                                "too late: {}'s answer {} won {in_words} when its challenge window closed at {}",
                                self.name(a.player),
                                a.text,
                                when(end)
                            ));
                        }
                    }
                }
                if let ContestKind::AllPlay { .. } = c.kind {
                    if proper {
                        return Err("no proper nouns in an All Play: one ordinary word".into());
                    }
                }
                if let Some(missing) = Self::missing_letters(&text, &c.letters) {
                    return Err(format!("{text} has {missing} (it needs {})", Self::letters_text(&c.letters)));
                }
                if c.answers.iter().any(|a| a.player == p && a.text.eq_ignore_ascii_case(&text)) {
                    return Err(format!("you already answered {text}"));
                }
                let mine = c.answers.iter().filter(|a| a.player == p && a.out.is_none()).count();
                let capped = self.state.edition > 0;
                if capped && mine >= MAX_ANSWERS {
                    return Err(format!(
                        "{CAP_REASON}{} under way in {in_words}, the most one player may have; \
                         another is taken once one of them is out",
                        count(mine, "answer", "answers")
                    ));
                }
                let full = if capped && mine + 1 == MAX_ANSWERS {
                    format!(" ({MAX_ANSWERS} answers under way: the most one player may have)")
                } else {
                    String::new()
                };
                let c = self.state.contest.as_mut().expect("open");
                c.answers.push(Answer {
                    player: p,
                    text: text.clone(),
                    proper,
                    at: now,
                    seq: c.next_seq,
                    announced: None,
                    window_end: None,
                    window_closed: false,
                    challenge: None,
                    ruling: None,
                    out: None,
                });
                c.next_seq += 1;
                format!("answer {text}{}: received {}{full}", if proper { " (proper noun)" } else { "" }, when(now))
            }
            Line::Challenge => {
                let p = who.ok_or("the game master rules with `uphold` or `reject`, not `challenge`")?;
                let i = Self::candidate(c).ok_or("no answer is under consideration to challenge")?;
                let a = &c.answers[i];
                if a.player == p {
                    return Err("you cannot challenge your own answer".into());
                }
                if !c.players.contains(&p) {
                    return Err(format!(
                        "only the players of {in_words} may challenge its answers; you may vote if it is challenged"
                    ));
                }
                if let Some(ch) = &a.challenge {
                    return Err(format!("{} is already challenged by {}", a.text, self.name(ch.by)));
                }
                if a.ruling.is_some() {
                    return Err(format!("the game master has already ruled on {}", a.text));
                }
                let end = a.window_end.unwrap_or(now);
                if a.window_closed || self.past(now, end) {
                    return Err(format!("too late: the challenge window for {} closed at {}", a.text, when(end)));
                }
                let voters: Vec<usize> = match c.kind {
                    ContestKind::Faceoff { .. } => (0..self.n()).filter(|q| !c.players.contains(q)).collect(),
                    ContestKind::AllPlay { .. } => (0..self.n())
                        .filter(|q| *q != p && *q != a.player && !c.answers.iter().any(|x| x.player == *q))
                        .collect(),
                };
                let text = a.text.clone();
                let note = match (self.state.rules.challenges, voters.is_empty()) {
                    (Settle::Master, _) => "the game master rules on it".to_string(),
                    (Settle::Vote, true) => {
                        "nobody may vote on it: it stands unless the game master rejects it before the window closes"
                            .into()
                    }
                    (Settle::Vote, false) => {
                        let names: Vec<&str> = voters.iter().map(|q| self.name(*q)).collect();
                        let verb = crate::text::plural(names.len(), "votes", "vote");
                        format!("{} {verb} until {}", names.join(" and "), when(end))
                    }
                };
                let c = self.state.contest.as_mut().expect("open");
                c.answers[i].challenge = Some(Challenge { by: p, at: now, voters, votes: Vec::new() });
                format!("challenge to {text}: {note}")
            }
            Line::Vote(accept) => {
                let p = who.ok_or("the game master rules with `uphold` or `reject`, not by vote")?;
                if self.state.rules.challenges == Settle::Master {
                    return Err("in this game the game master settles challenges; players do not vote".into());
                }
                let i = Self::candidate(c)
                    .filter(|i| c.answers[*i].challenge.is_some())
                    .ok_or("no challenge is open to vote on")?;
                let a = &c.answers[i];
                let ch = a.challenge.as_ref().expect("challenged");
                if ch.votes.iter().any(|v| v.0 == p) {
                    return Err("you already voted on this challenge".into());
                }
                if !ch.voters.contains(&p) {
                    return Err(match c.kind {
                        ContestKind::Faceoff { .. } if c.players.contains(&p) => {
                            format!("you are in {in_words}: only the players outside it vote")
                        }
                        _ => "you may not vote on this challenge: you answered, challenged, or gave the answer".into(),
                    });
                }
                let end = a.window_end.unwrap_or(now);
                if a.window_closed || self.past(now, end) {
                    return Err(format!("too late: voting on {} closed at {}", a.text, when(end)));
                }
                let text = a.text.clone();
                let c = self.state.contest.as_mut().expect("open");
                if let Some(ch) = c.answers[i].challenge.as_mut() {
                    ch.votes.push((p, accept));
                }
                format!("vote {} {text}", if accept { "to accept" } else { "to reject" })
            }
            Line::Uphold | Line::Reject => {
                if who.is_some() {
                    return Err(master_only.into());
                }
                let i = Self::candidate(c).ok_or("no answer is under consideration")?;
                let a = &c.answers[i];
                let text = a.text.clone();
                // The master too rules only while the window is open: at its end the
                // answer was settled as it stood, whenever the tick comes.
                if let Some(end) = a.window_end.filter(|e| self.state.edition > 0 && (a.window_closed || now >= *e)) {
                    return Err(format!(
                        "too late: the challenge window for {text} closed at {}, and {text} {} then",
                        when(end),
                        if self.stands_when_closed(a) { "stood" } else { "was rejected by the vote" }
                    ));
                }
                let upheld = line == Line::Uphold;
                let c = self.state.contest.as_mut().expect("open");
                c.answers[i].ruling = Some(upheld);
                if upheld {
                    format!("uphold: {text} stands")
                } else {
                    format!("reject: {text} is out")
                }
            }
        };
        let mut events = Vec::new();
        self.settle(ctx, &mut events);
        Ok((msg, events))
    }

    fn lines(&mut self, who: Option<usize>, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        let mut ack = TurnAck::default();
        // The cap's reason in full once a message; after that, in brief.
        let mut capped_at: Option<usize> = None;
        for read in kit::lines(text) {
            let n = read.number;
            match parse_line(&read) {
                Err(u) => ack.lines.push(u.answer(n)),
                Ok(line) => match self.play(who, line, ctx) {
                    Ok((msg, events)) => {
                        ack.lines.push(LineAnswer::accepted(n, msg));
                        ack.events.extend(events);
                    }
                    Err(reason) if reason.starts_with(CAP_REASON) => {
                        let reason = match capped_at {
                            Some(first) => format!("{MAX_ANSWERS} answers under way, as at line {first}"),
                            None => reason,
                        };
                        capped_at.get_or_insert(n);
                        ack.lines.push(LineAnswer::refused(n, 1, reason));
                    }
                    Err(reason) => ack.lines.push(LineAnswer::refused(n, 1, reason)),
                },
            }
        }
        ack
    }

    fn contest_label(&self, c: &Contest) -> String {
        match c.kind {
            ContestKind::Faceoff { piles: [a, b], .. } => {
                let (oa, ob) = (self.state.piles[a].owner, self.state.piles[b].owner);
                if oa == ob {
                    format!("faceoff {}: {}'s two piles", c.number, self.name(oa))
                } else {
                    format!("faceoff {}: {} v {}", c.number, self.name(oa), self.name(ob))
                }
            }
            ContestKind::AllPlay { .. } => format!("All Play {}", c.number),
        }
    }

    fn answer_json(&self, c: &Contest, i: usize) -> serde_json::Value {
        let a = &c.answers[i];
        let state = if let Some(why) = &a.out {
            format!("out: {why}")
        } else if Self::candidate(c) == Some(i) {
            "under consideration".to_string()
        } else {
            "waiting".to_string()
        };
        json!({
            "player": self.name(a.player),
            "answer": a.text,
            "proper": a.proper,
            "at": a.at,
            "state": state,
            "challenge_until": a.window_end,
            "ruling": a.ruling.map(|r| if r { "upheld" } else { "rejected" }),
            "challenge": a.challenge.as_ref().map(|ch| json!({
                "by": self.name(ch.by),
                "at": ch.at,
                "voters": ch.voters.iter().map(|v| self.name(*v)).collect::<Vec<_>>(),
                "votes": ch.votes.iter().map(|(v, acc)| json!({"player": self.name(*v), "vote": if *acc { "accept" } else { "reject" }})).collect::<Vec<_>>(),
            })),
        })
    }

    fn card_json(&self, card: Option<u16>) -> serde_json::Value {
        match card {
            Some(c) => {
                let l = self.deck.letter(c);
                json!({"letter": l.letter.to_string(), "symbol": self.deck.symbols[l.symbol]})
            }
            None => serde_json::Value::Null,
        }
    }

    /// Every card of the letter deck, wherever it is: (in piles, won, deck, Wild Cards
    /// out), for the accounting checks.
    pub fn letter_cards_accounted(&self) -> usize {
        self.state.piles.iter().map(|p| p.cards.len()).sum::<usize>()
            + self.state.won.iter().map(Vec::len).sum::<usize>()
            + self.state.letters.len()
            + usize::from(self.state.wild.is_some())
            + self.state.old_wilds.len()
    }

    /// Every card of the category deck, wherever it is.
    pub fn category_cards_accounted(&self) -> usize {
        self.state.categories.len()
            + usize::from(self.state.category.is_some())
            + self.state.discards.len()
            + self.state.won_all_play.iter().map(Vec::len).sum::<usize>()
    }
}

impl TurnGame for Duple {
    fn kind(&self) -> &'static str {
        KIND
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

    fn master(&mut self, text: &str, ctx: &mut TurnContext<'_>) -> TurnAck {
        self.lines(None, text, ctx)
    }

    /// Answers made of the contest's letters (words or not: the game and its challenges
    /// sort them out), a challenge and both votes.
    fn candidate_lines(&self, player: usize) -> Vec<String> {
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

    fn master_candidates(&self) -> Vec<String> {
        if self.awaiting().master {
            vec!["uphold".into(), "reject".into()]
        } else {
            Vec::new()
        }
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

    fn awaits_together(&self) -> bool {
        self.vote_under_way().is_some_and(|all_in| !all_in)
    }

    fn set_hold(&mut self, hold: bool) {
        self.hold = hold;
    }

    fn held(&self) -> bool {
        self.vote_under_way() == Some(true)
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

    fn force(&mut self, ctx: &mut TurnContext<'_>) -> Vec<String> {
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
            format!("challenge_hours = {}", r.challenge_hours),
            format!("faceoff_hours = {}", r.faceoff_hours),
            format!("allplay_hours = {}", r.allplay_hours),
            format!("challenges = {}", if r.challenges == Settle::Vote { "vote" } else { "master" }),
            format!("deck = {}", r.deck),
        ]
    }

    fn report_text(&self) -> String {
        let s = &self.state;
        let mut out = String::new();
        out.push_str(&format!(
            "Table (dealer {}; next to draw {}):\n",
            self.name(s.dealer),
            if s.winners.is_some() { "nobody" } else { self.name(s.next_drawer) }
        ));
        let width = s.players.iter().map(|p| p.len()).max().unwrap_or(0);
        for p in 0..self.n() {
            let piles: Vec<String> = (0..s.piles.len())
                .filter(|i| s.piles[*i].owner == p)
                .map(|i| {
                    let top = self.top(i).map_or("-".to_string(), |c| self.deck.describe_letter(c));
                    format!("{top:<10} pile {:>2}", s.piles[i].cards.len())
                })
                .collect();
            out.push_str(&format!(
                "  {:<width$}  {}   won {}, {} All Play = {}\n",
                self.name(p),
                piles.join("   "),
                count(s.won[p].len(), "Letter Card", "Letter Cards"),
                s.won_all_play[p].len(),
                count(self.score(p), "point", "points")
            ));
        }
        out.push_str(&format!(
            "Wild Card: {}\n",
            s.wild.map_or("none yet".to_string(), |w| self.deck.describe_wild(w))
        ));
        out.push_str(&format!("Category: {}\n", self.category_text()));
        out.push_str(&format!(
            "Cards left: {} in the letter deck, {} in the category deck.\n",
            s.letters.len(),
            s.categories.len()
        ));
        if let Some(c) = &s.contest {
            out.push('\n');
            match c.kind {
                ContestKind::Faceoff { piles: [a, b], cards, by_wild } => {
                    out.push_str(&format!(
                        "Faceoff {}: {} {} and {} {}{}.\n",
                        c.number,
                        self.pile_name(a),
                        self.deck.describe_letter(cards[0]),
                        self.pile_name(b),
                        self.deck.describe_letter(cards[1]),
                        if by_wild { " (by the Wild Card)" } else { "" }
                    ));
                    let who: Vec<&str> = c.players.iter().map(|p| self.name(*p)).collect();
                    out.push_str(&format!(
                        "  {} answer: a word in {} with {}.\n",
                        who.join(" and "),
                        self.category_text(),
                        Self::letters_text(&c.letters)
                    ));
                }
                ContestKind::AllPlay { .. } => {
                    out.push_str(&format!(
                        "All Play {}: everyone answers: one word, no proper noun, with {}.\n",
                        c.number,
                        Self::letters_text(&c.letters)
                    ));
                }
            }
            if c.tiebreaks > 0 || c.stuck > 0 {
                out.push_str(&format!(
                    "  Tiebreaks: {}; new categories (stuck): {} of {MAX_STUCK}.\n",
                    c.tiebreaks, c.stuck
                ));
            }
            out.push_str(&format!(
                "  Answers {} {}.\n",
                if c.answers_closed { "closed at" } else { "until" },
                when(c.closes)
            ));
            let mut order = (0..c.answers.len()).collect::<Vec<_>>();
            order.sort_by_key(|i| (c.answers[*i].at, c.answers[*i].seq));
            let candidate = Self::candidate(c);
            for i in order {
                let a = &c.answers[i];
                let mut line = format!(
                    "  - {} {}{} at {}",
                    self.name(a.player),
                    a.text,
                    if a.proper { " (proper)" } else { "" },
                    when(a.at)
                );
                if let Some(why) = &a.out {
                    line.push_str(&format!(": out, {why}"));
                } else if candidate == Some(i) {
                    line.push_str(&format!(
                        ": under consideration, challenge until {}",
                        a.window_end.map_or("?".into(), when)
                    ));
                    if let Some(ch) = &a.challenge {
                        let acc = ch.votes.iter().filter(|v| v.1).count();
                        line.push_str(&format!(
                            "; challenged by {} ({} accept, {} reject of {})",
                            self.name(ch.by),
                            acc,
                            ch.votes.len() - acc,
                            count(ch.voters.len(), "voter", "voters")
                        ));
                    }
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        if let Some(w) = &s.winners {
            let names: Vec<&str> = w.iter().map(|p| self.name(*p)).collect();
            out.push_str(&format!(
                "\nFinal points: {}. {} {}.\n",
                (0..self.n()).map(|p| format!("{} {}", self.name(p), self.score(p))).collect::<Vec<_>>().join(", "),
                names.join(" and "),
                if w.len() == 1 { "wins" } else { "share the win" }
            ));
        }
        out
    }

    fn status_json(&self) -> serde_json::Value {
        let s = &self.state;
        let table: Vec<serde_json::Value> = (0..self.n())
            .map(|p| {
                let piles: Vec<serde_json::Value> = (0..s.piles.len())
                    .filter(|i| s.piles[*i].owner == p)
                    .map(|i| json!({"top": self.card_json(self.top(i)), "size": s.piles[i].cards.len()}))
                    .collect();
                json!({"player": self.name(p), "top": piles[0]["top"].clone(), "piles": piles})
            })
            .collect();
        let open = s.contest.as_ref().map(|c| {
            let (kind, cards) = match c.kind {
                ContestKind::Faceoff { cards, .. } => ("faceoff", vec![self.card_json(Some(cards[0])), self.card_json(Some(cards[1]))]),
                ContestKind::AllPlay { .. } => ("all_play", Vec::new()),
            };
            json!({
                "kind": kind,
                "number": c.number,
                "players": c.players.iter().map(|p| self.name(*p)).collect::<Vec<_>>(),
                "cards": cards,
                "letters": c.letters.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
                "category": if kind == "faceoff" { serde_json::Value::from(self.category_text()) } else { serde_json::Value::Null },
                "opened": c.opened,
                "deadline": c.closes,
                "answers_until": c.closes,
                "challenge_until": Self::open_window(c),
                "answers_closed": c.answers_closed,
                "stuck": c.stuck,
                "tiebreaks": c.tiebreaks,
                "answers": (0..c.answers.len()).map(|i| self.answer_json(c, i)).collect::<Vec<_>>(),
            })
        });
        let won: Vec<serde_json::Value> = (0..self.n())
            .map(|p| {
                json!({
                    "player": self.name(p),
                    "letter_cards": s.won[p].len(),
                    "all_play_cards": s.won_all_play[p].len(),
                    "points": self.score(p),
                })
            })
            .collect();
        let awaiting = self.awaiting();
        // The game's deadline is the earlier of the two: say which.
        let deadline_for = s.contest.as_ref().filter(|_| s.winners.is_none()).and_then(|c| {
            match (Self::open_window(c), (!c.answers_closed).then_some(c.closes)) {
                (Some(w), Some(a)) if w > a => Some("answers"),
                (Some(_), _) => Some("challenge"),
                (None, Some(_)) => Some("answers"),
                (None, None) => None,
            }
        });
        let mut status = json!({
            "game": KIND,
            "deadline_for": deadline_for,
            "step": self.step_label(),
            "round": s.contests,
            "players": s.players,
            "dealer": self.name(s.dealer),
            "next_to_draw": self.name(s.next_drawer),
            "awaiting": awaiting.players.iter().map(|p| self.name(*p)).collect::<Vec<_>>(),
            "awaiting_what": awaiting.what,
            "options": self.option_lines(),
            "table": table,
            "wild": s.wild.map(|w| match self.deck.drawn(w) {
                Drawn::Wild([a, b]) => json!({"symbols": [self.deck.symbols[a], self.deck.symbols[b]]}),
                Drawn::Letter(_) => serde_json::Value::Null,
            }),
            "category": s.category.map(|c| self.deck.category_name(c).to_string()),
            "open": open,
            "won": won,
            "cards_left": s.letters.len(),
            "categories_left": s.categories.len(),
        });
        crate::games::insert_ending(&mut status, self.ending().as_ref(), &self.players());
        status
    }

    fn save(&self) -> serde_json::Value {
        serde_json::to_value(&self.state).unwrap_or_default()
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
}

#[cfg(test)]
mod tests;
