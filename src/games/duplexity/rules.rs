//! The rules of Duplexity as our rulings read them (docs/duplexity.md): setup, the round
//! (Energize, Initiative, Act, the March, the Future, the end check), the actions, and
//! landing.
//!
//! [`Duplexity`] is the whole game state, and its methods are a typed API for programs
//! that play it (the turn files of [`super::turnfile`] come down to the same calls):
//! [`Duplexity::place`], [`Duplexity::bid`], [`Duplexity::activate`],
//! [`Duplexity::choose`], then [`Duplexity::settle`] for the automatic steps, and
//! [`Duplexity::force`] for the deadline defaults. Every roll goes through the [`Dice`]
//! handed in; nothing here reads a clock or does IO. What happens is told in plain words
//! to a [`Log`], which a program that needs no words can switch off: the state is the
//! same either way.

use serde::{Deserialize, Serialize};

use super::board::{Board, Cell, Pawn, Space, Zone, LETHAL_WOUNDS, LOCATIONS};
use crate::dice::Dice;
use crate::turn::Ending;

/// Energy each player starts with.
pub const START_ENERGY: u32 = 1;
/// The most energy one Shift spends (and zones it crosses).
pub const MAX_SHIFT: u32 = 4;

/// What happened, told as it happens, one sentence a line. Off: nothing is written (and
/// nothing formatted), for programs that play many games; the answers of the typed API
/// ([`Duplexity::place`], [`Duplexity::bid`], [`Duplexity::activate`],
/// [`Duplexity::choose`]) are then empty too. Refusals are always written.
#[derive(Debug, Default)]
pub struct Log {
    pub lines: Vec<String>,
    pub off: bool,
}

impl Log {
    pub fn new() -> Log {
        Log::default()
    }

    /// A log that keeps nothing.
    pub fn silent() -> Log {
        Log { lines: Vec::new(), off: true }
    }
}

/// Tell the log, formatting only when it listens.
macro_rules! say {
    ($log:expr, $($arg:tt)*) => {
        if !$log.off {
            $log.lines.push(format!($($arg)*));
        }
    };
}

/// The answer to an accepted line, written only when the log listens (see [`Log`]).
macro_rules! answer {
    ($log:expr, $($arg:tt)*) => {
        if $log.off {
            String::new()
        } else {
            format!($($arg)*)
        }
    };
}

/// The parts of an activation's answer, one per action, kept only when the log listens:
/// the actions carried out, and those not done with why.
struct Parts {
    words: bool,
    list: Vec<String>,
    not_done: Vec<String>,
}

impl Parts {
    fn new(log: &Log) -> Parts {
        Parts { words: !log.off, list: Vec::new(), not_done: Vec::new() }
    }

    fn push(&mut self, part: impl FnOnce() -> String) {
        if self.words {
            self.list.push(part());
        }
    }

    fn not_done(&mut self, action: &Action, why: impl FnOnce() -> String) {
        if self.words {
            self.not_done.push(format!("Not done: `{action}`, as {}.", why()));
        }
    }

    /// The answer after `head` (`pawn P3`, `to 7`). When an action was not done, it says
    /// plainly that the pawn acted all the same, and which actions were carried out.
    fn answer(&self, head: &str) -> String {
        if self.not_done.is_empty() {
            return format!("{head}: {}", self.list.join(", "));
        }
        let done = if self.list.is_empty() { "nothing".to_string() } else { self.list.join(", ") };
        format!("{head}: the pawn has acted. Done: {done}. {}", self.not_done.join(" "))
    }

    /// The report's line for an activation with actions not done (the others are told
    /// as they happen).
    fn summary(&self, log: &mut Log, who: &str, pawn: Space) {
        if !self.not_done.is_empty() {
            say!(log, "{who}'s pawn from {pawn} has acted. {}", self.not_done.join(" "));
        }
    }
}

/// The rules options of one game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The most pawns a player may have on the board at once (`None`: unlimited).
    pub pawn_limit: Option<u32>,
    /// After this round the game is drawn (`None`: no limit).
    pub max_rounds: Option<u32>,
}

/// One player: a name and an energy supply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub name: String,
    pub energy: u32,
}

/// What the winner of the Initiative chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The winner acts first.
    First,
    /// The other player acts first.
    Second,
}

/// A sealed bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bid {
    pub amount: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
}

impl Bid {
    /// The bid as a turn file writes it after `bid`: `2`, `2 first`, `2 second`.
    pub fn spelled(&self) -> String {
        match self.order {
            None => self.amount.to_string(),
            Some(Order::First) => format!("{} first", self.amount),
            Some(Order::Second) => format!("{} second", self.amount),
        }
    }
}

/// Which way a Move goes, or how to choose it once the die is rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    /// The judge rolls, then waits for `to N` (unless the roll leaves one space).
    Ask,
    /// Rising numbers: 6 -> 7 -> 8 -> 1.
    Rising,
    /// Falling numbers.
    Falling,
    /// The first of these locations the roll reaches; otherwise the judge waits.
    Prefer(Vec<u8>),
}

/// A Hazard or a Haven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Token {
    Hazard,
    Haven,
}

impl Token {
    pub fn name(self) -> &'static str {
        match self {
            Token::Hazard => "Hazard",
            Token::Haven => "Haven",
        }
    }
}

/// One action of an activation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    Move {
        way: Way,
    },
    /// Zones toward the future (positive) or the past (negative).
    Shift {
        by: i32,
    },
    /// Exert: gain 1 energy.
    Gather,
    /// Exert: spend 1 energy to add or remove a token in another zone at the pawn's location.
    Alter {
        #[serde(with = "zone_code")]
        zone: Zone,
        add: bool,
        token: Token,
    },
}

/// The three kinds of action; each at most once an activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Move,
    Exert,
    Shift,
}

impl Action {
    pub fn kind(&self) -> Kind {
        match self {
            Action::Move { .. } => Kind::Move,
            Action::Shift { .. } => Kind::Shift,
            Action::Gather | Action::Alter { .. } => Kind::Exert,
        }
    }
}

impl std::fmt::Display for Action {
    /// The canonical spelling, as a turn file writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Action::Move { way: Way::Ask } => write!(f, "move"),
            Action::Move { way: Way::Rising } => write!(f, "move +"),
            Action::Move { way: Way::Falling } => write!(f, "move -"),
            Action::Move { way: Way::Prefer(list) } => {
                write!(f, "move prefer")?;
                for l in list {
                    write!(f, " {l}")?;
                }
                Ok(())
            }
            Action::Shift { by } => write!(f, "shift {by:+}"),
            Action::Gather => write!(f, "gather"),
            Action::Alter { zone, add, token } => write!(
                f,
                "alter {} {} {}",
                zone.code(),
                if *add { "add" } else { "remove" },
                token.name().to_ascii_lowercase()
            ),
        }
    }
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Move => "Move",
            Kind::Exert => "Exert",
            Kind::Shift => "Shift",
        }
    }

    /// `a Move`, `an Exert`.
    fn with_article(self) -> &'static str {
        match self {
            Kind::Move => "a Move",
            Kind::Exert => "an Exert",
            Kind::Shift => "a Shift",
        }
    }
}

mod zone_code {
    use super::Zone;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(z: &Zone, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(z.code())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Zone, D::Error> {
        let code = String::deserialize(d)?;
        Zone::ALL
            .into_iter()
            .find(|z| z.code() == code)
            .ok_or_else(|| serde::de::Error::custom(format!("`{code}` is not a zone (DP, IP, P, NF, FF)")))
    }
}

/// A Move rolled, waiting for the player to say where it goes (`to 7`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingMove {
    pub player: u8,
    /// Where the pawn stands.
    pub pawn: Space,
    pub roll: u8,
    /// The two spaces the roll reaches (rising, falling).
    pub choices: [Space; 2],
    /// The actions written after the Move, done once it is made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rest: Vec<Action>,
    /// The kinds of action this activation has used or holds (the Move included).
    pub used: Vec<KindName>,
}

/// A [`Kind`] as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KindName {
    Move,
    Exert,
    Shift,
}

impl From<Kind> for KindName {
    fn from(k: Kind) -> KindName {
        match k {
            Kind::Move => KindName::Move,
            Kind::Exert => KindName::Exert,
            Kind::Shift => KindName::Shift,
        }
    }
}

/// Where the game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case", deny_unknown_fields)]
pub enum Stage {
    /// `next` places a pawn in the Present (`first` placed, or places, the first pawn).
    /// `ahead`: the other player's placement, sent before the first pawn was down; it is
    /// made once it is, if it is still allowed.
    Setup {
        first: u8,
        next: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ahead: Option<Space>,
    },
    /// Sealed bids, as they come in.
    Bid { bids: [Option<Bid>; 2] },
    /// Activations: `turn` is the player to activate (or to say where a Move goes).
    Act {
        first: u8,
        turn: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<PendingMove>,
    },
    /// The game is over.
    Over,
}

/// Why a line was refused: the reason, and perhaps a suggestion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: String,
    pub hint: Option<String>,
}

impl Refusal {
    fn new(reason: impl Into<String>) -> Refusal {
        Refusal { reason: reason.into(), hint: None }
    }

    fn hint(mut self, hint: impl Into<String>) -> Refusal {
        self.hint = Some(hint.into());
        self
    }
}

/// A whole game of Duplexity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Duplexity {
    pub settings: Settings,
    pub players: [Player; 2],
    pub board: Board,
    /// 0 during setup, then the round under way.
    pub round: u32,
    pub stage: Stage,
    pub ending: Option<Ending>,
}

fn other(p: u8) -> u8 {
    1 - p
}

/// `1 Wound`, `2 Wounds`.
fn wounds(n: u32) -> String {
    if n == 1 {
        "1 Wound".into()
    } else {
        format!("{n} Wounds")
    }
}

/// `A Hazard`, `2 Hazards`: the start of a sentence.
fn tokens_cap(n: u32, token: Token) -> String {
    if n == 1 {
        format!("A {}", token.name())
    } else {
        format!("{n} {}s", token.name())
    }
}

fn tokens(n: u32, token: Token) -> String {
    if n == 1 {
        format!("a {}", token.name())
    } else {
        format!("{n} {}s", token.name())
    }
}

impl Duplexity {
    /// A new game for two players (seat order). Who places first is rolled as at the
    /// table: each player's d6, again while tied; the higher places first.
    pub fn new(names: [String; 2], settings: Settings, dice: &mut Dice, log: &mut Log) -> Duplexity {
        let first: u8 = loop {
            let a = dice.roll(6, format!("setup: {}'s d6 for who places first", names[0]));
            let b = dice.roll(6, format!("setup: {}'s d6 for who places first", names[1]));
            say!(log, "Who places first: {} rolls {a}, {} rolls {b}.", names[0], names[1]);
            if a != b {
                break if a > b { 0 } else { 1 };
            }
        };
        say!(log, "{} places the first pawn.", names[usize::from(first)]);
        Duplexity {
            settings,
            players: names.map(|name| Player { name, energy: START_ENERGY }),
            board: Board::default(),
            round: 0,
            stage: Stage::Setup { first, next: first, ahead: None },
            ending: None,
        }
    }

    pub fn name(&self, p: u8) -> &str {
        &self.players[usize::from(p)].name
    }

    pub fn energy(&self, p: u8) -> u32 {
        self.players[usize::from(p)].energy
    }

    fn energy_mut(&mut self, p: u8) -> &mut u32 {
        &mut self.players[usize::from(p)].energy
    }

    /// The players whose input the game waits for, in seat order.
    pub fn awaited(&self) -> Vec<u8> {
        (0..2u8).filter(|p| self.awaits(*p)).collect()
    }

    /// Whether the game waits for `player`'s input.
    pub fn awaits(&self, player: u8) -> bool {
        match &self.stage {
            Stage::Setup { next, .. } => *next == player,
            Stage::Bid { bids } => bids.get(usize::from(player)).is_some_and(|b| b.is_none()),
            Stage::Act { turn, .. } => *turn == player,
            Stage::Over => false,
        }
    }

    /// Refused once the game is over.
    fn over(&self) -> Result<(), Refusal> {
        match self.ending {
            Some(_) => Err(Refusal::new("the game is over")),
            None => Ok(()),
        }
    }

    /// Why `player` may not send anything now, if so.
    fn not_awaited(&self, player: u8, what: &str) -> Result<(), Refusal> {
        self.over()?;
        if self.awaits(player) {
            return Ok(());
        }
        let awaited = self.awaited();
        let waiting: Vec<&str> = awaited.iter().map(|p| self.name(*p)).collect();
        let now = match &self.stage {
            Stage::Setup { .. } => "to place a pawn",
            Stage::Bid { .. } => "for a bid",
            Stage::Act { pending: Some(_), .. } => "to say where a Move goes",
            Stage::Act { .. } => "to activate a pawn",
            Stage::Over => "",
        };
        Err(Refusal::new(format!(
            "not your turn to {what}: the judge is waiting for {} {now}",
            if waiting.is_empty() { "nobody".to_string() } else { waiting.join(" and ") }
        )))
    }

    /// Setup: place a pawn in a Present space.
    pub fn place(&mut self, player: u8, space: Space, log: &mut Log) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Setup { first, next, ahead } = self.stage else {
            return Err(Refusal::new("pawns are placed only at the start of the game"));
        };
        if space.zone != Zone::Present {
            return Err(Refusal::new(format!("{space} is not in the Present: the first pawns go in the Present"))
                .hint(format!("place P{}", space.location())));
        }
        if player != next && next == first && player < 2 {
            // The second player's placement before the first pawn is down: kept, and
            // made as soon as that pawn is, if it is still allowed then.
            self.stage = Stage::Setup { first, next, ahead: Some(space) };
            return Ok(match ahead {
                Some(before) => answer!(
                    log,
                    "place {space} kept (replaces {before}): {} places first; yours is made right after, if it is still allowed",
                    self.name(first)
                ),
                None => answer!(
                    log,
                    "place {space} kept: {} places first; yours is made right after, if it is still allowed",
                    self.name(first)
                ),
            });
        }
        self.not_awaited(player, "place a pawn")?;
        if let Some((theirs, _)) = self.board.pawns().next() {
            if theirs == space {
                return Err(Refusal::new(format!("{space} already holds {}'s pawn", self.name(other(player)))));
            }
            if Space::ring_distance(theirs.location(), space.location()) == LOCATIONS / 2 {
                return Err(Refusal::new(format!(
                    "{space} is 4 steps from {}'s pawn at {theirs}: the second pawn may not go there",
                    self.name(other(player))
                )));
            }
        }
        self.board.cell_mut(space).pawn = Some(Pawn { owner: player, wounds: 0, acted: false });
        say!(log, "{} places a pawn at {space}.", self.name(player));
        if next == first {
            self.stage = Stage::Setup { first, next: other(first), ahead: None };
            if let Some(kept) = ahead {
                let second = other(first);
                if let Err(r) = self.place(second, kept, log) {
                    say!(
                        log,
                        "{}'s placement sent ahead, {kept}, cannot be made: {}; {} places again.",
                        self.name(second),
                        r.reason,
                        self.name(second)
                    );
                }
            }
        } else {
            // Both pawns are down: the first round begins (Energize, then the bids).
            self.stage = Stage::Bid { bids: [None; 2] };
            self.start_round(log);
        }
        Ok(answer!(log, "place {space}"))
    }

    /// The spaces where `player` may place a pawn now, in board order.
    pub fn placeable(&self, player: u8) -> Vec<Space> {
        (1..=LOCATIONS)
            .filter_map(|l| Space::new(Zone::Present, l))
            .filter(|s| {
                let mut probe = self.clone();
                probe.place(player, *s, &mut Log::silent()).is_ok()
            })
            .collect()
    }

    /// Initiative: a sealed bid (it may be changed until the other bid is in).
    pub fn bid(&mut self, player: u8, bid: Bid, log: &mut Log) -> Result<String, Refusal> {
        self.over()?;
        let energy = self.energy(player);
        let Stage::Bid { bids } = &mut self.stage else {
            return Err(Refusal::new("bids are made only at the Initiative, at the start of a round"));
        };
        if bids.iter().all(Option::is_some) {
            // Both are in and still here: held to the deadline (a `wait`, or early
            // processing off), when they are opened as they are.
            return Err(Refusal::new(
                "both bids are in and held until the deadline, when they are opened: a bid can no longer be changed",
            ));
        }
        if bid.amount > energy {
            return Err(Refusal::new(format!("a bid of {} is more than your {energy} energy", bid.amount))
                .hint(format!("bid {energy} or less")));
        }
        let before = bids[usize::from(player)].replace(bid);
        if before.is_some() {
            say!(log, "{} has changed the bid (sealed until both bids are in).", self.name(player));
        } else {
            say!(log, "{} has bid (sealed until both bids are in).", self.name(player));
        }
        Ok(match before {
            Some(b) => answer!(log, "bid {} (replaces your bid of {})", bid.spelled(), b.spelled()),
            None => answer!(log, "bid {}", bid.spelled()),
        })
    }

    /// Act: activate one of `player`'s pawns that has not acted, with these actions in
    /// order. The answer is the activation in canonical words, with each action refused
    /// and why. A Move that waits for its direction holds the rest of the actions.
    pub fn activate(
        &mut self,
        player: u8,
        pawn: Space,
        actions: Vec<Action>,
        dice: &mut Dice,
        log: &mut Log,
    ) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Act { pending, .. } = &self.stage else {
            return Err(Refusal::new("pawns act only in the Act, after the bids"));
        };
        self.not_awaited(player, "activate a pawn")?;
        if let Some(p) = pending {
            return Err(Refusal::new(format!("your pawn at {} rolled {} and waits for where it goes", p.pawn, p.roll))
                .hint(format!("to {} or to {}", p.choices[0].location(), p.choices[1].location())));
        }
        let refusal = match self.board.pawn(pawn) {
            None => Some(format!("there is no pawn at {pawn}")),
            Some(p) if p.owner != player => Some(format!("the pawn at {pawn} is {}'s", self.name(p.owner))),
            Some(p) if p.acted => Some(format!("your pawn at {pawn} has acted this round")),
            Some(_) => None,
        };
        if let Some(reason) = refusal {
            let mine: Vec<String> = self.unspent(player).iter().map(|s| s.to_string()).collect();
            return Err(Refusal::new(reason).hint(format!("your pawns that can act: {}", mine.join(", "))));
        }
        let mut used: Vec<KindName> = Vec::with_capacity(3);
        for a in &actions {
            let k = a.kind();
            if used.contains(&k.into()) {
                return Err(Refusal::new(format!(
                    "a pawn does each of Move, Exert and Shift at most once: this one has two {}s",
                    k.name()
                )));
            }
            used.push(k.into());
        }
        if let Some(p) = self.board.cell_mut(pawn).pawn.as_mut() {
            p.acted = true;
        }
        let mut parts = Parts::new(log);
        if actions.is_empty() {
            parts.push(|| "no action".to_string());
            say!(log, "{}'s pawn at {pawn} acts with no action.", self.name(player));
        }
        let waits = self.run_actions(player, pawn, &actions, used, dice, log, &mut parts);
        self.after_activation(player, waits);
        if !log.off {
            parts.summary(log, &self.players[usize::from(player)].name.clone(), pawn);
        }
        Ok(answer!(log, "{}", parts.answer(&format!("pawn {pawn}"))))
    }

    /// The direction of a Move that waits: `to` a location the roll reaches, then the
    /// actions held from the activation line and any given here.
    pub fn choose(
        &mut self,
        player: u8,
        to: u8,
        zone: Option<Zone>,
        more: Vec<Action>,
        dice: &mut Dice,
        log: &mut Log,
    ) -> Result<String, Refusal> {
        self.over()?;
        let Stage::Act { pending: Some(p), .. } = &self.stage else {
            return Err(Refusal::new("no Move waits for a direction"));
        };
        self.not_awaited(player, "say where a Move goes")?;
        let hint = || format!("to {} or to {}", p.choices[0].location(), p.choices[1].location());
        if zone.is_some_and(|z| z != p.pawn.zone) {
            return Err(Refusal::new(format!("a Move stays in its zone: the pawn is at {}", p.pawn)).hint(hint()));
        }
        let Some(dest) = p.choices.iter().copied().find(|c| c.location() == to) else {
            return Err(
                Refusal::new(format!("a roll of {} from {} does not reach location {to}", p.roll, p.pawn)).hint(hint())
            );
        };
        let p = p.clone();
        let mut used = p.used.clone();
        for a in &more {
            let k = a.kind();
            if used.contains(&k.into()) {
                return Err(Refusal::new(format!(
                    "a pawn does each of Move, Exert and Shift at most once: this activation already has {}",
                    k.with_article()
                )));
            }
            used.push(k.into());
        }
        let mut parts = Parts::new(log);
        parts.push(|| format!("the pawn at {} moves to {dest}", p.pawn));
        self.make_move(player, p.pawn, dest, p.roll, log);
        let mut actions = p.rest;
        actions.extend(more);
        if let Stage::Act { pending, .. } = &mut self.stage {
            *pending = None;
        }
        let waits = self.run_actions(player, dest, &actions, used, dice, log, &mut parts);
        self.after_activation(player, waits);
        if !log.off {
            parts.summary(log, &self.players[usize::from(player)].name.clone(), p.pawn);
        }
        Ok(answer!(log, "{}", parts.answer(&format!("to {}", dest.location()))))
    }

    /// The activation is done (or waits for a direction): whose turn is next.
    fn after_activation(&mut self, player: u8, waits: Option<PendingMove>) {
        let Stage::Act { turn, pending, .. } = &mut self.stage else { return };
        match waits {
            Some(w) => *pending = Some(w),
            None => {
                *pending = None;
                *turn = other(player);
            }
        }
    }

    /// Do `actions` for the pawn at `at`, in order. Returns the Move that waits for its
    /// direction, if one does (holding the actions after it).
    #[allow(clippy::too_many_arguments)]
    fn run_actions(
        &mut self,
        player: u8,
        mut at: Space,
        actions: &[Action],
        used: Vec<KindName>,
        dice: &mut Dice,
        log: &mut Log,
        parts: &mut Parts,
    ) -> Option<PendingMove> {
        for (i, action) in actions.iter().enumerate() {
            if self.board.pawn(at).is_none_or(|p| p.owner != player) {
                parts.not_done(action, || "the pawn has left the game".to_string());
                continue;
            }
            match self.act(player, at, action, dice, log) {
                Ok(Done::At(s)) if s != at => {
                    parts.push(|| format!("{action} (now at {s})"));
                    at = s;
                }
                Ok(Done::At(_)) => parts.push(|| action.to_string()),
                Ok(Done::Waits { roll, choices }) => {
                    parts.push(|| {
                        format!(
                            "move: rolled {roll}, waiting for `to {}` or `to {}`",
                            choices[0].location(),
                            choices[1].location()
                        )
                    });
                    say!(
                        log,
                        "{}'s pawn at {at} rolled {roll} to Move: it can go to {} or {}.",
                        self.name(player),
                        choices[0],
                        choices[1]
                    );
                    return Some(PendingMove {
                        player,
                        pawn: at,
                        roll,
                        choices,
                        rest: actions[i + 1..].to_vec(),
                        used,
                    });
                }
                Err(reason) => parts.not_done(action, || reason.to_string()),
            }
        }
        None
    }

    /// One action of the pawn at `at`. `Ok` with where the pawn is after it.
    fn act(&mut self, player: u8, at: Space, action: &Action, dice: &mut Dice, log: &mut Log) -> Result<Done, Unable> {
        match action {
            Action::Shift { by } => {
                let cost = by.unsigned_abs();
                if !(1..=MAX_SHIFT).contains(&cost) {
                    return Err(Unable::ShiftSize);
                }
                let energy = self.energy(player);
                if energy < cost {
                    return Err(Unable::ShiftCost { cost, energy });
                }
                let Some(zone) = at.zone.shifted(*by) else { return Err(Unable::OffBoard { at }) };
                *self.energy_mut(player) -= cost;
                let to = at.in_zone(zone);
                say!(log, "{}'s pawn at {at} shifts {by:+} to {to} ({cost} energy).", self.name(player));
                if let Some(pawn) = self.lift(at) {
                    self.land_pawn(to, pawn, log);
                }
                Ok(Done::At(to))
            }
            Action::Move { way } => {
                let roll = dice.roll(6, format!("{}: Move of the pawn at {at}", self.name(player))) as u8;
                let choices = [at.around(roll, true), at.around(roll, false)];
                let dest = if choices[0] == choices[1] {
                    Some(choices[0])
                } else {
                    match way {
                        Way::Rising => Some(choices[0]),
                        Way::Falling => Some(choices[1]),
                        Way::Prefer(list) => {
                            list.iter().find_map(|l| choices.iter().copied().find(|c| c.location() == *l))
                        }
                        Way::Ask => None,
                    }
                };
                match dest {
                    Some(to) => {
                        self.make_move(player, at, to, roll, log);
                        Ok(Done::At(to))
                    }
                    None => Ok(Done::Waits { roll, choices }),
                }
            }
            Action::Gather => {
                let e = self.energy(player).saturating_add(1);
                *self.energy_mut(player) = e;
                say!(log, "{}'s pawn at {at} gathers power: {} has {e} energy.", self.name(player), self.name(player));
                Ok(Done::At(at))
            }
            Action::Alter { zone, add, token } => {
                if *zone == at.zone {
                    return Err(Unable::AlterOwnZone { zone: at.zone });
                }
                let energy = self.energy(player);
                if energy < 1 {
                    return Err(Unable::AlterEnergy);
                }
                let target = at.in_zone(*zone);
                let cell = self.board.cell(target);
                let there = match token {
                    Token::Hazard => cell.hazards,
                    Token::Haven => cell.havens,
                };
                if !*add && there == 0 {
                    return Err(Unable::NoToken { token: *token, at: target });
                }
                *self.energy_mut(player) -= 1;
                if *add {
                    say!(
                        log,
                        "{}'s pawn at {at} alters fate: a {} is placed at {target}.",
                        self.name(player),
                        token.name()
                    );
                    match token {
                        Token::Hazard => self.land_tokens(target, 1, 0, log),
                        Token::Haven => self.land_tokens(target, 0, 1, log),
                    }
                } else {
                    say!(
                        log,
                        "{}'s pawn at {at} alters fate: a {} is removed from {target}.",
                        self.name(player),
                        token.name()
                    );
                    let cell = self.board.cell_mut(target);
                    match token {
                        Token::Hazard => cell.hazards -= 1,
                        Token::Haven => cell.havens -= 1,
                    }
                }
                Ok(Done::At(at))
            }
        }
    }

    fn make_move(&mut self, player: u8, from: Space, to: Space, roll: u8, log: &mut Log) {
        say!(log, "{}'s pawn at {from} rolled {roll} and moves to {to}.", self.name(player));
        if let Some(pawn) = self.lift(from) {
            self.land_pawn(to, pawn, log);
        }
    }

    /// Take the pawn off a space (which holds nothing else, by the invariant).
    fn lift(&mut self, at: Space) -> Option<Pawn> {
        self.board.cell_mut(at).pawn.take()
    }

    /// A pawn arrives at `at`: paradox, or the tokens there trigger.
    pub(crate) fn land_pawn(&mut self, at: Space, pawn: Pawn, log: &mut Log) {
        if let Some(there) = self.board.pawn(at) {
            self.board.cell_mut(at).pawn = None;
            say!(
                log,
                "Paradox at {at}: {}'s pawn arrives where {}'s pawn stands; both leave the game{}, and a Hazard lands in every zone of location {}.",
                self.name(pawn.owner),
                self.name(there.owner),
                if pawn.wounds + there.wounds > 0 { " with their Wounds" } else { "" },
                at.location()
            );
            for v in at.versions() {
                self.land_tokens(v, 1, 0, log);
            }
            return;
        }
        self.board.cell_mut(at).pawn = Some(pawn);
        self.trigger(at, log);
    }

    /// Tokens arrive at `at` (they trigger if a pawn stands there).
    pub(crate) fn land_tokens(&mut self, at: Space, hazards: u32, havens: u32, log: &mut Log) {
        let cell = self.board.cell_mut(at);
        cell.hazards = cell.hazards.saturating_add(hazards);
        cell.havens = cell.havens.saturating_add(havens);
        self.trigger(at, log);
    }

    /// A pawn and tokens share `at`: Hazards become Wounds (3 remove the pawn, Havens
    /// stay), then each Haven heals a Wound if there is one and is used up.
    fn trigger(&mut self, at: Space, log: &mut Log) {
        let cell: &mut Cell = self.board.cell_mut(at);
        let Some(mut pawn) = cell.pawn else { return };
        let (hazards, havens) = (cell.hazards, cell.havens);
        if hazards > 0 {
            cell.hazards = 0;
            pawn.wounds = pawn.wounds.saturating_add(hazards);
            if pawn.wounds >= LETHAL_WOUNDS {
                cell.pawn = None;
                say!(
                    log,
                    "{} at {at} {}: {}'s pawn has {} and leaves the game with them{}.",
                    tokens_cap(hazards, Token::Hazard),
                    if hazards == 1 { "becomes a Wound" } else { "become Wounds" },
                    self.name(pawn.owner),
                    wounds(pawn.wounds),
                    if havens > 0 {
                        format!(" ({} stay{})", tokens(havens, Token::Haven), if havens == 1 { "s" } else { "" })
                    } else {
                        String::new()
                    }
                );
                return;
            }
            say!(
                log,
                "{} at {at} {}: {}'s pawn has {}.",
                tokens_cap(hazards, Token::Hazard),
                if hazards == 1 { "becomes a Wound" } else { "become Wounds" },
                self.name(pawn.owner),
                wounds(pawn.wounds)
            );
        }
        if havens > 0 {
            let healed = pawn.wounds.min(havens);
            pawn.wounds -= healed;
            if healed == 0 {
                say!(
                    log,
                    "{} at {at} {} used up by {}'s pawn, which has no Wound to heal.",
                    tokens_cap(havens, Token::Haven),
                    if havens == 1 { "is" } else { "are" },
                    self.name(pawn.owner)
                );
            } else {
                say!(
                    log,
                    "{} at {at} {} used up by {}'s pawn, healing {}: it has {}.",
                    tokens_cap(havens, Token::Haven),
                    if havens == 1 { "is" } else { "are" },
                    self.name(pawn.owner),
                    wounds(healed),
                    wounds(pawn.wounds)
                );
            }
        }
        let cell = self.board.cell_mut(at);
        cell.havens = 0;
        cell.pawn = Some(pawn);
    }

    /// Run the automatic steps as far as they go without input: the first round after
    /// setup, the Initiative once both bids are in, the March, the Future and the end
    /// check once nobody has a pawn left to activate, and the next round's Energize.
    pub fn settle(&mut self, dice: &mut Dice, log: &mut Log) {
        loop {
            match &mut self.stage {
                Stage::Bid { bids: [Some(a), Some(b)] } => {
                    let (a, b) = (*a, *b);
                    self.initiative(a, b, dice, log);
                }
                Stage::Act { turn, pending: None, .. } => {
                    let t = *turn;
                    if self.board.has_unspent(t) {
                        return;
                    }
                    if self.board.has_unspent(other(t)) {
                        if let Stage::Act { turn, .. } = &mut self.stage {
                            *turn = other(t);
                        }
                        return;
                    }
                    self.end_of_round(dice, log);
                }
                _ => return,
            }
        }
    }

    /// Energize and open the bids.
    fn start_round(&mut self, log: &mut Log) {
        self.round += 1;
        self.board.refresh();
        let gains = [self.board.count_pawns(0), self.board.count_pawns(1)];
        for (p, g) in gains.iter().enumerate() {
            self.players[p].energy = self.players[p].energy.saturating_add(*g);
        }
        say!(
            log,
            "Round {} begins. Energize: {} gains {} (has {}), {} gains {} (has {}).",
            self.round,
            self.players[0].name,
            gains[0],
            self.players[0].energy,
            self.players[1].name,
            gains[1],
            self.players[1].energy
        );
        self.stage = Stage::Bid { bids: [None; 2] };
    }

    /// Both bids are in: reveal, spend, decide who acts first.
    fn initiative(&mut self, a: Bid, b: Bid, dice: &mut Dice, log: &mut Log) {
        let bids = [a, b];
        for (p, bid) in bids.iter().enumerate() {
            self.players[p].energy = self.players[p].energy.saturating_sub(bid.amount);
        }
        let describe = |p: usize| match bids[p].order {
            Some(Order::First) => format!("{} bids {} (to act first)", self.players[p].name, bids[p].amount),
            Some(Order::Second) => format!("{} bids {} (to act second)", self.players[p].name, bids[p].amount),
            None => format!("{} bids {}", self.players[p].name, bids[p].amount),
        };
        say!(log, "Initiative: {} and {}; both bids are spent.", describe(0), describe(1));
        let winner: u8 = if a.amount > b.amount {
            0
        } else if b.amount > a.amount {
            1
        } else {
            let mut tries = 0;
            loop {
                tries += 1;
                let ra = dice.roll(6, format!("initiative tie: {}'s d6", self.players[0].name));
                let rb = dice.roll(6, format!("initiative tie: {}'s d6", self.players[1].name));
                say!(
                    log,
                    "The bids tie{}: {} rolls {ra}, {} rolls {rb}.",
                    if tries > 1 { " again" } else { "" },
                    self.players[0].name,
                    self.players[1].name
                );
                if ra != rb {
                    break if ra > rb { 0 } else { 1 };
                }
            }
        };
        let first = match bids[usize::from(winner)].order {
            Some(Order::Second) => other(winner),
            _ => winner,
        };
        say!(log, "{} wins the Initiative; {} acts first.", self.name(winner), self.name(first));
        self.stage = Stage::Act { first, turn: first, pending: None };
    }

    /// The March, the Future, the end check; then the next round, unless the game ends.
    fn end_of_round(&mut self, dice: &mut Dice, log: &mut Log) {
        self.march(log);
        self.future(dice, log);
        let alive = [self.board.count_pawns(0) > 0, self.board.count_pawns(1) > 0];
        let ending = match alive {
            [true, true] if self.settings.max_rounds.is_some_and(|m| self.round >= m) => {
                say!(log, "Round {} was the last (max_rounds): the game is drawn.", self.round);
                Some(Ending::Drawn)
            }
            [true, true] => None,
            [true, false] | [false, true] => {
                let w = if alive[0] { 0 } else { 1 };
                say!(log, "{} has no pawn left on the board: {} wins.", self.name(other(w)), self.name(w));
                Some(Ending::Won { players: vec![usize::from(w)] })
            }
            [false, false] => {
                say!(log, "Neither player has a pawn on the board: both lose.");
                Some(Ending::Lost)
            }
        };
        match ending {
            Some(e) => {
                self.ending = Some(e);
                self.stage = Stage::Over;
            }
            None => self.start_round(log),
        }
    }

    /// The March: DP leaves the game, IP moves to DP, P copies itself into IP, NF moves
    /// to P (landing), FF moves to NF.
    pub(crate) fn march(&mut self, log: &mut Log) {
        say!(log, "The March.");
        for l in 1..=LOCATIONS {
            let Some(dp) = Space::new(Zone::DistantPast, l) else { continue };
            let gone = self.board.take(dp);
            if let Some(p) = gone.pawn {
                say!(log, "{}'s pawn at {dp} passes into the Permanent Past.", self.name(p.owner));
            }
        }
        self.move_zone(Zone::ImmediatePast, Zone::DistantPast, log);
        for l in 1..=LOCATIONS {
            let (Some(p), Some(ip)) = (Space::new(Zone::Present, l), Space::new(Zone::ImmediatePast, l)) else {
                continue;
            };
            let cell = *self.board.cell(p);
            if cell.has_tokens() {
                self.land_tokens(ip, cell.hazards, cell.havens, log);
            }
            if let Some(pawn) = cell.pawn {
                let limit = self.settings.pawn_limit;
                if limit.is_some_and(|m| self.board.count_pawns(pawn.owner) >= m) {
                    say!(
                        log,
                        "{}'s pawn at {p} makes no copy at {ip}: {} has all {} pawns on the board (pawn_limit).",
                        self.name(pawn.owner),
                        self.name(pawn.owner),
                        limit.unwrap_or_default()
                    );
                } else {
                    say!(
                        log,
                        "{}'s pawn at {p} leaves a copy of itself at {ip}{}.",
                        self.name(pawn.owner),
                        if pawn.wounds > 0 { format!(" with its {}", wounds(pawn.wounds)) } else { String::new() }
                    );
                    self.land_pawn(ip, Pawn { acted: false, ..pawn }, log);
                }
            }
        }
        self.move_zone(Zone::NearFuture, Zone::Present, log);
        self.move_zone(Zone::FarFuture, Zone::NearFuture, log);
    }

    /// Everything in `from` moves to the same location in `to`, landing there.
    fn move_zone(&mut self, from: Zone, to: Zone, log: &mut Log) {
        for l in 1..=LOCATIONS {
            let (Some(a), Some(b)) = (Space::new(from, l), Space::new(to, l)) else { continue };
            let cell = self.board.take(a);
            if cell.has_tokens() {
                self.land_tokens(b, cell.hazards, cell.havens, log);
            }
            if let Some(pawn) = cell.pawn {
                say!(log, "{}'s pawn moves from {a} to {b}.", self.name(pawn.owner));
                self.land_pawn(b, pawn, log);
            }
        }
    }

    /// The Future: a d10 and a d12 for Hazards, again for Havens; each result 1-8 puts
    /// the token in that location of the Far Future.
    pub(crate) fn future(&mut self, dice: &mut Dice, log: &mut Log) {
        for token in [Token::Hazard, Token::Haven] {
            let rolls = [
                dice.roll(10, format!("the Future: {}s (d10)", token.name())),
                dice.roll(12, format!("the Future: {}s (d12)", token.name())),
            ];
            if !log.off {
                let landed: Vec<String> =
                    rolls.iter().filter_map(|r| Space::new(Zone::FarFuture, *r as u8)).map(|s| s.to_string()).collect();
                say!(
                    log,
                    "The Future: the d10 and d12 roll {} and {} for {}s: {}.",
                    rolls[0],
                    rolls[1],
                    token.name(),
                    if landed.is_empty() { "none appears".to_string() } else { format!("at {}", landed.join(" and ")) }
                );
            }
            for r in rolls {
                if let Some(s) = Space::new(Zone::FarFuture, r as u8) {
                    match token {
                        Token::Hazard => self.land_tokens(s, 1, 0, log),
                        Token::Haven => self.land_tokens(s, 0, 1, log),
                    }
                }
            }
        }
    }

    /// The deadline passed: a missing placement goes to the first space allowed, a
    /// missing bid is 0, a Move waiting for its direction goes rising, and a missing
    /// activation spends the player's first unspent pawn (board order) with no action.
    pub fn force(&mut self, dice: &mut Dice, log: &mut Log) {
        match &self.stage {
            Stage::Setup { next, .. } => {
                let p = *next;
                if let Some(s) = self.placeable(p).first().copied() {
                    say!(log, "{} sent no placement by the deadline: the judge places the pawn.", self.name(p));
                    let _ = self.place(p, s, log);
                }
            }
            Stage::Bid { bids } => {
                let missing: Vec<u8> = (0..2u8).filter(|p| bids[usize::from(*p)].is_none()).collect();
                for p in missing {
                    {
                        say!(log, "{} sent no bid by the deadline: the bid is 0.", self.name(p));
                        let _ = self.bid(p, Bid { amount: 0, order: None }, &mut Log::silent());
                    }
                }
            }
            Stage::Act { pending: Some(w), .. } => {
                let (p, to) = (w.player, w.choices[0].location());
                say!(log, "{} did not say where the Move goes by the deadline: it goes rising (+).", self.name(p));
                let _ = self.choose(p, to, None, Vec::new(), dice, log);
            }
            Stage::Act { turn, pending: None, .. } => {
                let p = *turn;
                let first = self.board.pawns_of(p).find(|(_, pawn)| !pawn.acted).map(|(s, _)| s);
                if let Some(s) = first {
                    say!(
                        log,
                        "{} sent no activation by the deadline: the pawn at {s} is spent with no action.",
                        self.name(p)
                    );
                    // An activation with no action tells nothing more than the line above.
                    let _ = self.activate(p, s, Vec::new(), dice, &mut Log::silent());
                }
            }
            Stage::Over => {}
        }
        self.settle(dice, log);
    }

    /// The unspent pawns of `player`, in board order.
    pub fn unspent(&self, player: u8) -> Vec<Space> {
        self.board.pawns_of(player).filter(|(_, p)| !p.acted).map(|(s, _)| s).collect()
    }

    /// Why the stored game is not a possible game, if it is not.
    pub fn fault(&self) -> Option<String> {
        if let Some((s, why)) = self.board.invariant_fault() {
            return Some(format!("{s}: {why}"));
        }
        match &self.stage {
            Stage::Setup { first, next, .. } if *first > 1 || *next > 1 => Some("a player's seat is 0 or 1".into()),
            Stage::Act { first, turn, .. } if *first > 1 || *turn > 1 => Some("a player's seat is 0 or 1".into()),
            Stage::Act { pending: Some(p), .. } if self.board.pawn(p.pawn).is_none_or(|x| x.owner != p.player) => {
                Some(format!("a Move waits for a pawn of seat {} at {}, and there is none", p.player, p.pawn))
            }
            Stage::Over if self.ending.is_none() => Some("the game is over but has no ending".into()),
            _ => None,
        }
    }
}

/// Why one action of an activation is not done (the activation goes on without it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unable {
    ShiftSize,
    ShiftCost { cost: u32, energy: u32 },
    OffBoard { at: Space },
    AlterOwnZone { zone: Zone },
    AlterEnergy,
    NoToken { token: Token, at: Space },
}

impl std::fmt::Display for Unable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unable::ShiftSize => write!(f, "a Shift spends 1 to {MAX_SHIFT} energy, one zone each"),
            Unable::ShiftCost { cost, energy } => {
                write!(f, "a Shift of {cost} costs {cost} energy and you have {energy}")
            }
            Unable::OffBoard { at } => write!(
                f,
                "it would leave the board ({at} is in the {}; the board runs from the Distant Past to the Far Future)",
                at.zone.name()
            ),
            Unable::AlterOwnZone { zone } => {
                write!(f, "Alter works in another zone than the pawn's own ({})", zone.code())
            }
            Unable::AlterEnergy => write!(f, "Alter costs 1 energy and you have none"),
            Unable::NoToken { token, at } => write!(f, "there is no {} at {at}", token.name()),
        }
    }
}

/// What one action left.
enum Done {
    /// Done; the pawn is (or was last) at this space.
    At(Space),
    /// A Move rolled and waits for its direction.
    Waits { roll: u8, choices: [Space; 2] },
}
