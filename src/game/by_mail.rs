//! The plain data a game gives and takes when it is played by mail: who sits where
//! ([`Role`], [`SeatRecord`]), who reads its results ([`Contact`]), press ([`PressTo`],
//! [`PressDelivery`]), what the deadline tick sees ([`Clock`]) and the results still owed
//! ([`OwedMail`], [`Drawing`]). What orders or turn lines caused is a
//! [`crate::answer::Receipt`], the same for every game.
//!
//! These are the words of [`crate::game::any::GameSession`]'s mail half. The mail layer
//! uses the same types in its own trait ([`crate::mail::host`] re-exports them), so the
//! host that joins the two converts nothing.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::game::schedule::DeadlinePolicy;
use crate::game::settings::Master;

/// Who signed on: a seat of a game (a Diplomacy power, or a small game's player), its
/// master, or one of its observers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A seat, by its canonical name (`France`, `ann`).
    Seat(String),
    Master,
    /// An observer, by the address that observes (as game.toml keeps it). Observers read
    /// and, where the game allows it, send press; nothing else.
    Observer(String),
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Role::Seat(p) => f.write_str(p),
            Role::Master => f.write_str("the game master"),
            Role::Observer(address) => write!(f, "the observer {address}"),
        }
    }
}

impl Role {
    /// How the journal and history name the role: a seat's name, `master`, or
    /// `observer ADDRESS`.
    pub fn key(&self) -> String {
        match self {
            Role::Seat(p) => p.clone(),
            Role::Master => "master".into(),
            Role::Observer(address) => format!("{OBSERVER_KEY} {address}"),
        }
    }
}

/// The first word of an observer's key in the journal (`observer ann@example.org`).
pub const OBSERVER_KEY: &str = "observer";

/// A seat (or the master) as a sign-on finds it, before the password is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRecord {
    pub role: Role,
    /// The address the game has on file for this seat.
    pub address: Option<String>,
    /// The zone deadlines are shown in, besides UTC.
    pub timezone: Option<Tz>,
    /// The argon2 hash of the seat's password; `None` when none was set yet.
    pub password_hash: Option<String>,
}

/// Who a contact is in a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContactRole {
    /// The player of this seat (canonical name).
    Player(String),
    Observer,
    Master,
}

/// Someone to mail results, reminders or notices to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contact {
    pub role: ContactRole,
    pub address: String,
    pub timezone: Option<Tz>,
}

/// The recipients of a press message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PressTo {
    All,
    /// Powers as written by the player; the game resolves them.
    Powers(Vec<String>),
}

/// Where a press message goes, once the game allowed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PressDelivery {
    /// How the sender is shown (`France`, or `the game master`).
    pub from_label: String,
    /// `to France, Italy` or `to everyone`.
    pub to_label: String,
    pub addresses: Vec<String>,
}

/// What the deadline tick sees of a game whose deadline runs.
#[derive(Clone, Debug)]
pub struct Clock {
    /// The step under way; a new one starts a fresh tick log, and [`process`] refuses to
    /// process any other.
    ///
    /// [`process`]: crate::game::any::Play::process
    pub step: String,
    pub deadline: DateTime<Utc>,
    /// When the step began, when known: no reminder goes before the step is as old as
    /// the reminder's lead.
    pub started: Option<DateTime<Utc>>,
    /// The seats whose input is still missing (not input the game can do without).
    pub missing: Vec<String>,
    /// When to remind, how long the grace lasts.
    pub policy: DeadlinePolicy,
    /// What a small game awaits, in its words (`bids`), for its reminders; `None`: orders.
    pub awaited: Option<String>,
    /// What the deadline defaults do to input still missing, for late notices (`units
    /// without orders hold`).
    pub defaults: String,
}

/// One step's results, still owed by mail to someone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwedMail {
    /// The journal seq of the step.
    pub seq: u64,
    /// How the judge's log names them (`results of Spring 1901 movement`, `report #3
    /// (round 1, bids)`): one game's owed mails each by a name of its own.
    pub title: String,
    /// The phase or step the results are about, for the subject.
    pub step: String,
    /// The results as the mail says them.
    pub text: String,
    /// The deadline to announce with them (the game is still where they left it).
    pub next_deadline: Option<DateTime<Utc>>,
    /// `None`: owed to everyone who receives results; else only to these addresses (an
    /// earlier mailing failed for them).
    pub only_to: Option<Vec<String>>,
    /// Addresses no longer in the game that are owed them all the same (a player the
    /// step declared vacant, told so by them).
    pub also_to: Vec<String>,
    /// Players who asked for fewer reports ([`Reports`]) and are not mailed this one.
    pub quiet: Vec<String>,
}

/// Which of a small game's reports a player is mailed (`reports every|turn|round`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reports {
    /// Every step's report.
    Every,
    /// The reports that leave something for them to do, the first and the last.
    Turn,
    /// The report that begins each round, the first and the last.
    Round,
}

impl Reports {
    /// A game's players get every report up to this many players, only their turns
    /// beyond: ten players mailed every step would each get hundreds of mails.
    pub const EVERY_UP_TO: usize = 4;

    /// What a player gets who chose nothing, in a game of `players`.
    pub fn default_for(players: usize) -> Reports {
        if players <= Reports::EVERY_UP_TO {
            Reports::Every
        } else {
            Reports::Turn
        }
    }

    pub fn parse(word: &str) -> Option<Reports> {
        match word.to_ascii_lowercase().as_str() {
            "every" | "all" => Some(Reports::Every),
            "turn" | "myturn" => Some(Reports::Turn),
            "round" => Some(Reports::Round),
            _ => None,
        }
    }

    /// How a reply says it.
    pub fn words(self) -> &'static str {
        match self {
            Reports::Every => "every step's report",
            Reports::Turn => "the reports that leave something for you to do, and the first and the last",
            Reports::Round => "the report that begins each round, and the first and the last",
        }
    }
}

/// A picture a game drew of its board ([`crate::game::any::Pictures`]): what it shows, a
/// name for its files (`mygame-S1901M`), and the picture as SVG ([`Drawing::png`] gives
/// the PNG).
#[derive(Clone, Debug)]
pub struct Drawing {
    pub title: String,
    pub file: String,
    pub svg: String,
}

impl Drawing {
    /// The picture as PNG, at its own size.
    pub fn png(&self) -> Result<Vec<u8>, crate::diplomacy::picture::PictureError> {
        Ok(crate::diplomacy::picture::png::svg_to_png(&self.svg, 1.0)?)
    }
}

/// Whether a sign-on names the game master.
pub fn names_master(who: &str) -> bool {
    matches!(who.trim().to_ascii_lowercase().as_str(), "master" | "gm")
}

/// Whether a sign-on names an observer (`observer@mygame`, `obs@mygame`, and the classic
/// one-letter `SIGNON Omygame`): the observer is then the one at the sender's address.
pub fn names_observer(who: &str) -> bool {
    matches!(who.trim().to_ascii_lowercase().as_str(), "observer" | "obs" | "o")
}

/// The observer at `address` (any case), with the password they observe with (see
/// [`ObserverPasswords`]); `None` when `address` observes no game here.
pub fn observer_seat(observers: &[String], passwords: &ObserverPasswords, address: &str) -> Option<SeatRecord> {
    let address = observers.iter().find(|o| o.eq_ignore_ascii_case(address.trim()))?;
    Some(SeatRecord {
        role: Role::Observer(address.clone()),
        address: Some(address.clone()),
        timezone: None,
        password_hash: passwords.get(address).cloned(),
    })
}

pub use crate::game::seating::ObserverPasswords;

/// Keep an observer's new password hash; a time zone is refused (observers keep none).
pub fn set_observer_particulars(
    passwords: &mut ObserverPasswords,
    address: &str,
    password_hash: Option<&str>,
    zone: Option<&str>,
) -> Result<(), String> {
    if zone.is_some() {
        return Err("an observer keeps no time zone here: deadlines are shown in UTC".into());
    }
    if let Some(hash) = password_hash {
        passwords.insert(address.to_string(), hash.to_string());
    }
    Ok(())
}

/// The observers with a password, as the journal's particulars see them (the address is
/// in the name, so only a password change is recorded).
pub fn observer_particulars(passwords: &ObserverPasswords) -> Vec<crate::game::journal::Particulars> {
    passwords
        .iter()
        .map(|(address, hash)| crate::game::journal::Particulars {
            who: format!("{OBSERVER_KEY} {address}"),
            address: None,
            timezone: None,
            password_hash: Some(hash.clone()),
        })
        .collect()
}

/// A time zone as game.toml keeps it (unknown names: none).
pub fn zone(name: Option<&str>) -> Option<Tz> {
    name.and_then(|z| z.parse().ok())
}

/// The master's seat record.
pub fn master_seat(master: &Master) -> SeatRecord {
    SeatRecord {
        role: Role::Master,
        address: master.email.clone(),
        timezone: zone(master.timezone.as_deref()),
        password_hash: master.password_hash.clone(),
    }
}

/// Everyone who receives results: the seats' players (`(seat, address, zone)`), the
/// observers and the master.
pub fn contacts<'a>(
    seats: impl IntoIterator<Item = (String, &'a str, Option<&'a str>)>,
    observers: &[String],
    master: &Master,
) -> Vec<Contact> {
    let mut out: Vec<Contact> = seats
        .into_iter()
        .map(|(seat, address, tz)| Contact {
            role: ContactRole::Player(seat),
            address: address.to_string(),
            timezone: zone(tz),
        })
        .collect();
    out.extend(observers.iter().map(|a| Contact { role: ContactRole::Observer, address: a.clone(), timezone: None }));
    if let Some(a) = &master.email {
        out.push(Contact { role: ContactRole::Master, address: a.clone(), timezone: zone(master.timezone.as_deref()) });
    }
    out
}

/// Everyone who receives results, one contact per address (the first listed).
pub fn recipients(contacts: Vec<Contact>) -> Vec<Contact> {
    let mut out: Vec<Contact> = Vec::new();
    for c in contacts {
        if !out.iter().any(|r| r.address.eq_ignore_ascii_case(&c.address)) {
            out.push(c);
        }
    }
    out
}

/// Set a role's particulars where game.toml keeps them.
pub fn set_particulars(
    hash: &mut Option<String>,
    timezone: &mut Option<String>,
    password_hash: Option<&str>,
    zone: Option<&str>,
) {
    if let Some(h) = password_hash {
        *hash = Some(h.to_string());
    }
    if let Some(z) = zone {
        *timezone = Some(z.to_string());
    }
}

/// A player's say in the game's life, apart from orders: votes on how it ends and
/// announced absences. Powers as the player wrote them; the game resolves them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerCommand {
    /// `draw` (every survivor) or `draw france italy` (a named draw).
    Draw {
        powers: Vec<String>,
    },
    NoDraw,
    /// `concede france`.
    Concede {
        power: String,
    },
    NoConcede,
    /// `absence 2026-12-20 to 2026-12-27`: both days included, in the player's zone.
    Absence {
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
    },
}

/// A mail a game asks to be sent to others because of a command (a vote that ended the
/// game, a deadline an absence moved): to these addresses, each the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub to: Vec<String>,
    pub subject: String,
    pub body: String,
    /// The game's board as it ends goes with it (the pictures of its final position).
    pub final_board: bool,
}

/// What a command did: the answer to its sender, and the notices to others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub said: String,
    pub notices: Vec<Notice>,
}
