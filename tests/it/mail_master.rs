//! A judge by mail as its master and players meet it (issue 28, issue 23 item 15): the
//! tick's count of its mails, `replace`, deadlines in minutes, quoted earlier messages,
//! and the judge's own files and clock.

use std::ops::{Deref, DerefMut};

use crate::judge_dir::{self, message, Eml, MailJudge};

const PLAYERS: &str = "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n";

/// A judge directory with one standard game `g` of three players and a master.
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
    fn new(now: &str, judge_toml: &str) -> Judge {
        let mut judge = MailJudge::new(judge_toml, PLAYERS);
        judge.new_game(now, "g", &[]);
        for who in ["france", "italy", "germany", "master"] {
            judge.password(now, "g", who);
        }
        judge.mails();
        Judge(judge)
    }

    /// `who` (a power or `master`) mails `body` at `now`: the reply to it, and every
    /// other mail the judge wrote.
    fn send(&mut self, now: &str, who: &str, body: &str) -> (Eml, Vec<Eml>) {
        let mails = self.0.send(now, "g", who, body);
        let id = self.last_id();
        let (reply, rest): (Vec<Eml>, Vec<Eml>) =
            mails.into_iter().partition(|m| m.in_reply_to.as_deref() == Some(id.as_str()));
        (reply.into_iter().next().expect("a reply"), rest)
    }
}

const T0: &str = "2026-12-01T12:00:00Z";

#[test]
fn the_tick_counts_every_mail_it_sent_results_too() {
    let mut judge = Judge::new(T0, "");
    // Long past the deadline: the tick adjudicates and mails the results to everyone.
    let out = judge_dir::judge_cli("2026-12-09T12:00:00Z", &judge.root, &["mail", "tick"]).ok();
    let mails = judge.mails();
    assert!(mails.iter().filter(|m| m.subject.contains("results")).count() >= 4, "{mails:?}");
    let summary = format!("{} mails sent, 0 to try again later, 0 refused for good.", mails.len());
    assert!(out.stdout.lines().any(|l| l == summary), "{summary} in:\n{}", out.stdout);
}

#[test]
fn replace_tells_the_player_before_without_the_new_address() {
    let mut judge = Judge::new(T0, "");
    let (reply, mails) = judge.send("2026-12-01T13:00:00Z", "master", "replace italy new@example.org\n");
    assert!(reply.body.contains("Italy is now played by new@example.org"), "{}", reply.body);
    assert!(reply.body.contains("The player before has been told."), "{}", reply.body);
    let new: Vec<&Eml> = mails.iter().filter(|m| m.to == "new@example.org").collect();
    assert_eq!(new.len(), 1);
    assert!(new[0].body.contains("SIGNON italy@g "));
    let old: Vec<&Eml> = mails.iter().filter(|m| m.to == "bob@example.org").collect();
    assert_eq!(old.len(), 1, "{mails:?}");
    assert_eq!(old[0].subject, "g: you no longer play Italy");
    assert!(old[0].body.contains("given the seat of Italy to another player"), "{}", old[0].body);
    assert!(!old[0].body.contains("new@example.org") && !old[0].subject.contains("new@"));
    // Given back to the same address: no farewell.
    let (_, mails) = judge.send("2026-12-01T13:10:00Z", "master", "replace italy NEW@example.org\n");
    assert!(mails.iter().all(|m| m.to != "bob@example.org"));
    assert_eq!(mails.iter().filter(|m| m.subject.contains("no longer")).count(), 0, "{mails:?}");
}

#[test]
fn a_clock_before_1970_writes_mail_dated_1970_never_panics() {
    let now = "1969-07-20T20:17:40Z";
    let mut judge = Judge::new(now, "");
    let (reply, _) = judge.send(now, "france", "A par - bur\n");
    assert!(reply.body.contains("A par - bur"), "{}", reply.body);
    let dates: Vec<String> = std::fs::read_dir(judge.root.join("outbox"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .filter_map(|raw| raw.lines().find(|l| l.starts_with("Date: ")).map(str::to_string))
        .collect();
    assert!(!dates.is_empty());
    assert!(dates.iter().all(|d| d == "Date: Thu, 01 Jan 1970 00:00:00 +0000"), "{dates:?}");
    let out = judge_dir::judge_cli("1969-07-25T20:17:40Z", &judge.root, &["mail", "tick"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_garbage_state_json_says_it_can_be_deleted_and_is_rebuilt() {
    let judge = Judge::new(T0, "");
    let game = judge.root.join("games/g");
    std::fs::write(game.join("state.json"), "garbage\n").unwrap();
    let run = crate::harness::shadowjudge_at(T0, None, &["status", game.to_str().unwrap()], None, &[]);
    assert_eq!(run.code, 5);
    assert!(
        run.stderr.ends_with(
            "state.json:1:1: expected value. state.json is only a copy of the state the journal leads to: \
             delete it and the judge rebuilds it from journal.jsonl\n"
        ),
        "{}",
        run.stderr
    );
    // As it says: deleted, the game opens and the next change writes it again.
    std::fs::remove_file(game.join("state.json")).unwrap();
    crate::harness::shadowjudge_at(T0, None, &["status", game.to_str().unwrap()], None, &[]).ok();
    let orders = b"A par - bur\n";
    crate::harness::shadowjudge_at(
        T0,
        None,
        &["submit", game.to_str().unwrap(), "--power", "france", "-"],
        Some(&orders[..]),
        &[],
    )
    .ok();
    assert!(std::fs::read_to_string(game.join("state.json")).unwrap().contains("seq_applied"));
}

#[test]
fn a_message_too_large_is_logged_with_its_true_size() {
    let judge = Judge::new(T0, "max_message_bytes = 2048\n");
    let raw = message("ann@example.org", "big@example.org", &format!("SIGNON france@g x\n{}\n", "x".repeat(9000)));
    let home = [("SHADOWJUDGE_HOME", judge.root.to_str().unwrap())];
    let run = crate::harness::shadowjudge_at(T0, Some(&judge.root), &["mail", "ingest"], Some(raw.as_bytes()), &home);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("refused: too large ({} bytes)", raw.len())),
        "{} for {}",
        run.stderr,
        raw.len()
    );
}

#[test]
fn a_reply_with_a_signature_then_the_earlier_message_says_it_skipped_both() {
    let mut judge = Judge::new(T0, "");
    let body =
        "A par - bur\n\n-- \nAnn Smith\nParis\n\nOn Mon, 30 Nov 2026 at 10:00, Judge <judge@example.org> wrote:\n\
                Spring 1901 movement: your orders are due.\nF bre - mao\n";
    let (reply, _) = judge.send("2026-12-01T13:00:00Z", "france", body);
    // The earlier message starts on line 8 of the message (after the SIGNON line).
    assert!(
        reply.body.contains(
            "Not read: the earlier message quoted from line 8 on; 2 lines after your orders (a signature or closing)."
        ),
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("F bre - mao"), "{}", reply.body);
}

/// The deadline and phase of the judge's game `g`.
fn deadline_and_phase(judge: &Judge) -> (String, String) {
    let g = shadowjudge::game::session::diplomacy::open_read_only(&judge.root.join("games/g")).unwrap();
    (g.game.state.deadline.map(|d| d.to_rfc3339()).unwrap_or_default(), g.game.state.phase.code())
}

fn tick(judge: &Judge, now: &str) {
    judge_dir::judge_cli(now, &judge.root, &["mail", "tick"]).ok();
}

/// Issue 28, item 13: a phase length in minutes in judge.toml makes the game's deadline
/// that many minutes on, and the tick processes it then; game.toml keeps the minutes and
/// writes whole hours as before.
#[test]
fn a_schedule_in_minutes_is_due_that_many_minutes_on() {
    let judge = Judge::new(
        T0,
        "[deadlines]\nremind_hours_before = 0\n[deadlines.schedule]\nkind = \"interval\"\nmovement_hours = \"90m\"\n",
    );
    assert_eq!(deadline_and_phase(&judge), ("2026-12-01T13:30:00+00:00".into(), "S1901M".into()));
    let toml = std::fs::read_to_string(judge.root.join("games/g/game.toml")).unwrap();
    assert!(toml.contains("movement_hours = \"1h30m\"\n") && toml.contains("retreat_hours = 24\n"), "{toml}");
    tick(&judge, "2026-12-01T13:29:00Z");
    assert_eq!(deadline_and_phase(&judge).1, "S1901M");
    tick(&judge, "2026-12-01T13:30:00Z");
    assert_ne!(deadline_and_phase(&judge).1, "S1901M", "processed at its deadline");
}

/// Issue 28, item 13: a reminder lead, a grace period and a late extension in minutes.
#[test]
fn reminders_grace_and_late_extensions_take_minutes() {
    let mut judge =
        Judge::new(T0, "[deadlines]\noutage_factor = 100\nremind_hours_before = \"90m\"\ngrace_hours = \"1h30m\"\n");
    // Due 2026-12-03 12:00: the reminder from 10:30, the processing from 13:30.
    tick(&judge, "2026-12-03T10:29:00Z");
    assert!(judge.mails().iter().all(|m| !m.subject.contains("reminder")));
    tick(&judge, "2026-12-03T10:30:00Z");
    assert!(judge.mails().iter().any(|m| m.subject.contains("reminder")));
    tick(&judge, "2026-12-03T13:29:00Z");
    assert_eq!(deadline_and_phase(&judge).1, "S1901M", "still within the grace");
    tick(&judge, "2026-12-03T13:30:00Z");
    assert_ne!(deadline_and_phase(&judge).1, "S1901M");

    let judge =
        Judge::new(T0, "[deadlines]\nremind_hours_before = 0\noutage_factor = 100\nlate_extension_hours = \"90m\"\n");
    tick(&judge, "2026-12-03T12:00:00Z");
    assert_eq!(deadline_and_phase(&judge), ("2026-12-03T13:30:00+00:00".into(), "S1901M".into()));
}

/// Issue 28, item 13: the master's `extend` by mail takes minutes, hours and days.
#[test]
fn the_masters_extend_takes_minutes() {
    let mut judge = Judge::new(T0, "");
    let (reply, _) = judge.send("2026-12-01T13:00:00Z", "master", "extend 90m\n");
    assert!(
        reply.body.contains("Deadline extended by 1 hour 30 minutes to Thu 2026-12-03 13:30 UTC."),
        "{}",
        reply.body
    );
    assert_eq!(deadline_and_phase(&judge).0, "2026-12-03T13:30:00+00:00");
    let (reply, _) = judge.send("2026-12-01T13:01:00Z", "master", "extend 1d 12h\n");
    assert!(reply.body.contains("Deadline extended by 1 day 12 hours"), "{}", reply.body);
    assert_eq!(deadline_and_phase(&judge).0, "2026-12-05T01:30:00+00:00");
    let (reply, _) = judge.send("2026-12-01T13:02:00Z", "master", "extend 90x\n");
    assert!(reply.body.contains("`90x`: a duration is a number with m, h or d"), "{}", reply.body);
    assert_eq!(deadline_and_phase(&judge).0, "2026-12-05T01:30:00+00:00", "a bad extension moves nothing");
}

/// Issue 28, item 13: a bad length says the file, the key and the form, in judge.toml
/// (nothing is created) and in game.toml (the game is not read); a year is the most.
#[test]
fn a_bad_length_names_the_file_and_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("players.txt"), PLAYERS).unwrap();
    for (setting, says) in [
        (
            "[deadlines.schedule]\nkind = \"interval\"\nmovement_hours = \"90x\"\n",
            "movement_hours: `90x`: a duration is a number with m, h or d",
        ),
        ("[deadlines]\ngrace_hours = \"367d\"\n", "`grace_hours` = 367d is more than a year (366d)"),
    ] {
        std::fs::write(root.join("judge.toml"), format!("[mail]\naddress = \"judge@example.org\"\n{setting}")).unwrap();
        let run = judge_dir::judge_cli(T0, root, &["new", "g", "--judge", ".", "--players", "players.txt"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("judge.toml") && run.stderr.contains(says), "{}", run.stderr);
        assert!(!root.join("games/g").exists());
    }
    let judge = Judge::new(T0, "");
    let path = judge.root.join("games/g/game.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("retreat_hours = 24", "retreat_hours = \"1d12x\"")).unwrap();
    let run = judge_dir::judge_cli(T0, &judge.root, &["status", "games/g"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    assert!(run.stderr.contains("game.toml"), "{}", run.stderr);
    assert!(run.stderr.contains("retreat_hours: `1d12x`: a duration is a number with m, h or d"), "{}", run.stderr);
}

/// Issue 28, item 13: a game.toml as older judges wrote it (whole hours as numbers) opens
/// and is written back with its deadlines unchanged.
#[test]
fn an_old_game_toml_opens_and_keeps_its_deadlines() {
    const OLD: &str = "[deadlines]\ngrace_hours = 2\nremind_hours_before = 12\ntick_minutes = 15\nearly = true\n\
                       outage_factor = 8\nlate_extension_hours = 0\nlate_extensions = 1\nabandon_after = 0\n\
                       absence_days = 14\nabsences_at_once = 2\n\n[deadlines.schedule]\nkind = \"interval\"\n\
                       movement_hours = 72\nretreat_hours = 24\nadjustment_hours = 24\n";
    let judge = Judge::new(T0, "");
    let path = judge.root.join("games/g/game.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("[deadlines]").unwrap();
    let end = text[start..].find("\n[[").map_or(text.len(), |e| start + e + 1);
    std::fs::write(&path, format!("{}{OLD}\n{}", &text[..start], &text[end..])).unwrap();
    judge_dir::judge_cli(T0, &judge.root, &["status", "games/g"]).ok();
    // `mail password` writes game.toml again.
    judge_dir::judge_cli(T0, &judge.root, &["mail", "password", "g", "italy"]).ok();
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains(OLD), "{written}");
}
