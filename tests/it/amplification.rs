//! What one message is answered with. Issue 42.4: what a message holds never multiplies. A mail of 100,000 `wait` lines, or
//! of 120,000 copies of one order, gets a short answer and a small journal entry (the
//! replaced `wait` lines are answered in one line, order lines past the message's limit
//! are counted, not read). Sizes only: speed is measured in the note, not in a test.

use crate::judge_dir::MailJudge;

const PLAYERS: &str = "england, Ann, ann@example.org\nfrance, Bob, bob@example.org\n";

fn one_mail_of(line: &str, copies: usize) -> (String, u64) {
    let mut j = MailJudge::new("max_message_bytes = 4000000\n", PLAYERS);
    j.new_game("2025-03-01T12:00:00Z", "g", &["--variant", "standard"]);
    j.password("2025-03-01T12:00:00Z", "g", "france");
    let path = j.game_dir("g").join("journal.jsonl");
    let journal = || std::fs::metadata(&path).unwrap().len();
    let before = journal();
    let body: String = (0..copies).map(|_| format!("{line}\n")).collect();
    let mails = j.send("2025-03-01T13:00:00Z", "g", "france", &body);
    let reply = mails.iter().find(|m| m.body.contains("SIGNON france@g (line 1)")).expect("the reply");
    (reply.body.clone(), journal() - before)
}

#[test]
fn a_mail_of_many_wait_lines_gets_one_line_for_them() {
    let (reply, grew) = one_mail_of("wait", 100_000);
    assert!(
        reply.contains("lines 2-100000: `wait` or `nowait` replaced by line 100001 (only the last one counts)."),
        "{reply}"
    );
    assert!(reply.len() < 2_000, "{} bytes", reply.len());
    assert!(grew < 1_000, "the journal grew by {grew} bytes");
}

#[test]
fn a_mail_of_copies_of_one_order_reads_a_bounded_number_of_lines() {
    let (reply, grew) = one_mail_of("A par h", 120_000);
    assert!(reply.contains("lines 302-120001: not read: at most 300 order lines in a message."), "{reply}");
    assert!(reply.len() < 20_000, "{} bytes", reply.len());
    assert!(grew < 10_000, "the journal grew by {grew} bytes");
}

/// Issue 41.8: `status` by mail says the deadline once (the block's closing deadline is
/// left out when a status gave it).
#[test]
fn status_by_mail_says_the_deadline_once() {
    let mut j = MailJudge::new("", PLAYERS);
    j.new_game("2025-03-01T12:00:00Z", "g", &["--variant", "standard"]);
    j.password("2025-03-01T12:00:00Z", "g", "france");
    let mails = j.send("2025-03-01T13:00:00Z", "g", "france", "status\n");
    let reply = mails.iter().find(|m| m.body.contains("SIGNON france@g (line 1)")).expect("the reply");
    assert_eq!(reply.body.matches("Deadline:").count(), 1, "{}", reply.body);
}

/// Issue 41.2: `press to master` reaches the game master, and the master reads a copy of
/// every press message the players send, as on Njudge.
#[test]
fn press_reaches_the_master_and_the_master_reads_a_copy_of_all_press() {
    let players = "england, Ann, ann@example.org\nfrance, Bob, bob@example.org\n";
    let mut j = MailJudge::new("", players);
    j.new_game("2025-03-01T12:00:00Z", "g", &["--variant", "standard"]);
    j.password("2025-03-01T12:00:00Z", "g", "france");
    let mails = j.send("2025-03-01T13:00:00Z", "g", "france", "press to master\nA question.\nendpress\n");
    let to_gm: Vec<_> = mails.iter().filter(|m| m.to == "gm@example.org" && m.body.contains("A question.")).collect();
    assert_eq!(to_gm.len(), 1, "{mails:#?}");
    assert!(to_gm[0].body.contains("to the game master"), "{}", to_gm[0].body);
    let mails = j.send("2025-03-01T13:05:00Z", "g", "france", "press to england\nAn offer.\nendpress\n");
    for who in ["ann@example.org", "gm@example.org"] {
        assert!(mails.iter().any(|m| m.to == who && m.body.contains("An offer.")), "{who}: {mails:#?}");
    }
}
