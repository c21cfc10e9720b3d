//! One journaled store under every game (issue 22, and issue 23's items on journals): a
//! message carried out again is answered as the first time and applied once, in every
//! game; a journal cut short, a game.toml whose players were reordered or renamed, and a
//! changed seed are each met as Diplomacy meets them.

use std::path::{Path, PathBuf};

use crate::harness::Run;
use crate::judge_dir::{judge_cli, mail_in, small_game_by_mail, Outbox};
use crate::overdue::{next_turn, THREE};

const NOW: &str = "2026-03-01T12:00:00Z";
const SEED: &str = "0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0dd0";

struct Table {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    passwords: Vec<(String, String)>,
}

impl Table {
    fn new() -> Table {
        let extra = ["--seed", SEED, "--option", "rounds=3"];
        let (tmp, root, passwords) = small_game_by_mail(NOW, "late", "overdue", THREE, &extra);
        Table { _tmp: tmp, root, passwords }
    }

    fn game(&self) -> PathBuf {
        self.root.join("games/late")
    }

    fn cli(&self, args: &[&str]) -> Run {
        judge_cli(NOW, &self.root, args)
    }

    fn status(&self) -> serde_json::Value {
        self.cli(&["status", self.game().to_str().unwrap(), "--json"]).ok().json()
    }

    fn journal_lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.game().join("journal.jsonl")).unwrap().lines().map(str::to_owned).collect()
    }

    /// Forget that every message so far was taken, as a judge killed after carrying out a
    /// message but before completing its claim leaves it.
    fn forget_claims(&self) {
        for e in std::fs::read_dir(self.root.join("claims")).unwrap() {
            let path = e.unwrap().path();
            if !path.to_string_lossy().ends_with(".taking") {
                std::fs::remove_file(path).unwrap();
            }
        }
    }
}

fn reply_body(outbox: &mut Outbox, root: &Path) -> String {
    let mails = outbox.new_mails(root);
    mails.into_iter().find(|m| m.in_reply_to.is_some()).expect("an answer").body
}

/// Issue 23.11 (and 22.1): a small game's turn applied before a crash is answered on
/// redelivery as it was the first time (the turn was taken), and kept once.
#[test]
fn a_small_game_turn_carried_out_again_gets_its_first_answer_and_is_kept_once() {
    let t = Table::new();
    let mut outbox = Outbox::default();
    outbox.new_mails(&t.root);
    let (who, text) = next_turn(&t.status()).unwrap();
    let first = mail_in(NOW, &t.root, "late", &t.passwords, 1, &who, &text);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let first_answer = reply_body(&mut outbox, &t.root);
    let journal = t.journal_lines();
    assert!(first_answer.contains("Turn from"), "{first_answer}");

    t.forget_claims();
    let again = mail_in(NOW, &t.root, "late", &t.passwords, 1, &who, &text);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let second_answer = reply_body(&mut outbox, &t.root);
    assert_eq!(t.journal_lines(), journal, "the turn was kept twice");
    assert!(!second_answer.contains("not your turn"), "{second_answer}");
    let lines = |body: &str| {
        body.lines().filter(|l| l.trim_start().starts_with("line ")).map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(lines(&second_answer), lines(&first_answer), "{second_answer}");
}

/// Issue 23.5: a small game whose journal was cut short behind its state is refused, as
/// a Diplomacy game is (exit 5), and nothing is written.
#[test]
fn a_small_game_refuses_a_journal_cut_short() {
    let t = Table::new();
    for n in 1..=3 {
        let (who, text) = next_turn(&t.status()).unwrap();
        assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, n, &who, &text).code, 0);
    }
    let journal = t.journal_lines();
    assert!(journal.len() >= 4);
    std::fs::write(t.game().join("journal.jsonl"), format!("{}\n", journal[0])).unwrap();
    let state = std::fs::read(t.game().join("state.json")).unwrap();
    let status = t.cli(&["status", t.game().to_str().unwrap()]);
    assert_eq!(status.code, 5, "{}", status.stdout);
    assert!(status.stderr.contains("was cut short"), "{}", status.stderr);
    let (who, text) = ("ann", "pass\n");
    let submit = crate::harness::shadowjudge_at(
        NOW,
        None,
        &["submit", t.game().to_str().unwrap(), "--player", who, "-"],
        Some(text.as_bytes()),
        &[],
    );
    assert_eq!(submit.code, 5, "{}", submit.stdout);
    assert_eq!(std::fs::read(t.game().join("state.json")).unwrap(), state, "state.json was rewritten");
}

/// Issue 23.6: seats are matched by name: two [[players]] blocks swapped in game.toml
/// change nobody's seat; a player renamed there is refused with a clear error.
#[test]
fn players_are_matched_by_name_not_by_their_place_in_game_toml() {
    let t = Table::new();
    let toml_path = t.game().join("game.toml");
    let text = std::fs::read_to_string(&toml_path).unwrap();
    let blocks: Vec<&str> = text.split("[[players]]").collect();
    assert_eq!(blocks.len(), 4, "{text}");
    let swapped = format!("{}[[players]]{}[[players]]{}[[players]]{}", blocks[0], blocks[2], blocks[1], blocks[3]);
    std::fs::write(&toml_path, &swapped).unwrap();
    let before = t.status();
    let (who, turn) = next_turn(&before).unwrap();
    let r = crate::harness::shadowjudge_at(
        NOW,
        None,
        &["submit", t.game().to_str().unwrap(), "--player", &who, "-"],
        Some(turn.as_bytes()),
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let last = t.journal_lines().pop().unwrap();
    assert!(last.contains(&format!("\"player\":\"{who}\"")), "{last}");
    // ann signs on with ann's password, and is answered at ann's address.
    let mut outbox = Outbox::default();
    outbox.new_mails(&t.root);
    assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, 1, "ann", "status\n").code, 0);
    let mails = outbox.new_mails(&t.root);
    let answer = mails.iter().find(|m| m.in_reply_to.is_some()).expect("an answer");
    assert_eq!(answer.to, "ann@example.org");
    assert!(!answer.body.contains("wrong password"), "{}", answer.body);

    std::fs::write(&toml_path, swapped.replace("name = \"cat\"", "name = \"dan\"")).unwrap();
    let status = t.cli(&["status", t.game().to_str().unwrap()]);
    assert_eq!(status.code, 5, "{}", status.stdout);
    assert!(
        status.stderr.contains("the players listed are") && status.stderr.contains("created for ann, bob, cat"),
        "{}",
        status.stderr
    );
}

/// Issue 23.7: a seed file changed while `state.json` is current is noticed at once.
#[test]
fn a_changed_seed_is_refused() {
    let t = Table::new();
    let other = "1".repeat(64);
    std::fs::write(t.game().join("seed.json"), format!("{{\"seed\":\"{other}\"}}")).unwrap();
    let status = t.cli(&["status", t.game().to_str().unwrap()]);
    assert_eq!(status.code, 5, "{}", status.stdout);
    assert!(status.stderr.contains("does not match the commitment"), "{}", status.stderr);
}

/// Issue 23.8: `verify` proves the game, not only its dice: a turn edited in the journal
/// is found, and the entry named.
#[test]
fn verify_replays_the_journal_and_names_an_edited_entry() {
    let t = Table::new();
    let dir = t.game();
    let dir = dir.to_str().unwrap();
    let (who, text) = next_turn(&t.status()).unwrap();
    assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, 1, &who, &text).code, 0);
    t.cli(&["reveal", dir, "--force"]).ok();
    assert!(t.cli(&["verify", dir]).ok().stdout.starts_with("verified "));
    // Edit the turn: the same rolls, another move.
    let mut journal = t.journal_lines();
    let at = journal.iter().position(|l| l.contains("\"type\":\"submitted\"")).unwrap();
    let edited = if text.starts_with("score") { "cash\\n" } else { "score 1\\n" };
    let old = text.replace('\n', "\\n");
    assert!(journal[at].contains(&old), "{}", journal[at]);
    journal[at] = journal[at].replace(&old, edited);
    std::fs::write(dir.to_string() + "/journal.jsonl", journal.join("\n") + "\n").unwrap();
    let verified = t.cli(&["verify", dir]);
    let said = format!("{}{}", verified.stdout, verified.stderr);
    assert_ne!(verified.code, 0, "{said}");
    assert!(said.contains(&format!("journal entry {}", at + 1)), "{said}");
}

/// Issue 42.14: the story is proved as well as the state: an event's text edited in the
/// journal (what the players read happened) fails `verify`, naming the entry.
#[test]
fn verify_names_an_edited_event_text() {
    let t = Table::new();
    let dir = t.game();
    let dir = dir.to_str().unwrap();
    let (who, text) = next_turn(&t.status()).unwrap();
    assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, 1, &who, &text).code, 0);
    t.cli(&["reveal", dir, "--force"]).ok();
    assert!(t.cli(&["verify", dir]).ok().stdout.starts_with("verified "));
    let mut journal = t.journal_lines();
    let at = journal.iter().position(|l| l.contains("\"type\":\"submitted\"")).unwrap();
    assert!(journal[at].contains("\"events\":[\""), "{}", journal[at]);
    journal[at] = journal[at].replacen("\"events\":[\"", "\"events\":[\"Nothing happened. ", 1);
    std::fs::write(dir.to_string() + "/journal.jsonl", journal.join("\n") + "\n").unwrap();
    let verified = t.cli(&["verify", dir]);
    let said = format!("{}{}", verified.stdout, verified.stderr);
    assert_ne!(verified.code, 0, "{said}");
    assert!(said.contains(&format!("journal entry {}", at + 1)) && said.contains("Nothing happened."), "{said}");
}

/// Issue 23.12: a message counts as received when it was first kept in the spool, not
/// when a later run carries it out: a turn spooled at 12:00 whose taker died, carried
/// out by the tick at 13:10, is journaled as received at 12:00.
#[test]
fn a_recovered_message_keeps_the_time_it_was_first_kept() {
    use shadowjudge::mail::ingest::{claim_key, Intake, StoreIntake};
    let t = Table::new();
    let (who, text) = next_turn(&t.status()).unwrap();
    let pw = &t.passwords.iter().find(|(w, _)| *w == who).unwrap().1;
    let raw = crate::judge_dir::message(
        &format!("{who}@example.org"),
        "kept-early@example.org",
        &format!("SIGNON {who}@late {pw}\n{text}"),
    );
    let kept: chrono::DateTime<chrono::Utc> = NOW.parse().unwrap();
    {
        let intake = StoreIntake::open(&t.root).unwrap();
        let spooled = Intake::spool(&intake, raw.as_bytes(), kept).unwrap();
        let key = claim_key(raw.as_bytes(), Some("kept-early@example.org"));
        let claim = intake.claim(&key, &spooled).unwrap().expect("a new message");
        // The taker dies here, before it carried the message out.
        drop(claim);
    }
    let later = "2026-03-01T13:10:00Z";
    let out = judge_cli(later, &t.root, &["mail", "tick"]).ok().stdout;
    assert!(out.contains("carried out again"), "{out}");
    let last = t.journal_lines().into_iter().rev().find(|l| l.contains("\"type\":\"submitted\"")).unwrap();
    assert!(last.contains("\"at\":\"2026-03-01T12:00:00Z\""), "{last}");
    // Its redelivery by the MTA, later still, is the same message: taken once.
    let again = crate::harness::shadowjudge_at(
        "2026-03-01T14:00:00Z",
        Some(&t.root),
        &["mail", "ingest"],
        Some(raw.as_bytes()),
        &[("SHADOWJUDGE_HOME", t.root.to_str().unwrap())],
    );
    assert_eq!(again.code, 0);
    assert_eq!(t.journal_lines().iter().filter(|l| l.contains("\"type\":\"submitted\"")).count(), 1);
}

/// Issue 42.5: the MTA's redelivery of a message whose taker died (no tick between) is
/// carried out at the time the message was first kept, not at the redelivery's.
#[test]
fn a_redelivered_message_keeps_the_time_it_was_first_kept() {
    use shadowjudge::mail::ingest::{claim_key, Intake, StoreIntake};
    let t = Table::new();
    let (who, text) = next_turn(&t.status()).unwrap();
    let pw = &t.passwords.iter().find(|(w, _)| *w == who).unwrap().1;
    let raw = crate::judge_dir::message(
        &format!("{who}@example.org"),
        "redelivered@example.org",
        &format!("SIGNON {who}@late {pw}\n{text}"),
    );
    let kept: chrono::DateTime<chrono::Utc> = NOW.parse().unwrap();
    {
        let intake = StoreIntake::open(&t.root).unwrap();
        let spooled = Intake::spool(&intake, raw.as_bytes(), kept).unwrap();
        let key = claim_key(raw.as_bytes(), Some("redelivered@example.org"));
        drop(intake.claim(&key, &spooled).unwrap().expect("a new message"));
    }
    let again = crate::harness::shadowjudge_at(
        "2026-03-01T14:00:00Z",
        Some(&t.root),
        &["mail", "ingest"],
        Some(raw.as_bytes()),
        &[("SHADOWJUDGE_HOME", t.root.to_str().unwrap())],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let submitted: Vec<String> =
        t.journal_lines().into_iter().filter(|l| l.contains("\"type\":\"submitted\"")).collect();
    assert_eq!(submitted.len(), 1, "{submitted:#?}");
    assert!(submitted[0].contains("\"at\":\"2026-03-01T12:00:00Z\""), "{}", submitted[0]);
}

/// Issue 23.14: a small game journals every change of a seat's particulars, as Diplomacy
/// does: a new password (as a fingerprint, never in clear) and a `replace` show in
/// history, and no rollback undoes them.
#[test]
fn a_small_games_history_shows_password_changes_and_replacements() {
    let t = Table::new();
    let dir = t.game();
    let dir = dir.to_str().unwrap();
    let before = t.journal_lines().len();
    let out = t.cli(&["mail", "password", "late", "bob"]).ok().stdout;
    let password = out.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let master = t.cli(&["mail", "password", "late", "master"]).ok().stdout;
    let master_pw = master.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
    let body = format!("SIGNON master@late {master_pw}\nreplace cat cy@example.org\n");
    let raw = crate::judge_dir::message("gm@example.org", "replace@example.org", &body);
    let r = crate::harness::shadowjudge_at(
        NOW,
        Some(&t.root),
        &["mail", "ingest"],
        Some(raw.as_bytes()),
        &[("SHADOWJUDGE_HOME", t.root.to_str().unwrap())],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let journal = t.journal_lines();
    assert!(journal.len() > before + 2, "{journal:#?}");
    assert!(!journal.iter().any(|l| l.contains(&password)), "a password in clear in the journal");
    let history = t.cli(&["history", dir]).ok().stdout;
    assert!(history.contains("bob: password changed from #"), "{history}");
    assert!(history.contains("cat: address changed from cat@example.org to cy@example.org"), "{history}");
    assert!(!history.contains(&password) && !history.contains(&master_pw), "{history}");
}

/// Issue 41.6: a player who sends `reports turn` is mailed only the reports that leave
/// something for them to do (and the first and the last); the others still get every
/// step's. A game of more than four players starts that way for everyone.
#[test]
fn a_player_chooses_to_be_mailed_only_their_turns() {
    let t = Table::new();
    let mut outbox = Outbox::default();
    outbox.new_mails(&t.root);
    assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, 1, "bob", "reports turn\n").code, 0);
    let reply = reply_body(&mut outbox, &t.root);
    assert!(reply.contains("you are now mailed the reports that leave something for you to do"), "{reply}");
    let reports_to = |mails: &[crate::judge_dir::Eml], who: &str| {
        mails.iter().filter(|m| m.to == format!("{who}@example.org") && m.subject.contains(": results of")).count()
    };
    let (mut bob, mut ann) = (0, 0);
    let mut last_mails = Vec::new();
    for n in 2..10 {
        let Some((who, text)) = next_turn(&t.status()) else { break };
        if who == "bob" && n > 2 {
            // The report before bob's turn reached him.
            assert_eq!(reports_to(&last_mails, "bob"), 1, "{last_mails:#?}");
        }
        assert_eq!(mail_in(NOW, &t.root, "late", &t.passwords, n, &who, &text).code, 0);
        last_mails = outbox.new_mails(&t.root);
        bob += reports_to(&last_mails, "bob");
        ann += reports_to(&last_mails, "ann");
    }
    assert!(ann >= 6, "{ann}");
    assert!(bob >= 1 && bob < ann, "bob {bob}, ann {ann}");
    let toml = std::fs::read_to_string(t.game().join("game.toml")).unwrap();
    assert!(toml.contains("reports = \"turn\""), "{toml}");
}

/// Issue 41.6: in a game of more than four players nobody chose anything yet gets every
/// report: each player is mailed the reports that leave something for them to do (and the
/// first); the master gets them all.
#[test]
fn a_large_small_game_mails_each_player_their_turns_only() {
    let five = "ann, ann@example.org\nbob, bob@example.org\ncat, cat@example.org\ndan, dan@example.org\neve, eve@example.org\n";
    let extra = ["--seed", SEED, "--option", "rounds=2"];
    let (_tmp, root, passwords) = small_game_by_mail(NOW, "big", "overdue", five, &extra);
    let dir = root.join("games/big");
    let status = || judge_cli(NOW, &root, &["status", dir.to_str().unwrap(), "--json"]).ok().json();
    let mut outbox = Outbox::default();
    outbox.new_mails(&root);
    let mut got = std::collections::BTreeMap::<String, usize>::new();
    for n in 1..8 {
        let Some((who, text)) = next_turn(&status()) else { break };
        assert_eq!(mail_in(NOW, &root, "big", &passwords, n, &who, &text).code, 0);
        let next = next_turn(&status()).map(|(w, _)| w);
        let mails = outbox.new_mails(&root);
        // The first report (the game begins) goes to everyone.
        for m in mails.iter().filter(|m| m.subject.contains(": results of") && !m.body.contains("The game begins.")) {
            let to = m.to.split('@').next().unwrap().to_string();
            // A player is mailed a step's report only when the next turn is theirs.
            if next.is_some() && to != "gm" {
                assert_eq!(next.as_deref(), Some(to.as_str()), "{n}: {to} got {}", m.subject);
            }
            *got.entry(to).or_default() += 1;
        }
    }
    let players: usize = ["ann", "bob", "cat", "dan", "eve"].iter().map(|p| got.get(*p).copied().unwrap_or(0)).sum();
    assert!((5..=8).contains(&players), "{got:?}");
}
