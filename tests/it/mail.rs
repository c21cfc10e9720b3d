//! The mail layer against a fake game host that records every call: the hostile corpus
//! (tests/data/mail), threading and sanitizing of replies, transports, Maildir polling,
//! deadlines and the tick planner, duplicate and concurrent delivery.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Duration, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use proptest::prelude::*;

use shadowjudge::game::schedule::Span;
use shadowjudge::mail::deadline::{plan_tick, tick_mails, DeadlinePolicy, GameClock, Schedule, TickAction, TickLog};
use shadowjudge::mail::host::{
    Contact, ContactRole, GameHost, HostError, Identity, MasterCommand, Nouns, PlayerCommand, PressDelivery, PressTo,
    Receipt, Refusal, Role, SignOnCheck, SignOnError, SignOnRecord, Taken,
};
use shadowjudge::mail::ingest::{Disposition, MemoryIntake, EX_TEMPFAIL};
use shadowjudge::mail::lobby::LobbyRequest;
use shadowjudge::mail::password::hash_password_with_cost;
use shadowjudge::mail::reply::{MailKind, OutgoingMail};
use shadowjudge::mail::send::{build_outbox, results_mails, PhaseResults};
use shadowjudge::mail::settings::{MailSettings, Security, TransportSettings};
use shadowjudge::mail::{ingest, poll_maildir, IngestOutcome};
use shadowjudge::phase::PhaseKind;

// ---------------------------------------------------------------------------------------
// The fake host

/// Cheap hashes (the real cost is for real games), computed once.
fn hashes() -> &'static HashMap<&'static str, String> {
    static HASHES: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    HASHES.get_or_init(|| {
        ["france-secret", "italy-secret", "master-secret"]
            .into_iter()
            .map(|p| (p, hash_password_with_cost(p, 64, 1).unwrap()))
            .collect()
    })
}

#[derive(Clone)]
struct FakePower {
    name: &'static str,
    address: &'static str,
    hash: Option<String>,
    zone: Option<Tz>,
    units: Vec<&'static str>,
}

/// One game, `mygame`. Every call that could change it is recorded in `calls`.
pub(crate) struct FakeHost {
    powers: Vec<FakePower>,
    master_hash: String,
    orders: HashMap<String, Vec<String>>,
    deadline: DateTime<Utc>,
    calls: Vec<String>,
    /// Failed sign-ons per role, as a host keeps them.
    failed: HashMap<String, Vec<DateTime<Utc>>>,
    /// The game's files refused just now: `wait` and `pictures` answer "try later".
    files_refused: bool,
}

impl FakeHost {
    pub(crate) fn new() -> FakeHost {
        let h = hashes();
        FakeHost {
            powers: vec![
                FakePower {
                    name: "France",
                    address: "ann@example.org",
                    hash: Some(h["france-secret"].clone()),
                    zone: Some(chrono_tz::Europe::Paris),
                    units: vec!["A par", "A mar", "F bre"],
                },
                FakePower {
                    name: "Italy",
                    address: "bob@example.org",
                    hash: Some(h["italy-secret"].clone()),
                    zone: None,
                    units: vec!["A ven", "A rom", "F nap"],
                },
                FakePower { name: "Germany", address: "cy@example.org", hash: None, zone: None, units: vec!["A ber"] },
            ],
            master_hash: h["master-secret"].clone(),
            orders: HashMap::new(),
            deadline: Utc.with_ymd_and_hms(2025, 3, 3, 18, 0, 0).unwrap(),
            calls: Vec::new(),
            failed: HashMap::new(),
            files_refused: false,
        }
    }

    fn power(&self, name: &str) -> &FakePower {
        self.powers.iter().find(|p| p.name == name).unwrap()
    }

    /// Calls that change the game (everything but reads).
    pub(crate) fn changes(&self) -> Vec<&String> {
        self.calls.iter().filter(|c| !c.starts_with("status") && !c.starts_with("history")).collect()
    }
}

fn power_name(who: &Identity) -> &str {
    match &who.role {
        Role::Seat(p) => p,
        Role::Master => "master",
        Role::Observer(address) => address,
    }
}

impl GameHost for FakeHost {
    fn game_exists(&self, game: &str) -> bool {
        game.eq_ignore_ascii_case("mygame")
    }

    fn sign_on(&self, game: &str, who: &str) -> Result<SignOnRecord, SignOnError> {
        if !self.game_exists(game) {
            return Err(SignOnError::NoSuchGame);
        }
        let who = who.to_ascii_lowercase();
        let identity = |role, address: &str, timezone| Identity {
            game: "mygame".into(),
            role,
            address: Some(address.to_string()),
            timezone,
        };
        if matches!(who.as_str(), "master" | "gm") {
            return Ok(SignOnRecord {
                identity: identity(Role::Master, "gm@example.org", None),
                password_hash: Some(self.master_hash.clone()),
            });
        }
        let matching: Vec<&FakePower> =
            self.powers.iter().filter(|p| p.name.to_ascii_lowercase().starts_with(&who)).collect();
        match matching.as_slice() {
            [p] => Ok(SignOnRecord {
                identity: identity(Role::Seat(p.name.to_string()), p.address, p.zone),
                password_hash: p.hash.clone(),
            }),
            _ => Err(SignOnError::NoSuchSeat { seats: self.powers.iter().map(|p| p.name.to_string()).collect() }),
        }
    }

    fn check_sign_on(
        &mut self,
        who: &Identity,
        now: DateTime<Utc>,
        after: DateTime<Utc>,
        limit: usize,
        check: &mut dyn FnMut() -> bool,
    ) -> Result<SignOnCheck, HostError> {
        let name = power_name(who).to_string();
        let in_window = |host: &FakeHost| -> Vec<DateTime<Utc>> {
            host.failed.get(&name).into_iter().flatten().copied().filter(|t| *t > after).collect()
        };
        if in_window(self).len() >= limit {
            return Ok(SignOnCheck::Closed { failures: in_window(self) });
        }
        if check() {
            return Ok(SignOnCheck::Right);
        }
        self.failed.entry(name.clone()).or_default().push(now);
        Ok(SignOnCheck::Wrong { failures: in_window(self) })
    }

    fn submit_orders(&mut self, who: &Identity, text: &str, _now: DateTime<Utc>) -> Result<Receipt, HostError> {
        let power = power_name(who).to_string();
        self.calls.push(format!("submit {power}: {}", text.trim_end().replace('\n', " | ")));
        let mut ack = Receipt {
            who: power.clone(),
            step: "Spring 1901 movement".into(),
            taken: Vec::new(),
            refused: Vec::new(),
            events: Vec::new(),
            awaited: None,
            nouns: Nouns::ORDERS,
        };
        let units = self.power(&power).units.clone();
        let mut ordered = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let unit = units.iter().find(|u| line.to_ascii_lowercase().starts_with(&u.to_ascii_lowercase()));
            match unit {
                Some(u) => {
                    ack.taken.push(Taken { line: i + 1, words: line.trim().to_string(), note: None });
                    ordered.push(u.to_string());
                }
                None => ack.refused.push(
                    Refusal::new(format!("{power} has no unit there"))
                        .hint(format!("your units: {}", units.join(", ")))
                        .on(i + 1),
                ),
            }
        }
        ack.awaited = Some(units.iter().filter(|u| !ordered.contains(&u.to_string())).map(|u| u.to_string()).collect());
        self.orders.entry(power).or_default().extend(ack.taken.iter().map(|a| a.words.clone()));
        Ok(ack)
    }

    fn status(&self, who: &Identity, _now: DateTime<Utc>) -> Result<String, HostError> {
        Ok(format!("Spring 1901 movement; you are {}.", who.role))
    }

    fn history(&self, _who: &Identity) -> Result<String, HostError> {
        Ok("No phases played yet.".into())
    }

    fn press(
        &mut self,
        who: &Identity,
        to: &PressTo,
        text: &str,
        _now: DateTime<Utc>,
    ) -> Result<PressDelivery, HostError> {
        self.calls.push(format!("press {} -> {to:?}: {}", power_name(who), text.trim_end()));
        let addresses = match to {
            PressTo::All => self.powers.iter().map(|p| p.address.to_string()).collect(),
            PressTo::Powers(names) => names
                .iter()
                .filter_map(|n| {
                    self.powers.iter().find(|p| p.name.to_ascii_lowercase().starts_with(&n.to_ascii_lowercase()))
                })
                .map(|p| p.address.to_string())
                .collect(),
        };
        Ok(PressDelivery { from_label: who.role.to_string(), to_label: format!("{to:?}"), addresses })
    }

    fn set_password(&mut self, who: &Identity, password_hash: &str, _now: DateTime<Utc>) -> Result<(), HostError> {
        self.calls.push(format!("set_password {}", power_name(who)));
        let name = power_name(who).to_string();
        if let Some(p) = self.powers.iter_mut().find(|p| p.name == name) {
            p.hash = Some(password_hash.to_string());
        }
        Ok(())
    }

    fn set_timezone(&mut self, who: &Identity, zone: Tz, _now: DateTime<Utc>) -> Result<(), HostError> {
        self.calls.push(format!("set_timezone {} {}", power_name(who), zone.name()));
        Ok(())
    }

    fn master(&mut self, _who: &Identity, command: &MasterCommand, _now: DateTime<Utc>) -> Result<String, HostError> {
        self.calls.push(format!("master {command:?}"));
        Ok(match command {
            MasterCommand::Extend { by } => {
                self.deadline += by.duration();
                format!("deadline moved {} later", by.words())
            }
            other => format!("done: {other:?}"),
        })
    }

    fn deadline(&self, _game: &str) -> Option<DateTime<Utc>> {
        Some(self.deadline)
    }

    fn contacts(&self, _game: &str) -> Vec<Contact> {
        let mut c: Vec<Contact> = self
            .powers
            .iter()
            .map(|p| Contact { role: ContactRole::Player(p.name.into()), address: p.address.into(), timezone: p.zone })
            .collect();
        c.push(Contact { role: ContactRole::Observer, address: "watcher@example.org".into(), timezone: None });
        c.push(Contact { role: ContactRole::Master, address: "gm@example.org".into(), timezone: None });
        c
    }

    // A fake judge of one Diplomacy game with no pictures, votes, `wait` or lobby.

    fn offers(&self, _game: &str) -> shadowjudge::games::Offers {
        shadowjudge::games::Offers::DIPLOMACY
    }

    fn set_pictures(&mut self, _who: &Identity, _on: bool, _now: DateTime<Utc>) -> Result<(), HostError> {
        if self.files_refused {
            return Err(HostError::TryLater);
        }
        Err(HostError::Refused("this judge sends no map pictures".into()))
    }

    fn set_reports(
        &mut self,
        _who: &Identity,
        _reports: shadowjudge::game::any::Reports,
        _now: DateTime<Utc>,
    ) -> Result<(), HostError> {
        Err(HostError::Refused("every report goes to everyone here".into()))
    }

    fn player(&mut self, _who: &Identity, _command: &PlayerCommand, _now: DateTime<Utc>) -> Result<String, HostError> {
        Err(HostError::Refused("this game has no votes or absences".into()))
    }

    fn set_wait(&mut self, _who: &Identity, _wait: bool, _now: DateTime<Utc>) -> Result<String, HostError> {
        if self.files_refused {
            return Err(HostError::TryLater);
        }
        Err(HostError::Refused("this game has no `wait`".into()))
    }

    fn carry_out(&mut self, _tag: Option<String>) {}

    fn take_mails(&mut self) -> Vec<OutgoingMail> {
        Vec::new()
    }

    fn list_games(&self, _game: Option<&str>) -> Result<String, HostError> {
        Err(HostError::Refused("this judge lists no games".into()))
    }

    fn lobby(&mut self, _sender: &str, _request: &LobbyRequest, _now: DateTime<Utc>) -> Result<String, HostError> {
        Err(HostError::Refused("this judge takes no such command".into()))
    }

    fn joined_hash(&self, _game: &str, _email: &str) -> Option<String> {
        None
    }

    fn resign(&mut self, _who: &Identity, _seat: &str, _now: DateTime<Utc>) -> Result<String, HostError> {
        Err(HostError::Refused("this game takes no resignations by mail; ask the game master".into()))
    }
}

// ---------------------------------------------------------------------------------------
// Helpers

pub(crate) fn settings() -> MailSettings {
    MailSettings::new("judge@example.org")
}

pub(crate) fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 1, 10, 0, 0).unwrap()
}

fn corpus(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail").join(format!("{name}.eml"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub(crate) fn run(raw: &[u8], host: &mut FakeHost) -> IngestOutcome {
    ingest(raw, host, &MemoryIntake::default(), &settings(), now())
}

pub(crate) fn reply(outcome: &IngestOutcome) -> &OutgoingMail {
    outcome.mails.iter().find(|m| m.kind == MailKind::Reply).expect("a reply")
}

fn plain(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!("From: {from}\nTo: judge@example.org\nSubject: orders\nMessage-ID: <{id}>\n\n{body}").into_bytes()
}

// ---------------------------------------------------------------------------------------
// The hostile corpus

#[derive(Debug)]
enum Expect {
    Silent,
    Unplaced,
    /// Signed on, but nothing changed.
    SignedOn,
    Applied,
}

#[test]
fn hostile_corpus() {
    // (file, disposition, text the reply must contain, changes the game must record)
    let cases: &[(&str, Expect, &[&str], &[&str])] = &[
        ("forged_from_no_password", Expect::Unplaced, &["No SIGNON line was found", "SIGNON FRANCE@mygame"], &[]),
        ("wrong_password", Expect::Unplaced, &["wrong password for France in mygame", "Nothing was done"], &[]),
        ("other_power_password", Expect::Unplaced, &["wrong password for France"], &[]),
        ("header_injection_subject", Expect::Applied, &["line   2: A par - bur"], &["submit France: A par - bur"]),
        ("binary_attachment", Expect::Applied, &["1 attachment ignored"], &["submit France: A par - bur"]),
        (
            "latin1_press",
            Expect::Applied,
            &["Press sent"],
            &["press France -> Powers([\"italy\"]): Très bien, à bientôt."],
        ),
        ("empty_body", Expect::Unplaced, &["No SIGNON line was found"], &[]),
        (
            "html_only",
            Expect::Applied,
            &["A par - bur", "F bre - mao", "Still without orders: A mar"],
            &["submit France: A par - bur | F bre - mao"],
        ),
        ("auto_replied", Expect::Silent, &[], &[]),
        ("own_loop_header", Expect::Silent, &[], &[]),
        ("bounce", Expect::Silent, &[], &[]),
        ("mailing_list", Expect::Silent, &[], &[]),
        ("quoted_reply_and_signature", Expect::Applied, &["line   2: A par - bur"], &["submit France: A par - bur"]),
        (
            "quoted_printable",
            Expect::Applied,
            &["A par - bur", "F bre => mao"],
            &["submit France: A par - bur | F bre => mao"],
        ),
        ("base64_body", Expect::Applied, &["line   2: A par - bur"], &["submit France: A par - bur"]),
        (
            "two_games_one_bad",
            Expect::Applied,
            &["signed on as France in mygame", "there is no game `othergame` here"],
            &["submit France: A par - bur"],
        ),
        ("player_tries_master_command", Expect::SignedOn, &["only the game master may do that"], &[]),
        // Every order line refused: nothing was kept, so the game did not change.
        (
            "only_refused_orders",
            Expect::SignedOn,
            &["no orders understood", "France has no unit there"],
            &["submit France: F kie - hol"],
        ),
        (
            "master_commands",
            Expect::Applied,
            &["deadline moved 1 day later", "the game master has no orders to give"],
            &[
                "master Extend { by: Span { minutes: 1440 } }",
                "master Replace { power: \"italy\", address: \"new.player@example.org\" }",
            ],
        ),
    ];
    for (name, expect, texts, changes) in cases {
        let mut host = FakeHost::new();
        let outcome = run(&corpus(name), &mut host);
        match expect {
            Expect::Silent => {
                assert!(matches!(outcome.disposition, Disposition::Silent(_)), "{name}: {:?}", outcome.disposition);
                assert!(outcome.mails.is_empty(), "{name}: silent mail gets no reply");
            }
            Expect::Unplaced => assert_eq!(outcome.disposition, Disposition::Unplaced, "{name}"),
            Expect::SignedOn => {
                assert_eq!(outcome.disposition, Disposition::SignedOn { games: vec!["mygame".into()] }, "{name}")
            }
            Expect::Applied => {
                assert_eq!(outcome.disposition, Disposition::Applied { games: vec!["mygame".into()] }, "{name}")
            }
        }
        if !matches!(expect, Expect::Silent) {
            let r = reply(&outcome);
            let expected_to = if *name == "master_commands" { "gm@example.org" } else { "ann@example.org" };
            assert_eq!(r.to, expected_to, "{name}");
            for t in *texts {
                assert!(r.body.contains(t), "{name}: reply lacks `{t}`:\n{}", r.body);
            }
            assert!(!r.body.contains("-secret"), "{name}: a reply never echoes a password");
        }
        let got: Vec<&String> = host.changes();
        assert_eq!(got, changes.iter().collect::<Vec<_>>(), "{name}: game changes");
    }
}

#[test]
fn injected_subject_stays_one_capped_line_in_the_reply() {
    let mut host = FakeHost::new();
    let outcome = run(&corpus("header_injection_subject"), &mut host);
    let subject = &reply(&outcome).subject;
    assert!(!subject.contains('\r') && !subject.contains('\n'));
    assert!(subject.chars().count() <= 120);
    assert!(subject.starts_with("Re: orders Bcc: victim@example.org X-Evil: 1"));

    // And the written message has no injected header line.
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings();
    s.transport = TransportSettings::Files { dir: dir.path().to_path_buf() };
    let outbox = build_outbox(&s, |_| None).unwrap();
    outbox.send(&s, reply(&outcome), now()).unwrap();
    let eml = only_eml(dir.path());
    assert!(!eml.lines().any(|l| l.starts_with("Bcc:") || l.starts_with("X-Evil:")), "{eml}");
}

#[test]
fn replies_are_threaded_and_marked_auto_replied() {
    let mut host = FakeHost::new();
    let outcome = run(&corpus("quoted_reply_and_signature"), &mut host);
    let r = reply(&outcome);
    assert_eq!(r.subject, "Re: orders");
    assert_eq!(r.in_reply_to.as_deref(), Some("quoted@example.org"));
    assert_eq!(r.references, vec!["start@example.org", "judge-1@example.org", "quoted@example.org"]);
    // Neither the quoted Italian sign-on nor the order after the signature was read.
    assert!(!host.calls.iter().any(|c| c.contains("ven") || c.contains("mar")), "{:?}", host.calls);

    let dir = tempfile::tempdir().unwrap();
    let mut s = settings();
    s.transport = TransportSettings::Files { dir: dir.path().to_path_buf() };
    build_outbox(&s, |_| None).unwrap().send(&s, r, now()).unwrap();
    let eml = only_eml(dir.path());
    for header in [
        "Auto-Submitted: auto-replied",
        "X-Shadowjudge-Loop: judge@example.org",
        "In-Reply-To: <quoted@example.org>",
        "References: <start@example.org> <judge-1@example.org> <quoted@example.org>",
        "To: ann@example.org",
    ] {
        assert!(eml.contains(header), "missing `{header}` in:\n{eml}");
    }
    // The judge's own reply, delivered back to it, is not answered.
    let again = run(eml.as_bytes(), &mut FakeHost::new());
    assert!(matches!(again.disposition, Disposition::Silent(_)));
}

fn only_eml(dir: &Path) -> String {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0]).unwrap()
}

#[test]
fn twenty_megabytes_are_refused_politely_and_unread() {
    let mut raw =
        plain("Ann <ann@example.org>", "huge@example.org", "SIGNON france@mygame france-secret\nA par - bur\n");
    raw.extend(std::iter::repeat_n(b'x', 20 * 1024 * 1024));
    let mut host = FakeHost::new();
    let intake = MemoryIntake::default();
    let outcome = ingest(&raw, &mut host, &intake, &settings(), now());
    assert!(matches!(outcome.disposition, Disposition::TooLarge { .. }));
    assert_eq!(outcome.exit_code(), 0);
    assert!(reply(&outcome).body.contains("larger than the 1024 KB this judge reads"));
    assert!(host.calls.is_empty());
    assert!(intake.spooled.lock().unwrap().is_empty());

    // An auto-submitted giant gets nothing at all.
    let mut auto = b"Auto-Submitted: auto-generated\n".to_vec();
    auto.extend_from_slice(&raw);
    let outcome = run(&auto, &mut host);
    assert!(matches!(outcome.disposition, Disposition::TooLarge { .. }));
    assert!(outcome.mails.is_empty());
}

#[test]
fn latin1_press_reaches_its_reader_decoded() {
    let mut host = FakeHost::new();
    let outcome = run(&corpus("latin1_press"), &mut host);
    let press: Vec<&OutgoingMail> = outcome.mails.iter().filter(|m| m.kind == MailKind::Generated).collect();
    assert!(press.iter().any(|m| m.to == "bob@example.org" && m.body.contains("Très bien, à bientôt.")), "{press:?}");
}

// ---------------------------------------------------------------------------------------
// Sign-on, identity, reliability

#[test]
fn a_sender_other_than_the_registered_player_gets_the_reply_and_the_player_a_copy() {
    let mut host = FakeHost::new();
    let raw =
        plain("Mallory <mallory@example.net>", "m1@example.net", "SIGNON fra@mygame france-secret\nA par - bur\n");
    let outcome = run(&raw, &mut host);
    assert_eq!(reply(&outcome).to, "mallory@example.net");
    let copy = outcome.mails.iter().find(|m| m.to == "ann@example.org").expect("a copy to the registered player");
    assert!(copy.body.contains("A message from mallory@example.net signed on as France"));
}

#[test]
fn classic_signon_forms_all_reach_france() {
    for line in ["SIGNON FRANCE@mygame", "signon fra@mygame", "SIGNON france mygame", "SIGNON Fmygame"] {
        let mut host = FakeHost::new();
        let raw = plain("ann@example.org", "forms@example.org", &format!("{line} france-secret\nA par h\n"));
        let outcome = run(&raw, &mut host);
        assert!(matches!(outcome.disposition, Disposition::Applied { .. }), "{line}: {:?}", outcome.disposition);
        assert_eq!(host.changes(), vec!["submit France: A par h"], "{line}");
    }
}

#[test]
fn a_power_without_a_password_cannot_sign_on() {
    let mut host = FakeHost::new();
    let raw = plain("cy@example.org", "g@example.org", "SIGNON germany@mygame anything\nA ber h\n");
    let outcome = run(&raw, &mut host);
    assert_eq!(outcome.disposition, Disposition::Unplaced);
    assert!(reply(&outcome).body.contains("no password is set for Germany"));
    assert!(host.calls.is_empty());
}

#[test]
fn password_and_timezone_commands_change_the_game_and_the_reply() {
    let mut host = FakeHost::new();
    let raw = plain(
        "ann@example.org",
        "pw@example.org",
        "SIGNON france@mygame france-secret\npassword new-secret-1\ntimezone America/New_York\n",
    );
    let outcome = run(&raw, &mut host);
    let body = &reply(&outcome).body;
    assert!(body.contains("password changed"));
    // The block's closing deadline is in the new zone (a `status`, which says the
    // deadline itself, would take its place: issue 41.8).
    assert!(!body.contains("new-secret-1"));
    assert!(body.contains("EST, America/New_York"), "{body}");
    assert_eq!(host.changes(), vec!["set_password France", "set_timezone France America/New_York"]);
    // The new password works, the old one does not.
    let new_hash = host.power("France").hash.clone().unwrap();
    assert!(shadowjudge::mail::password::verify_password("new-secret-1", &new_hash));
    assert!(!shadowjudge::mail::password::verify_password("france-secret", &new_hash));
}

#[test]
fn a_wait_or_pictures_line_the_files_refused_just_now_asks_for_a_retry() {
    for line in ["wait", "map off"] {
        let mut host = FakeHost::new();
        host.files_refused = true;
        let raw = plain("ann@example.org", "w@example.org", &format!("SIGNON france@mygame france-secret\n{line}\n"));
        let outcome = run(&raw, &mut host);
        assert!(outcome.must_retry(), "`{line}`: {:?}", outcome.disposition);
        // Not refused: the same message then goes through.
        host.files_refused = false;
        let again = run(&raw, &mut host);
        assert!(!again.must_retry(), "`{line}`: {:?}", again.disposition);
    }
}

#[test]
fn a_failed_spool_write_asks_for_a_retry_and_changes_nothing() {
    let mut host = FakeHost::new();
    let intake = MemoryIntake::default();
    intake.fail_spool.store(true, Ordering::SeqCst);
    let outcome = ingest(&corpus("base64_body"), &mut host, &intake, &settings(), now());
    assert!(outcome.must_retry());
    assert_eq!(outcome.exit_code(), EX_TEMPFAIL);
    assert!(outcome.mails.is_empty());
    assert!(host.calls.is_empty());
}

#[test]
fn a_message_delivered_twice_is_applied_once() {
    let mut host = FakeHost::new();
    let intake = MemoryIntake::default();
    let raw = corpus("base64_body");
    let first = ingest(&raw, &mut host, &intake, &settings(), now());
    let second = ingest(&raw, &mut host, &intake, &settings(), now());
    assert!(matches!(first.disposition, Disposition::Applied { .. }));
    assert!(matches!(second.disposition, Disposition::Duplicate { .. }));
    assert!(second.mails.is_empty());
    assert_eq!(host.changes().len(), 1);
    // Both deliveries were kept before anything else.
    assert_eq!(intake.spooled.lock().unwrap().len(), 2);
}

#[test]
fn two_hundred_concurrent_messages_each_apply_exactly_once() {
    // Each thread has its own host (as each `mail ingest` process has), so the ingests run
    // at once and only the shared claims decide which delivery applies.
    let intake = Arc::new(MemoryIntake::default());
    let messages: Vec<Vec<u8>> = (0..200)
        .map(|i| {
            let (power, pw) = if i % 2 == 0 { ("france", "france-secret") } else { ("italy", "italy-secret") };
            let unit = if i % 2 == 0 { "A par" } else { "A ven" };
            plain(
                "p@example.org",
                &format!("msg-{i}@example.org"),
                &format!("SIGNON {power}@mygame {pw}\n{unit} h #{i}\n"),
            )
        })
        .collect();
    let messages = Arc::new(messages);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (intake, messages) = (intake.clone(), messages.clone());
            std::thread::spawn(move || {
                let mut host = FakeHost::new();
                let mut outcomes = Vec::new();
                // Every message is delivered twice, by different threads.
                for i in (0..400).filter(|i| i % 8 == t) {
                    let raw = &messages[i % 200];
                    outcomes.push(ingest(raw, &mut host, &*intake, &settings(), now()).disposition);
                }
                (outcomes, host.calls)
            })
        })
        .collect();
    let (mut outcomes, mut calls): (Vec<Disposition>, Vec<String>) = (Vec::new(), Vec::new());
    for t in threads {
        let (o, c) = t.join().unwrap();
        outcomes.extend(o);
        calls.extend(c);
    }
    assert_eq!(outcomes.iter().filter(|d| matches!(d, Disposition::Applied { .. })).count(), 200);
    assert_eq!(outcomes.iter().filter(|d| matches!(d, Disposition::Duplicate { .. })).count(), 200);
    for i in 0..200 {
        let tag = format!("#{i}");
        let n = calls.iter().filter(|c| c.ends_with(&tag)).count();
        assert_eq!(n, 1, "message {i} applied {n} times");
    }
    assert_eq!(calls.len(), 200);
}

#[test]
fn snapshot_of_a_reply_with_problems_and_missing_units() {
    let mut host = FakeHost::new();
    let raw = plain(
        "Ann <ann@example.org>",
        "snap@example.org",
        "Hello judge,\nSIGNON france@mygame france-secret\nA par - bur\nF kie - hol\n\nhistory\nSIGNOFF\n-- \nAnn\n",
    );
    let outcome = run(&raw, &mut host);
    insta::with_settings!({ snapshot_path => "../data/mail/snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("reply_with_problems", reply(&outcome).body);
    });
}

#[test]
fn snapshot_of_the_reply_to_a_message_without_signon() {
    let outcome = run(&corpus("forged_from_no_password"), &mut FakeHost::new());
    insta::with_settings!({ snapshot_path => "../data/mail/snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("reply_without_signon", reply(&outcome).body);
    });
}

// ---------------------------------------------------------------------------------------
// Maildir, transports, results

#[test]
fn polling_a_maildir_moves_taken_mail_to_cur() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("new")).unwrap();
    std::fs::write(dir.path().join("new/1.host"), corpus("base64_body")).unwrap();
    std::fs::write(dir.path().join("new/2.host"), corpus("auto_replied")).unwrap();
    let mut host = FakeHost::new();
    let polled = poll_maildir(dir.path(), &mut host, &MemoryIntake::default(), &settings(), now()).unwrap();
    assert_eq!(polled.len(), 2);
    assert!(matches!(polled[0].outcome.disposition, Disposition::Applied { .. }));
    assert!(matches!(polled[1].outcome.disposition, Disposition::Silent(_)));
    assert!(dir.path().join("cur/1.host:2,S").exists());
    assert!(dir.path().join("cur/2.host:2,S").exists());
    assert_eq!(std::fs::read_dir(dir.path().join("new")).unwrap().count(), 0);

    // A message that cannot be spooled stays in new.
    std::fs::write(dir.path().join("new/3.host"), corpus("quoted_printable")).unwrap();
    let failing = MemoryIntake::default();
    failing.fail_spool.store(true, Ordering::SeqCst);
    let polled = poll_maildir(dir.path(), &mut host, &failing, &settings(), now()).unwrap();
    assert!(polled[0].outcome.must_retry());
    assert!(dir.path().join("new/3.host").exists());
}

#[test]
fn smtp_and_sendmail_transports_build_from_settings_without_connecting() {
    let mut s = settings();
    for security in [Security::Tls, Security::Starttls, Security::None] {
        s.transport = TransportSettings::Smtp {
            host: "smtp.example.org".into(),
            port: Some(2525),
            security,
            username: Some("judge".into()),
            password_env: Some("JUDGE_SMTP_PW".into()),
        };
        let env = |k: &str| (k == "JUDGE_SMTP_PW").then(|| "pw".to_string());
        assert!(build_outbox(&s, env).is_ok(), "{security:?}");
        assert!(build_outbox(&s, |_| None).is_err(), "a username without its password is an error");
    }
    s.transport = TransportSettings::Sendmail { command: Some("/usr/sbin/sendmail".into()) };
    assert!(build_outbox(&s, |_| None).is_ok());
}

#[test]
fn results_go_to_every_contact_with_the_deadline_in_their_zone() {
    let host = FakeHost::new();
    let contacts = host.contacts("mygame");
    let results = PhaseResults {
        game: "mygame",
        phase: "Spring 1901 movement",
        report: "A par - bur: moves.\n",
        next_deadline: Some(Utc.with_ymd_and_hms(2025, 3, 5, 18, 0, 0).unwrap()),
    };
    let mails = results_mails(&results, &contacts);
    assert_eq!(mails.len(), contacts.len());
    assert!(mails
        .iter()
        .all(|m| m.kind == MailKind::Generated && m.subject == "mygame: results of Spring 1901 movement"));
    let ann = mails.iter().find(|m| m.to == "ann@example.org").unwrap();
    assert!(ann.body.contains("Next deadline: Wed 2025-03-05 18:00 UTC (Wed 2025-03-05 19:00 CET, Europe/Paris)"));

    let dir = tempfile::tempdir().unwrap();
    let mut s = settings();
    s.transport = TransportSettings::Files { dir: dir.path().to_path_buf() };
    let outbox = build_outbox(&s, |_| None).unwrap();
    // Results go out only through the owed-results path (`JudgeHost::mail_results`), which
    // records who had them; here, the mails it builds, through the transport.
    let sent = outbox.send_all(&s, &mails, now());
    assert!(sent.iter().all(|r| r.is_ok()));
    let emls: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    assert_eq!(emls.len(), contacts.len());
    assert!(emls.iter().all(|e| e.contains("Auto-Submitted: auto-generated")));
}

// ---------------------------------------------------------------------------------------
// Deadlines and the tick

#[test]
fn interval_and_weekly_schedules() {
    let start = Utc.with_ymd_and_hms(2025, 3, 26, 12, 0, 0).unwrap(); // a Wednesday
    let interval = Schedule::default();
    assert_eq!(interval.deadline_for(PhaseKind::Movement, start).unwrap(), start + Duration::hours(48));
    assert_eq!(interval.deadline_for(PhaseKind::Retreats, start).unwrap(), start + Duration::hours(24));

    let weekly = Schedule::Weekly {
        weekday: Weekday::Sun,
        hour: 20,
        zone: "Europe/Paris".into(),
        min_hours: Span::hours(24),
        short_phase_hours: Span::hours(24),
    };
    // Sunday 30 March 2025 is the day Paris moves to summer time: 20:00 CEST is 18:00 UTC.
    assert_eq!(
        weekly.deadline_for(PhaseKind::Movement, start).unwrap(),
        Utc.with_ymd_and_hms(2025, 3, 30, 18, 0, 0).unwrap()
    );
    // Too close to that Sunday: the next one.
    let late = Utc.with_ymd_and_hms(2025, 3, 30, 0, 0, 0).unwrap();
    assert_eq!(
        weekly.deadline_for(PhaseKind::Movement, late).unwrap(),
        Utc.with_ymd_and_hms(2025, 4, 6, 18, 0, 0).unwrap()
    );
    let bad = Schedule::Weekly {
        weekday: Weekday::Sun,
        hour: 20,
        zone: "Mars/Olympus".into(),
        min_hours: Span::default(),
        short_phase_hours: Span::hours(24),
    };
    assert!(bad.deadline_for(PhaseKind::Movement, start).is_err());

    let toml_policy: DeadlinePolicy = toml::from_str(
        "grace_hours = 6\n[schedule]\nkind = \"weekly\"\nweekday = \"sun\"\nhour = 20\nzone = \"Europe/Paris\"\n",
    )
    .unwrap();
    assert_eq!(toml_policy.grace_hours, Span::hours(6));
    assert!(
        matches!(toml_policy.schedule, Schedule::Weekly { weekday: Weekday::Sun, min_hours, .. } if min_hours == Span::hours(24))
    );
}

/// Run one tick: plan, then record, as the CLI does.
fn tick(now: DateTime<Utc>, clock: &GameClock<'_>, log: &mut TickLog, policy: &DeadlinePolicy) -> Vec<TickAction> {
    let actions = plan_tick(now, clock, log, policy);
    log.record(now, clock, &actions);
    actions
}

/// Issue 28, item 2: with the README's judge.toml (a reminder 24 hours before, 24-hour
/// retreat and Winter phases) a phase no longer than the reminder's lead gets no reminder
/// (it would go out with the results that began it); a longer one gets it once it is as
/// old as the lead.
#[test]
fn no_reminder_goes_before_the_phase_is_as_old_as_the_lead() {
    let policy = DeadlinePolicy { remind_hours_before: Span::hours(24), ..DeadlinePolicy::default() };
    let missing = vec!["France".to_string()];
    let start = Utc.with_ymd_and_hms(2025, 3, 5, 6, 5, 0).unwrap();
    let winter = GameClock {
        game: "mygame",
        phase: "W1901A",
        deadline: start + Duration::hours(24),
        paused: false,
        missing: &missing,
        started: Some(start),
    };
    let mut log = TickLog::default();
    let mut t = start;
    while t < winter.deadline {
        t += Duration::minutes(15);
        let actions = tick(t, &winter, &mut log, &policy);
        assert!(actions.iter().all(|a| !matches!(a, TickAction::Remind { .. })), "{t}: {actions:?}");
    }
    let spring = GameClock { phase: "S1902M", deadline: start + Duration::hours(30), ..winter };
    let mut log = TickLog::default();
    assert!(tick(start + Duration::hours(23), &spring, &mut log, &policy).is_empty(), "not yet as old as the lead");
    let reminded = tick(start + Duration::hours(24), &spring, &mut log, &policy);
    assert_eq!(reminded, vec![TickAction::Remind { power: "France".into(), deadline: spring.deadline }]);
}

#[test]
fn the_tick_reminds_notices_and_processes_once_each() {
    let deadline = Utc.with_ymd_and_hms(2025, 3, 3, 18, 0, 0).unwrap();
    let policy = DeadlinePolicy {
        grace_hours: Span::hours(6),
        remind_hours_before: Span::hours(24),
        tick_minutes: 15,
        ..DeadlinePolicy::default()
    };
    let missing = vec!["France".to_string(), "Italy".to_string()];
    let clock =
        GameClock { game: "mygame", phase: "S1901M", deadline, paused: false, missing: &missing, started: None };
    let mut log = TickLog::default();
    let h = |hours: i64| deadline + Duration::hours(hours);

    assert!(tick(h(-30), &clock, &mut log, &policy).is_empty());
    let reminders = tick(h(-23), &clock, &mut log, &policy);
    assert_eq!(reminders.len(), 2);
    assert!(tick(h(-23) + Duration::minutes(15), &clock, &mut log, &policy).is_empty(), "reminded once");

    // Italy submits; at the deadline only France is late.
    let missing = vec!["France".to_string()];
    let clock = GameClock { missing: &missing, ..clock };
    let mut t = h(-23);
    while t < h(0) {
        t += Duration::minutes(15);
        let actions = tick(t, &clock, &mut log, &policy);
        if t < h(0) {
            assert!(actions.is_empty(), "{t}: {actions:?}");
        } else {
            assert_eq!(actions, vec![TickAction::LateNotice { power: "France".into(), deadline, grace_until: h(6) }]);
        }
    }
    assert!(tick(h(1), &clock, &mut log, &policy).is_empty(), "one late notice");
    let mut t = h(1);
    let mut processed = 0;
    while t < h(8) {
        t += Duration::minutes(15);
        processed += tick(t, &clock, &mut log, &policy).iter().filter(|a| **a == TickAction::Process).count();
    }
    assert_eq!(processed, 1);

    // The same tick run twice on the same log acts once.
    let mut once = TickLog { phase: "S1901M".into(), last_tick: Some(h(-24)), ..TickLog::default() };
    let first = plan_tick(h(-23), &clock, &once, &policy);
    once.record(h(-23), &clock, &first);
    assert!(!first.is_empty());
    assert!(plan_tick(h(-23), &clock, &once, &policy).is_empty());

    // A new phase starts a fresh log.
    let next = GameClock { phase: "F1901M", deadline: h(48), ..clock };
    assert_eq!(tick(h(30), &next, &mut log, &policy).len(), 1);
}

#[test]
fn a_long_silence_across_a_deadline_holds_the_game_and_tells_the_master() {
    let deadline = Utc.with_ymd_and_hms(2025, 3, 3, 18, 0, 0).unwrap();
    let policy = DeadlinePolicy::default();
    let missing = vec!["France".to_string()];
    let clock =
        GameClock { game: "mygame", phase: "S1901M", deadline, paused: false, missing: &missing, started: None };
    let mut log =
        TickLog { phase: "S1901M".into(), last_tick: Some(deadline - Duration::hours(10)), ..TickLog::default() };
    let back = deadline + Duration::hours(2);
    let actions = tick(back, &clock, &mut log, &policy);
    assert_eq!(actions, vec![TickAction::OutageSuspected { last_tick: deadline - Duration::hours(10), deadline }]);
    let mails = tick_mails("mygame", back, &actions, &FakeHost::new().contacts("mygame"), "units without orders hold");
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "gm@example.org");
    assert!(mails[0].body.contains("NOT processed"));
    // Held: later ticks do nothing until the master moves the deadline.
    assert!(tick(back + Duration::minutes(15), &clock, &mut log, &policy).is_empty());
    let extended = GameClock { deadline: back + Duration::hours(24), ..clock };
    assert_eq!(tick(back + Duration::minutes(30), &extended, &mut log, &policy).len(), 1, "a reminder again");

    // A paused game is never acted on.
    let paused = GameClock { paused: true, ..clock };
    assert!(plan_tick(deadline + Duration::hours(100), &paused, &TickLog::default(), &policy).is_empty());
}

#[test]
fn reminder_mails_show_the_deadline_in_the_players_zone() {
    let deadline = Utc.with_ymd_and_hms(2025, 7, 3, 18, 0, 0).unwrap();
    let actions = vec![TickAction::Remind { power: "France".into(), deadline }];
    let mails = tick_mails(
        "mygame",
        deadline - Duration::hours(20),
        &actions,
        &FakeHost::new().contacts("mygame"),
        "units without orders hold",
    );
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "ann@example.org");
    assert!(mails[0].body.contains("(Thu 2025-07-03 20:00 CEST, Europe/Paris) (in 20 hours)"), "{}", mails[0].body);
}

// ---------------------------------------------------------------------------------------
// Never panic

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn ingest_never_panics_on_any_bytes(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let mut host = FakeHost::new();
        let _ = run(&raw, &mut host);
    }

    #[test]
    fn ingest_never_panics_on_hostile_bodies(
        body in "(SIGNON|signon|press|endpress|password|extend|replace|timezone|A par|>|-- |[\\x00-\\x7f]){0,40}",
        subject in "[\\x00-\\x7f]{0,200}",
    ) {
        let raw = format!("From: ann@example.org\nSubject: {subject}\nMessage-ID: <p@x>\n\n{body}");
        let mut host = FakeHost::new();
        let outcome = run(raw.as_bytes(), &mut host);
        for mail in &outcome.mails {
            prop_assert!(!mail.subject.contains('\n') && !mail.subject.contains('\r'));
        }
    }
}

#[test]
fn the_store_intake_spools_first_and_claims_once_across_instances() {
    use shadowjudge::mail::ingest::{Intake, StoreIntake};
    let dir = tempfile::tempdir().unwrap();
    let a = StoreIntake::open(dir.path()).unwrap();
    let b = StoreIntake::open(dir.path()).unwrap();
    let mut host = FakeHost::new();
    let raw = corpus("base64_body");
    let first = ingest(&raw, &mut host, &a, &settings(), now());
    let second = ingest(&raw, &mut host, &b, &settings(), now());
    assert!(matches!(first.disposition, Disposition::Applied { .. }));
    assert!(matches!(second.disposition, Disposition::Duplicate { .. }));
    assert_eq!(host.changes().len(), 1);
    assert_eq!(a.spool().list().unwrap().len(), 2, "both deliveries kept");
    // A claim held and completed by one intake is done for the other.
    let claim = a.claim("id:another@example.org", "x").unwrap().expect("first claim");
    a.complete(claim, &[], now()).unwrap();
    assert!(b.claim("id:another@example.org", "x").unwrap().is_none());
}

// ---------------------------------------------------------------------------------------
// Hardening (issue 17): sign-on cap and lockout, output caps, claims, mistyped SIGNON

#[test]
fn a_thousand_signon_blocks_are_answered_quickly_and_nothing_after_the_cap_is_applied() {
    use shadowjudge::mail::ingest::MAX_SIGNONS;
    let mut host = FakeHost::new();
    // Every block is a right sign-on with an order, so any block read would be applied.
    let body: String = (0..1000).map(|i| format!("SIGNON france@mygame france-secret\nA par - bur {i}\n")).collect();
    let started = std::time::Instant::now();
    let outcome = run(&plain("ann@example.org", "many@example.org", &body), &mut host);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert_eq!(host.changes().len(), MAX_SIGNONS, "{:?}", host.changes());
    assert_eq!(host.changes().last().unwrap().as_str(), format!("submit France: A par - bur {}", MAX_SIGNONS - 1));
    let r = reply(&outcome);
    assert!(
        r.body.contains(&format!(
            "The {} SIGNON blocks from line {} on were not read",
            1000 - MAX_SIGNONS,
            2 * MAX_SIGNONS + 1
        )),
        "{}",
        r.body
    );
    assert_eq!(r.body.matches("signed on as France").count(), MAX_SIGNONS);

    // Wrong passwords: at most the cap is checked and recorded, and the lockout stops the rest.
    let mut host = FakeHost::new();
    let body: String = (0..1000).map(|i| format!("SIGNON france@mygame guess{i}\n")).collect();
    let outcome = run(&plain("eve@example.org", "guesses@example.org", &body), &mut host);
    assert_eq!(host.failed["France"].len(), MAX_SIGNONS);
    assert!(host.changes().is_empty());
    assert_eq!(reply(&outcome).body.matches("wrong password for").count(), MAX_SIGNONS);
}

#[test]
fn wrong_passwords_close_the_sign_on_for_an_hour_and_tell_the_master() {
    use shadowjudge::mail::ingest::{LOCKOUT_FAILURES, LOCKOUT_WINDOW_MINUTES};
    let mut host = FakeHost::new();
    let intake = MemoryIntake::default();
    let at = |minutes: i64| now() + Duration::minutes(minutes);
    let mut notices = Vec::new();
    for i in 0..LOCKOUT_FAILURES {
        let raw = plain("eve@example.org", &format!("guess{i}@example.org"), "SIGNON france@mygame guess\n");
        let outcome = ingest(&raw, &mut host, &intake, &settings(), at(i as i64));
        let body = &reply(&outcome).body;
        assert!(body.contains("wrong password"));
        // The guess that closes the sign-on is told so, not only the ones after it.
        let closes = i + 1 == LOCKOUT_FAILURES;
        assert_eq!(
            body.contains("That makes 5 wrong passwords within 60 minutes: sign-on as France"),
            closes,
            "{body}"
        );
        notices.extend(outcome.mails.into_iter().filter(|m| m.to == "gm@example.org"));
    }
    assert_eq!(notices.len(), 1, "the master is told once, when the sign-on closes");
    assert!(notices[0].subject.contains("sign-on as France closed"), "{}", notices[0].subject);
    assert!(notices[0].body.contains("eve@example.org"), "{}", notices[0].body);
    // The way to a new password is the one the README gives, not `replace`.
    assert!(notices[0].body.contains("`shadowjudge mail password mygame france --mail`"), "{}", notices[0].body);
    assert!(!notices[0].body.contains("replace"), "{}", notices[0].body);
    // Now even the right password is not checked, and nothing is applied or recorded.
    let raw = plain("ann@example.org", "right@example.org", "SIGNON france@mygame france-secret\nA par - bur\n");
    let outcome = ingest(&raw, &mut host, &intake, &settings(), at(10));
    let body = &reply(&outcome).body;
    assert!(body.contains("is closed after 5 wrong passwords") && body.contains("opens again"), "{body}");
    assert_eq!(outcome.disposition, Disposition::Unplaced);
    assert!(host.changes().is_empty());
    assert_eq!(host.failed["France"].len(), LOCKOUT_FAILURES, "a closed sign-on records nothing more");
    // Other roles are not affected.
    let raw = plain("bob@example.org", "italy@example.org", "SIGNON italy@mygame italy-secret\nA ven h\n");
    assert!(matches!(ingest(&raw, &mut host, &intake, &settings(), at(10)).disposition, Disposition::Applied { .. }));
    // When the window has passed since the first failure, France signs on again.
    let raw = plain("ann@example.org", "later@example.org", "SIGNON france@mygame france-secret\nA par - bur\n");
    let outcome = ingest(&raw, &mut host, &intake, &settings(), at(LOCKOUT_WINDOW_MINUTES));
    assert!(matches!(outcome.disposition, Disposition::Applied { .. }), "{}", reply(&outcome).body);
}

#[test]
fn press_and_listings_are_capped_per_message() {
    use shadowjudge::mail::ingest::{MAX_LISTINGS, MAX_PRESS};
    let mut host = FakeHost::new();
    let mut body = String::from("SIGNON france@mygame france-secret\n");
    for i in 0..3000 {
        body.push_str(&format!("press to all\nhello {i}\nendpress\nstatus\n"));
    }
    let outcome = run(&plain("ann@example.org", "spam@example.org", &body), &mut host);
    let presses = host.calls.iter().filter(|c| c.starts_with("press")).count();
    assert_eq!(presses, MAX_PRESS);
    // Each press goes to every player: the mails are the reply and MAX_PRESS fan-outs.
    let press_mails = outcome.mails.iter().filter(|m| m.subject.contains("press from")).count();
    assert_eq!(press_mails, MAX_PRESS * 3);
    let r = reply(&outcome);
    assert_eq!(r.body.matches("Status:").count(), MAX_LISTINGS);
    assert!(r.body.contains("press not sent: at most 5 press messages per message"), "a capped press is said");
    assert!(r.body.contains("not answered: at most 5 status or history per message"));
}

#[test]
fn two_messages_with_one_message_id_are_both_taken_and_a_redelivery_is_not() {
    let mut host = FakeHost::new();
    let intake = MemoryIntake::default();
    let first = plain("ann@example.org", "same@example.org", "SIGNON france@mygame france-secret\nA par - bur\n");
    let second = plain("ann@example.org", "same@example.org", "SIGNON france@mygame france-secret\nA mar h\n");
    assert!(matches!(ingest(&first, &mut host, &intake, &settings(), now()).disposition, Disposition::Applied { .. }));
    assert!(matches!(ingest(&second, &mut host, &intake, &settings(), now()).disposition, Disposition::Applied { .. }));
    // The first again, as a mail server redelivers it (one more Received line).
    let mut again = b"Received: from relay.example.org\r\n".to_vec();
    again.extend_from_slice(&first);
    let third = ingest(&again, &mut host, &intake, &settings(), now());
    assert!(matches!(third.disposition, Disposition::Duplicate { .. }), "{:?}", third.disposition);
    assert_eq!(host.changes(), vec!["submit France: A par - bur", "submit France: A mar h"]);
}

#[test]
fn a_mistyped_signon_is_never_quoted_back_with_its_password() {
    for typo in
        ["SIGNIN france@mygame france-secret", "SIGNON: france@mygame france-secret", "france@mygame france-secret"]
    {
        let mut host = FakeHost::new();
        let body = format!("{typo}\nA par - bur\n");
        let outcome = run(&plain("ann@example.org", "typo@example.org", &body), &mut host);
        let r = reply(&outcome);
        assert!(!r.body.contains("france-secret"), "{typo}: {}", r.body);
        assert!(r.body.contains("is not SIGNON"), "{typo}: {}", r.body);
        assert!(host.changes().is_empty(), "{typo}");
    }
}

#[test]
fn a_reply_after_the_deadline_says_it_passed_and_what_is_still_taken() {
    let mut host = FakeHost::new();
    host.deadline = now() - Duration::hours(1);
    let outcome =
        run(&plain("ann@example.org", "late@x", "SIGNON france@mygame france-secret\nA par - bur\n"), &mut host);
    let body = &reply(&outcome).body;
    assert!(body.contains("(passed; what arrives before the judge processes the game is still taken)"), "{body}");
    assert!(!body.contains("(in "), "{body}");
}
