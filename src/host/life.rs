//! A game's life by mail on the judge's side: `list`, open seats (`join`, `leave`, the
//! start), `observe`, `resign`, `takeover` and `approve`, `create`, and the master's
//! `preview`. Each goes through [`GameSession`]; the mails it causes for others (a start,
//! a vacancy, an ask for the master) go to [`JudgeHost::take_mails`].

use std::fmt::Write;

use chrono::{DateTime, Utc};

use super::{player_words, JudgeHost};
use crate::game::any::{
    self, ContactRole, DeadlinePolicy, GameError, GameSession, Listing, Master, ObserveStep, Observed,
    ObserverPassword, SeatChange, SeatOutcome, Started,
};
use crate::mail::host::{HostError, Identity};
use crate::mail::lobby::LobbyRequest;
use crate::mail::password::{generate_password, hash_password};
use crate::mail::reply::{format_deadline, header_safe, MailKind, OutgoingMail};
use crate::text::count;

/// What the judge directory says about games made by mail.
#[derive(Clone, Debug, Default)]
pub struct LobbySettings {
    /// Who may `create` a game by mail (judge.toml's `masters`).
    pub masters: Vec<String>,
    /// The deadline policy new games start with (judge.toml's `[deadlines]`).
    pub deadlines: Option<DeadlinePolicy>,
}

/// The hash an observer's confirmation code is kept as (the code itself only goes to
/// the address it confirms).
fn code_hash(code: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(code.trim().to_ascii_lowercase().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn mail(to: &str, subject: String, body: String) -> OutgoingMail {
    OutgoingMail {
        to: to.to_string(),
        subject: header_safe(&subject, 120),
        body,
        in_reply_to: None,
        references: Vec::new(),
        kind: MailKind::Generated,
        attachments: Vec::new(),
    }
}

/// One game as a line of `list`, its kind in a column `width` wide.
fn list_line(l: &Listing, width: usize) -> String {
    let what = if l.over {
        "over".to_string()
    } else if let Some((taken, all)) = l.open {
        format!("waiting for players: {taken} of {all} seats taken (`join {} PASSWORD`)", l.name)
    } else {
        let mut parts = Vec::new();
        if !l.step.is_empty() {
            parts.push(l.step.clone());
        }
        parts.push(match l.deadline {
            Some(at) => format!("deadline {}", format_deadline(at, None)),
            None => "no deadline (paused)".to_string(),
        });
        if !l.vacant.is_empty() {
            parts.push(format!("vacant: {}", l.vacant.join(", ")));
        }
        parts.join("; ")
    };
    format!("  {:<16} {:<width$} {what}", l.name, l.kind)
}

/// `prefer` and two of the game's powers, as a player writes them (`prefer rome carthage ...`).
fn prefer_example(powers: &[String]) -> String {
    let two: Vec<String> = powers.iter().take(2).map(|p| p.to_lowercase()).collect();
    format!("prefer {} ...", two.join(" "))
}

/// One game in full, for `list NAME`.
fn list_game(l: &Listing) -> String {
    let mut out = String::new();
    let step = if l.step.is_empty() { String::new() } else { format!(": {}", l.step) };
    let _ = writeln!(out, "{} ({}){step}", l.name, l.kind);
    if l.over {
        let result = l.result.as_deref().map_or_else(|| "The game is over.".to_string(), crate::text::game_over);
        let _ = writeln!(out, "{result}");
    } else if let Some((taken, all)) = l.open {
        let prefer = if !l.powers.is_empty() {
            format!(", or `join {} PASSWORD {}` (the powers you prefer, best first)", l.name, prefer_example(&l.powers))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "Waiting for players: {taken} of {all} seats taken. Join with `join {} PASSWORD`{prefer}; the game \
             starts when the last seat is filled.",
            l.name
        );
    } else {
        let _ = match l.deadline {
            Some(at) => writeln!(out, "Deadline: {}", format_deadline(at, None)),
            None => writeln!(out, "No deadline (paused)."),
        };
    }
    for seat in &l.seats {
        let _ = writeln!(out, "  {seat}");
    }
    if !l.vacant.is_empty() && !l.over {
        let first = l.vacant[0].to_lowercase();
        // A small game's seats are named by its players; a power's units hold.
        let what = if !l.powers.is_empty() {
            "units hold; civil disorder in Winter"
        } else {
            "the deadline defaults play for it"
        };
        let _ = writeln!(
            out,
            "Vacant: {} ({what}). Ask for one with `takeover {first}@{} PASSWORD`.",
            l.vacant.join(", "),
            l.name
        );
    }
    for note in &l.notes {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// The games not yet over that one master may have made by mail.
pub const MAX_GAMES_PER_MASTER: usize = 10;

impl JudgeHost {
    /// Set what the judge directory says about games made by mail.
    pub fn with_lobby(mut self, lobby: LobbySettings) -> JudgeHost {
        self.lobby = lobby;
        self
    }

    /// The game's listing, with its players when the game has no seat lines of its own.
    fn listing_of(g: &mut dyn GameSession) -> Listing {
        let mut l = match g.seats() {
            Some(seats) => seats.listing(),
            None => any::listing(g),
        };
        if l.seats.is_empty() && l.open.is_none() {
            l.seats = g
                .contacts()
                .into_iter()
                .filter_map(|c| match c.role {
                    ContactRole::Player(seat) => Some(format!("{seat:<8} played")),
                    _ => None,
                })
                .collect();
        }
        l
    }

    pub(super) fn list_text(&self, game: Option<&str>) -> Result<String, HostError> {
        if let Some(game) = game {
            let mut g = self.read(game)?;
            return Ok(list_game(&Self::listing_of(g.as_mut())));
        }
        let names = self.game_names();
        if names.is_empty() {
            return Ok("There are no games on this judge yet.".to_string());
        }
        let mut out = format!("Games on this judge ({}):\n", names.len());
        let listings: Vec<(String, Option<Listing>)> = names
            .into_iter()
            .map(|name| {
                let listing = self.read(&name).ok().map(|mut g| Self::listing_of(g.as_mut()));
                (name, listing)
            })
            .collect();
        // The kinds in one column, as wide as the widest (`shadow-worlds on modern`).
        let width = listings.iter().filter_map(|(_, l)| l.as_ref()).map(|l| l.kind.chars().count()).max();
        for (name, listing) in &listings {
            match listing {
                Some(l) => out.push_str(&list_line(l, width.unwrap_or(0).max(14))),
                None => out.push_str(&format!("  {name:<16} (cannot be read just now)")),
            }
            out.push('\n');
        }
        out.push_str("`list NAME` shows one game in full.\n");
        Ok(out)
    }

    /// A seat change, under the game's lock, with the message's tag.
    fn seats(
        &mut self,
        game: &str,
        change: &SeatChange<'_>,
        now: DateTime<Utc>,
    ) -> Result<(String, SeatOutcome), HostError> {
        self.change(game, |g| Ok((g.name(), super::lacking::seats(g, change)?.change_seats(change, now)?)))
    }

    pub(super) fn lobby_request(
        &mut self,
        sender: &str,
        request: &LobbyRequest,
        now: DateTime<Utc>,
    ) -> Result<String, HostError> {
        match request {
            LobbyRequest::Join { game, password_hash, prefer, name } => {
                let change = SeatChange::Join { email: sender, password_hash, prefer, name };
                let (name, outcome) = self.seats(game, &change, now)?;
                let SeatOutcome::Joined { again, seats_left, started, prefer } = outcome else { unreachable!() };
                let mut said = if again {
                    format!("You had joined {name}: your preferences are replaced.")
                } else {
                    format!("You joined {name}, with the password you sent (kept only as a hash).")
                };
                if !prefer.is_empty() {
                    said.push_str(&format!(" Your preferences, best first: {}.", prefer.join(", ")));
                }
                match started {
                    Some(started) => {
                        said.push_str(
                            " That was the last seat: the game has started and every player is mailed what they play.",
                        );
                        self.started_mails(game, &name, &started)?;
                        // The opening report (whose turn it is) goes out with the start, not
                        // at the next tick.
                        self.owes_mail(name.clone());
                    }
                    None => said.push_str(&format!(
                        " {} still open; the game starts when the last is filled. `leave {name} PASSWORD` \
                         takes you out before then.",
                        count(seats_left, "seat is", "seats are")
                    )),
                }
                Ok(said)
            }
            LobbyRequest::Leave { game } => {
                let (name, outcome) = self.seats(game, &SeatChange::Leave { email: sender }, now)?;
                let SeatOutcome::Left { seats_left } = outcome else { unreachable!() };
                Ok(format!("You left {name}; {} open.", count(seats_left, "seat is", "seats are")))
            }
            LobbyRequest::Observe { game, password_hash, code } => {
                // A request makes a code mailed to the sender's own address (From, never
                // Reply-To): only its owner can send it back, so a forged From subscribes
                // nobody.
                let fresh = crate::dice::Seed::generate().to_hex()[..12].to_string();
                let step = match code {
                    Some(code) => ObserveStep::Confirm { code_hash: &code_hash(code) },
                    None => ObserveStep::Ask { code_hash: &code_hash(&fresh) },
                };
                let change = SeatChange::Observe { email: sender, password_hash: password_hash.as_deref(), step };
                let (name, outcome) = self.seats(game, &change, now)?;
                let SeatOutcome::Observing(observed) = outcome else { unreachable!() };
                let (new, password) = match observed {
                    Observed::Asked => {
                        self.mails.push(mail(
                            sender,
                            format!("{name}: confirm that you observe"),
                            format!(
                                "Someone asked, from this address, to observe {name} on this judge: to receive its \
                                 results and broadcasts.\n\nTo confirm, send the judge this line from this \
                                 address:\n\n  observe {name} confirm {fresh}\n\nIf you did not ask, do \
                                 nothing: you will not be mailed about {name}.\n"
                            ),
                        ));
                        return Ok(format!(
                            "To observe {name}, confirm from {}: the judge has mailed it a code, to send back with \
                             `observe {name} confirm CODE`.",
                            header_safe(sender, 80)
                        ));
                    }
                    Observed::Observing { new, password } => (new, password),
                };
                let mut said = if new {
                    format!("You observe {name}: you will receive its results and broadcasts.")
                } else {
                    format!("You already observe {name}.")
                };
                said.push(' ');
                said.push_str(&match password {
                    ObserverPassword::NotGiven if new => format!(
                        "With a password of your own (`observe {name} PASSWORD`) you may also sign on as an observer."
                    ),
                    ObserverPassword::NotGiven => String::new(),
                    ObserverPassword::Kept => format!(
                        "Your password is kept (only as a hash). From this address, sign on with `SIGNON \
                         observer@{name} PASSWORD` to read `status` and `history` and, where the game allows it, \
                         send press."
                    ),
                    ObserverPassword::AlreadySet => "You have a password already; it is not changed (sign on as an \
                                                     observer and send `password NEW` to change it)."
                        .to_string(),
                });
                Ok(said.trim_end().to_string())
            }
            LobbyRequest::Takeover { game, seat, password_hash, name } => {
                let change = SeatChange::Takeover { seat, email: sender, password_hash, name };
                let (name, outcome) = self.seats(game, &change, now)?;
                match outcome {
                    SeatOutcome::TakenOver { seat, email, over } => {
                        self.taken_over_mails(game, &name, &seat, &email, false)?;
                        self.game_over_mails(game, &name, over);
                        Ok(format!(
                            "You now play {seat} in {name}. Sign on with `SIGNON {}@{name} PASSWORD` (the password you \
                             sent) and send `status` to see the game.",
                            seat.to_lowercase()
                        ))
                    }
                    SeatOutcome::Asked { seat } => {
                        for master in self.contacts_of(game, |r| *r == ContactRole::Master) {
                            self.mails.push(mail(
                                &master.address,
                                format!("{name}: {} asks to take over {seat}", header_safe(sender, 80)),
                                format!(
                                    "{} asks to take over {seat}, vacant in {name}. To give it to them, sign on as \
                                     master and send `approve {}`.\n",
                                    header_safe(sender, 254),
                                    seat.to_lowercase()
                                ),
                            ));
                        }
                        Ok(format!(
                            "You asked to take over {seat} in {name}; the game master is told, and you will be \
                             mailed once they approve it."
                        ))
                    }
                    _ => unreachable!(),
                }
            }
            LobbyRequest::Create { game, variant, map, seats } => {
                self.create(sender, game, variant, map.as_deref(), *seats, now)
            }
        }
    }

    fn contacts_of(&self, game: &str, keep: impl Fn(&ContactRole) -> bool) -> Vec<crate::game::any::Contact> {
        let contacts = self.read(game).map(|g| g.contacts()).unwrap_or_default();
        crate::game::any::recipients(contacts.into_iter().filter(|c| keep(&c.role)).collect())
    }

    /// Each player their power (a small game: their seat), the first deadline, how to
    /// send orders with their own units as the example, and how the dice can be checked;
    /// the master who plays what, observers which powers play.
    fn started_mails(&mut self, game: &str, name: &str, started: &Started) -> Result<(), HostError> {
        let deadline = started.deadline.map(|at| format_deadline(at, None)).unwrap_or_else(|| "none yet".into());
        let verify = if started.turn_lines {
            format!(
                "The players are seated in the order they joined. The game's dice roll from a secret seed whose \
                 commitment (its sha256) was published when the game opened:\n\n  {}\n\nThe seed is revealed \
                 when the game ends; then anyone can check every roll with `shadowjudge verify` on the game.",
                started.commitment
            )
        } else {
            format!(
                "The powers were assigned from the players' preferences by the verifiable dice, from a secret seed \
                 whose commitment (its sha256) was published when the game opened:\n\n  {}\n\nThe seed, revealed \
                 now:\n\n  {}\n\nAnyone can check that its sha256 is the commitment and redo the assignment from \
                 the joins (README, \"A game's life by mail\"); `shadowjudge verify` on the game's directory does \
                 both.",
                started.commitment,
                started.seed.as_deref().unwrap_or("")
            )
        };
        for (i, (email, power)) in started.powers.iter().enumerate() {
            let example = started.examples.get(i).map(String::as_str).unwrap_or("");
            let example: String = example.lines().map(|l| format!("  {l}\n")).collect();
            let (you, how) = if started.turn_lines {
                (
                    format!("{name} has begun and you play as {power}."),
                    if example.is_empty() {
                        "Send your turn by mail to this judge when `status` says it is yours, starting with your \
                         sign-on line and the password you joined with:"
                            .to_string()
                    } else {
                        "Send your turn by mail to this judge, starting with your sign-on line and the password \
                         you joined with, for example:"
                            .to_string()
                    },
                )
            } else {
                (
                    format!("{name} has started and you play {power}."),
                    "Send your orders by mail to this judge, starting with your sign-on line and the password you \
                     joined with, for example:"
                        .to_string(),
                )
            };
            self.mails.push(mail(
                email,
                format!("{name}: you play {power}"),
                format!(
                    "{you} {verify}\n\nFirst deadline: {deadline}\n\n{how}\n\n  SIGNON {}@{name} yourpassword\n\
                     {example}\n`status` after the sign-on shows the game; `help` lists every command.\n",
                    power.to_lowercase()
                ),
            ));
        }
        let seat_word = if started.turn_lines { "seats" } else { "powers" };
        let table: String = started.powers.iter().map(|(_, power)| format!("  {power}\n")).collect();
        let width = started.powers.iter().map(|(_, p)| p.chars().count()).max().unwrap_or(0);
        let who_plays: String =
            started.powers.iter().map(|(email, power)| format!("  {power:<width$}  {email}\n")).collect();
        for c in self.contacts_of(game, |r| matches!(r, ContactRole::Master | ContactRole::Observer)) {
            let listed = if c.role == ContactRole::Master { &who_plays } else { &table };
            self.mails.push(mail(
                &c.address,
                format!("{name} has started"),
                format!(
                    "{name} has started. The {seat_word}:\n{listed}\nFirst deadline: {deadline}\nDice commitment: {}\n",
                    started.commitment
                ),
            ));
        }
        Ok(())
    }

    /// The new player told the power is theirs (unless they asked for it just now and
    /// are answered), everyone else that it is played again.
    /// The final results to everyone, when a change of player ended the game by the votes
    /// counted again.
    fn game_over_mails(&mut self, game: &str, name: &str, over: Option<String>) {
        let Some(body) = over else { return };
        let pictures = self.final_board(game);
        for c in self.contacts_of(game, |_| true) {
            let mut over = mail(&c.address, format!("{name}: the game is over"), body.clone());
            over.attachments = pictures.clone();
            self.mails.push(over);
        }
    }

    fn taken_over_mails(
        &mut self,
        game: &str,
        name: &str,
        seat: &str,
        email: &str,
        tell_player: bool,
    ) -> Result<(), HostError> {
        if tell_player {
            self.mails.push(mail(
                email,
                format!("{name}: you now play {seat}"),
                format!(
                    "The game master of {name} approved your takeover: you now play {seat}. Sign on with:\n\n  \
                     SIGNON {}@{name} yourpassword\n\n(the password you sent with `takeover`), then `status` to see \
                     the game.\n",
                    seat.to_lowercase()
                ),
            ));
        }
        for c in self.contacts_of(game, |_| true) {
            // The master who approved it is answered; one mail each.
            if c.address.eq_ignore_ascii_case(email) || (tell_player && c.role == ContactRole::Master) {
                continue;
            }
            self.mails.push(mail(
                &c.address,
                format!("{name}: {seat} is played again"),
                format!("{seat} in {name} has a new player and is no longer vacant.\n"),
            ));
        }
        Ok(())
    }

    pub(super) fn resign_seat(&mut self, who: &Identity, seat: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        let crate::mail::host::Role::Seat(own) = &who.role else {
            return Err(HostError::Refused(
                "only a player resigns their seat; the master hands a seat on with `replace`".into(),
            ));
        };
        let game = who.game.clone();
        let g = self.read(&game)?;
        let words = g.offers().words;
        let named = g.seat(seat).map_err(|seats| {
            HostError::Refused(format!(
                "no {} `{}`; the {} are {}",
                words.seat,
                header_safe(seat, 40),
                words.seats,
                seats.join(", ")
            ))
        })?;
        if named.role != who.role {
            return Err(HostError::Refused(format!(
                "you play {own}: to resign, write `resign {}` (naming your own {} confirms it)",
                own.to_lowercase(),
                words.own_seat
            )));
        }
        drop(g);
        let vacant = words.vacant;
        let (name, outcome) = self.seats(&game, &SeatChange::Resign { seat: own }, now)?;
        let SeatOutcome::Resigned { seat, over, .. } = outcome else { unreachable!() };
        let ended = over.is_some();
        self.game_over_mails(&game, &name, over);
        let lower = seat.to_lowercase();
        // Over: the final results said it all; nobody is asked to take the power over.
        let told = if ended { Vec::new() } else { self.contacts_of(&game, |_| true) };
        for c in told {
            let master = if c.role == ContactRole::Master {
                format!(" You may also hand it on with `replace {lower} ADDRESS`.")
            } else {
                String::new()
            };
            self.mails.push(mail(
                &c.address,
                format!("{name}: {seat} is vacant"),
                format!(
                    "{seat}'s player has resigned from {name}; {seat} is vacant: {vacant}, until someone takes \
                     it over. To ask for it: `takeover {lower}@{name} PASSWORD` (a \
                     password of your own).{master}\n"
                ),
            ));
        }
        let ended =
            if ended { " With you gone, every remaining player had voted the same: the game is over." } else { "" };
        Ok(format!("You resigned {seat} in {name}; it is vacant and everyone is told.{ended} Thank you for playing."))
    }

    pub(super) fn approve(&mut self, game: &str, power: &str, now: DateTime<Utc>) -> Result<String, HostError> {
        let (name, outcome) = self.seats(game, &SeatChange::Approve { seat: power }, now)?;
        let SeatOutcome::TakenOver { seat, email, over } = outcome else { unreachable!() };
        self.taken_over_mails(game, &name, &seat, &email, true)?;
        self.game_over_mails(game, &name, over);
        Ok(format!("{seat} is now played by {email}; they and everyone else are told."))
    }

    pub(super) fn preview(&self, game: &str) -> Result<String, HostError> {
        let mut g = self.read(game)?;
        let answer = any::under_way(g.as_mut())
            .map(drop)
            .and_then(|()| g.preview().unwrap_or_else(|| Err(any::Lacking::Preview.into())))
            .map_err(|e| player_words(&e))?;
        let text = answer.text.replace("(dry run: nothing was changed)\n", "");
        Ok(format!(
            "PREVIEW: the results if the phase were processed now. Nothing was processed or kept, and nobody \
             else is told.\n\n{}",
            text.trim_end()
        ))
    }

    /// `create NAME variant V` from a master named in judge.toml (at most
    /// [`MAX_GAMES_PER_MASTER`] of theirs running): a game with open seats,
    /// the sender its master (a password mailed to them).
    fn create(
        &mut self,
        sender: &str,
        game: &str,
        variant: &str,
        map: Option<&str>,
        seats: Option<usize>,
        now: DateTime<Utc>,
    ) -> Result<String, HostError> {
        if !self.lobby.masters.iter().any(|m| m.eq_ignore_ascii_case(sender)) {
            return Err(HostError::Refused(
                "only a game master named in the judge's judge.toml (`masters`) may create a game by mail".into(),
            ));
        }
        if let Err(problem) = crate::mail::home::check_game_name(game) {
            return Err(HostError::Refused(problem.to_string()));
        }
        if self.game_dir(game).is_some() || self.games.join(game).exists() {
            return Err(HostError::Refused(format!("there is already a game `{game}`")));
        }
        let running = self
            .game_names()
            .into_iter()
            .filter_map(|name| self.read(&name).ok())
            .filter(|g| !g.is_over())
            .filter(|g| {
                g.contacts().iter().any(|c| c.role == ContactRole::Master && c.address.eq_ignore_ascii_case(sender))
            })
            .count();
        if running >= MAX_GAMES_PER_MASTER {
            return Err(HostError::Refused(format!(
                "you master {running} games that are not over; a master creates at most {MAX_GAMES_PER_MASTER} by \
                 mail (whoever runs the judge can make more with `shadowjudge new`)"
            )));
        }
        let password = generate_password(10);
        let hash = hash_password(&password).map_err(|e| HostError::Refused(e.to_string()))?;
        let master = Master { email: Some(sender.to_string()), timezone: None, password_hash: Some(hash) };
        let path = self.games.join(game);
        let mut g = any::create_open(&path, game, variant, map, seats, self.lobby.deadlines.clone(), master, now)
            .map_err(|e: GameError| {
                if e.is_internal() {
                    self.record_problem(game, e.to_string());
                }
                player_words(&e)
            })?;
        let kind = g.kind();
        let seats = g.seats().and_then(|s| s.listing().open).map_or(0, |(_, all)| all);
        self.mails.push(mail(
            sender,
            format!("{game}: you are its game master"),
            format!(
                "You created {game} ({kind}), with open seats. Sign on as its master with:\n\n  SIGNON \
                 master@{game} {password}\n\nPlayers join with `join {game} PASSWORD`; the game starts by itself \
                 when the last seat is filled.\n"
            ),
        ));
        Ok(format!(
            "Created {game} ({kind}) with {seats} open seats; your master's password is mailed to you. Players \
             join with `join {game} PASSWORD`."
        ))
    }
}
