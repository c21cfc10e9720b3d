//! Duple by mail (issue 12): three players and a master in a judge directory, answers,
//! a challenge and votes sent as mail, `mail tick` closing the windows at their
//! deadlines (a schedule's grace does not delay them), everyone mailed the table after
//! each step, to the end.

use std::path::PathBuf;

use crate::harness::Run;
use crate::judge_dir::{judge_cli, mail_in, small_game_by_mail, Eml, Outbox};

const SEED: &str = "d0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0bd0b1ed0b";
const START: &str = "2026-03-02T09:00:00Z";
const EVERYONE: [&str; 4] = ["ann@example.org", "bob@example.org", "cat@example.org", "gm@example.org"];

struct Race {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    sent: usize,
}

impl Race {
    fn new() -> Race {
        let players = "ann, ann@example.org\nbob, bob@example.org\ncat, cat@example.org\n";
        let extra = ["--seed", SEED, "--master", "gm@example.org"];
        let (tmp, root, passwords) = small_game_by_mail(START, "race", "duple", players, &extra);
        // A schedule's grace for late turns; the game's own windows must not wait for it.
        // Ticks a week apart are not an outage here.
        let toml = root.join("games/race/game.toml");
        let text = std::fs::read_to_string(&toml).unwrap();
        let text =
            text.replace("grace_hours = 0", "grace_hours = 6").replace("tick_minutes = 15", "tick_minutes = 10080");
        assert!(text.contains("grace_hours = 6") && text.contains("tick_minutes = 10080"), "{text}");
        std::fs::write(&toml, text).unwrap();
        Race { _tmp: tmp, root, outbox: Outbox::default(), passwords, sent: 0 }
    }

    fn cli(&self, now: &str, args: &[&str]) -> Run {
        judge_cli(now, &self.root, args)
    }

    /// `who` mails `body`, taken by `mail ingest` at `now`; the mails that caused.
    fn deliver(&mut self, now: &str, who: &str, body: &str) -> Vec<Eml> {
        self.sent += 1;
        let r = mail_in(now, &self.root, "race", &self.passwords, self.sent, who, body);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        self.outbox.new_mails(&self.root)
    }

    fn tick(&mut self, now: &str) -> Vec<Eml> {
        self.cli(now, &["mail", "tick"]).ok();
        self.outbox.new_mails(&self.root)
    }

    fn status(&self) -> serde_json::Value {
        self.cli(START, &["status", self.root.join("games/race").to_str().unwrap(), "--json"]).ok().json()
    }
}

/// The answer to `who`'s message.
fn ack<'m>(mails: &'m [Eml], who: &str) -> &'m str {
    let to = format!("{who}@example.org");
    &mails.iter().find(|m| m.in_reply_to.is_some() && m.to == to).unwrap_or_else(|| panic!("no answer: {mails:?}")).body
}

/// Every player and the master got the report of the step, with the table.
fn everyone_has_the_table(mails: &[Eml], what: &str) {
    for address in EVERYONE {
        let report = mails
            .iter()
            .find(|m| m.to == address && m.subject.starts_with("race: results of"))
            .unwrap_or_else(|| panic!("{what}: no report to {address}: {mails:#?}"));
        assert!(report.body.contains("Table (dealer "), "{what}: {}", report.body);
        assert!(report.body.contains("Wild Card: ") && report.body.contains("Category: "), "{}", report.body);
    }
}

fn plus(t: &str, seconds: i64) -> String {
    let t: chrono::DateTime<chrono::Utc> = t.parse().unwrap();
    (t + chrono::Duration::seconds(seconds)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

#[test]
fn a_three_player_game_is_played_by_mail_to_its_end() {
    let mut race = Race::new();
    race.outbox.new_mails(&race.root);
    let open = race.status()["open"].clone();
    assert_eq!(open["kind"], "faceoff", "{open}");
    let names: Vec<String> = open["players"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().into()).collect();
    let (first, second) = (names[0].as_str(), names[1].as_str());
    let outsider = ["ann", "bob", "cat"].into_iter().find(|p| !names.iter().any(|n| n == p)).unwrap();
    let letters: String = open["letters"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let (one, two) = (format!("{letters}a"), format!("{letters}o"));

    // The first player answers; the player outside the faceoff may not.
    let mails = race.deliver("2026-03-02T11:05:00Z", first, &format!("answer {one}"));
    assert!(ack(&mails, first).contains(&format!("answer {one}: received 2026-03-02 11:05:00 UTC")), "{mails:?}");
    everyone_has_the_table(&mails, "an answer");
    let mails = race.deliver("2026-03-02T11:10:00Z", outsider, &format!("answer {two}"));
    let only = format!("you are not in faceoff 1: only {first} and {second} answer");
    assert!(ack(&mails, outsider).contains(&only), "{mails:?}");
    assert!(!mails.iter().any(|m| m.subject.starts_with("race: results of")), "nothing changed, nothing reported");

    // The other challenges; they may not vote on it, the outsider does, once.
    let mails = race.deliver("2026-03-02T11:30:00Z", second, "challenge");
    let vote_until = format!("challenge to {one}: {outsider} votes until 2026-03-02 23:05:00 UTC");
    assert!(ack(&mails, second).contains(&vote_until), "{mails:?}");
    everyone_has_the_table(&mails, "the challenge");
    let mails = race.deliver("2026-03-02T11:40:00Z", second, "vote reject");
    assert!(ack(&mails, second).contains("you are in faceoff 1: only the players outside it vote"), "{mails:?}");
    let mails = race.deliver("2026-03-02T12:00:00Z", outsider, "vote reject");
    assert!(ack(&mails, outsider).contains(&format!("vote to reject {one}")), "{mails:?}");
    everyone_has_the_table(&mails, "the vote");
    let out = format!("{first}'s answer {one} is rejected by vote, 0 accept, 1 reject");
    assert!(mails.iter().any(|m| m.body.contains(&out)), "{mails:?}");
    let mails = race.deliver("2026-03-02T12:05:00Z", outsider, "vote accept");
    assert!(ack(&mails, outsider).contains("no challenge is open to vote on"), "{mails:?}");

    // The other's answer; its window closes at 2026-03-03 01:00. A challenge after it is
    // refused even before the tick, and the tick just after the window closes it, grace
    // or not.
    race.deliver("2026-03-02T13:00:00Z", second, &format!("answer {two}"));
    let mails = race.deliver("2026-03-03T01:00:10Z", first, "challenge");
    let late = format!("too late: the challenge window for {two} closed at 2026-03-03 01:00:00 UTC");
    assert!(ack(&mails, first).contains(&late), "{mails:?}");
    let mails = race.tick("2026-03-03T01:00:30Z");
    everyone_has_the_table(&mails, "the window closed");
    let report = &mails.iter().find(|m| m.to == "gm@example.org").unwrap().body;
    assert!(report.contains(&format!("{second} wins faceoff 1 with {two} (unchallenged)")), "{report}");

    // The rest of the game: the first player of each race answers with its letters, and
    // the tick closes each window at its deadline.
    let mut now = "2026-03-03T01:00:30Z".to_string();
    for _ in 0..200 {
        let status = race.status();
        if !status["ended"].is_null() {
            break;
        }
        let open = &status["open"];
        let who = open["players"][0].as_str().unwrap().to_string();
        let word: String = open["letters"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        now = plus(&now, 600);
        let mails = race.deliver(&now, &who, &format!("answer {word}o"));
        assert!(!ack(&mails, &who).contains("refused"), "{}", ack(&mails, &who));
        everyone_has_the_table(&mails, "an answer");
        let deadline = race.status()["deadline"].as_str().unwrap().to_string();
        let before = race.tick(&plus(&deadline, -60));
        assert!(before.iter().all(|m| !m.subject.starts_with("race: results of")), "not closed before its time");
        now = plus(&deadline, 30);
        let mails = race.tick(&now);
        everyone_has_the_table(&mails, "a window closed");
    }
    let end = race.status();
    assert_eq!(end["ended"], "won", "{end}");
    assert_eq!(end["cards_left"], 0);
    let verified = race.cli(&now, &["verify", race.root.join("games/race").to_str().unwrap()]).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);
}

#[test]
fn a_window_closing_at_its_deadline_is_reported_as_such_under_the_step_it_closed() {
    let mut race = Race::new();
    race.outbox.new_mails(&race.root);
    let open = race.status()["open"].clone();
    let first = open["players"][0].as_str().unwrap().to_string();
    let letters: String = open["letters"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    race.deliver("2026-03-02T11:05:00Z", &first, &format!("answer {letters}a"));
    let deadline = race.status()["deadline"].as_str().unwrap().to_string();
    // A challenge is optional: nobody is reminded of it, however close its window's end.
    let before = race.tick(&plus(&deadline, -60));
    assert!(before.iter().all(|m| !m.subject.contains("reminder")), "{before:#?}");
    let mails = race.tick(&plus(&deadline, 30));
    let report = mails
        .iter()
        .find(|m| m.to == "gm@example.org" && m.subject.starts_with("race: results of"))
        .unwrap_or_else(|| panic!("no report: {mails:#?}"));
    assert!(report.body.contains("The window closed at its deadline."), "{}", report.body);
    assert!(!report.body.contains("defaults"), "{}", report.body);
    assert!(report.body.contains(" closed."), "the game says what closed: {}", report.body);
    assert!(report.subject.starts_with("race: results of faceoff 1: "), "{}", report.subject);
    assert_ne!(race.status()["step"], "faceoff 1", "the game went on to the next step");
}

/// Issue 22.2: the master's ruling is awaited like any seat's input. With
/// `challenges=master`, a challenged answer waits for the game master: a plain
/// `adjudicate` does not force it (exit 4, naming the game master), `status` says so,
/// and the tick reminds the master (nobody else).
#[test]
fn the_masters_ruling_is_awaited_reminded_and_not_forced_without_force() {
    let players = "ann, ann@example.org\nbob, bob@example.org\ncat, cat@example.org\n";
    let extra = ["--seed", SEED, "--master", "gm@example.org", "--option", "challenges=master"];
    let (_tmp, root, passwords) = small_game_by_mail(START, "race", "duple", players, &extra);
    let dir = root.join("games/race");
    let dir = dir.to_str().unwrap();
    let status = judge_cli(START, &root, &["status", dir, "--json"]).ok().json();
    let open = &status["open"];
    let names: Vec<String> = open["players"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().into()).collect();
    let letters: String = open["letters"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(
        mail_in("2026-03-02T11:05:00Z", &root, "race", &passwords, 1, &names[0], &format!("answer {letters}a")).code,
        0
    );
    assert_eq!(mail_in("2026-03-02T11:30:00Z", &root, "race", &passwords, 2, &names[1], "challenge").code, 0);

    let text = judge_cli("2026-03-02T11:31:00Z", &root, &["status", dir]).ok().stdout;
    assert!(text.contains("Waiting for the game master: the game master's ruling on"), "{text}");
    let forced = judge_cli("2026-03-02T11:32:00Z", &root, &["adjudicate", dir]);
    assert_eq!(forced.code, 4, "{}{}", forced.stdout, forced.stderr);
    assert!(forced.stderr.contains("from the game master"), "{}", forced.stderr);

    let mut outbox = Outbox::default();
    outbox.new_mails(&root);
    judge_cli("2026-03-02T11:35:00Z", &root, &["mail", "tick"]).ok();
    let reminders: Vec<Eml> = outbox.new_mails(&root).into_iter().filter(|m| m.subject.contains("reminder")).collect();
    assert_eq!(reminders.len(), 1, "{reminders:#?}");
    assert_eq!(reminders[0].to, "gm@example.org");
    assert!(
        reminders[0].body.contains("race is waiting for the game master: the game master's ruling on"),
        "{}",
        reminders[0].body
    );
    assert_eq!(reminders[0].subject, "race: reminder, the game master's input is due");
}
