//! Who plays which power, as a game's life by mail changes it: open seats filled by
//! `join`, the powers assigned when the last seat is filled, a power left vacant by
//! `resign` and asked for by `takeover`. Plain data and one pure function
//! ([`assign`]); the game's store keeps them (`[seats]` in game.toml, `Entry::Seats` in
//! the journal).
//!
//! # How powers are assigned (the fair method)
//!
//! Random serial dictatorship, with the game's verifiable dice:
//!
//! 1. The players, in the order they joined, are shuffled with the dice (one roll of an
//!    `i`-sided die for each place from the last down to the second, Fisher-Yates): this
//!    is the order of choice.
//! 2. In that order, each player gets the first power of their preference list that is
//!    still free.
//! 3. Then, in the same order, each player still without a power (no list, or every power
//!    on it taken) gets one drawn with one roll among the free powers, in the map's order.
//!
//! Every player has the same chance of every place in the order, whatever they listed;
//! listing your true preferences is never worse than listing anything else; and no two
//! players would both gain by swapping. The seed's commitment is published when the game
//! opens and the seed itself when the powers are assigned, so anyone can redo the
//! assignment from the journal (`shadowjudge verify`).

use serde::{Deserialize, Serialize};

use crate::dice::{Dice, Roll};

/// The observers' own passwords (`observe GAME PASSWORD`), as argon2 hashes, by the
/// address as `observers` lists it: `[observer_passwords]` in game.toml.
pub type ObserverPasswords = std::collections::BTreeMap<String, String>;

/// What `observe` did with the password it brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObserverPassword {
    /// None was given.
    NotGiven,
    /// Kept (as its hash): the observer may sign on with it.
    Kept,
    /// The observer had one already: it is not replaced (`password NEW`, signed on,
    /// changes it), and the one given was not checked.
    AlreadySet,
}

/// The observers a game takes at most: each is mailed every result, so a game cannot be
/// made to mail without end.
pub const MAX_OBSERVERS: usize = 50;

/// An address that asked to observe, until it confirms from its own mailbox with the code
/// the judge mailed it (`[[seats.observing]]` in game.toml): a forged sender cannot make
/// anyone an observer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingObserver {
    pub email: String,
    /// The sha256 (hex) of the code mailed to `email`.
    pub code_hash: String,
    /// The hash of the password the request brought, kept for the confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
}

/// A step of `observe`: the request (a code was made and is mailed to the address) or
/// its confirmation (the code sent back from that address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObserveStep<'a> {
    Ask { code_hash: &'a str },
    Confirm { code_hash: &'a str },
}

/// What `observe` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// The address does not observe yet: the code is to be mailed to it.
    Asked,
    /// It observes (`new`: from now on), and what became of the password.
    Observing { new: bool, password: ObserverPassword },
}

/// `observe` from `email`, with the hash of the password it brought, on a game's
/// observers and the requests waiting for a confirmation. An address that observes
/// already has its password handled at once; any other is asked for a confirmation first
/// ([`PendingObserver`]). Refused (the reason) when the game has [`MAX_OBSERVERS`]
/// already, or a confirmation's code is not the one mailed.
pub fn observe(
    observers: &mut Vec<String>,
    passwords: &mut ObserverPasswords,
    pending: &mut Vec<PendingObserver>,
    email: &str,
    password_hash: Option<&str>,
    step: ObserveStep<'_>,
) -> Result<Observed, String> {
    let known = observers.iter().find(|o| o.eq_ignore_ascii_case(email)).cloned();
    let mut password_hash = password_hash.map(str::to_string);
    // A password for an observer who has none is kept only once confirmed too: a forged
    // sender could otherwise sign on as them.
    let confirm_first = match &known {
        None => true,
        Some(k) => password_hash.is_some() && !passwords.contains_key(k),
    };
    match (step, &known) {
        (ObserveStep::Ask { code_hash }, _) if confirm_first => {
            if known.is_none() && observers.len() >= MAX_OBSERVERS {
                return Err(format!("this game has its {MAX_OBSERVERS} observers already; ask the game master"));
            }
            pending.retain(|p| !p.email.eq_ignore_ascii_case(email));
            if pending.len() >= MAX_OBSERVERS {
                pending.remove(0);
            }
            pending.push(PendingObserver { email: email.to_string(), code_hash: code_hash.to_string(), password_hash });
            return Ok(Observed::Asked);
        }
        (ObserveStep::Confirm { code_hash }, _) => {
            let at = pending.iter().position(|p| p.email.eq_ignore_ascii_case(email) && p.code_hash == code_hash);
            let Some(at) = at else {
                return Err(format!(
                    "no request to observe from {email} waits for that code; `observe GAME` (from the address \
                     that is to observe) mails a new one"
                ));
            };
            if known.is_none() && observers.len() >= MAX_OBSERVERS {
                return Err(format!("this game has its {MAX_OBSERVERS} observers already; ask the game master"));
            }
            let asked = pending.remove(at);
            password_hash = password_hash.or(asked.password_hash);
        }
        (ObserveStep::Ask { .. }, _) => {}
    }
    let new = known.is_none();
    let address = known.unwrap_or_else(|| {
        observers.push(email.to_string());
        email.to_string()
    });
    let password = match password_hash {
        None => ObserverPassword::NotGiven,
        Some(_) if passwords.contains_key(&address) => ObserverPassword::AlreadySet,
        Some(hash) => {
            passwords.insert(address, hash);
            ObserverPassword::Kept
        }
    };
    Ok(Observed::Observing { new, password })
}

/// The purpose the order-of-choice rolls are journaled under.
pub const ORDER_PURPOSE: &str = "order of choice";

/// `[seats]` in game.toml: the open seats and the asks for vacant powers. Empty in a game
/// whose players were all named by the master.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seating {
    /// Players join by mail until every power has one; then the game starts.
    #[serde(default, skip_serializing_if = "is_false")]
    pub open: bool,
    /// Who has joined so far, in the order they joined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joined: Vec<Applicant>,
    /// How a `takeover` of a vacant power goes: `"approve"` (the default: the master sends
    /// `approve POWER`) or `"at_once"`.
    #[serde(default, skip_serializing_if = "Takeover::is_default")]
    pub takeover: Takeover,
    /// Takeovers asked for and not yet approved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asks: Vec<Ask>,
    /// A small game's number of seats while it waits for players (Diplomacy: one per
    /// power of the map).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    /// A small game's rules options, kept until the game starts.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub options: std::collections::BTreeMap<String, String>,
    /// A small game's seats whose player resigned (Diplomacy: a power with no player).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vacant: Vec<String>,
    /// A small game's dice commitment, as published when its seats opened: the seed it
    /// starts with must match it (Diplomacy journals it, `SeatEvent::Opened`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// Requests to observe waiting for their confirmation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observing: Vec<PendingObserver>,
}

/// Whether `seed` is the one whose commitment was published when the seats opened
/// (`published`; none for a game opened before it was kept: nothing to check).
pub fn check_commitment(seed: &crate::dice::Seed, published: Option<&str>) -> Result<(), String> {
    match published {
        Some(p) if p != seed.commitment() => Err(format!(
            "the dice's seed does not match the commitment published when the seats opened ({p}): the seed \
             file was changed, so the game does not start; restore it"
        )),
        _ => Ok(()),
    }
}

impl Seating {
    pub fn is_empty(&self) -> bool {
        *self == Seating::default()
    }
}

/// The longest name a player is shown by.
const NAME_MAX: usize = 40;

/// The name a player who came by mail is known by, to the other players and on the
/// public site: the display name of their From header (`Ann Smith <ann@example.org>`
/// gives `Ann Smith`) when it is a plain name, else the local part of their address
/// (`ann`). Never an address: a display name holding `@` or `<` is not used.
pub fn player_name(display: Option<&str>, address: &str) -> String {
    let display = display.map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "));
    match display {
        Some(d) if !d.is_empty() && d.chars().count() <= NAME_MAX && plain_name(&d) => d,
        _ => shown_name(address),
    }
}

/// A name as it may be shown in public: a name holding an address (a player's `name`
/// written by an older judge, or by a master as `ann@example.org`) is cut to the local
/// part (`ann`); any other name is kept as it is. Empty when nothing is left.
pub fn shown_name(name: &str) -> String {
    let name = name.trim();
    let Some(at) = name.find('@') else { return name.to_string() };
    // `Ann <ann@example.org>`: the name before the address, when there is one.
    if let Some(lt) = name.find('<').filter(|lt| *lt < at) {
        let before = name[..lt].trim().trim_matches('"').trim();
        if !before.is_empty() && plain_name(before) {
            return before.to_string();
        }
    }
    let local = &name[..at];
    let local = local.rsplit('<').next().unwrap_or("");
    local.trim().trim_matches(|c: char| c == '"' || c == '\'').chars().take(NAME_MAX).collect()
}

/// No character that could carry an address or break a line.
fn plain_name(s: &str) -> bool {
    !s.chars().any(|c| matches!(c, '@' | '<' | '>') || c.is_control())
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The `takeover` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Takeover {
    #[default]
    Approve,
    AtOnce,
}

impl Takeover {
    fn is_default(&self) -> bool {
        *self == Takeover::Approve
    }
}

/// A player who joined an open game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Applicant {
    pub email: String,
    /// The argon2 hash of the password they joined with.
    pub password_hash: String,
    /// The powers they prefer, best first (power keys: `france`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefer: Vec<String>,
    /// The name they are known by ([`player_name`]: never an address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A takeover of a vacant power, waiting for the master's `approve`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ask {
    /// The power's key (`france`).
    pub power: String,
    pub email: String,
    pub password_hash: String,
    /// The name they are known by ([`player_name`]: never an address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A change of who plays, as the journal keeps it (`Entry::Seats`). Addresses are kept;
/// passwords never (a fingerprint of the hash at most).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum SeatEvent {
    /// The game opened its seats; the commitment of the seed the powers will be assigned
    /// with.
    Opened { commitment: String },
    /// A player joined (or changed their preferences by joining again).
    Joined { email: String, prefer: Vec<String> },
    /// A player who had joined left before the start.
    Left { email: String },
    /// The last seat was filled: the powers assigned, by the rolls journaled here, from
    /// the joins journaled before; the seed revealed so anyone can check.
    Assigned { seed: String, rolls: Vec<Roll>, powers: Vec<(String, String)> },
    /// A small game's last seat was filled: the players seated in the order they joined,
    /// as (seat name, address).
    Seated { seats: Vec<(String, String)> },
    /// Someone became an observer.
    Observer { email: String },
    /// A player resigned their power: it is vacant.
    Resigned { power: String, email: String },
    /// Someone asked to take over a vacant power.
    TakeoverAsked { power: String, email: String },
    /// A vacant power has a player again (`by_master`: the master approved it).
    TakenOver { power: String, email: String, by_master: bool },
}

impl SeatEvent {
    /// The event as history shows it.
    pub fn describe(&self) -> String {
        match self {
            SeatEvent::Opened { commitment } => format!("seats opened (dice commitment {commitment})"),
            SeatEvent::Joined { email, prefer } if prefer.is_empty() => format!("{email} joined"),
            SeatEvent::Joined { email, prefer } => {
                let names: Vec<String> = prefer.iter().map(|p| capitalized(p)).collect();
                format!("{email} joined, preferring {}", names.join(", "))
            }
            SeatEvent::Left { email } => format!("{email} left before the start"),
            SeatEvent::Assigned { powers, .. } => format!(
                "powers assigned: {}",
                powers.iter().map(|(email, power)| format!("{power} {email}")).collect::<Vec<_>>().join(", ")
            ),
            SeatEvent::Seated { seats } => format!(
                "seated in the order they joined: {}",
                seats.iter().map(|(seat, email)| format!("{seat} {email}")).collect::<Vec<_>>().join(", ")
            ),
            SeatEvent::Observer { email } => format!("{email} observes"),
            SeatEvent::Resigned { power, email } => format!("{power} resigned ({email}); {power} is vacant"),
            SeatEvent::TakeoverAsked { power, email } => format!("{email} asks to take over {power}"),
            SeatEvent::TakenOver { power, email, by_master: true } => {
                format!("{power} taken over by {email} (approved by the master)")
            }
            SeatEvent::TakenOver { power, email, by_master: false } => format!("{power} taken over by {email}"),
        }
    }
}

/// A power's key as history shows it (`france`: `France`).
fn capitalized(key: &str) -> String {
    let mut chars = key.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Assign `powers` (keys, in the map's order) to `players` (emails with their
/// preference lists, in the order they joined) by the method in the module notes. Returns
/// `(email, power)` in the order they joined. There must be no more players than powers.
pub fn assign(players: &[(String, Vec<String>)], powers: &[String], dice: &mut Dice) -> Vec<(String, String)> {
    let mut order: Vec<usize> = (0..players.len()).collect();
    dice.shuffle(&mut order, ORDER_PURPOSE);
    let mut free: Vec<String> = powers.to_vec();
    let mut got: Vec<Option<String>> = vec![None; players.len()];
    for &i in &order {
        if let Some(p) = players[i].1.iter().find(|p| free.contains(p)) {
            free.retain(|f| f != p);
            got[i] = Some(p.clone());
        }
    }
    for &i in &order {
        if got[i].is_none() && !free.is_empty() {
            let k = dice.roll(free.len() as u32, format!("power for {}", players[i].0)) as usize - 1;
            got[i] = Some(free.remove(k));
        }
    }
    players.iter().zip(got).filter_map(|((email, _), p)| Some((email.clone(), p?))).collect()
}

/// The seats of a game as its store keeps them in game.toml, for the rules of a change of
/// player below (one for every game): who plays each seat, and the `[seats]` table. A
/// seat is named by its key (a power's `france`, a small game's player name).
pub trait SeatTable {
    /// `[seats]`: the asks for vacant seats, the takeover rule.
    fn seating(&mut self) -> &mut Seating;
    /// Whether the seat has a player (it is not vacant).
    fn has_player(&self, seat: &str) -> bool;
    /// Whether `email` plays a seat of the game now.
    fn plays(&self, email: &str) -> bool;
    /// The seat is played by `email` from now on (with the name it is known by, where the
    /// game keeps one) and the password hash it asked with.
    fn give(&mut self, seat: &str, email: &str, name: Option<&str>, password_hash: &str);
    /// The seat's player leaves it: it is vacant until taken over, and nobody signs on
    /// with it. The address it had; `None` for a seat already vacant.
    fn vacate(&mut self, seat: &str) -> Option<String>;
    /// The observers' addresses, their passwords, and the observers still to confirm.
    fn watchers(&mut self) -> (&mut Vec<String>, &mut ObserverPasswords, &mut Vec<PendingObserver>);
}

/// Whether `email` may ask for `seat` (`label`: the seat as told, `France`; `noun`: what
/// the game's seats are, `power` or `seat`): it is vacant, and the address plays no seat
/// of the game. The refusal, in words.
pub fn may_take_over(
    t: &impl SeatTable,
    seat: &str,
    label: &str,
    noun: &str,
    email: &str,
    game: &str,
) -> Result<(), String> {
    if t.has_player(seat) {
        return Err(format!("{label} has a player; only a vacant {noun} can be taken over"));
    }
    if t.plays(email) {
        return Err(format!("{email} already plays in {game}"));
    }
    Ok(())
}

/// `takeover` of a vacant seat that [`may_take_over`] allowed: given at once (the game's
/// `takeover = "at_once"`), or asked for, to wait for the master's `approve` (the same
/// address asking again replaces its ask). The event to journal, and whether it was given.
pub fn take_over(
    t: &mut impl SeatTable,
    seat: &str,
    label: &str,
    email: &str,
    name: Option<&str>,
    password_hash: &str,
) -> (SeatEvent, bool) {
    if t.seating().takeover == Takeover::AtOnce {
        return (give(t, seat, label, email, name, password_hash, false), true);
    }
    let asks = &mut t.seating().asks;
    asks.retain(|a| !(a.power == seat && a.email.eq_ignore_ascii_case(email)));
    asks.push(Ask {
        power: seat.to_string(),
        email: email.to_string(),
        password_hash: password_hash.to_string(),
        name: name.map(str::to_string),
    });
    (SeatEvent::TakeoverAsked { power: label.to_string(), email: email.to_string() }, false)
}

/// `approve`: the master gives a vacant seat to whoever asked for it last. The event to
/// journal and the new player's address, or the refusal in words.
pub fn approve(t: &mut impl SeatTable, seat: &str, label: &str) -> Result<(SeatEvent, String), String> {
    if t.has_player(seat) {
        return Err(format!("{label} has a player; there is nothing to approve"));
    }
    let Some(ask) = t.seating().asks.iter().rev().find(|a| a.power == seat).cloned() else {
        return Err(format!("nobody has asked to take over {label}"));
    };
    let event = give(t, seat, label, &ask.email, ask.name.as_deref(), &ask.password_hash, true);
    Ok((event, ask.email))
}

/// Give the seat to its new player: every ask for it is done with.
fn give(
    t: &mut impl SeatTable,
    seat: &str,
    label: &str,
    email: &str,
    name: Option<&str>,
    password_hash: &str,
    by_master: bool,
) -> SeatEvent {
    t.seating().asks.retain(|a| a.power != seat);
    t.give(seat, email, name, password_hash);
    SeatEvent::TakenOver { power: label.to_string(), email: email.to_string(), by_master }
}

/// A game as `list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    pub name: String,
    /// The game and variant (`standard`, `shadow-worlds`, `duplexity`).
    pub kind: String,
    /// Where it stands: a phase (`Spring 1901 movement`) or a small game's step.
    pub step: String,
    pub deadline: Option<chrono::DateTime<chrono::Utc>>,
    pub over: bool,
    /// How it ended, in the game's words, once it is over.
    pub result: Option<String>,
    /// While it waits for players: (seats taken, seats in all).
    pub open: Option<(usize, usize)>,
    /// Powers no one plays (vacant: `takeover` asks for one).
    pub vacant: Vec<String>,
    /// For `list NAME`: one line per seat (who plays it, its centers).
    pub seats: Vec<String>,
    /// For `list NAME`: other facts (press, observers), one line each.
    pub notes: Vec<String>,
    /// The powers of a game whose seats are powers (what `join ... prefer` names); empty
    /// in a game whose seats are its players.
    pub powers: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Seed;

    /// Two seats, `a` played by ann and `b` vacant.
    #[derive(Default)]
    struct Table {
        seats: Seating,
        players: Vec<(String, String)>,
        observers: Vec<String>,
        passwords: ObserverPasswords,
    }

    impl SeatTable for Table {
        fn seating(&mut self) -> &mut Seating {
            &mut self.seats
        }
        fn has_player(&self, seat: &str) -> bool {
            self.players.iter().any(|(s, _)| s == seat)
        }
        fn plays(&self, email: &str) -> bool {
            self.players.iter().any(|(_, e)| e == email)
        }
        fn give(&mut self, seat: &str, email: &str, _name: Option<&str>, _hash: &str) {
            self.players.push((seat.into(), email.into()));
        }
        fn vacate(&mut self, seat: &str) -> Option<String> {
            let at = self.players.iter().position(|(s, _)| s == seat)?;
            Some(self.players.remove(at).1)
        }
        fn watchers(&mut self) -> (&mut Vec<String>, &mut ObserverPasswords, &mut Vec<PendingObserver>) {
            (&mut self.observers, &mut self.passwords, &mut self.seats.observing)
        }
    }

    fn table() -> Table {
        Table { players: vec![("a".into(), "ann@x".into())], ..Table::default() }
    }

    #[test]
    fn a_seat_vacated_may_be_taken_over_and_is_vacated_once() {
        let mut t = table();
        assert_eq!(t.vacate("a").as_deref(), Some("ann@x"));
        assert_eq!(t.vacate("a"), None, "already vacant");
        assert!(may_take_over(&t, "a", "A", "seat", "ann@x", "g").is_ok(), "who left may ask again");
    }

    #[test]
    fn a_takeover_is_asked_then_approved_for_the_latest_asker_and_refused_where_it_cannot_be() {
        let mut t = table();
        assert_eq!(
            may_take_over(&t, "a", "A", "seat", "cy@x", "g").unwrap_err(),
            "A has a player; only a vacant seat can be taken over"
        );
        assert_eq!(may_take_over(&t, "b", "B", "seat", "ann@x", "g").unwrap_err(), "ann@x already plays in g");
        assert_eq!(approve(&mut t, "b", "B").unwrap_err(), "nobody has asked to take over B");
        let (event, given) = take_over(&mut t, "b", "B", "bob@x", None, "h1");
        assert!(!given && matches!(event, SeatEvent::TakeoverAsked { .. }), "{event:?}");
        take_over(&mut t, "b", "B", "cy@x", None, "h2");
        take_over(&mut t, "b", "B", "bob@x", None, "h3");
        assert_eq!(t.seats.asks.len(), 2, "bob's second ask replaces his first");
        let (event, email) = approve(&mut t, "b", "B").unwrap();
        assert_eq!(email, "bob@x", "the latest ask");
        assert_eq!(event, SeatEvent::TakenOver { power: "B".into(), email: "bob@x".into(), by_master: true });
        assert!(t.seats.asks.is_empty() && t.has_player("b"));
        assert_eq!(approve(&mut t, "b", "B").unwrap_err(), "B has a player; there is nothing to approve");
    }

    #[test]
    fn a_takeover_at_once_gives_the_seat_without_the_master() {
        let mut t = table();
        t.seats.takeover = Takeover::AtOnce;
        let (event, given) = take_over(&mut t, "b", "B", "bob@x", Some("Bob"), "h");
        assert!(given);
        assert_eq!(event, SeatEvent::TakenOver { power: "B".into(), email: "bob@x".into(), by_master: false });
        assert!(t.has_player("b") && t.seats.asks.is_empty());
    }

    #[test]
    fn a_player_is_known_by_a_plain_name_never_an_address() {
        assert_eq!(player_name(Some("  Ann   Smith "), "ann@example.org"), "Ann Smith");
        assert_eq!(player_name(None, "ann.smith@example.org"), "ann.smith");
        assert_eq!(player_name(Some(""), "bob@example.org"), "bob");
        assert_eq!(player_name(Some("bob@example.org"), "bob@example.org"), "bob");
        assert_eq!(player_name(Some("Bob <bob@x.org>"), "bob@x.org"), "bob");
        assert_eq!(player_name(Some(&"x".repeat(41)), "c@x.org"), "c");
        assert_eq!(shown_name("Ann Smith"), "Ann Smith");
        assert_eq!(shown_name("ann@example.org"), "ann");
        assert_eq!(shown_name("Ann Smith <ann@example.org>"), "Ann Smith");
        assert_eq!(shown_name("<ann@example.org>"), "ann");
        assert_eq!(shown_name("\"a b\"@example.org"), "a b");
        assert_eq!(shown_name("@example.org"), "");
    }

    fn powers() -> Vec<String> {
        ["austria", "england", "france", "germany", "italy", "russia", "turkey"].map(String::from).to_vec()
    }

    #[test]
    fn every_player_gets_one_power_and_first_choices_that_do_not_clash_are_kept() {
        let players: Vec<(String, Vec<String>)> = (0..7)
            .map(|i| (format!("p{i}@example.org"), if i < 3 { vec![powers()[i].clone()] } else { Vec::new() }))
            .collect();
        let mut dice = Dice::new(Seed::from_bytes([7; 32]), "g", 0);
        let got = assign(&players, &powers(), &mut dice);
        assert_eq!(got.len(), 7);
        let mut taken: Vec<&String> = got.iter().map(|(_, p)| p).collect();
        taken.sort();
        taken.dedup();
        assert_eq!(taken.len(), 7, "{got:?}");
        for (i, (_, power)) in got.iter().enumerate().take(3) {
            assert_eq!(*power, powers()[i]);
        }
        // The same seed gives the same assignment; the rolls are journaled.
        let mut again = Dice::new(Seed::from_bytes([7; 32]), "g", 0);
        assert_eq!(assign(&players, &powers(), &mut again), got);
        assert!(dice.take_rolls().iter().any(|r| r.purpose == ORDER_PURPOSE));
    }

    #[test]
    fn a_clash_goes_to_whoever_comes_first_in_the_drawn_order() {
        let players: Vec<(String, Vec<String>)> =
            (0..2).map(|i| (format!("p{i}"), vec!["france".to_string(), "italy".to_string()])).collect();
        for seed in 0..20u8 {
            let mut dice = Dice::new(Seed::from_bytes([seed; 32]), "g", 0);
            let got = assign(&players, &powers(), &mut dice);
            let rolls = dice.take_rolls();
            // One roll of a 2-sided die draws the order: 1 swaps the two players.
            let first = if rolls[0].result == 1 { 1 } else { 0 };
            assert_eq!(got[first].1, "france");
            assert_eq!(got[1 - first].1, "italy");
        }
    }
}
