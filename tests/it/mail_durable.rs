//! Mail that is never lost (issues 14 and 17): a message killed half-way is carried out
//! once and answered after its redelivery; every mail the judge sends is owed until a
//! mail server takes it (a real SMTP server on loopback that refuses for a while).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::{self, message, Outbox};
use shadowjudge::game::journal::Entry;

const PLAYERS: &str = "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n";
const T0: &str = "2025-03-01T12:00:00Z";

/// A judge directory driven through the built binary.
struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Judge {
    fn new(transport: &str) -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), format!("[mail]\naddress = \"judge@example.org\"\n{transport}"))
            .unwrap();
        std::fs::write(root.join("players.txt"), PLAYERS).unwrap();
        let j = Judge { _tmp: tmp, root };
        j.ok(&["new", "g1", "--judge", ".", "--players", "players.txt", "--master", "gm@example.org"]);
        j
    }

    fn run(&self, args: &[&str], stdin: Option<&[u8]>) -> Run {
        let home = self.root.to_str().unwrap();
        shadowjudge_at(T0, Some(&self.root), args, stdin, &[("SHADOWJUDGE_HOME", home)])
    }

    fn ok(&self, args: &[&str]) -> String {
        self.run(args, None).ok().stdout
    }

    /// `mail password g1 WHO`: the password it printed.
    fn password(&self, who: &str) -> String {
        self.ok(&["mail", "password", "g1", who]).lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    }

    /// The binary, spawned on `args` with `stdin`, not waited for.
    fn spawn(&self, args: &[&str], stdin: &[u8]) -> std::process::Child {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shadowjudge"))
            .args(args)
            .current_dir(&self.root)
            .env("SHADOWJUDGE_HOME", &self.root)
            .env("SHADOWJUDGE_NOW", T0)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin);
        child
    }

    fn game(&self) -> PathBuf {
        self.root.join("games/g1")
    }

    fn owed_files(&self) -> usize {
        match std::fs::read_dir(self.root.join("owed")) {
            Ok(d) => d.filter_map(Result::ok).filter(|e| !e.file_name().to_string_lossy().starts_with('.')).count(),
            Err(_) => 0,
        }
    }
}

/// France's Spring 1901 orders, different for each message `i` (the last line a comment
/// naming it, kept in the journal with the orders).
fn orders(password: &str, i: usize) -> String {
    let moves = ["A par - bur\nA mar - spa\nF bre - mao", "A par H\nA mar - pie\nF bre - eng"];
    format!("SIGNON france@g1 {password}\n{}\n# message {i}\n", moves[i % 2])
}

/// The answers in `root/outbox`: (the Message-ID answered, the body). A file a killed
/// run left half-written does not count (that mail was still owed, and went again).
fn written_answers(root: &Path) -> Vec<(String, String)> {
    let mut answers = Vec::new();
    for entry in std::fs::read_dir(root.join("outbox")).unwrap() {
        let raw = std::fs::read(entry.unwrap().path()).unwrap();
        let Some(m) = mail_parser::MessageParser::default().parse(&raw[..]) else { continue };
        let (Some(id), Some(body)) = (m.in_reply_to().as_text(), m.body_text(0)) else { continue };
        answers.push((id.to_string(), body.into_owned()));
    }
    answers
}

fn submitted_texts(game: &Path) -> Vec<String> {
    judge_dir::journal(game)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Submitted { text, .. } => Some(text),
            _ => None,
        })
        .collect()
}

/// Issue 17.1: 100 deliveries (half by `mail ingest`, half by `mail poll`), each killed
/// (SIGKILL) at a random moment and then delivered again; then one `mail tick`. Every
/// message is applied exactly once and answered.
#[test]
fn issue_17_a_message_killed_at_any_moment_is_applied_once_and_answered() {
    let j = Judge::new("");
    let password = j.password("france");
    let maildir = j.root.join("maildir");
    std::fs::create_dir_all(maildir.join("new")).unwrap();
    // How long one whole ingest takes here: the kills fall anywhere within it.
    let started = Instant::now();
    j.run(
        &["mail", "ingest"],
        Some(message("ann@example.org", "warmup@example.org", &orders(&password, 1000)).as_bytes()),
    )
    .ok();
    let span = started.elapsed().as_micros() as u64 * 12 / 10;
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    let mut finished_before_kill = 0;
    for i in 0..100 {
        let raw = message("ann@example.org", &format!("kill-{i}@example.org"), &orders(&password, i));
        let by_poll = i % 2 == 1;
        let file = maildir.join("new").join(format!("{i:03}.msg"));
        let mut child = if by_poll {
            std::fs::write(&file, &raw).unwrap();
            j.spawn(&["mail", "poll", "--maildir", "maildir"], b"")
        } else {
            j.spawn(&["mail", "ingest"], raw.as_bytes())
        };
        std::thread::sleep(Duration::from_micros(rng.gen_range(0..span)));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.success() {
            finished_before_kill += 1;
        }
        // The redelivery: the MTA's, or the next poll of a message still in new/.
        if by_poll {
            j.ok(&["mail", "poll", "--maildir", "maildir"]);
            assert!(!file.exists(), "message {i} still in new/");
        } else {
            j.run(&["mail", "ingest"], Some(raw.as_bytes())).ok();
        }
    }
    j.ok(&["mail", "tick"]);
    eprintln!("{finished_before_kill} of 100 runs finished before their kill");
    assert!(finished_before_kill < 90, "the kills must fall inside the runs: {finished_before_kill} of 100 finished");

    let texts = submitted_texts(&j.game());
    let answers = written_answers(&j.root);
    for i in 0..100 {
        let mark = format!("# message {i}\n");
        let applied = texts.iter().filter(|t| t.contains(&mark)).count();
        assert_eq!(applied, 1, "message {i} applied {applied} times");
        let id = format!("kill-{i}@example.org");
        let mine: Vec<&String> = answers.iter().filter(|(to, _)| *to == id).map(|(_, body)| body).collect();
        assert!(!mine.is_empty(), "message {i} never answered");
        assert!(mine.iter().all(|b| b.contains("Orders for France")), "{}", mine[0]);
    }
    assert_eq!(j.owed_files(), 0, "nothing left owed");
    let left: Vec<_> = std::fs::read_dir(j.root.join("claims"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".taking"))
        .collect();
    assert!(left.is_empty(), "claims left open: {left:?}");
}

/// A tiny SMTP server on loopback: it refuses every mail with 451 while `refusing`, and
/// always refuses the address `bad` with 550; it keeps what it accepted.
struct Smtp {
    port: u16,
    refusing: Arc<AtomicBool>,
    received: Arc<Mutex<Vec<(String, String)>>>,
}

impl Smtp {
    fn start(bad: &'static str) -> Smtp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let refusing = Arc::new(AtomicBool::new(true));
        let received = Arc::new(Mutex::new(Vec::new()));
        let (r, got) = (refusing.clone(), received.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (r, got) = (r.clone(), got.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &r, &got, bad);
                });
            }
        });
        Smtp { port, refusing, received }
    }

    fn transport(&self) -> String {
        format!("[mail.transport]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"none\"\n", self.port)
    }

    /// The recipients of the mails accepted so far, sorted.
    fn recipients(&self) -> Vec<String> {
        let mut v: Vec<String> = self.received.lock().unwrap().iter().map(|(to, _)| to.clone()).collect();
        v.sort();
        v
    }

    fn bodies_to(&self, to: &str) -> Vec<String> {
        self.received.lock().unwrap().iter().filter(|(t, _)| t == to).map(|(_, b)| b.clone()).collect()
    }
}

fn serve(
    stream: TcpStream,
    refusing: &AtomicBool,
    got: &Mutex<Vec<(String, String)>>,
    bad: &str,
) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 loopback test server\r\n")?;
    let mut to = String::new();
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let upper = line.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            b"250 loopback\r\n"
        } else if upper.starts_with("MAIL FROM") {
            if refusing.load(Ordering::SeqCst) {
                b"451 4.3.0 try again later\r\n"
            } else {
                b"250 ok\r\n"
            }
        } else if upper.starts_with("RCPT TO") {
            to = line[8..].trim().trim_start_matches(':').trim().trim_matches(['<', '>']).to_string();
            if to == bad {
                b"550 5.1.1 no such user here\r\n"
            } else {
                b"250 ok\r\n"
            }
        } else if upper.starts_with("DATA") {
            out.write_all(b"354 go ahead\r\n")?;
            let mut data = String::new();
            loop {
                line.clear();
                if lines.read_line(&mut line)? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" {
                    break;
                }
                data.push_str(&line);
            }
            got.lock().unwrap().push((to.clone(), data));
            b"250 queued\r\n"
        } else if upper.starts_with("QUIT") {
            out.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            b"250 ok\r\n"
        };
        out.write_all(reply)?;
    }
}

/// Issue 14.4: a mail server that refuses everything for a while, then accepts: the reply
/// and the press owed by a message, and a password mail, go out once the server is back,
/// none twice; the address the server refuses for good is marked failing, its master told
/// once, and the other mails are not held back.
#[test]
fn issue_14_owed_mail_waits_for_a_refusing_server_and_a_permanent_refusal_is_told_once() {
    let smtp = Smtp::start("bob@example.org");
    let j = Judge::new(&smtp.transport());
    let france = j.password("france");
    // Refused (451) for now: the password mail is owed, not lost.
    let out = j.ok(&["mail", "password", "g1", "germany", "--mail"]);
    assert!(out.contains("could not be mailed to cy@example.org now"), "{out}");
    let body = format!("SIGNON france@g1 {france}\nA par - bur\npress to all\nHello from Paris.\nendpress\n");
    let run = j.run(&["mail", "ingest"], Some(message("ann@example.org", "m1@example.org", &body).as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    j.ok(&["mail", "tick"]);
    assert!(smtp.recipients().is_empty(), "nothing accepted while refusing");
    assert_eq!(j.owed_files(), 2, "the password mail and the message's mails are owed");

    smtp.refusing.store(false, Ordering::SeqCst);
    let out = j.ok(&["mail", "tick"]);
    // The reply to France, the press to Italy (refused for good), Germany and the master's
    // copy, the password mail to Germany, and the master's notice about Italy's address.
    assert_eq!(
        smtp.recipients(),
        ["ann@example.org", "cy@example.org", "cy@example.org", "gm@example.org", "gm@example.org"],
        "{out}"
    );
    let notice = smtp.bodies_to("gm@example.org").join("\n");
    assert!(notice.contains("bob@example.org (the player of Italy)"), "{notice}");
    assert!(notice.contains("550"), "{notice}");
    assert_eq!(j.owed_files(), 0, "nothing owed after the server came back");
    let failing = std::fs::read_to_string(j.root.join("failing.json")).unwrap();
    assert!(failing.contains("bob@example.org"), "{failing}");

    // Nothing goes twice; another refused mail to the failing address tells no one again.
    j.ok(&["mail", "tick"]);
    let body = format!("SIGNON france@g1 {france}\npress to italy\nAnother word.\nendpress\n");
    j.run(&["mail", "ingest"], Some(message("ann@example.org", "m2@example.org", &body).as_bytes())).ok();
    j.ok(&["mail", "tick"]);
    assert_eq!(
        smtp.recipients(),
        [
            "ann@example.org",
            "ann@example.org",
            "cy@example.org",
            "cy@example.org",
            "gm@example.org",
            "gm@example.org",
            "gm@example.org"
        ]
    );
    assert_eq!(j.owed_files(), 0);
}

/// Issue 14.6: a phase whose powers have all sent complete orders is processed by the next
/// tick, before its deadline, unless a power asked to `wait`; the results say so; the
/// master can turn it off.
#[test]
fn issue_14_early_processing_waits_for_wait_and_can_be_turned_off() {
    let j = Judge::new("");
    let pw: Vec<String> = ["france", "italy", "germany", "master"].iter().map(|w| j.password(w)).collect();
    let phase = || shadowjudge::game::session::diplomacy::open_read_only(&j.game()).unwrap().game.state.phase.code();
    let send = |who: &str, n: usize, id: &str, body: &str| {
        let text = format!("SIGNON {who}@g1 {}\n{body}", pw[n]);
        j.run(&["mail", "ingest"], Some(message("p@example.org", id, &text).as_bytes())).ok();
    };
    let mut outbox = Outbox::default();
    send("germany", 2, "g1@x", "A ber h\nA mun h\nF kie h\nwait\nstatus\n");
    send("france", 0, "f1@x", "A par h\nA mar h\nF bre h\n");
    send("italy", 1, "i1@x", "A ven h\nA rom h\nF nap h\n");
    let status = outbox.new_mails(&j.root).into_iter().find(|m| m.in_reply_to.as_deref() == Some("g1@x")).unwrap();
    assert!(status.body.contains("Waiting: this phase is not processed before its deadline"), "{}", status.body);
    assert!(status.body.contains("in, waits"), "{}", status.body);
    // A power without orders is marked so, not "waiting", which reads like `wait`.
    assert!(status.body.contains("  France   no orders "), "{}", status.body);
    let json = j.ok(&["status", j.game().to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let germany = json["powers"].as_array().unwrap().iter().find(|p| p["power"] == "Germany").unwrap();
    assert_eq!(germany["waits"], true, "{json}");
    assert_eq!(germany["waiting"], false, "{json}");

    let out = j.ok(&["mail", "tick"]);
    assert_eq!(phase(), "S1901M", "Germany waits: {out}");
    send("germany", 2, "g2@x", "nowait\n");
    let out = j.ok(&["mail", "tick"]);
    assert_eq!(phase(), "F1901M", "{out}");
    assert!(out.contains("processed early"), "{out}");
    let results: Vec<_> = outbox.new_mails(&j.root).into_iter().filter(|m| m.subject.contains("results of")).collect();
    assert_eq!(results.len(), 4, "three players and the master");
    assert!(results.iter().all(|m| m.body.starts_with("Processed early")), "{}", results[0].body);

    // Off: every order in, and still the phase waits for its deadline.
    send("master", 3, "m1@x", "early off\n");
    send("germany", 2, "g3@x", "A ber h\nA mun h\nF kie h\n");
    send("france", 0, "f3@x", "A par h\nA mar h\nF bre h\n");
    send("italy", 1, "i3@x", "A ven h\nA rom h\nF nap h\n");
    j.ok(&["mail", "tick"]);
    assert_eq!(phase(), "F1901M");
    let toml = std::fs::read_to_string(j.game().join("game.toml")).unwrap();
    assert!(toml.contains("early = false"), "{toml}");
}

/// Issue 23.9: a message of many `wait` and `nowait` lines changes the wait once (the
/// last line wins): one journal entry, the earlier lines answered in one line (issue 42.4).
#[test]
fn a_message_of_many_waits_changes_the_wait_once() {
    let j = Judge::new("");
    let pw = j.password("germany");
    let entries = || judge_dir::journal(&j.game()).len();
    let before = entries();
    let body = format!("SIGNON germany@g1 {pw}\n{}wait\n", "wait\nnowait\n".repeat(500));
    j.run(&["mail", "ingest"], Some(message("p@example.org", "w@x", &body).as_bytes())).ok();
    assert_eq!(entries(), before + 1, "one change of wait, one entry");
    let mut outbox = Outbox::default();
    let reply = outbox.new_mails(&j.root).into_iter().find(|m| m.in_reply_to.as_deref() == Some("w@x")).unwrap();
    assert!(
        reply.body.contains("lines 2-1001: `wait` or `nowait` replaced by line 1002 (only the last one counts)."),
        "{}",
        reply.body
    );
    let json: serde_json::Value =
        serde_json::from_str(&j.ok(&["status", j.game().to_str().unwrap(), "--json"])).unwrap();
    let germany = json["powers"].as_array().unwrap().iter().find(|p| p["power"] == "Germany").unwrap();
    assert_eq!(germany["waits"], true, "{json}");
}

/// Issue 14.5: a password, time zone or address change (and `replace`) is a journal
/// entry shown by `history`, never with a password in clear, kept by a rollback; and
/// game.toml keeps its comments.
#[test]
fn issue_14_player_changes_are_journaled_and_game_toml_keeps_its_comments() {
    let j = Judge::new("");
    let toml_path = j.game().join("game.toml");
    let toml = std::fs::read_to_string(&toml_path).unwrap();
    std::fs::write(&toml_path, format!("# The spring league, table 2.\n{toml}")).unwrap();
    let france = j.password("france");
    let master = j.password("master");
    let body = format!("SIGNON france@g1 {france}\npassword brandnew42\ntimezone Europe/Paris\n");
    j.run(&["mail", "ingest"], Some(message("ann@example.org", "c1@x", &body).as_bytes())).ok();
    let body = format!("SIGNON master@g1 {master}\nreplace italy dan@example.org\nprocess\n");
    j.run(&["mail", "ingest"], Some(message("gm@example.org", "c2@x", &body).as_bytes())).ok();

    let history = j.ok(&["history", "games/g1"]);
    assert!(history.contains("France: password changed from #"), "{history}");
    assert!(history.contains("France: time zone changed from none to Europe/Paris"), "{history}");
    assert!(history.contains("Italy: address changed from bob@example.org to dan@example.org"), "{history}");
    assert!(history.contains("Italy: password changed"), "{history}");
    assert!(!history.contains("brandnew42") && !history.contains("argon2"), "{history}");
    let toml = std::fs::read_to_string(&toml_path).unwrap();
    assert!(toml.starts_with("# The spring league, table 2.\n"), "{toml}");
    assert!(toml.contains("dan@example.org") && toml.contains("Europe/Paris"), "{toml}");

    // The master's `history` by mail shows the same journal, the changes included; a
    // player's shows the phases and results only.
    let mut outbox = Outbox::default();
    outbox.new_mails(&j.root);
    let body = format!("SIGNON master@g1 {master}\nhistory\n");
    j.run(&["mail", "ingest"], Some(message("gm@example.org", "c3@x", &body).as_bytes())).ok();
    let reply = outbox.new_mails(&j.root).into_iter().find(|m| m.in_reply_to.as_deref() == Some("c3@x")).unwrap();
    assert!(reply.body.contains("Italy: address changed from bob@example.org to dan@example.org"), "{}", reply.body);
    assert!(reply.body.contains("France: time zone changed from none to Europe/Paris"), "{}", reply.body);
    let body = "SIGNON france@g1 brandnew42\nhistory\n";
    j.run(&["mail", "ingest"], Some(message("ann@example.org", "c4@x", body).as_bytes())).ok();
    let reply = outbox.new_mails(&j.root).into_iter().find(|m| m.in_reply_to.as_deref() == Some("c4@x")).unwrap();
    assert!(!reply.body.contains("address changed") && !reply.body.contains("brandnew42"), "{}", reply.body);

    // A rollback keeps the changes: they are not part of the position.
    j.ok(&["rollback", "games/g1", "S1901M"]);
    let history = j.ok(&["history", "games/g1"]);
    assert!(history.contains("Italy: address changed from bob@example.org to dan@example.org"), "{history}");
    assert!(std::fs::read_to_string(&toml_path).unwrap().contains("dan@example.org"));
}

/// Issue 14.4: `shadowjudge adjudicate` by hand on a game of a judge directory owes the
/// results by mail, as the tick does; the next tick mails them once.
#[test]
fn issue_14_adjudicate_by_hand_owes_the_results_mail() {
    let j = Judge::new("");
    let out = j.ok(&["adjudicate", "games/g1", "--force"]);
    assert!(out.contains("owed by mail"), "{out}");
    let owed =
        judge_dir::journal(&j.game()).into_iter().any(|e| matches!(e, Entry::Adjudicated { mail_results: true, .. }));
    assert!(owed, "the adjudication says its results are owed");
    j.ok(&["mail", "tick"]);
    j.ok(&["mail", "tick"]);
    let mut outbox = Outbox::default();
    let mut to: Vec<String> = outbox
        .new_mails(&j.root)
        .into_iter()
        .filter(|m| m.subject.contains("results of Spring 1901"))
        .map(|m| m.to)
        .collect();
    to.sort();
    assert_eq!(to, ["ann@example.org", "bob@example.org", "cy@example.org", "gm@example.org"]);
}

/// Issue 17.1: a message whose taker died after claiming it, and which is never delivered
/// again, is carried out and answered by the next `mail tick` from its spooled copy.
#[test]
fn issue_17_the_tick_carries_out_a_message_whose_taker_died() {
    use shadowjudge::mail::ingest::{Intake, StoreIntake};
    let j = Judge::new("");
    let password = j.password("france");
    let raw = message("ann@example.org", "orphan@example.org", &orders(&password, 7));
    {
        let intake = StoreIntake::open(&j.root).unwrap();
        let spooled = Intake::spool(&intake, raw.as_bytes(), chrono::Utc::now()).unwrap();
        let claim = intake.claim("id:orphan@example.org", &spooled).unwrap().expect("a new message");
        // The taker dies here: its lock goes with it, the claim stays incomplete.
        drop(claim);
    }
    let out = j.ok(&["mail", "tick"]);
    assert!(out.contains("1 message an interrupted run had not finished was carried out again"), "{out}");
    assert_eq!(submitted_texts(&j.game()).len(), 1);
    let answers = written_answers(&j.root);
    assert!(answers.iter().any(|(id, body)| id == "orphan@example.org" && body.contains("Orders for France")));
    // Done now: neither the tick nor a late redelivery carries it out again.
    j.ok(&["mail", "tick"]);
    j.run(&["mail", "ingest"], Some(raw.as_bytes())).ok();
    assert_eq!(submitted_texts(&j.game()).len(), 1);
}
