//! Play by email against real game directories (issue 6): the built binary's `mail`
//! commands over a judge directory, the file transport writing .eml files into its
//! outbox, and the clock fixed with `SHADOWJUDGE_NOW`. No network.

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};

use chrono::{TimeZone, Utc};

use crate::judge_dir::{self, message, Eml, MailJudge, PLAYERS};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::journal::Entry;
use shadowjudge::game::session::diplomacy as session;
use shadowjudge::game::settings::{parse_players, Settings, VariantKind};
use shadowjudge::host::{set_password_at, JudgeHost};
use shadowjudge::mail::home::JudgeHome;
use shadowjudge::mail::ingest as ingest_one;
use shadowjudge::mail::ingest::{Disposition, StoreIntake};
use shadowjudge::mail::password::hash_password_with_cost;
use shadowjudge::store::GameDir;

/// A judge directory in a temp dir, driven through the real binary; its games are
/// Shadow Worlds games of [`PLAYERS`] with a master and an observer.
struct Judge(MailJudge);

impl Deref for Judge {
    type Target = MailJudge;
    fn deref(&self) -> &MailJudge {
        &self.0
    }
}

impl DerefMut for Judge {
    fn deref_mut(&mut self) -> &mut MailJudge {
        &mut self.0
    }
}

impl Judge {
    fn new(extra_deadlines: &str) -> Judge {
        Judge(MailJudge::new(&format!("\n[deadlines]\n{extra_deadlines}"), PLAYERS))
    }

    fn new_game(&self, now: &str, name: &str) {
        self.0.new_game(now, name, &["--variant", "shadow-worlds", "--observer", "obs@example.org"]);
    }

    /// The mails written since the last call.
    fn new_mails(&mut self) -> Vec<Eml> {
        self.mails()
    }

    fn phase(&self, game: &str) -> String {
        session::open_read_only(&self.game_dir(game)).unwrap().game.state.phase.code()
    }
}

fn to_addresses(mails: &[Eml]) -> Vec<&str> {
    let mut v: Vec<&str> = mails.iter().map(|m| m.to.as_str()).collect();
    v.sort();
    v
}

const FRANCE_S1901: &str =
    "Board A\nA par - bur\nA mar - spa\nF bre - mao\nBoard B\nA par H\nA mar - pie\nF bre - eng\n";

/// The whole game by mail: passwords from `mail password`, orders in and acknowledged in
/// the thread, a reminder only to the powers without orders, the master's `process` and
/// the tick at the deadline both adjudicating, and the results mailed to everyone.
#[test]
fn issue_6_a_game_played_by_mail_end_to_end() {
    // A 3-hour tick: a 12-hour gap between test ticks is not an outage.
    let mut j = Judge::new("remind_hours_before = 24\ntick_minutes = 180\n");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    let france = j.password(t0, "game1", "france");
    let master = j.password(t0, "game1", "master");
    // Italy's password goes by mail.
    let out = j.ok(t0, &["mail", "password", "game1", "italy", "--mail"]);
    assert!(out.contains("mailed to bob@example.org"), "{out}");
    let mails = j.new_mails();
    assert_eq!(to_addresses(&mails), ["bob@example.org"]);
    assert!(mails[0].body.contains("Then your orders, one per line"), "{}", mails[0].body);
    let italy =
        mails[0].body.split("SIGNON italy@game1 ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();

    // France's orders, acknowledged in the thread with line numbers and the deadline.
    let code = j.deliver(
        "2025-03-01T13:00:00Z",
        &message("Ann <ann@example.org>", "fr1@example.org", &format!("SIGNON france@game1 {france}\n{FRANCE_S1901}")),
    );
    assert_eq!(code, 0);
    let mails = j.new_mails();
    assert_eq!(mails.len(), 1, "{mails:?}");
    let ack = &mails[0];
    assert_eq!(ack.to, "ann@example.org");
    assert_eq!(ack.in_reply_to.as_deref(), Some("fr1@example.org"));
    assert!(ack.body.contains("Orders for France, Spring 1901 movement:"), "{}", ack.body);
    assert!(ack.body.contains("line   3: [A] A par - bur"), "{}", ack.body);
    assert!(ack.body.contains("line   9: [B] F bre - eng"), "{}", ack.body);
    assert!(ack.body.contains("Every unit has an order."), "{}", ack.body);
    assert!(ack.body.contains("Deadline: Mon 2025-03-03 12:00 UTC"), "{}", ack.body);

    // The reminder, 12 hours before the deadline, goes to Italy and Germany only; a
    // second tick sends nothing more.
    j.ok("2025-03-03T00:00:00Z", &["mail", "tick"]);
    let mails = j.new_mails();
    assert_eq!(to_addresses(&mails), ["bob@example.org", "cy@example.org"]);
    assert!(mails.iter().all(|m| m.subject == "game1: reminder, orders due"));
    j.ok("2025-03-03T00:10:00Z", &["mail", "tick"]);
    assert!(j.new_mails().is_empty());

    // The master processes by mail: results (both boards) to every player, observer, master.
    let code = j.deliver(
        "2025-03-03T06:00:00Z",
        &message("gm@example.org", "gm1@example.org", &format!("SIGNON master@game1 {master}\nprocess\n")),
    );
    assert_eq!(code, 0);
    let mails = j.new_mails();
    let results: Vec<&Eml> = mails.iter().filter(|m| m.subject == "game1: results of Spring 1901 movement").collect();
    let mut got: Vec<&str> = results.iter().map(|m| m.to.as_str()).collect();
    got.sort();
    assert_eq!(got, ["ann@example.org", "bob@example.org", "cy@example.org", "gm@example.org", "obs@example.org"]);
    for r in &results {
        assert!(r.body.contains("=== Board A ===") && r.body.contains("=== Board B ==="), "{}", r.body);
        assert!(r.body.contains("Next deadline: Wed 2025-03-05 06:00 UTC"), "{}", r.body);
    }
    let reply = mails.iter().find(|m| m.in_reply_to.as_deref() == Some("gm1@example.org")).unwrap();
    assert!(reply.body.contains("Spring 1901 movement processed"), "{}", reply.body);
    assert_eq!(j.phase("game1"), "F1901M");

    // Fall: Italy orders, then the tick after the deadline processes and mails the results;
    // a second tick does nothing.
    let code = j.deliver(
        "2025-03-04T10:00:00Z",
        &message("bob@example.org", "it2@example.org", &format!("SIGNON italy@game1 {italy}\nA ven H\n")),
    );
    assert_eq!(code, 0);
    let ack = j.new_mails();
    assert!(ack[0].body.contains("Orders for Italy, Fall 1901 movement:"), "{}", ack[0].body);
    j.ok("2025-03-04T20:00:00Z", &["mail", "tick"]); // reminders
    j.new_mails();
    j.ok("2025-03-05T06:05:00Z", &["mail", "tick"]);
    let mails = j.new_mails();
    assert_eq!(mails.iter().filter(|m| m.subject == "game1: results of Fall 1901 movement").count(), 5, "{mails:?}");
    // The next tick processes nothing again (it may remind of the Winter phase now due
    // in 24 hours); the one after that has nothing left to do at all.
    j.ok("2025-03-05T06:10:00Z", &["mail", "tick"]);
    assert!(j.new_mails().iter().all(|m| m.subject.contains("reminder")));
    j.ok("2025-03-05T06:15:00Z", &["mail", "tick"]);
    assert!(j.new_mails().is_empty());
    let adjudicated = j.journal("game1").iter().filter(|e| matches!(e, Entry::Adjudicated { .. })).count();
    assert_eq!(adjudicated, 2);
    assert_ne!(j.phase("game1"), "F1901M");
}

/// A wrong password changes nothing and gets a short reply; a message for no game, too.
#[test]
fn issue_6_a_wrong_password_changes_nothing() {
    let mut j = Judge::new("");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    j.password(t0, "game1", "france");
    let before = j.journal("game1").len();
    let code = j.deliver(
        t0,
        &message("ann@example.org", "bad@example.org", "SIGNON france@game1 not-the-password\nA par - bur\n"),
    );
    assert_eq!(code, 0);
    assert_eq!(j.journal("game1").len(), before);
    let mails = j.new_mails();
    assert_eq!(mails.len(), 1);
    assert!(mails[0].body.contains("wrong password for France in game1. Nothing was done."), "{}", mails[0].body);
    assert!(mails[0].body.len() < 600, "{}", mails[0].body);
    assert_eq!(j.deliver(t0, &message("x@example.org", "nogame@example.org", "SIGNON france@nosuch pw\n")), 0);
    assert!(j.new_mails()[0].body.contains("there is no game `nosuch` here"));
}

/// A tick that did not run across a deadline holds the game and tells the master only;
/// the master's `extend` lets it go on.
#[test]
fn issue_6_an_outage_holds_the_game_and_tells_the_master() {
    let mut j = Judge::new("remind_hours_before = 0\n");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    let master = j.password(t0, "game1", "master");
    j.ok("2025-03-01T12:15:00Z", &["mail", "tick"]);
    // The judge was down from then until after the deadline (2025-03-03 12:00).
    j.ok("2025-03-03T20:00:00Z", &["mail", "tick"]);
    let mails = j.new_mails();
    assert_eq!(to_addresses(&mails), ["gm@example.org"]);
    assert!(mails[0].body.contains("the game was NOT processed"), "{}", mails[0].body);
    assert_eq!(j.phase("game1"), "S1901M");
    j.ok("2025-03-03T20:15:00Z", &["mail", "tick"]);
    assert!(j.new_mails().is_empty());
    assert_eq!(j.phase("game1"), "S1901M");
    // The master extends by a day; the tick processes at the new deadline.
    let code = j.deliver(
        "2025-03-03T20:20:00Z",
        &message("gm@example.org", "ext@example.org", &format!("SIGNON master@game1 {master}\nextend 24\n")),
    );
    assert_eq!(code, 0);
    assert!(j.new_mails()[0].body.contains("Deadline extended by 1 day to Tue 2025-03-04 20:20 UTC"));
    for hour in ["2025-03-04T08:00:00Z", "2025-03-04T16:00:00Z", "2025-03-04T20:10:00Z"] {
        j.ok(hour, &["mail", "tick"]);
    }
    assert_eq!(j.phase("game1"), "S1901M");
    j.ok("2025-03-04T20:30:00Z", &["mail", "tick"]);
    assert_eq!(j.phase("game1"), "F1901M");
    assert_eq!(j.new_mails().len(), 5);
}

/// 200 messages ingested at once by 8 threads into one real game, 20 of them delivered
/// twice: each is applied exactly once (its orders and its press are in the journal once),
/// each second delivery not at all.
#[test]
fn issue_6_two_hundred_concurrent_messages_apply_exactly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
    let home = JudgeHome::open(root).unwrap();
    let map = Map::standard();
    let mut settings = Settings::new("big", VariantKind::Standard);
    settings.players = parse_players(PLAYERS, "players", &map).unwrap();
    let now = Utc.with_ymd_and_hms(2025, 3, 1, 12, 0, 0).unwrap();
    let game = home.games_dir().join("big");
    session::create(&game, &settings, GameState::start(&map, 1), now).unwrap();
    // A cheap hash: the test is about exactly-once, not about argon2's cost.
    set_password_at(&game, "france", &hash_password_with_cost("secret42", 64, 1).unwrap(), Utc::now()).unwrap();

    let mut messages: Vec<(usize, String)> = (0..200)
        .map(|i| {
            let orders = ["A par - bur", "A par H", "A mar - spa", "F bre - mao"][i % 4];
            let body = format!("SIGNON france@big secret42\n{orders}\npress to italy\nmessage number {i}\nendpress\n");
            (i, message("ann@example.org", &format!("m{i}@example.org"), &body))
        })
        .collect();
    let again: Vec<(usize, String)> = (0..20).map(|i| (i * 10, messages[i * 10].1.clone())).collect();
    messages.extend(again);
    // Spread the second deliveries among the threads, so they race with the first ones.
    let len = messages.len();
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by_key(|k| (k * 37) % len);
    let messages: Vec<(usize, String)> = order.into_iter().map(|k| messages[k].clone()).collect();
    let intake = StoreIntake::open(root).unwrap();
    let settings = home.config.mail.clone();
    let outcomes: Vec<(usize, Disposition)> = std::thread::scope(|s| {
        let handles: Vec<_> = messages
            .chunks(28)
            .map(|chunk| {
                let (intake, settings, games) = (&intake, &settings, home.games_dir());
                s.spawn(move || {
                    let mut host = JudgeHost::new(games);
                    chunk
                        .iter()
                        .map(|(i, raw)| (*i, ingest_one(raw.as_bytes(), &mut host, intake, settings, now).disposition))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });

    let applied = outcomes.iter().filter(|(_, d)| matches!(d, Disposition::Applied { .. })).count();
    let duplicates = outcomes.iter().filter(|(_, d)| matches!(d, Disposition::Duplicate { .. })).count();
    assert_eq!((applied, duplicates), (200, 20), "{outcomes:?}");
    let entries: Vec<Entry> = GameDir::open_for_reading(&game)
        .unwrap()
        .journal::<Entry>()
        .unwrap()
        .into_records()
        .into_iter()
        .map(|r| r.entry)
        .collect();
    let submitted = entries.iter().filter(|e| matches!(e, Entry::Submitted { .. })).count();
    assert_eq!(submitted, 200);
    let mut press_count: BTreeMap<usize, usize> = BTreeMap::new();
    for e in &entries {
        if let Entry::Press { from, to, text, .. } = e {
            assert_eq!((from.as_str(), to.as_slice()), ("France", &["Italy".to_string()][..]));
            let n: usize = text.trim().strip_prefix("message number ").unwrap().parse().unwrap();
            *press_count.entry(n).or_default() += 1;
        }
    }
    assert_eq!(press_count.len(), 200);
    assert!(press_count.values().all(|&c| c == 1), "{press_count:?}");
    // The state cache is written for the last journal entry, and it is what a replay of
    // the whole journal gives.
    let dir = GameDir::open_for_reading(&game).unwrap();
    let (applied, cached): (u64, GameState) = dir.read_state().unwrap().expect("a state cache");
    assert_eq!(applied, entries.len() as u64, "the cache is behind the journal");
    let g = session::open_read_only(&game).unwrap();
    let mut replayed = shadowjudge::diplomacy::engine::Game::new(
        g.game.settings.clone(),
        Map::standard(),
        GameState::start(&Map::standard(), 2),
    );
    shadowjudge::game::journal::replay(&mut replayed, &entries).unwrap();
    assert_eq!(replayed.state.phase, cached.phase);
    assert_eq!(replayed.state.orders, cached.orders);
}

/// A message that cannot be kept (no usable judge directory) asks the MTA to retry (75);
/// one that was kept is never bounced (0), even when it names no game.
#[test]
fn issue_6_ingest_exit_codes_are_for_the_mta() {
    let j = Judge::new("");
    let raw = message("ann@example.org", "x1@example.org", "SIGNON france@nosuch pw\n");
    let missing = j.root.join("no-such-judge");
    let out =
        j.run("2025-03-01T12:00:00Z", &["mail", "ingest", "--judge", missing.to_str().unwrap()], Some(raw.as_bytes()));
    assert_eq!(out.code, 75, "{}", out.stderr);
    assert_eq!(j.deliver("2025-03-01T12:00:00Z", &raw), 0);
    let spool = shadowjudge::store::Spool::open(j.root.join("spool")).unwrap();
    assert_eq!(spool.list().unwrap().len(), 1);
}

/// Issue 13: results mails carry the map pictures of the phase (PNG and SVG); a player who
/// sends `map off` gets the text alone.
#[test]
fn issue_13_results_carry_map_pictures_unless_turned_off() {
    let mut j = Judge::new("");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    let pw = j.password(t0, "game1", "france");
    let body = format!("SIGNON france@game1 {pw}\nmap off\n");
    assert_eq!(j.deliver(t0, &message("ann@example.org", "m1@example.org", &body)), 0);
    let reply = j.new_mails();
    assert!(
        reply[0].body.contains("line 2: your results mails now come without the map pictures."),
        "{}",
        reply[0].body
    );
    j.ok("2025-03-03T12:05:00Z", &["mail", "tick"]);
    let results: Vec<Eml> = j.new_mails().into_iter().filter(|m| m.subject.contains("results of")).collect();
    assert_eq!(results.len(), 5);
    for m in &results {
        let want: Vec<String> = if m.to == "ann@example.org" {
            Vec::new()
        } else {
            vec!["game1-S1901M.png".into(), "game1-S1901M.svg".into()]
        };
        assert_eq!(m.attachments, want, "{}", m.to);
        assert!(m.body.contains("Spring 1901 movement"), "{}", m.body);
    }
}

/// Many wrong guesses delivered at once, as an MTA does (one `mail ingest` process each),
/// with the right password among them: at most 5 passwords are checked within the hour
/// however the mail arrives, and the master is told once (issue 23.1).
#[test]
fn parallel_guesses_check_at_most_five_passwords_and_tell_the_master_once() {
    let mut j = Judge::new("");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    let right = j.password(t0, "game1", "france");
    j.new_mails();
    let before = j.journal("game1").len();
    const MESSAGES: usize = 40;
    let j = std::sync::Arc::new(j);
    let runs: Vec<_> = (0..MESSAGES)
        .map(|i| {
            let j = j.clone();
            let right = right.clone();
            std::thread::spawn(move || {
                let password = if i == MESSAGES / 2 { right } else { format!("guess{i}") };
                let body = format!("SIGNON france@game1 {password}\nBoard A\nA par - bur\n");
                // From many addresses: the answers to one are limited.
                j.deliver(t0, &message(&format!("eve{i}@example.org"), &format!("guess{i}@example.org"), &body))
            })
        })
        .collect();
    for run in runs {
        assert_eq!(run.join().unwrap(), 0);
    }
    let mut j = std::sync::Arc::into_inner(j).unwrap();
    let mails = j.new_mails();
    let replies: Vec<&Eml> = mails.iter().filter(|m| m.to.starts_with("eve")).collect();
    assert_eq!(replies.len(), MESSAGES);
    let wrong = replies.iter().filter(|m| m.body.contains("wrong password for France")).count();
    let signed_on = replies.iter().filter(|m| m.body.contains("signed on as France")).count();
    let closed = replies.iter().filter(|m| m.body.contains("The password was not checked")).count();
    // At most 5 wrong guesses are checked; the right password counts as none, and may be
    // checked before the limit is reached or be refused after it.
    assert_eq!(wrong, 5, "{wrong} wrong passwords checked: the guesses fill the limit and no more");
    assert!(signed_on <= 1);
    assert_eq!(wrong + signed_on + closed, MESSAGES);
    let notices: Vec<&Eml> = mails.iter().filter(|m| m.to == "gm@example.org").collect();
    assert_eq!(notices.len(), 1, "{:?}", notices.iter().map(|m| &m.subject).collect::<Vec<_>>());
    assert!(notices[0].body.contains("`shadowjudge mail password game1 france --mail`"), "{}", notices[0].body);
    assert!(notices[0].body.contains("eve"), "{}", notices[0].body);
    // The guess that closed the sign-on says so to its sender.
    let told = replies.iter().filter(|m| m.body.contains("That makes 5 wrong passwords")).count();
    assert_eq!(told, 1);
    // Nothing was applied unless the right password was among the five checked.
    assert_eq!(j.journal("game1").len(), before + signed_on);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(j.game_dir("game1").join("signons.json")).unwrap()).unwrap();
    assert_eq!(record["failed"]["France"].as_array().unwrap().len(), 5, "{record}");
}

/// Issue 28, item 5: a player's `history` is the phases and their results; the journal
/// (password fingerprints, who waited) is the master's.
#[test]
fn a_players_history_is_the_phases_and_results_the_journal_is_the_masters() {
    let mut j = Judge::new("");
    let t0 = "2025-03-01T12:00:00Z";
    j.new_game(t0, "game1");
    let france = j.password(t0, "game1", "france");
    let master = j.password(t0, "game1", "master");
    let signon = |who: &str, pw: &str, body: &str| format!("SIGNON {who}@game1 {pw}\n{body}");
    j.deliver(
        "2025-03-01T13:00:00Z",
        &message("ann@example.org", "h1@example.org", &signon("france", &france, "wait\n")),
    );
    j.deliver(
        "2025-03-01T14:00:00Z",
        &message("gm@example.org", "h2@example.org", &signon("master", &master, "process\n")),
    );
    j.new_mails();
    j.deliver(
        "2025-03-01T15:00:00Z",
        &message("ann@example.org", "h3@example.org", &signon("france", &france, "history\n")),
    );
    let mails = j.new_mails();
    let body = &mails.iter().find(|m| m.in_reply_to.as_deref() == Some("h3@example.org")).unwrap().body;
    assert!(body.contains("The phases adjudicated"), "{body}");
    assert!(body.contains("Spring 1901 movement"), "{body}");
    assert!(body.contains("The last results:"), "{body}");
    assert!(!body.contains("journal") && !body.contains("waits") && !body.contains("password"), "{body}");
    j.deliver(
        "2025-03-01T16:00:00Z",
        &message("gm@example.org", "h4@example.org", &signon("master", &master, "history\n")),
    );
    let mails = j.new_mails();
    let body = &mails.iter().find(|m| m.in_reply_to.as_deref() == Some("h4@example.org")).unwrap().body;
    assert!(body.contains("journal") && body.contains("password changed"), "{body}");
}

/// What is secret on disk is owner-only: the dice's seed, the spool of received mail
/// (passwords in clear), the mail owed, the outbox and the claims (issue 23.2).
#[cfg(unix)]
#[test]
fn secrets_on_disk_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let t0 = "2026-03-02T10:00:00Z";
    let players = "ann, ann@example.org\nbob, bob@example.org\n";
    let (_tmp, root, passwords) = judge_dir::small_game_by_mail(t0, "duel", "duplexity", players, &[]);
    judge_dir::judge_cli(t0, &root, &["mail", "password", "duel", "ann", "--mail"]).ok();
    judge_dir::mail_in(t0, &root, "duel", &passwords, 1, "bob", "place P1\n").ok();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.join("games/duel/seed.json")), 0o600);
    for dir in ["spool", "owed", "outbox", "claims"] {
        let dir = root.join(dir);
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }
    assert!(std::fs::read_dir(root.join("outbox")).unwrap().count() >= 2, "the password and the answer were mailed");
}

/// Automatic mail that says so only by its Subject, a loop header naming the judge,
/// Exchange's suppress header, or the judge's own address gets no answer; and no address
/// gets more than 20 answers an hour to mail that signs on nowhere, then one notice,
/// across processes (issue 23.4).
#[test]
fn automatic_mail_is_never_answered_and_answers_to_one_address_are_limited() {
    let mut j = Judge::new("");
    let t0 = "2025-03-01T12:00:00Z";
    let head = |extra: &str, from: &str, id: &str| {
        format!("From: {from}\r\nTo: judge@example.org\r\n{extra}Message-ID: <{id}>\r\n\r\nhelp\r\n")
    };
    for (n, raw) in [
        head("Subject: Out of Office: back on Monday\r\n", "ann@example.org", "a1@x"),
        head("Subject: Automatic reply: orders\r\n", "ann@example.org", "a2@x"),
        head("Subject: orders\r\nX-Loop: judge@example.org\r\n", "ann@example.org", "a3@x"),
        head("Subject: orders\r\nX-Auto-Response-Suppress: All\r\n", "ann@example.org", "a4@x"),
        head("Subject: orders\r\n", "judge@example.org", "a5@x"),
        head("Subject: orders\r\n", "Judge@Example.org", "a6@x"),
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(j.deliver(t0, raw), 0, "message {n}");
    }
    assert!(j.new_mails().is_empty(), "automatic mail answered");
    // A responder that answers every mail: 25 messages in one hour.
    for i in 0..25 {
        let now = format!("2025-03-01T12:{:02}:00Z", i * 2);
        assert_eq!(j.deliver(&now, &head("Subject: Re: help\r\n", "bot@example.org", &format!("b{i}@x"))), 0);
    }
    let mails = j.new_mails();
    assert_eq!(mails.len(), 21, "{:?}", mails.iter().map(|m| &m.subject).collect::<Vec<_>>());
    let notices: Vec<&Eml> = mails.iter().filter(|m| m.body.contains("not answered until")).collect();
    assert_eq!(notices.len(), 1);
    assert!(notices[0].body.contains("not answered until Sat 2025-03-01 13:00 UTC"), "{}", notices[0].body);
    // An hour after the first, answers go out again.
    assert_eq!(j.deliver("2025-03-01T13:01:00Z", &head("Subject: help\r\n", "bot@example.org", "c1@x")), 0);
    assert_eq!(j.new_mails().len(), 1);
}

/// A small game has no press, votes, absences or map pictures: each command that needs
/// one is answered with what the game lacks, worded once for every game by the host
/// (issue 22.2), and changes nothing.
#[test]
fn a_small_game_says_what_it_lacks_in_one_wording() {
    let t0 = "2026-03-02T10:00:00Z";
    let players = "ann, ann@example.org\nbob, bob@example.org\n";
    let (_tmp, root, passwords) = judge_dir::small_game_by_mail(t0, "duel", "duplexity", players, &[]);
    let mut outbox = judge_dir::Outbox::default();
    outbox.new_mails(&root);
    let journal = root.join("games/duel/journal.jsonl");
    let before = std::fs::read_to_string(&journal).unwrap();
    let body = "press to all\nhello\nendpress\nmap off\ndraw\nabsence 2026-12-20 to 2026-12-27\n";
    judge_dir::mail_in(t0, &root, "duel", &passwords, 1, "ann", body).ok();
    let mails = outbox.new_mails(&root);
    let reply = mails.iter().find(|m| m.to == "ann@example.org").expect("a reply to ann");
    for said in [
        "press is for Diplomacy games; this game has none",
        "this game has no map to draw",
        "this game has no votes or absences",
    ] {
        assert!(reply.body.contains(said), "{said:?} in:\n{}", reply.body);
    }
    assert_eq!(reply.body.matches("this game has no votes or absences").count(), 2, "{}", reply.body);
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), before, "nothing was kept");
}
