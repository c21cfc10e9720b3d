//! A game on disk, whatever it plays: the one contract through which the command line
//! reaches every game.
//!
//! The rules of a small game are a [`TurnGame`](crate::turn::TurnGame); Diplomacy's are
//! its engine ([`crate::diplomacy::engine`]). A game on disk is a
//! [`Session`](crate::game::session::Session) of one of two kinds: [`session::diplomacy`]
//! (phases, press, draws and owed results) or [`session::turn`] (every turn game).
//! [`GameSession`] is what every game offers the layers above, so that `submit`,
//! `adjudicate`, `status`, `history`, `results`, `rollback`, `verify` and `reveal` are one
//! command each, written once, whatever the game. [`create`] makes a game of either kind;
//! [`open`] picks the kind by what game.toml names.
//!
//! Every answer comes as an [`Answer`]: the text for people and the JSON for machines,
//! made from the same result.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

pub use crate::answer::Receipt;
pub use crate::diplomacy::picture::PictureError;
pub use crate::game::by_mail::Reports;
pub use crate::game::by_mail::{
    recipients, Clock, Contact, ContactRole, Drawing, Notice, Outcome, OwedMail, PlayerCommand, PressDelivery, PressTo,
    Role, SeatRecord,
};
pub use crate::game::error::GameError;
pub use crate::game::glance::Glance;
pub use crate::game::public::PublicGame;
pub use crate::game::schedule::DeadlinePolicy;
pub use crate::game::seating::{Listing, ObserveStep, Observed, ObserverPassword};
use crate::game::session;
pub use crate::game::session::diplomacy::Started;
pub use crate::game::session::diplomacy::{MailingOutcome, MailingPlan};
pub use crate::game::session::turn::{parse_turn_players, TurnSettings, MAX_TURN_BYTES};
pub use crate::game::settings::Master;
use crate::phase::Phase;
use crate::store::TaskLock;
use chrono_tz::Tz;

/// The answer to one command: text for people, JSON for machines, and whether it went
/// wholly well (a refused order or line, a failed check: exit status 1).
#[derive(Clone, Debug)]
pub struct Answer {
    pub text: String,
    /// The JSON, pretty-printed (keys in the order the types declare them).
    pub json: String,
    pub ok: bool,
}

impl Answer {
    fn new(text: String, json: String) -> Answer {
        Answer { text, json, ok: true }
    }
}

/// Who a submission is from, as the command line named them: Diplomacy seats are powers
/// (`--power`), the small games' seats are players (`--player`).
#[derive(Clone, Copy, Debug)]
pub enum Who<'a> {
    Power(&'a str),
    Player(&'a str),
}

/// One submission: whose, the text, whether only to check it, and when it counts as
/// received (the small games journal it; default the journal time).
#[derive(Clone, Copy, Debug)]
pub struct Submit<'a> {
    pub who: Who<'a>,
    pub text: &'a str,
    pub check: bool,
    pub at: Option<DateTime<Utc>>,
}

/// One line of a game's history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryRow {
    pub seq: u64,
    pub at: DateTime<Utc>,
    /// Where the game stood: a phase code (`S1901M`) or a step label (`round 3, act`).
    pub step: String,
    pub event: String,
}

/// The history of a game: its rows, and the name of the step column in JSON (`phase` for
/// Diplomacy, `step` for the small games, as each has always written it).
#[derive(Clone, Debug)]
pub struct History {
    pub step_key: &'static str,
    pub rows: Vec<HistoryRow>,
}

impl History {
    /// One line a row; the step column as wide as its widest entry.
    pub fn to_text(&self) -> String {
        let width = self.rows.iter().map(|r| r.step.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        for r in &self.rows {
            out.push_str(&format!(
                "{:>4}  {}  {:<width$}  {}\n",
                r.seq,
                r.at.format("%Y-%m-%d %H:%M"),
                r.step,
                r.event
            ));
        }
        out
    }

    pub fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|r| json!({"seq": r.seq, "at": r.at, self.step_key: r.step, "event": r.event}))
                .collect(),
        )
    }
}

/// A game opened from its directory, whatever it plays: the core every game implements
/// (what it is, exactly-once, what it shows, a submission and an adjudication), the
/// groups of the same every game has ([`ByMail`], [`Timed`], [`OwedResults`]), what a
/// game under way does ([`Play`]),
/// and the capabilities only some games have, as values ([`press`](Self::press),
/// [`votes`](Self::votes), [`pictures`](Self::pictures), [`seats`](Self::seats)):
/// `None` is "this game has none", and the layer that asked says so to the player, once
/// for every game.
pub trait GameSession: ByMail + Timed + OwedResults {
    /// The game's kind: `standard`, `shadow-worlds`, `duplexity`, ...
    fn kind(&self) -> String;

    /// The game's name, as its settings have it.
    fn name(&self) -> String;

    /// Whether the game is over (won, drawn, or ended otherwise).
    fn is_over(&self) -> bool;

    /// Repairs the store made on opening (print them).
    fn notes(&self) -> &[String];

    /// What went wrong after a change was made (the change stands): say them as warnings.
    fn warnings(&self) -> &[String];

    /// From now on, the inbound message item `tag` is being carried out (`None`: none):
    /// every journal entry this game makes is tagged with it, and a change the same item
    /// already made (the message carried out again after a crash) is not made twice.
    fn carry_out(&mut self, tag: Option<String>);

    /// Whether a journal entry of this game carries out the message item `tag`.
    fn has_message(&self, tag: &str) -> bool;

    /// Where the game stands, for people.
    fn status_text(&self) -> String;

    /// Where the game stands, for machines (`status --json`).
    fn status_json(&self) -> Value;

    /// Every journal entry, one row each.
    fn history(&self) -> Result<History, GameError>;

    /// What anyone may read of the game, for its public web page: nothing secret.
    fn public(&self) -> PublicGame;

    /// What the game does once under way: `None` while it waits for players (every
    /// caller says so with [`not_begun`]).
    fn play(&mut self) -> Option<&mut dyn Play>;

    // -----------------------------------------------------------------------------------
    // Capabilities: `None` when the game has no such thing.

    /// Press: messages between the seats, through the judge.
    fn press(&mut self) -> Option<&mut dyn Press> {
        None
    }

    /// Votes (draw, concede) and announced absences.
    fn votes(&mut self) -> Option<&mut dyn Votes> {
        None
    }

    /// The map drawn in the results mails, and each player's choice to get it or not.
    fn pictures(&mut self) -> Option<&mut dyn Pictures> {
        None
    }

    /// A game's life by mail: open seats, observers, resignations, takeovers.
    fn seats(&mut self) -> Option<&mut dyn Seats> {
        None
    }

    /// Each player's choice of which reports they are mailed.
    fn reports(&mut self) -> Option<&mut dyn ReportVolume> {
        None
    }

    /// The game's combined supply-center ledger (Shadow Worlds), for people and machines.
    fn ledger(&self) -> Option<Answer> {
        None
    }

    /// What adjudicating now would give, changing nothing; `None` for a game without
    /// previews (a small game's steps run as soon as no input is awaited).
    fn preview(&self) -> Option<Result<Answer, GameError>> {
        None
    }
}

/// Which reports a player is mailed ([`GameSession::reports`]).
pub trait ReportVolume {
    fn set_reports(&mut self, role: &Role, reports: Reports, now: DateTime<Utc>) -> Result<(), GameError>;
}

/// What a game under way does ([`GameSession::play`]; a game waiting for players has
/// none of it): the seats' input, the master's commands (look ahead, look back, go back,
/// check the dice, process now, early processing, a new player for a seat) and the
/// deadline's work.
pub trait Play {
    /// Take a player's orders or turn file (or only check them).
    fn submit(&mut self, submit: Submit<'_>, now: DateTime<Utc>) -> Result<Answer, GameError>;

    /// Process what is due: a Diplomacy phase (with the deadline defaults when `force`),
    /// or a small game's deadline defaults. `by_mail`: the results are owed by mail.
    fn adjudicate(&mut self, force: bool, by_mail: bool, now: DateTime<Utc>) -> Result<Answer, GameError>;

    /// Take a seat's orders or turn lines as mail brings them (the master's, in a game
    /// that takes them); whether the game went on (a small game's turn: its report is
    /// owed by mail).
    fn receive(&mut self, role: &Role, text: &str, now: DateTime<Utc>) -> Result<(Receipt, bool), GameError>;

    /// A seat asks that the step wait for its deadline (`wait`), or takes that back: the
    /// answer, and whether the game went on (its results are owed).
    fn set_wait(&mut self, role: &Role, wait: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError>;

    /// The deadline the schedule gives the step under way, counted from `now` (a
    /// `resume`). Refused once the game is over.
    fn scheduled_deadline(&self, now: DateTime<Utc>) -> Result<DateTime<Utc>, GameError>;

    /// Move the deadline of the step under way (`None`: paused).
    fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Result<(), GameError>;

    /// Go on before the deadline where the game allows it (every input in and nobody
    /// waits); what was done, in a line, or `None`. The results are owed by mail.
    fn go_on_early(&mut self, now: DateTime<Utc>) -> Result<Option<String>, GameError>;

    /// At the deadline of step `expected`, before the tick processes it: extend it once
    /// for the seats that sent nothing, as the game's options allow (`[deadlines]
    /// late_extension_hours`); what was done and the late notices. `None`: process now.
    fn late_extension(&mut self, expected: &str, now: DateTime<Utc>) -> Result<Option<Outcome>, GameError>;

    /// The results of a past step: a phase (`S1901M`, "fall 1901") or a journal entry
    /// number; the last one by default.
    fn results(&self, which: Option<&str>) -> Result<Answer, GameError>;

    /// Go back to the start of a phase or round; returns what was done, in a sentence.
    fn rollback(&mut self, to: &str, now: DateTime<Utc>) -> Result<String, GameError>;

    /// Recompute every roll from the revealed seed (`ok` false on a mismatch).
    fn verify(&self) -> Result<Answer, GameError>;

    /// Reveal the dice seed; a game with rolls still to come only with `force`.
    fn reveal(&mut self, force: bool, now: DateTime<Utc>) -> Result<Answer, GameError>;

    /// Process the step under way now, with the deadline defaults for what is missing; the
    /// results are owed by mail. With `expected` (a [`Clock`]'s step), only while the game
    /// is still there. What was done, in a line.
    fn process(&mut self, expected: Option<&str>, now: DateTime<Utc>) -> Result<String, GameError>;

    /// Early processing on or off: the answer, and whether the game went on.
    fn set_early(&mut self, on: bool, now: DateTime<Utc>) -> Result<(String, bool), GameError>;

    /// Hand a seat to a new player at `address` with this password hash; the seat's name.
    fn replace(
        &mut self,
        seat: &str,
        address: &str,
        password_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<String, GameError>;
}

/// The seats by mail, every game: sign-on, what a seat sends, what it may read, its
/// particulars, `wait`.
pub trait ByMail {
    /// The seat `who` names (a power as players write it, `fra`, `f`; a player's name; or
    /// `master`/`gm`) with its particulars. `Err`: the seats there are, by name.
    fn seat(&self, who: &str) -> Result<SeatRecord, Vec<String>>;

    /// What the game's kind offers, and the words it is named in (see
    /// [`crate::games::Offers`]).
    fn offers(&self) -> crate::games::Offers;

    /// Where the game stands, as `role` may see it, deadlines also in `zone`.
    fn status_for(&self, role: &Role, zone: Option<Tz>, now: DateTime<Utc>) -> String;

    /// The recent past, for a `history` mail from `role`: what a player may read, or
    /// (for the master) the game's journal.
    fn recent_history(&self, role: &Role) -> Result<String, GameError>;

    /// Everyone who receives results: players, observers and the master.
    fn contacts(&self) -> Vec<Contact>;

    /// Keep a role's new password hash or time zone in game.toml.
    fn set_particulars(
        &mut self,
        role: &Role,
        password_hash: Option<&str>,
        zone: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), GameError>;
}

/// The deadline and the tick, every game.
pub trait Timed {
    /// The deadline of the step under way, if one runs.
    fn deadline(&self) -> Option<DateTime<Utc>>;

    /// What the deadline tick sees; `None` while no deadline runs (paused, over).
    fn clock(&self) -> Option<Clock>;

    /// Keep the game's glance for the next tick, which found nothing due at `clock` (see
    /// [`glance`]). A cache: failing to keep it, or keeping none, changes nothing.
    fn keep_glance(&self, clock: Option<&Clock>);
}

/// The results owed by mail, every game: what is owed, the lock of its mailing, the
/// record of who had it.
pub trait OwedResults {
    /// The results owed by mail, oldest first.
    fn owed(&self) -> Result<Vec<OwedMail>, GameError>;

    /// Take the lock of the results mailing; `None` without `wait` when another run is
    /// mailing this game's results now.
    fn lock_mailing(&self, wait: bool) -> Result<Option<TaskLock>, GameError>;

    /// Before mailing the results of step `seq` to `to`: mark durably that they are being
    /// mailed, and say to whom they may go (an earlier mailing cut short sends them at
    /// most once more: [`crate::store::Book::begin_mailing`]). Nothing may be sent if
    /// this fails.
    fn begin_mailing(&mut self, seq: u64, to: &[String], now: DateTime<Utc>) -> Result<MailingPlan, GameError>;

    /// After each send: note in the mark what the mailing of step `seq` did so far
    /// ([`crate::store::Book::note_mailing`]). Nothing more may be sent if this fails.
    fn note_mailed(&mut self, seq: u64, outcome: &MailingOutcome) -> Result<(), GameError>;

    /// Record what mailing the results of step `seq` did; addresses to retry stay owed.
    fn record_mailed(&mut self, seq: u64, outcome: &MailingOutcome, now: DateTime<Utc>) -> Result<(), GameError>;
}

/// Press ([`GameSession::press`]).
pub trait Press {
    /// Check and journal a press message; who receives it.
    fn send(&mut self, from: &Role, to: &PressTo, text: &str, now: DateTime<Utc>) -> Result<PressDelivery, GameError>;
}

/// Votes and absences ([`GameSession::votes`]).
pub trait Votes {
    /// A seat's vote or announced absence (dates in `zone`, else UTC): the answer, and
    /// the mails it causes for others.
    fn player_command(
        &mut self,
        role: &Role,
        command: &PlayerCommand,
        zone: Option<Tz>,
        now: DateTime<Utc>,
    ) -> Result<Outcome, GameError>;

    /// The master refuses the absences of a seat that are not over: they move no deadline
    /// any more. The answer, and the mails it causes for others.
    fn refuse_absence(&mut self, seat: &str, now: DateTime<Utc>) -> Result<Outcome, GameError>;

    /// The master declares the game drawn between the seats still in it: the answer, and
    /// the final results for everyone.
    fn declare_draw(&mut self, now: DateTime<Utc>) -> Result<Outcome, GameError>;
}

/// The map pictures of the results mails ([`GameSession::pictures`]).
pub trait Pictures {
    /// Whether a player's results mails carry the map pictures.
    fn set_pictures(&mut self, role: &Role, on: bool, now: DateTime<Utc>) -> Result<(), GameError>;

    /// The addresses whose results mails carry no picture (players who turned theirs off).
    fn pictures_off(&self) -> Vec<String>;

    /// The picture of the results journaled as entry `seq`, for the results mails; `None`
    /// while the game's pictures are off.
    fn results_picture(&self, seq: u64) -> Option<Result<Drawing, PictureError>>;

    /// The picture of the board as it stands (a game's final position), for the mail that
    /// ends it; `None` while the game's pictures are off.
    fn board_picture(&self) -> Option<Result<Drawing, PictureError>>;

    /// `map draw`, whether or not the mails carry pictures: the results of `results`
    /// (`Some(None)`: the last ones), or the board as it stands (`None`); of two boards,
    /// only `board` (`A` or `B`) when one is named.
    fn drawing(&self, results: Option<Option<Phase>>, board: Option<char>) -> Result<Drawing, PictureError>;
}

/// A game's life by mail ([`GameSession::seats`]): listing, joining, observing,
/// resigning, taking over.
pub trait Seats {
    /// The game as `list` shows it, with its seats (a game without them: [`listing`]).
    fn listing(&self) -> Listing;

    /// A change of who plays or watches the game (see [`SeatChange`]).
    fn change_seats(&mut self, change: &SeatChange<'_>, now: DateTime<Utc>) -> Result<SeatOutcome, GameError>;

    /// The password hash an address joined with, while the game waits for players.
    fn joined_hash(&self, email: &str) -> Option<String>;
}

/// The game as `list` shows it, from what every game can say (a game with [`Seats`]
/// says more).
pub fn listing(g: &dyn GameSession) -> Listing {
    Listing {
        name: g.name(),
        kind: g.kind(),
        step: g.clock().map(|c| c.step).unwrap_or_default(),
        deadline: g.deadline(),
        over: g.is_over(),
        result: None,
        open: None,
        vacant: Vec::new(),
        seats: Vec::new(),
        notes: Vec::new(),
        powers: Vec::new(),
    }
}

/// A capability a command needs and the game lacks: what anyone who asked is told,
/// from the command line or by mail, whatever the game (the one place it is said).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lacking {
    Press,
    Votes,
    Absences,
    Pictures,
    Reports,
    OpenSeats,
    Observers,
    Resignations,
    /// A look at what adjudicating now would give (`adjudicate --dry-run`, `preview`).
    Preview,
    /// The combined supply-center ledger of Shadow Worlds.
    Ledger,
}

impl Lacking {
    /// What the sender is told.
    pub fn words(self) -> &'static str {
        match self {
            Lacking::Press => "press is for Diplomacy games; this game has none",
            Lacking::Votes => "this game has no votes or absences",
            Lacking::Absences => "this game has no absences",
            Lacking::Pictures => "this game has no map to draw",
            Lacking::Reports => {
                "every player is mailed every phase's results in this game (`map off` leaves the \
                                 pictures out)"
            }
            Lacking::OpenSeats => "this game has no open seats",
            Lacking::Observers => "this game takes no observers by mail",
            Lacking::Resignations => "this game takes no resignations by mail; ask the game master",
            Lacking::Preview => "this game has no preview: its steps run as soon as no input is awaited",
            Lacking::Ledger => "the ledger belongs to Shadow Worlds games",
        }
    }

    /// What a seat change needs that a game without seats by mail lacks.
    pub fn seats_for(change: &SeatChange<'_>) -> Lacking {
        match change {
            SeatChange::Observe { .. } => Lacking::Observers,
            SeatChange::Resign { .. } => Lacking::Resignations,
            _ => Lacking::OpenSeats,
        }
    }
}

impl From<Lacking> for GameError {
    fn from(l: Lacking) -> GameError {
        GameError::Invalid(l.words().to_string())
    }
}

/// Why a game waiting for players does not do what was asked: the one refusal for every
/// command that needs a game under way ([`GameSession::play`]).
pub fn not_begun(g: &dyn GameSession) -> GameError {
    usage(format!("{} has not begun: it waits for players, and begins when the last seat is filled", g.name()))
}

/// What `g` does once under way ([`GameSession::play`]), or the refusal of a game that
/// waits for players ([`not_begun`]).
pub fn under_way(g: &mut dyn GameSession) -> Result<&mut dyn Play, GameError> {
    if g.play().is_none() {
        return Err(not_begun(g));
    }
    Ok(g.play().expect("under way, as just asked"))
}

/// A change of who plays or watches a game, as mail asks for it. Seats and powers are as
/// the player wrote them (`fra`, `France`); the game resolves them.
#[derive(Clone, Debug)]
pub enum SeatChange<'a> {
    /// Take an open seat, with the powers preferred, best first. `name`: what the player
    /// is known by in a game whose seats are powers (never an address).
    Join { email: &'a str, password_hash: &'a str, prefer: &'a [String], name: &'a str },
    /// Leave an open seat before the start.
    Leave { email: &'a str },
    /// Receive the results and broadcasts; with a password (its hash), sign on as an
    /// observer too. Asked for, then confirmed from the address with the code mailed to it.
    Observe { email: &'a str, password_hash: Option<&'a str>, step: crate::game::seating::ObserveStep<'a> },
    /// The player of `seat` gives it up: it is vacant.
    Resign { seat: &'a str },
    /// Ask for a vacant seat; `name` as for `Join`.
    Takeover { seat: &'a str, email: &'a str, password_hash: &'a str, name: &'a str },
    /// The master gives a vacant seat to whoever asked for it.
    Approve { seat: &'a str },
}

/// What a [`SeatChange`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatOutcome {
    /// Joined (`again`: a join from the same address replaced its password and list).
    Joined {
        again: bool,
        seats_left: usize,
        started: Option<crate::game::session::diplomacy::Started>,
        /// The powers preferred, as understood, best first (none: no list).
        prefer: Vec<String>,
    },
    Left {
        seats_left: usize,
    },
    /// What `observe` did: asked for a confirmation, or observing.
    Observing(crate::game::seating::Observed),
    /// The seat is vacant; the address that played it. `over`: the final results, when
    /// the votes counted again without it ended the game.
    Resigned {
        seat: String,
        email: String,
        over: Option<String>,
    },
    /// A takeover asked for: waiting for the master's `approve`.
    Asked {
        seat: String,
    },
    /// A vacant seat has a player again (`over`: as for [`SeatOutcome::Resigned`]).
    TakenOver {
        seat: String,
        email: String,
        over: Option<String>,
    },
}

/// What the tick can know of a game without opening it: a glance kept by an earlier tick
/// while nothing has changed since ([`Glance`]); `None`: open the game.
pub fn glance(path: &Path) -> Option<Glance> {
    crate::game::glance::read(path)
}

/// What the game at `path` offers (see [`ByMail::offers`]), from its game.toml alone.
pub fn offers(path: &Path) -> crate::games::Offers {
    offers_of(session::turn::kind_of(path).ok().flatten().as_deref())
}

/// What a game of kind `kind` (game.toml's `game`; none: Diplomacy) offers. A kind the
/// registry does not know is opened as a turn game, and refused there by name.
fn offers_of(kind: Option<&str>) -> crate::games::Offers {
    match kind {
        None => crate::games::Offers::DIPLOMACY,
        Some(kind) => crate::games::kind(kind).map_or(crate::games::Offers::SMALL, |k| k.offers),
    }
}

/// Open a game to change it (its lock is taken for each change).
pub fn open(path: &Path) -> Result<Box<dyn GameSession>, GameError> {
    Ok(match session::turn::kind_of(path)? {
        Some(_) => match session::turn::lobby::Lobby::open(path, true)? {
            Some(lobby) => Box::new(lobby),
            None => Box::new(session::turn::open(path)?),
        },
        None => Box::new(session::diplomacy::open(path)?),
    })
}

/// Create a Diplomacy game with open seats (`new --open`, `create` by mail): no
/// players yet, no deadline until the last seat is filled; the dice's commitment for
/// assigning the powers is journaled. `variant`: `standard`, `shadow-worlds` or a shipped
/// variant, as people write them; `map`: a shipped variant's map for `standard` or
/// `shadow-worlds` (map files are for `shadowjudge new`, not for mail).
#[allow(clippy::too_many_arguments)]
pub fn create_open(
    path: &Path,
    name: &str,
    variant: &str,
    map: Option<&str>,
    seats: Option<usize>,
    deadlines: Option<crate::game::schedule::DeadlinePolicy>,
    master: crate::game::settings::Master,
    now: DateTime<Utc>,
) -> Result<Box<dyn GameSession>, GameError> {
    use crate::game::settings::Settings;
    if let Some(kind) = crate::games::kind(&variant.to_ascii_lowercase()) {
        // A small game of the registry: `seats` of them (the fewest it takes by default).
        let settings = session::turn::TurnSettings {
            name: name.to_string(),
            game: kind.name.to_string(),
            observers: Vec::new(),
            observer_passwords: Default::default(),
            deadlines: deadlines.unwrap_or_default(),
            players: Vec::new(),
            master,
            word_list: None,
            seats: Default::default(),
        };
        let size = seats.unwrap_or(kind.players.0);
        let seed = crate::dice::Seed::generate();
        let new = NewGame::Turn { settings: &settings, options: &Default::default(), seed, open_seats: Some(size) };
        return Ok(create(path, new, now)?.game);
    }
    if seats.is_some() {
        return Err(usage("a Diplomacy game has one seat per power; `seats` is for the small games"));
    }
    if map.is_some_and(|m| crate::diplomacy::map::shipped::find(m).is_none()) {
        return Err(usage(format!(
            "unknown map `{}`: the maps are {}",
            map.unwrap_or_default(),
            crate::diplomacy::map::shipped::names().join(", ")
        )));
    }
    let (variant, map_name) = crate::game::settings::parse_variant(variant, map)
        .map_err(|e| usage(format!("{e}; or a small game: {}", crate::games::names())))?;
    let mut settings = Settings::new(name, variant);
    settings.map = map_name;
    if let Some(deadlines) = deadlines {
        settings.deadlines = deadlines;
    }
    settings.master = master;
    let map = crate::diplomacy::map::shipped::map(&settings.map).expect("a shipped map, checked above");
    let state = crate::diplomacy::state::GameState::start(&map, variant.boards());
    Ok(create(path, NewGame::Diplomacy { settings: &settings, state: Box::new(state), open: true }, now)?.game)
}

/// A new game, as its creator describes it ([`create`]).
pub enum NewGame<'a> {
    /// A Diplomacy game from `state` (the start, or a position); `open`: it has no players
    /// yet, and its seats open to joins by mail.
    Diplomacy {
        settings: &'a crate::game::settings::Settings,
        state: Box<crate::diplomacy::state::GameState>,
        open: bool,
    },
    /// A game of the registry's turn games; `open_seats`: that many seats open to joins by
    /// mail (no players named yet).
    Turn {
        settings: &'a session::turn::TurnSettings,
        options: &'a crate::games::Options,
        seed: crate::dice::Seed,
        open_seats: Option<usize>,
    },
}

/// What a game just made says of itself, for whoever made it.
pub struct Created {
    pub game: Box<dyn GameSession>,
    /// The rules options in force, one a line (none while a turn game waits for players).
    pub options: Vec<String>,
    /// Where it stands (`Spring 1901 movement`), and its first deadline.
    pub step: String,
    pub deadline: Option<DateTime<Utc>>,
    /// The published commitment of the dice's seed, where dice roll (or assign powers).
    pub commitment: Option<String>,
    /// What its setup did, a line each (Duplexity: who places first).
    pub setup: Vec<String>,
    /// The position as players read it, for a turn game under way.
    pub report: Option<String>,
}

/// Make a new game in `path`: the one place a game is made, whatever it plays.
pub fn create(path: &Path, new: NewGame<'_>, now: DateTime<Utc>) -> Result<Created, GameError> {
    match new {
        NewGame::Diplomacy { settings, state, open } => {
            let mut g = session::diplomacy::create(path, settings, *state, now)?;
            let commitment = if open { Some(g.open_seats(now)?) } else { None };
            Ok(Created {
                options: g.game.option_lines(),
                step: g.game.state.phase.to_string(),
                deadline: g.game.state.deadline,
                commitment,
                setup: Vec::new(),
                report: None,
                game: Box::new(g),
            })
        }
        NewGame::Turn { settings, options, seed, open_seats: Some(size) } => {
            let lobby = session::turn::lobby::create_open(path, settings.clone(), size, options, seed)?;
            Ok(Created {
                options: Vec::new(),
                step: "waiting for players".to_string(),
                deadline: None,
                commitment: Some(lobby.commitment.clone()),
                setup: Vec::new(),
                report: None,
                game: Box::new(lobby),
            })
        }
        NewGame::Turn { settings, options, seed, open_seats: None } => {
            let g = session::turn::create(path, settings, options, seed, now)?;
            let first = g.entries.first().and_then(|(_, _, entry)| entry.step());
            Ok(Created {
                options: g.game.option_lines(),
                step: g.game.step_label(),
                deadline: g.meta.deadline,
                commitment: Some(g.meta.commitment.clone()),
                setup: first.map(|s| s.events.clone()).unwrap_or_default(),
                report: Some(g.report_text()),
                game: Box::new(g),
            })
        }
    }
}

/// Open a game only to read it: no lock, nothing written.
pub fn open_read_only(path: &Path) -> Result<Box<dyn GameSession>, GameError> {
    Ok(match session::turn::kind_of(path)? {
        Some(_) => match session::turn::lobby::Lobby::open(path, false)? {
            Some(lobby) => Box::new(lobby),
            None => Box::new(session::turn::open_read_only(path)?),
        },
        None => Box::new(session::diplomacy::open_read_only(path)?),
    })
}

/// A `password` or `timezone` change by mail, for whoever sent it: the master's, a
/// seat's (found by `seat`, as each game names its seats), or an observer's, kept under
/// its address.
fn set_role_particulars<'s>(
    role: &Role,
    master: &'s mut Master,
    observers: &'s mut crate::game::seating::ObserverPasswords,
    seat: impl FnOnce(&str) -> Result<(&'s mut Option<String>, &'s mut Option<String>), GameError>,
    password_hash: Option<&str>,
    zone: Option<&str>,
) -> Result<(), GameError> {
    let (hash, tz) = match role {
        Role::Master => (&mut master.password_hash, &mut master.timezone),
        Role::Seat(name) => seat(name)?,
        Role::Observer(address) => {
            return crate::game::by_mail::set_observer_particulars(observers, address, password_hash, zone)
                .map_err(usage);
        }
    };
    crate::game::by_mail::set_particulars(hash, tz, password_hash, zone);
    Ok(())
}

fn usage(text: impl Into<String>) -> GameError {
    GameError::Invalid(text.into())
}

fn parse_phase(text: &str) -> Result<Phase, GameError> {
    text.parse().map_err(|e: crate::phase::PhaseParseError| usage(e.to_string()))
}

/// JSON for machines, as the types declare their fields.
fn pretty(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| json!({ "error": e.to_string() }).to_string())
}

mod diplomacy;
mod small;
mod small_lobby;
