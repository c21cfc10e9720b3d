//! Results are never lost: an adjudication journals that its results are owed, `mail tick`
//! mails whatever is still owed, and `mailed.json` records who had them (and marks a
//! mailing under way before it sends). A crash anywhere between the adjudication and the
//! record sends them at the next tick (twice at worst, never not at all); a normal run sends them once, and a second tick sends nothing.
//!
//! The kill test re-runs this test binary on `mail_results::child_tick` with
//! `SJ_RESULTS_CHILD_JUDGE` set: the child runs the library's whole `mail tick`
//! ([`tick_judge`], what the binary runs) and is SIGKILLed at a chosen step; the parent
//! then runs the real binary's `mail tick` and counts the .eml files in the outbox.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::judge_dir::{self, message, Eml, Outbox};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::journal::Entry;
use shadowjudge::game::session::diplomacy::{self as session, MailedFile, MAILED_FILE};
use shadowjudge::game::settings::{parse_players, Settings, VariantKind};
use shadowjudge::host::{set_password_at, tick_judge, JudgeHost};
use shadowjudge::mail::home::JudgeHome;
use shadowjudge::mail::ingest::{ingest, Disposition, StoreIntake};
use shadowjudge::mail::password::hash_password_with_cost;
use shadowjudge::mail::reply::OutgoingMail;
use shadowjudge::mail::send::{Mailer, SendError};
use shadowjudge::phase::Phase;
use shadowjudge::store::fault::{self, FaultPoint};
use shadowjudge::store::GameDir;

const PLAYERS: &str =
    "france, Ann, ann@example.org, Europe/Paris\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n";
/// Everyone who receives results: the three players, the master, the observer.
const EVERYONE: [&str; 5] =
    ["ann@example.org", "bob@example.org", "cy@example.org", "gm@example.org", "obs@example.org"];
/// The game is created then; its first deadline is 48 hours later.
const T0: &str = "2025-03-01T12:00:00Z";
/// Five minutes after the first deadline: the tick processes Spring 1901.
const AT_DEADLINE: &str = "2025-03-03T12:05:00Z";
const SPRING: &str = "game1: results of Spring 1901 movement";

fn at(t: &str) -> DateTime<Utc> {
    t.parse().unwrap()
}

/// A judge directory with one standard game, `game1`, created at [`T0`] with France's
/// orders in; the files transport writes to `outbox/`.
struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
}

impl Judge {
    fn new() -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        let j = Judge { _tmp: tmp, root, outbox: Outbox::default() };
        let map = Map::standard();
        let mut settings = Settings::new("game1", VariantKind::Standard);
        settings.players = parse_players(PLAYERS, "players", &map).unwrap();
        settings.master.email = Some("gm@example.org".into());
        settings.observers = vec!["obs@example.org".into()];
        let mut g = session::create(&j.game(), &settings, GameState::start(&map, 1), at(T0)).unwrap();
        let france = map.lookup_power("france").unwrap();
        let ack = g.submit(france, "A par - bur\nA mar - spa\nF bre - mao\n", false, at(T0)).unwrap();
        assert!(ack.problems.is_empty(), "{ack:?}");
        j
    }

    fn home(&self) -> JudgeHome {
        JudgeHome::open(&self.root).unwrap()
    }

    fn game(&self) -> PathBuf {
        self.root.join("games").join("game1")
    }

    /// The real binary's `mail tick` at `now`; its output.
    fn tick(&self, now: &str) -> String {
        let home = self.root.to_str().unwrap();
        let run = crate::harness::shadowjudge_at(now, None, &["mail", "tick"], None, &[("SHADOWJUDGE_HOME", home)]);
        assert_eq!(run.code, 0, "mail tick failed: {}", run.stderr);
        run.stdout
    }

    /// The real binary's `mail ingest` of one message at `now`; its exit code.
    fn deliver(&self, now: &str, raw: &str) -> i32 {
        let home = self.root.to_str().unwrap();
        crate::harness::shadowjudge_at(
            now,
            None,
            &["mail", "ingest"],
            Some(raw.as_bytes()),
            &[("SHADOWJUDGE_HOME", home)],
        )
        .code
    }

    /// The mails written to the outbox since the last call.
    fn new_mails(&mut self) -> Vec<Eml> {
        self.outbox.new_mails(&self.root)
    }

    fn entries(&self) -> Vec<Entry> {
        judge_dir::journal(&self.game())
    }

    /// The journal seqs of the adjudications, with their phase and `mail_results`.
    fn adjudications(&self) -> Vec<(u64, Phase, bool)> {
        self.entries()
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                Entry::Adjudicated { phase, mail_results, .. } => Some((i as u64 + 1, *phase, *mail_results)),
                _ => None,
            })
            .collect()
    }

    fn mailed(&self) -> Option<MailedFile> {
        GameDir::open_for_reading(self.game()).unwrap().read_side(MAILED_FILE).unwrap()
    }

    fn journal_text(&self) -> String {
        std::fs::read_to_string(self.game().join("journal.jsonl")).unwrap()
    }
}

/// How many mails with `subject` each address got.
fn count(mails: &[Eml], subject: &str) -> BTreeMap<String, usize> {
    let mut by = BTreeMap::new();
    for m in mails.iter().filter(|m| m.subject == subject) {
        *by.entry(m.to.clone()).or_insert(0) += 1;
    }
    by
}

fn once_each() -> BTreeMap<String, usize> {
    EVERYONE.iter().map(|a| (a.to_string(), 1)).collect()
}

/// A cheap master password (the test is about delivery, not argon2's cost).
fn set_master_password(j: &Judge) {
    set_password_at(&j.game(), "master", &hash_password_with_cost("secret42", 64, 1).unwrap(), chrono::Utc::now())
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// The normal case: once, and a tick after it sends nothing.

/// The master's `process` by mail: the results go out once with the reply, and the ticks
/// that follow (the periodic sweep for owed results included) send nothing more.
#[test]
fn results_after_a_masters_process_are_sent_once_and_never_again() {
    let mut j = Judge::new();
    set_master_password(&j);
    let raw = message("gm@example.org", "gm1@example.org", "SIGNON master@game1 secret42\nprocess\n");
    assert_eq!(j.deliver("2025-03-02T09:00:00Z", &raw), 0);
    let mails = j.new_mails();
    assert_eq!(count(&mails, SPRING), once_each(), "{mails:?}");
    let reply = mails.iter().find(|m| m.subject.starts_with("Re:")).unwrap();
    assert!(reply.body.contains("Spring 1901 movement processed; the results go to 5 addresses."), "{}", reply.body);
    let seq = j.adjudications()[0].0;
    let mailed = j.mailed().expect("mailed.json written");
    let record = &mailed.results[&seq];
    let phase: shadowjudge::phase::Phase = serde_json::from_value(record.phase.clone().expect("the phase")).unwrap();
    assert_eq!(phase.code(), "S1901M");
    let mut to = record.to.clone();
    to.sort();
    assert_eq!(to, EVERYONE);
    assert!(record.retry.is_empty() && record.undeliverable.is_empty());

    for now in ["2025-03-02T09:15:00Z", "2025-03-02T09:30:00Z"] {
        let out = j.tick(now);
        assert!(!out.contains("results of"), "{out}");
        assert!(j.new_mails().is_empty());
    }
    assert_eq!(j.adjudications().len(), 1);
}

/// The tick at the deadline processes and mails the results once; the next ticks send
/// nothing, and `mailed.json` holds one record.
#[test]
fn results_of_a_tick_are_sent_once_and_a_second_tick_sends_nothing() {
    let mut j = Judge::new();
    let out = j.tick(AT_DEADLINE);
    assert!(out.contains("game1: Spring 1901 movement processed; the results go to 5 addresses."), "{out}");
    assert!(out.contains("game1: results of Spring 1901 movement mailed to 5 of 5 addresses"), "{out}");
    let mails = j.new_mails();
    assert_eq!(count(&mails, SPRING), once_each());
    assert_eq!(mails.len(), 5, "{mails:?}");
    for now in ["2025-03-03T12:20:00Z", "2025-03-03T12:35:00Z"] {
        j.tick(now);
        assert!(j.new_mails().is_empty());
    }
    assert_eq!(j.mailed().unwrap().results.len(), 1);
}

/// Issue 13: the game option `pictures = false` sends the results without the map
/// pictures, to everyone.
#[test]
fn results_go_without_pictures_when_the_game_turns_them_off() {
    let mut j = Judge::new();
    let mut g = session::open_read_only(&j.game()).unwrap();
    g.update_settings(AT_DEADLINE.parse().unwrap(), |s| {
        s.pictures = false;
        Ok(())
    })
    .unwrap();
    j.tick(AT_DEADLINE);
    let mails = j.new_mails();
    assert_eq!(count(&mails, SPRING), once_each());
    assert!(mails.iter().all(|m| m.attachments.is_empty()), "{mails:?}");
}

// ---------------------------------------------------------------------------------------
// A crash before the send: the next tick sends them.

/// The tick adjudicated (journaled) and died before mailing: nothing was sent and
/// `tick.json` was not written. The next `mail tick` mails the results once to everyone,
/// the same text a normal tick mails; the one after sends nothing.
#[test]
fn results_of_a_tick_that_died_before_sending_go_out_at_the_next_tick() {
    let mut baseline = Judge::new();
    baseline.tick(AT_DEADLINE);
    let normal: BTreeMap<String, String> = baseline.new_mails().into_iter().map(|m| (m.to, m.body)).collect();

    let mut j = Judge::new();
    // The first half of `mail tick`, then the crash: the host is dropped with its work undone.
    let mut host = JudgeHost::new(j.home().games_dir());
    let mut logs = BTreeMap::new();
    let done = host.tick(at(AT_DEADLINE), &mut logs);
    assert!(done.iter().any(|l| l.contains("Spring 1901 movement processed")), "{done:?}");
    drop(host);
    assert_eq!(j.adjudications().len(), 1);
    assert!(j.mailed().is_none());
    assert!(j.new_mails().is_empty(), "nothing was sent before the crash");

    let out = j.tick("2025-03-03T12:20:00Z");
    assert!(out.contains("game1: results of Spring 1901 movement mailed to 5 of 5 addresses"), "{out}");
    let mails = j.new_mails();
    assert_eq!(count(&mails, SPRING), once_each(), "{mails:?}");
    for m in &mails {
        assert_eq!(m.body, normal[&m.to], "the results mailed late differ from the ones mailed on time");
        assert!(m.body.contains("Next deadline: Wed 2025-03-05 12:05 UTC"), "{}", m.body);
    }
    j.tick("2025-03-03T12:35:00Z");
    assert!(j.new_mails().is_empty());
    assert_eq!(j.adjudications().len(), 1, "the phase was adjudicated once");
}

/// The master's `process` by mail was applied (journaled) and the process died before
/// any mail left: the reply is gone, but the results go out at the next tick, once.
#[test]
fn results_of_a_masters_process_that_died_before_sending_go_out_at_the_next_tick() {
    let mut j = Judge::new();
    set_master_password(&j);
    let home = j.home();
    let intake = StoreIntake::open(&j.root).unwrap();
    let mut host = JudgeHost::new(home.games_dir());
    let raw = message("gm@example.org", "gm1@example.org", "SIGNON master@game1 secret42\nprocess\n");
    let outcome = ingest(raw.as_bytes(), &mut host, &intake, &home.config.mail, at("2025-03-02T09:00:00Z"));
    assert_eq!(outcome.disposition, Disposition::Applied { games: vec!["game1".into()] });
    assert_eq!(host.adjudicated(), ["game1"]);
    drop(host); // the crash: neither the results nor the reply were sent
    assert!(j.new_mails().is_empty());

    let out = j.tick("2025-03-02T09:10:00Z");
    assert!(out.contains("results of Spring 1901 movement mailed to 5 of 5"), "{out}");
    assert_eq!(count(&j.new_mails(), SPRING), once_each());
    j.tick("2025-03-02T09:25:00Z");
    assert!(j.new_mails().is_empty());
    // The message is claimed: delivered again, it is not applied again.
    assert_eq!(j.deliver("2025-03-02T09:30:00Z", &raw), 0);
    assert!(count(&j.new_mails(), SPRING).is_empty());
    assert_eq!(j.adjudications().len(), 1);
}

/// A message carried out again after an interruption (its claim not completed) does
/// nothing twice, with no check of the caller's: the store refuses each item that left
/// its entry, and the answer says it was done when first read (or, for a vote, is the
/// first answer again). The master's `process`, a new password and a draw vote, each
/// carried out twice under its tag.
#[test]
fn items_carried_out_again_are_refused_by_the_store_and_answered_as_done() {
    use shadowjudge::game::by_mail::{PlayerCommand, Role};
    use shadowjudge::mail::host::{GameHost, HostError, Identity, MasterCommand};
    let j = Judge::new();
    let now = at("2025-03-02T09:00:00Z");
    let master = Identity { game: "game1".into(), role: Role::Master, address: None, timezone: None };
    let france = Identity { role: Role::Seat("France".into()), ..master.clone() };
    let first = |host: &mut JudgeHost| {
        // Hashed afresh each time, as a message read again is (a new salt).
        let hash = hash_password_with_cost("another1", 64, 1).unwrap();
        host.carry_out(Some("m1.1".into()));
        let processed = host.master(&master, &MasterCommand::Process, now);
        host.carry_out(Some("m1.2".into()));
        let password = host.set_password(&france, &hash, now);
        host.carry_out(Some("m1.3".into()));
        let vote = host.player(&france, &PlayerCommand::Draw { powers: Vec::new() }, now);
        host.carry_out(None);
        (processed, password, vote)
    };
    let (processed, password, first_vote) = first(&mut JudgeHost::new(j.home().games_dir()));
    assert!(processed.is_ok() && password.is_ok() && first_vote.is_ok(), "{processed:?} {password:?} {first_vote:?}");
    let journal = std::fs::read_to_string(j.game().join("journal.jsonl")).unwrap();
    let settings = std::fs::read_to_string(j.game().join("game.toml")).unwrap();
    // The same message again, through a host that knows nothing of the first.
    let (processed, password, vote) = first(&mut JudgeHost::new(j.home().games_dir()));
    assert!(matches!(processed, Err(HostError::DoneBefore)), "{processed:?}");
    assert!(matches!(password, Err(HostError::DoneBefore)), "{password:?}");
    // A vote is answered as the first time (the votes say so themselves).
    assert_eq!(vote.unwrap(), first_vote.unwrap());
    assert_eq!(std::fs::read_to_string(j.game().join("journal.jsonl")).unwrap(), journal);
    assert_eq!(std::fs::read_to_string(j.game().join("game.toml")).unwrap(), settings);
    assert_eq!(j.adjudications().len(), 1, "the phase was adjudicated once");
    assert_eq!(
        HostError::DoneBefore.to_string(),
        "done when this message was first read (the judge was interrupted before it answered)."
    );
}

// ---------------------------------------------------------------------------------------
// The kill test: SIGKILL at each step of a real tick.

const CHILD_JUDGE: &str = "SJ_RESULTS_CHILD_JUDGE";
const CHILD_FAULT: &str = "SJ_RESULTS_CHILD_FAULT";

static STOP_AT: OnceLock<(FaultPoint, usize)> = OnceLock::new();
static SEEN: AtomicUsize = AtomicUsize::new(0);

/// Tell the parent where we are, and wait for its SIGKILL (a minute at most).
fn stop_here(what: &str) {
    println!("fault {what}");
    let _ = std::io::stdout().flush();
    std::thread::sleep(Duration::from_secs(60));
    std::process::exit(9);
}

fn stop_at_fault(point: FaultPoint) {
    let Some(&(target, k)) = STOP_AT.get() else { return };
    if point == target && SEEN.fetch_add(1, Ordering::SeqCst) + 1 == k {
        stop_here(point.name());
    }
}

/// In a child (`SJ_RESULTS_CHILD_JUDGE` set): one whole `mail tick` at the deadline,
/// stopped at `SJ_RESULTS_CHILD_FAULT` (`<store fault point>:<k>`, or `send:<k>`: after
/// the k-th mail left). Run as an ordinary test: the same tick in-process, twice, and
/// the results go out once.
#[test]
fn child_tick() {
    if let Some(root) = std::env::var_os(CHILD_JUDGE) {
        return run_child(Path::new(&root));
    }
    let mut j = Judge::new();
    let home = j.home();
    let mut mailer = Mailer::new(&home.config.mail, at(AT_DEADLINE));
    let done = tick_judge(&home, at(AT_DEADLINE), &mut |m| mailer.send(m)).unwrap();
    assert!(done.iter().any(|l| l.contains("results of Spring 1901 movement mailed to 5 of 5")), "{done:?}");
    assert_eq!(count(&j.new_mails(), SPRING), once_each());
    let later = at("2025-03-03T12:20:00Z");
    let mut mailer = Mailer::new(&home.config.mail, later);
    let done = tick_judge(&home, later, &mut |m| mailer.send(m)).unwrap();
    assert!(done.is_empty(), "{done:?}");
    assert!(j.new_mails().is_empty());
}

fn run_child(root: &Path) {
    let spec = std::env::var(CHILD_FAULT).expect("the fault to stop at");
    let (name, k) = spec.split_once(':').expect("fault spec is point:k");
    let k: usize = k.parse().expect("k is a number");
    let stop_after_sending = if name == "send" {
        Some(k)
    } else {
        STOP_AT.set((FaultPoint::from_name(name).expect("a known fault point"), k)).unwrap();
        fault::set_hook(stop_at_fault);
        None
    };
    let home = JudgeHome::open(root).unwrap();
    let now = at(AT_DEADLINE);
    let mut mailer = Mailer::new(&home.config.mail, now);
    let mut sent = 0;
    let mut send = |m: &OutgoingMail| {
        mailer.send(m)?;
        sent += 1;
        if stop_after_sending == Some(sent) {
            stop_here("send");
        }
        Ok(())
    };
    let done = tick_judge(&home, now, &mut send).unwrap();
    println!("done {done:?}");
}

/// Run the child on `judge`, wait for it to reach its fault, SIGKILL it.
fn kill_child_at(judge: &Path, spec: &str) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["mail_results::child_tick", "--exact", "--nocapture", "--test-threads", "1", "-q"])
        .env(CHILD_JUDGE, judge)
        .env(CHILD_FAULT, spec)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    let reached = loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line.starts_with("fault ") => break true,
            Ok(line) => seen.push(line),
            Err(_) => break false,
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(reached, "{spec}: the child never reached its fault: {seen:?}");
}

/// A child running `mail tick` at the deadline is killed at each step: after the
/// adjudication is synced, after the state cache, while and after the mark that the
/// results are being mailed is written, while and after the first send is noted, halfway
/// through the mails, after the mails but before their record is in place, after it is,
/// and while `tick.json` is written. Each time the real binary's next tick leaves
/// everyone with the results at least once, exactly once when the kill was before the
/// first mail or after a note, never more than twice, the same text as a normal run's;
/// and the tick after that sends nothing.
#[test]
fn results_survive_a_kill_at_every_step_of_the_tick() {
    let mut baseline = Judge::new();
    baseline.tick(AT_DEADLINE);
    let normal: BTreeMap<String, String> = baseline.new_mails().into_iter().map(|m| (m.to, m.body)).collect();
    assert_eq!(normal.len(), 5);

    // (where, mails out before the kill, mailed.json in place at the kill, duplicates allowed)
    // The atomic writes: 1 state.json, 2 the mark that the results are being mailed
    // (mailed.json), 3-7 the mark's note after each of the 5 sends (issue 42.13), 8 the
    // record of the mailing (mailed.json), 9 tick.json. A kill after a send's note sends
    // nothing twice: only the mail being sent when the kill came may go twice.
    let rounds = [
        ("append-synced:1", 0, false, false),
        ("renamed:1", 0, false, false),
        ("temp-synced:2", 0, false, false),
        ("renamed:2", 0, true, false),
        ("temp-synced:3", 1, true, true),
        ("renamed:3", 1, true, false),
        ("send:2", 2, true, true),
        ("temp-synced:8", 5, true, false),
        ("renamed:8", 5, true, false),
        ("temp-synced:9", 5, true, false),
    ];
    for (spec, out_before, recorded, duplicates) in rounds {
        let mut j = Judge::new();
        kill_child_at(&j.root, spec);
        let adjudications = j.adjudications();
        assert_eq!(adjudications.len(), 1, "{spec}: {adjudications:?}");
        assert!(adjudications[0].2, "{spec}: the adjudication does not say its results are owed");
        let before = j.new_mails();
        assert_eq!(before.len(), out_before, "{spec}: the kill was not where it was meant to be: {before:?}");
        assert_eq!(j.mailed().is_some(), recorded, "{spec}: mailed.json");

        let out = j.tick("2025-03-03T12:20:00Z");
        let after = j.new_mails();
        let mut all = before.clone();
        all.extend(after.iter().cloned());
        let got = count(&all, SPRING);
        assert_eq!(got.keys().collect::<Vec<_>>(), EVERYONE.iter().collect::<Vec<_>>(), "{spec}: {out}");
        if duplicates {
            assert!(got.values().all(|&n| (1..=2).contains(&n)), "{spec}: {got:?}");
        } else {
            assert_eq!(got, once_each(), "{spec}: {out}");
        }
        for m in &all {
            assert_eq!(m.body, normal[&m.to], "{spec}: results to {} differ from a normal run's", m.to);
        }

        j.tick("2025-03-03T12:35:00Z");
        assert!(j.new_mails().is_empty(), "{spec}: a second tick sent more");
        let mailed = j.mailed().unwrap();
        let record = &mailed.results[&adjudications[0].0];
        assert!(record.retry.is_empty(), "{spec}: {record:?}");
        assert_eq!(j.adjudications().len(), 1, "{spec}: adjudicated twice");
        let g = session::open(&j.game()).unwrap();
        assert_eq!(g.game.state.phase.code(), "F1901M", "{spec}");
    }
}

// ---------------------------------------------------------------------------------------
// Failures of the transport, old journals, rollbacks, two mailers at once.

/// A transport failure for one address keeps the results owed to that address only; an
/// address no mail can be built for is given up, not retried every tick.
#[test]
fn a_failed_address_is_mailed_again_at_the_next_tick_and_only_it() {
    let mut j = Judge::new();
    let home = j.home();
    let now = at(AT_DEADLINE);
    let mut mailer = Mailer::new(&home.config.mail, now);
    let mut send = |m: &OutgoingMail| match m.to.as_str() {
        "bob@example.org" => Err(SendError::Send("421 try again later".into())),
        "cy@example.org" => Err(SendError::Address("cy@example.org".into())),
        _ => mailer.send(m),
    };
    let done = tick_judge(&home, now, &mut send).unwrap();
    let line = done.iter().find(|l| l.contains("results of")).unwrap();
    assert_eq!(
        line,
        "game1: results of Spring 1901 movement mailed to 3 of 5 addresses; to mail again at the next tick: \
         bob@example.org; not addresses, given up: cy@example.org"
    );
    let first = count(&j.new_mails(), SPRING);
    assert_eq!(first.keys().collect::<Vec<_>>(), ["ann@example.org", "gm@example.org", "obs@example.org"]);
    let seq = j.adjudications()[0].0;
    let record = j.mailed().unwrap().results[&seq].clone();
    assert_eq!(record.retry, ["bob@example.org"]);
    assert_eq!(record.undeliverable, ["cy@example.org"]);

    // Still failing: nothing is rewritten, nothing else is sent.
    let mut still = |m: &OutgoingMail| -> Result<(), SendError> {
        assert_eq!(m.to, "bob@example.org", "only Bob is still owed the results");
        Err(SendError::Transport("connection refused".into()))
    };
    tick_judge(&home, at("2025-03-03T12:20:00Z"), &mut still).unwrap();
    assert_eq!(j.mailed().unwrap().results[&seq], record);

    let later = at("2025-03-03T12:35:00Z");
    let mut mailer = Mailer::new(&home.config.mail, later);
    let done = tick_judge(&home, later, &mut |m| mailer.send(m)).unwrap();
    assert!(done.iter().any(|l| l == "game1: results of Spring 1901 movement mailed to 1 of 1 address"), "{done:?}");
    assert_eq!(count(&j.new_mails(), SPRING), BTreeMap::from([("bob@example.org".to_string(), 1)]));
    let record = &j.mailed().unwrap().results[&seq];
    assert!(record.retry.is_empty());
    assert_eq!(record.to, ["ann@example.org", "obs@example.org", "gm@example.org", "bob@example.org"]);
    j.tick("2025-03-03T12:50:00Z");
    assert!(j.new_mails().is_empty());
}

/// Adjudications journaled without `mail_results` (older journals, `shadowjudge
/// adjudicate` by hand) keep the old format and owe nothing: the first tick after an
/// upgrade mails only what it processes itself.
#[test]
fn an_older_game_is_not_mailed_its_past_results_again() {
    let mut j = Judge::new();
    let mut g = session::open(&j.game()).unwrap();
    g.adjudicate(true, at("2025-03-02T10:00:00Z")).unwrap();
    g.adjudicate(true, at("2025-03-02T11:00:00Z")).unwrap();
    let journal = j.journal_text();
    assert!(!journal.contains("mail_results"), "an adjudication by hand changed the journal's format");
    let phase = session::open_read_only(&j.game()).unwrap().game.state.phase;
    assert!(session::open_read_only(&j.game()).unwrap().results_owed().unwrap().is_empty());

    // An old line read back: no `mail_results`, nothing owed.
    let old = journal.lines().find(|l| l.contains("\"type\":\"adjudicated\"")).unwrap();
    let record: shadowjudge::store::Record<Entry> = serde_json::from_str(old).unwrap();
    assert!(matches!(record.entry, Entry::Adjudicated { mail_results: false, .. }));

    let out = j.tick("2025-03-02T12:00:00Z");
    assert!(!out.contains("results of"), "{out}");
    assert!(j.new_mails().iter().all(|m| !m.subject.contains("results")));
    // At that phase's deadline the tick processes it: its results only are mailed. (A tick
    // just before, so the day without one is not taken for an outage.)
    let deadline = session::open_read_only(&j.game()).unwrap().game.state.deadline.unwrap();
    j.tick(&(deadline - chrono::Duration::minutes(5)).to_rfc3339());
    j.new_mails();
    j.tick(&(deadline + chrono::Duration::minutes(5)).to_rfc3339());
    let mails = j.new_mails();
    assert_eq!(count(&mails, &format!("game1: results of {phase}")), once_each(), "{mails:?}");
    assert_eq!(mails.len(), 5, "{mails:?}");
    let flags: Vec<bool> = j.adjudications().iter().map(|a| a.2).collect();
    assert_eq!(flags, [false, false, true]);
}

/// Results owed for a phase the master then rolled back are not mailed: the phase is
/// played again, and its new results go out once.
#[test]
fn results_of_a_rolled_back_phase_are_not_mailed() {
    let mut j = Judge::new();
    let mut host = JudgeHost::new(j.home().games_dir());
    host.process("game1", None, at("2025-03-02T09:00:00Z")).unwrap();
    drop(host); // died before mailing
    let mut g = session::open(&j.game()).unwrap();
    assert_eq!(g.results_owed().unwrap().len(), 1);
    g.rollback("S1901M".parse().unwrap(), at("2025-03-02T10:00:00Z")).unwrap();
    assert!(g.results_owed().unwrap().is_empty());
    let out = j.tick("2025-03-02T10:15:00Z");
    assert!(!out.contains("results of"), "{out}");
    assert!(j.new_mails().is_empty());

    // Spring is played again at its deadline: one set of results. (A tick just before,
    // so the day without one is not taken for an outage.)
    j.tick("2025-03-03T11:55:00Z");
    j.new_mails();
    j.tick(AT_DEADLINE);
    assert_eq!(count(&j.new_mails(), SPRING), once_each());
    let adjudications = j.adjudications();
    assert_eq!(adjudications.len(), 2);
    let mailed = j.mailed().unwrap();
    assert_eq!(mailed.results.keys().copied().collect::<Vec<_>>(), [adjudications[1].0]);
}

/// Two runs mailing the same owed results at once (an ingest and a tick) send them once:
/// the second waits for the first, then finds nothing owed.
#[test]
fn two_mailers_at_once_send_the_results_once() {
    let j = Judge::new();
    let mut host = JudgeHost::new(j.home().games_dir());
    host.process("game1", None, at("2025-03-02T09:00:00Z")).unwrap();
    let sent = Mutex::new(Vec::new());
    let now = at("2025-03-02T09:00:01Z");
    std::thread::scope(|s| {
        for _ in 0..4 {
            let (sent, games) = (&sent, j.home().games_dir());
            s.spawn(move || {
                let host = JudgeHost::new(games);
                let mut send = |m: &OutgoingMail| {
                    std::thread::sleep(Duration::from_millis(20));
                    sent.lock().unwrap().push(m.to.clone());
                    Ok(())
                };
                host.mail_results(Some(&["game1".to_string()]), true, now, &mut send);
            });
        }
    });
    let mut sent = sent.into_inner().unwrap();
    sent.sort();
    assert_eq!(sent, EVERYONE);
    assert!(session::open_read_only(&j.game()).unwrap().results_owed().unwrap().is_empty());
}

/// `mail tick` passes over an idle game by its glance (`glance.json`, kept by the tick
/// that last opened it in full) and never over a change: a journal cut short is still
/// found by the next tick, and a deadline come due is processed and its results mailed.
#[test]
fn an_idle_game_is_passed_over_at_a_glance_and_every_change_is_seen() {
    let mut j = Judge::new();
    let home = j.home();
    let before = at("2025-03-01T18:00:00Z");
    let mut nothing = |m: &OutgoingMail| -> Result<(), SendError> { panic!("nothing is due: {}", m.subject) };
    assert!(shadowjudge::game::glance::read(&j.game()).is_none(), "no tick has looked yet");
    assert_eq!(tick_judge(&home, before, &mut nothing).unwrap(), Vec::<String>::new());
    let glance = shadowjudge::game::glance::read(&j.game()).expect("the tick kept a glance");
    assert_eq!(glance.missing, ["Germany", "Italy"]);
    assert!(!glance.owed && !glance.early && !glance.over);
    assert_eq!(tick_judge(&home, before, &mut nothing).unwrap(), Vec::<String>::new());
    // A glance a crash left empty (it is not synced) is none: the game is opened again.
    std::fs::write(j.game().join(shadowjudge::game::glance::GLANCE_FILE), "").unwrap();
    assert!(shadowjudge::game::glance::read(&j.game()).is_none());
    assert_eq!(tick_judge(&home, before, &mut nothing).unwrap(), Vec::<String>::new());
    assert!(shadowjudge::game::glance::read(&j.game()).is_some(), "kept again");
    // A journal cut short (state.json ahead of it): the glance is stale, the game opened.
    let journal = j.journal_text();
    let first_line = journal.split_inclusive('\n').next().unwrap().to_string();
    std::fs::write(j.game().join("journal.jsonl"), &first_line).unwrap();
    assert!(shadowjudge::game::glance::read(&j.game()).is_none());
    let done = tick_judge(&home, before, &mut nothing).unwrap();
    assert!(done.iter().any(|l| l.starts_with("game1: not read") && l.contains("cut short")), "{done:?}");
    std::fs::write(j.game().join("journal.jsonl"), &journal).unwrap();
    assert_eq!(tick_judge(&home, before, &mut nothing).unwrap(), Vec::<String>::new());
    assert!(shadowjudge::game::glance::read(&j.game()).is_some());
    // The reminders fall due (a day before the deadline): the glance hands the game over.
    let reminding = at("2025-03-03T11:00:00Z");
    let mut mailer = Mailer::new(&home.config.mail, reminding);
    let done = tick_judge(&home, reminding, &mut |m| mailer.send(m)).unwrap();
    assert!(done.contains(&"game1: reminded Germany".to_string()), "{done:?}");
    assert!(done.contains(&"game1: reminded Italy".to_string()), "{done:?}");
    j.new_mails();
    // The deadline passes: processed and mailed, and the glance no longer stands.
    let mut mailer = Mailer::new(&home.config.mail, at(AT_DEADLINE));
    let done = tick_judge(&home, at(AT_DEADLINE), &mut |m| mailer.send(m)).unwrap();
    assert!(done.iter().any(|l| l.contains("results of Spring 1901 movement mailed to 5 of 5")), "{done:?}");
    assert_eq!(count(&j.new_mails(), SPRING), once_each());
    assert!(shadowjudge::game::glance::read(&j.game()).is_none());
}

#[test]
fn a_late_notice_says_what_the_deadline_does_in_each_kind_of_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let map = Map::standard();
    let mut settings = Settings::new("winter", VariantKind::Standard);
    settings.players = parse_players(PLAYERS, "players", &map).unwrap();
    let clock_of = |name: &str, position: &str| {
        let pos = shadowjudge::diplomacy::position::parse_position(position, name, &map, 1).unwrap();
        let dir = tmp.path().join(name);
        session::create(&dir, &settings, GameState::from_position(&map, &pos), at(T0)).unwrap();
        shadowjudge::game::any::open_read_only(&dir).unwrap().clock().expect("a deadline runs")
    };
    let spring =
        clock_of("spring", "season = \"spring\"\nyear = 1901\nphase = \"movement\"\n[units]\nfrance = [\"A par\"]\n");
    assert_eq!(spring.defaults, "units without orders hold");
    // France owns Spain too and may build: a late notice must not say that units hold.
    let winter = clock_of(
        "winter",
        "season = \"winter\"\nyear = 1901\nphase = \"adjustments\"\n[units]\nfrance = [\"A par\"]\n\
         [centers]\nfrance = [\"par\", \"bre\", \"spa\"]\n",
    );
    assert_eq!(winter.step, "W1901A");
    assert!(winter.missing.contains(&"France".to_string()), "{:?}", winter.missing);
    assert!(winter.defaults.starts_with("builds not ordered are waived"), "{}", winter.defaults);
    let mails = shadowjudge::mail::deadline::tick_mails(
        "winter",
        winter.deadline,
        &[shadowjudge::mail::deadline::TickAction::LateNotice {
            power: "France".into(),
            deadline: winter.deadline,
            grace_until: winter.deadline + chrono::Duration::hours(6),
        }],
        &shadowjudge::game::any::open_read_only(&tmp.path().join("winter")).unwrap().contacts(),
        &winter.defaults,
    );
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(mails[0].body.contains("after that, builds not ordered are waived"), "{}", mails[0].body);
    assert!(!mails[0].body.contains("hold"), "{}", mails[0].body);
}
