//! Mail as real clients and servers send it (issue 15): the client corpus in
//! tests/data/mail/clients against the fake host of `mail`, the outgoing message's MIME
//! headers, spool retention, concurrent polls, and the whole path end to end through the
//! binary with a loopback SMTP server receiving the judge's mail.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{Duration, TimeZone, Utc};

use crate::mail::{now, reply, run, settings, FakeHost};
use shadowjudge::mail::ingest::{Disposition, MemoryIntake, StoreIntake};
use shadowjudge::mail::reply::{MailKind, OutgoingMail};
use shadowjudge::mail::send::to_message;
use shadowjudge::mail::{ingest, poll_maildir};

fn client(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail/clients").join(format!("{name}.eml"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const NEW_ORDERS: &str = "submit France: A par - bur | A mar H | F bre - mao";

// ---------------------------------------------------------------------------------------
// Item 1: the earlier message below a reply header is never read

#[test]
fn replies_of_every_client_apply_only_the_new_orders() {
    for name in [
        "outlook_reply",
        "outlook_reply_no_separator",
        "outlook_reply_french",
        "outlook_reply_html",
        "gmail_reply_wrapped_attribution",
        "gmail_forward",
        "apple_mail_forward",
        "exchange_original_message",
        "thunderbird_french_attribution",
        "thunderbird_german_attribution",
        "apple_iphone_reply",
    ] {
        let mut host = FakeHost::new();
        let outcome = run(&client(name), &mut host);
        assert_eq!(outcome.disposition, Disposition::Applied { games: vec!["mygame".into()] }, "{name}");
        assert_eq!(host.changes(), vec![NEW_ORDERS], "{name}: only the new orders, once");
        let body = &reply(&outcome).body;
        assert!(body.contains("Not read: "), "{name}: the reply says what was skipped:\n{body}");
        assert!(body.contains("quoted"), "{name}: the reply says quoted text was skipped:\n{body}");
        assert!(!body.contains("Problems"), "{name}: nothing of the old message is a problem:\n{body}");
        assert_eq!(body.matches("signed on as France").count(), 1, "{name}: one sign-on:\n{body}");
    }
}

#[test]
fn the_reply_names_the_line_where_the_earlier_message_starts() {
    let mut host = FakeHost::new();
    let outcome = run(&client("outlook_reply"), &mut host);
    // Lines 1-4 are the new text, 5 is blank, 6 is Outlook's line of underscores.
    assert!(
        reply(&outcome).body.contains("Not read: the earlier message quoted from line 6 on."),
        "{}",
        reply(&outcome).body
    );
}

// ---------------------------------------------------------------------------------------
// Item 2: invisible characters

#[test]
fn invisible_characters_neither_hide_a_signon_nor_spoil_an_order() {
    for name in ["bom_before_signon", "zero_width_in_orders", "nbsp_html"] {
        let mut host = FakeHost::new();
        let outcome = run(&client(name), &mut host);
        assert_eq!(outcome.disposition, Disposition::Applied { games: vec!["mygame".into()] }, "{name}");
        let body = &reply(&outcome).body;
        assert!(!body.contains("No SIGNON"), "{name}:\n{body}");
        assert!(!body.contains("Problems"), "{name}:\n{body}");
        let change = host.changes()[0].clone();
        assert!(change.is_ascii(), "{name}: invisible characters reached the game: {change:?}");
        assert!(change.starts_with("submit France: A par - bur | A mar H"), "{name}: {change}");
    }
}

// ---------------------------------------------------------------------------------------
// Item 3: auto-generated mail is never answered

#[test]
fn automatic_mail_of_every_kind_gets_no_answer_and_changes_nothing() {
    for name in [
        "delivery_report",
        "read_receipt",
        "x_autoreply",
        "x_autorespond",
        "auto_submitted_auto_generated",
        "auto_submitted_auto_notified",
        "precedence_auto_reply",
        "precedence_junk",
        "precedence_bulk",
        "precedence_list",
    ] {
        let mut host = FakeHost::new();
        let outcome = run(&client(name), &mut host);
        assert!(matches!(outcome.disposition, Disposition::Silent(_)), "{name}: {:?}", outcome.disposition);
        assert!(outcome.mails.is_empty(), "{name}: answered");
        assert!(host.changes().is_empty(), "{name}: changed the game");
    }
    // `Auto-Submitted: no` is a person's mail.
    let mut host = FakeHost::new();
    let outcome = run(&client("auto_submitted_no"), &mut host);
    assert!(matches!(outcome.disposition, Disposition::Applied { .. }));
    assert_eq!(host.changes(), vec![NEW_ORDERS]);
}

// ---------------------------------------------------------------------------------------
// Item 5: passwords are never echoed

#[test]
fn no_password_is_echoed_in_a_subject_or_a_body() {
    for name in ["signon_in_subject", "misspelled_signon_line"] {
        let mut host = FakeHost::new();
        let outcome = run(&client(name), &mut host);
        assert!(matches!(outcome.disposition, Disposition::Applied { .. }), "{name}");
        assert!(!outcome.mails.is_empty());
        for mail in &outcome.mails {
            assert!(!mail.subject.contains("france-secret"), "{name}: subject {:?}", mail.subject);
            assert!(!mail.body.contains("france-secret"), "{name}: body\n{}", mail.body);
        }
    }
    let mut host = FakeHost::new();
    let outcome = run(&client("signon_in_subject"), &mut host);
    assert_eq!(reply(&outcome).subject, "Re: SIGNON france@mygame ********");
    // The mistyped sign-on line is named by its first word only.
    let outcome = run(&client("misspelled_signon_line"), &mut FakeHost::new());
    assert!(reply(&outcome).body.contains("`signin` is not SIGNON"), "{}", reply(&outcome).body);
}

/// Issue 42.6: a subject may hold a password the body never gave; the judge cannot tell
/// it from any other word, so a reply echoes the subject only when the message gave its
/// secrets in the body (and they are hidden).
#[test]
fn a_subject_is_not_echoed_when_the_body_gave_no_password() {
    for subject in ["my password is hunter22", "hunter22", "SIGNON", "list games"] {
        let raw =
            format!("From: ann@example.org\nTo: judge@example.org\nSubject: {subject}\nMessage-ID: <s1@x>\n\nlist\n");
        let outcome = run(raw.as_bytes(), &mut FakeHost::new());
        let r = reply(&outcome);
        assert_eq!(r.subject, "Re: your message", "{subject}");
        assert!(!r.body.contains("hunter22"), "{}", r.body);
    }
    // A body that signs on: its password hidden wherever the subject has it.
    let raw = "From: ann@example.org\nTo: judge@example.org\nSubject: my password is france-secret, orders\n\
               Message-ID: <s2@x>\n\nSIGNON france@mygame france-secret\nA par h\n";
    let outcome = run(raw.as_bytes(), &mut FakeHost::new());
    assert_eq!(reply(&outcome).subject, "Re: my password ******** ********, orders");
}

#[test]
fn the_spool_keeps_messages_only_for_its_days() {
    let tmp = tempfile::tempdir().unwrap();
    let intake = StoreIntake::open(tmp.path()).unwrap();
    let day = |d: u32| Utc.with_ymd_and_hms(2025, 3, d, 12, 0, 0).unwrap();
    for d in [1, 5, 10] {
        shadowjudge::mail::ingest::Intake::spool(&intake, b"SIGNON france@g secret\n", day(d)).unwrap();
    }
    assert_eq!(intake.prune(day(10) - Duration::days(7)).unwrap(), 1);
    assert_eq!(intake.spool().list().unwrap().len(), 2);
    assert_eq!(intake.prune(day(20)).unwrap(), 2);
    assert!(intake.spool().list().unwrap().is_empty());
    assert_eq!(intake.prune(day(20)).unwrap(), 0);
}

// ---------------------------------------------------------------------------------------
// Item 6: MIME headers of judge mail

#[test]
fn judge_mail_declares_mime_version_with_its_content_type() {
    let mail = OutgoingMail {
        to: "ann@example.org".into(),
        subject: "Re: orders".into(),
        body: "Très bien: A par - bur\n".into(),
        in_reply_to: Some("x@example.org".into()),
        references: vec!["x@example.org".into()],
        kind: MailKind::Reply,
        attachments: Vec::new(),
    };
    let raw = String::from_utf8(to_message(&settings(), &mail, now()).unwrap().formatted()).unwrap();
    let headers = &raw[..raw.find("\r\n\r\n").unwrap()];
    assert_eq!(headers.matches("MIME-Version: 1.0").count(), 1, "{headers}");
    assert!(headers.contains("Content-Type: text/plain; charset=utf-8"), "{headers}");
    assert!(headers.contains("Content-Transfer-Encoding: "), "{headers}");
    let parsed = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
    assert_eq!(parsed.body_text(0).unwrap().trim_end(), "Très bien: A par - bur");
}

// ---------------------------------------------------------------------------------------
// Item 7: closings, signatures and format=flowed

#[test]
fn closings_and_signatures_are_one_line_not_problems() {
    for (name, lines) in [("closing_iphone", 1), ("closing_thanks_name", 2), ("closing_disclaimer", 6)] {
        let mut host = FakeHost::new();
        let outcome = run(&client(name), &mut host);
        assert_eq!(host.changes(), vec![NEW_ORDERS], "{name}");
        let body = &reply(&outcome).body;
        assert!(!body.contains("Problems"), "{name}:\n{body}");
        let note = format!("Not read: {lines} line{} after your orders", if lines == 1 { "" } else { "s" });
        assert!(body.contains(&note), "{name}: wants `{note}`:\n{body}");
    }
}

#[test]
fn a_closing_followed_by_an_order_is_read_and_press_keeps_its_closing() {
    let mut host = FakeHost::new();
    let outcome = run(&client("closing_then_order"), &mut host);
    assert_eq!(host.changes(), vec!["submit France: A par - bur | Thanks, | A mar - spa"]);
    assert!(reply(&outcome).body.contains("`Thanks,`"), "{}", reply(&outcome).body);

    let mut host = FakeHost::new();
    let outcome = run(&client("closing_inside_press"), &mut host);
    assert_eq!(host.changes(), vec!["press France -> Powers([\"italy\"]): Hello Italy.\nCheers,\nAnn"]);
    assert!(!reply(&outcome).body.contains("Not read"), "{}", reply(&outcome).body);
}

#[test]
fn flowed_text_is_unflowed_before_it_is_read() {
    let mut host = FakeHost::new();
    run(&client("thunderbird_flowed_press"), &mut host);
    assert_eq!(
        host.changes(),
        vec![
            "submit France: A par - bur",
            "press France -> Powers([\"italy\"]): Dear Italy, I propose that we keep the Alps quiet this year and \
             look elsewhere for our centers.\n\nA second paragraph.",
        ]
    );
    let mut host = FakeHost::new();
    run(&client("thunderbird_flowed_delsp"), &mut host);
    assert_eq!(host.changes(), vec!["submit France: A par - bur | A mar H"]);
}

// ---------------------------------------------------------------------------------------
// Item 4: concurrent polls of one Maildir

#[test]
fn two_concurrent_polls_answer_every_message_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("new")).unwrap();
    for i in 0..40 {
        let raw = format!(
            "From: ann@example.org\nTo: judge@example.org\nSubject: o\nMessage-ID: <poll-{i}@x>\n\n\
             SIGNON france@mygame france-secret\nA par - bur\n"
        );
        std::fs::write(dir.path().join(format!("new/{i:03}.host")), raw).unwrap();
    }
    let intake = Arc::new(MemoryIntake::default());
    let replies = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        for _ in 0..2 {
            let (intake, replies, dir) = (intake.clone(), replies.clone(), dir.path());
            scope.spawn(move || {
                let mut host = FakeHost::new();
                let polled = poll_maildir(dir, &mut host, &*intake, &settings(), now()).unwrap();
                for p in polled {
                    let ids: Vec<String> = p.outcome.mails.iter().filter_map(|m| m.in_reply_to.clone()).collect();
                    replies.lock().unwrap().extend(ids);
                }
            });
        }
    });
    let mut replies = replies.lock().unwrap().clone();
    replies.sort();
    let expected: Vec<String> = {
        let mut v: Vec<String> = (0..40).map(|i| format!("poll-{i}@x")).collect();
        v.sort();
        v
    };
    assert_eq!(replies, expected, "every message answered exactly once");
    assert_eq!(std::fs::read_dir(dir.path().join("new")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(dir.path().join("cur")).unwrap().count(), 40);
}

// ---------------------------------------------------------------------------------------
// Item 8: a game the judge cannot write is retried, and says no server path

#[test]
fn honest_dispositions_for_a_sign_on_that_changes_nothing() {
    let raw = b"From: ann@example.org\nTo: judge@example.org\nSubject: o\nMessage-ID: <st@x>\n\n\
                SIGNON france@mygame france-secret\nstatus\n";
    let mut host = FakeHost::new();
    let outcome = ingest(raw, &mut host, &MemoryIntake::default(), &settings(), now());
    assert_eq!(outcome.disposition, Disposition::SignedOn { games: vec!["mygame".into()] });
    assert_eq!(outcome.disposition.to_string(), "signed on to mygame; nothing changed");
}

// ---------------------------------------------------------------------------------------
// End to end: the binary, real games, and a loopback SMTP server

/// A tiny SMTP receiver on loopback: accepts every message, keeps its DATA.
struct SmtpSink {
    port: u16,
    received: Arc<Mutex<Vec<String>>>,
}

impl SmtpSink {
    fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let store = store.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, &store);
                });
            }
        });
        SmtpSink { port, received }
    }

    fn messages(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, store: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    out.write_all(b"220 sink ESMTP\r\n")?;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" | "HELO" => out.write_all(b"250-sink\r\n250 8BITMIME\r\n")?,
            "DATA" => {
                out.write_all(b"354 go ahead\r\n")?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if reader.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    data.push_str(line.strip_prefix('.').filter(|_| line.starts_with("..")).unwrap_or(&line));
                }
                store.lock().unwrap().push(data);
                out.write_all(b"250 ok\r\n")?;
            }
            "QUIT" => {
                out.write_all(b"221 bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"250 ok\r\n")?,
        }
    }
}

struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

const NOW: &str = "2025-03-01T10:00:00Z";

impl Judge {
    fn new(port: u16) -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("judge.toml"),
            format!(
                "[mail]\naddress = \"judge@example.org\"\n\n[mail.transport]\nkind = \"smtp\"\n\
                 host = \"127.0.0.1\"\nport = {port}\nsecurity = \"none\"\n"
            ),
        )
        .unwrap();
        std::fs::write(
            root.join("players.txt"),
            "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n",
        )
        .unwrap();
        let judge = Judge { _tmp: tmp, root };
        judge
            .run(
                &[
                    "new",
                    "mygame",
                    "--judge",
                    ".",
                    "--variant",
                    "standard",
                    "--players",
                    "players.txt",
                    "--master",
                    "gm@example.org",
                ],
                None,
            )
            .ok();
        judge
    }

    fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> crate::harness::Run {
        let home = self.root.to_str().unwrap();
        crate::harness::shadowjudge_at(NOW, Some(&self.root), args, stdin, &[("SHADOWJUDGE_HOME", home)])
    }

    fn password(&self) -> String {
        let out = self.run(&["mail", "password", "mygame", "france"], None).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    }
}

/// The client corpus message, with France's real password, a fresh Message-ID and the
/// old orders of the earlier message made distinct.
fn with_password(name: &str, password: &str, id: &str) -> Vec<u8> {
    let text = String::from_utf8(client(name)).unwrap();
    text.replace("france-secret", password)
        .replacen(&format!("<{}@example.org>", message_id_of(&text)), &format!("<{id}@example.org>"), 1)
        .into_bytes()
}

fn message_id_of(text: &str) -> String {
    let line = text.lines().find(|l| l.starts_with("Message-ID: <")).unwrap();
    line["Message-ID: <".len()..line.find('@').unwrap()].to_string()
}

#[test]
fn end_to_end_through_smtp_replies_auto_mail_and_concurrent_polls() {
    let sink = SmtpSink::start();
    let judge = Judge::new(sink.port);
    let password = judge.password();

    // Item 1: an Outlook reply applies only the new orders; the answer says what was skipped.
    let out = judge.run(&["mail", "ingest"], Some(&with_password("outlook_reply", &password, "e2e-outlook")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("applied to mygame; 1 mail sent"), "{}", out.stderr);
    let mails = sink.messages();
    assert_eq!(mails.len(), 1);
    assert!(mails[0].contains("MIME-Version: 1.0"), "{}", mails[0]);
    assert!(mails[0].contains("Not read: the earlier message quoted from line 6 on."), "{}", mails[0]);
    assert!(!mails[0].contains(&password), "the password is echoed:\n{}", mails[0]);

    // Item 3: automatic mail is answered by nothing.
    for (i, name) in
        ["delivery_report", "x_autoreply", "precedence_auto_reply", "auto_submitted_auto_generated"].iter().enumerate()
    {
        let out = judge.run(&["mail", "ingest"], Some(&with_password(name, &password, &format!("e2e-auto-{i}"))));
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert!(out.stderr.contains("not answered"), "{name}: {}", out.stderr);
    }
    assert_eq!(sink.messages().len(), 1, "automatic mail was answered");

    // Item 4: two polls of one Maildir at once answer every message once.
    let maildir = judge.root.join("Maildir");
    std::fs::create_dir_all(maildir.join("new")).unwrap();
    for i in 0..12 {
        let raw = format!(
            "From: ann@example.org\r\nTo: judge@example.org\r\nSubject: o\r\nMessage-ID: <e2e-poll-{i}@x>\r\n\r\n\
             SIGNON france@mygame {password}\r\nA par - bur\r\n"
        );
        std::fs::write(maildir.join(format!("new/{i:03}.host")), raw).unwrap();
    }
    let md = maildir.to_str().unwrap().to_string();
    let polls: Vec<_> = (0..2)
        .map(|_| {
            let (root, md) = (judge.root.clone(), md.clone());
            std::thread::spawn(move || {
                let home = root.to_str().unwrap().to_string();
                crate::harness::shadowjudge_at(
                    NOW,
                    Some(&root),
                    &["mail", "poll", "--maildir", &md],
                    None,
                    &[("SHADOWJUDGE_HOME", &home)],
                )
            })
        })
        .collect();
    for p in polls {
        let out = p.join().unwrap();
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let answered: Vec<String> = sink.messages()[1..]
        .iter()
        .filter_map(|m| m.lines().find(|l| l.starts_with("In-Reply-To:")).map(str::to_string))
        .collect();
    let mut answered_sorted = answered.clone();
    answered_sorted.sort();
    answered_sorted.dedup();
    assert_eq!(answered.len(), 12, "every poll message answered: {answered:?}");
    assert_eq!(answered_sorted.len(), 12, "none answered twice: {answered:?}");
    assert_eq!(std::fs::read_dir(maildir.join("new")).unwrap().count(), 0);
}

#[test]
fn a_game_the_judge_cannot_write_is_retried_later_without_server_paths() {
    let sink = SmtpSink::start();
    let judge = Judge::new(sink.port);
    let password = judge.password();
    // The game's lock cannot be opened (as when root created the game): a directory in
    // its place fails even for root.
    let lock = judge.root.join("games/mygame/.lock");
    let _ = std::fs::remove_file(&lock);
    std::fs::create_dir_all(&lock).unwrap();
    let raw = with_password("closing_iphone", &password, "e2e-locked");
    let out = judge.run(&["mail", "ingest"], Some(&raw));
    assert_eq!(out.code, 75, "the MTA keeps the message and retries: {}", out.stderr);
    assert!(
        sink.messages().iter().all(|m| !m.contains("In-Reply-To:")),
        "nothing is answered before the retry: {:?}",
        sink.messages()
    );
    let log = std::fs::read_to_string(judge.root.join("judge.log")).unwrap();
    assert!(log.contains("to be delivered again"), "{log}");

    // Fixed, the same message is delivered again: now applied and answered, with no path.
    std::fs::remove_dir(&lock).unwrap();
    let out = judge.run(&["mail", "ingest"], Some(&raw));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("applied to mygame"), "{}", out.stderr);
    let mails = sink.messages();
    let answer = mails.iter().find(|m| m.contains("In-Reply-To: <e2e-locked@example.org>")).expect("answered");
    assert!(!answer.contains(judge.root.to_str().unwrap()), "{answer}");
    assert!(answer.contains("Not read: 1 line after your orders"), "{answer}");
}

// ---------------------------------------------------------------------------------------
// Item 2 beyond mail: order files and turn files read from disk

#[test]
fn an_order_file_with_invisible_characters_checks_clean() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("orders.txt");
    std::fs::write(&file, "\u{feff}Board B\nFrance:\nA p\u{200b}ar - b\u{00ad}ur\nF bre\u{00a0}-\u{200d} mao\n")
        .unwrap();
    let out = crate::harness::shadowjudge_at("", None, &["orders", "check", file.to_str().unwrap()], None, &[]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "[B] France: A par - bur\n[B] France: F bre - mao\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn mail_tick_removes_spooled_mail_older_than_keep_spool_days() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\nkeep_spool_days = 3\n").unwrap();
    let intake = StoreIntake::open(root).unwrap();
    // The tick runs at NOW, 1 March 2025 10:00: 20 February is past three days, 27 February not.
    let day = |d: u32| Utc.with_ymd_and_hms(2025, 2, d, 9, 0, 0).unwrap();
    let old = shadowjudge::mail::ingest::Intake::spool(&intake, b"SIGNON france@g secret\n", day(20)).unwrap();
    let recent = shadowjudge::mail::ingest::Intake::spool(&intake, b"SIGNON france@g secret\n", day(27)).unwrap();
    let home = root.to_str().unwrap();
    let out =
        crate::harness::shadowjudge_at(NOW, Some(root), &["mail", "tick"], None, &[("SHADOWJUDGE_HOME", home)]).ok();
    assert!(out.stdout.contains("spool: 1 message older than 3 days removed"), "{}", out.stdout);
    assert!(!root.join("spool").join(&old).exists());
    assert!(root.join("spool").join(&recent).exists());
}
