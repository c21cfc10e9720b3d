//! What the tests of a judge directory share: reading the mails the `files` transport
//! wrote to `outbox/`, a game's journal, and an incoming message.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use mail_parser::{MessageParser, MimeHeaders};

use shadowjudge::game::journal::Entry;
use shadowjudge::store::GameDir;

/// One mail the judge wrote.
#[derive(Debug, Clone)]
pub struct Eml {
    pub to: String,
    pub subject: String,
    pub in_reply_to: Option<String>,
    pub body: String,
    /// The names of the attached files.
    pub attachments: Vec<String>,
}

/// A judge's `outbox/`, read a little at a time.
#[derive(Default)]
pub struct Outbox {
    seen: HashSet<PathBuf>,
}

impl Outbox {
    /// The mails written to `root/outbox` since the last call, in file-name order.
    pub fn new_mails(&mut self, root: &Path) -> Vec<Eml> {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(root.join("outbox")) {
            Ok(d) => d.map(|e| e.unwrap().path()).filter(|p| !self.seen.contains(p)).collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        let mut mails = Vec::new();
        for f in files {
            let raw = std::fs::read(&f).unwrap();
            let m = MessageParser::default().parse(&raw[..]).unwrap();
            mails.push(Eml {
                to: m.to().and_then(|a| a.first()).and_then(|a| a.address()).unwrap_or("").to_string(),
                subject: m.subject().unwrap_or("").to_string(),
                in_reply_to: m.in_reply_to().as_text().map(str::to_string),
                body: m.body_text(0).unwrap_or_default().into_owned(),
                attachments: m.attachments().map(|a| a.attachment_name().unwrap_or("").to_string()).collect(),
            });
            self.seen.insert(f);
        }
        mails
    }
}

/// Every entry of a game's journal.
pub fn journal(game_dir: &Path) -> Vec<Entry> {
    GameDir::open_for_reading(game_dir)
        .unwrap()
        .journal::<Entry>()
        .unwrap()
        .into_records()
        .into_iter()
        .map(|r| r.entry)
        .collect()
}

/// A message to the judge, as an MTA hands it over.
pub fn message(from: &str, id: &str, body: &str) -> String {
    format!("From: {from}\r\nTo: judge@example.org\r\nSubject: orders\r\nMessage-ID: <{id}>\r\n\r\n{body}")
}

/// A small game made by mail's judge: a judge directory (`judge.toml`, `players.txt`),
/// the game `new NAME --judge . --game KIND --players players.txt EXTRA...` made in it at
/// `now`, and each player's password from `mail password`. Returns the directory, its
/// root and the passwords by player name.
pub fn small_game_by_mail(
    now: &str,
    name: &str,
    kind: &str,
    players: &str,
    extra: &[&str],
) -> (tempfile::TempDir, PathBuf, Vec<(String, String)>) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("judge");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
    std::fs::write(root.join("players.txt"), players).unwrap();
    let base = ["new", name, "--judge", ".", "--game", kind, "--players", "players.txt"];
    judge_cli(now, &root, &[&base[..], extra].concat()).ok();
    let mut passwords = Vec::new();
    for who in players.lines().filter_map(|l| l.split(',').next()).map(str::trim).filter(|w| !w.is_empty()) {
        let out = judge_cli(now, &root, &["mail", "password", name, who]).ok();
        let pw = out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
        passwords.push((who.to_string(), pw));
    }
    (tmp, root, passwords)
}

/// Run the judge in a judge directory (`SHADOWJUDGE_HOME` set to it) at `now`.
/// A judge directory (`TMP/judge`) whose judge.toml names boss@example.org among the
/// `masters` who may create games by mail.
pub fn judge_with_a_master() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("judge");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("judge.toml"),
        "masters = [\"boss@example.org\"]\n[mail]\naddress = \"judge@example.org\"\n",
    )
    .unwrap();
    (tmp, root)
}

pub fn judge_cli(now: &str, root: &Path, args: &[&str]) -> crate::harness::Run {
    crate::harness::shadowjudge_at(now, Some(root), args, None, &[("SHADOWJUDGE_HOME", root.to_str().unwrap())])
}

/// `who` signs on to `game` with their password from `passwords` and mails `body`, as
/// message number `n`; `mail ingest` takes it at `now`.
pub fn mail_in(
    now: &str,
    root: &Path,
    game: &str,
    passwords: &[(String, String)],
    n: usize,
    who: &str,
    body: &str,
) -> crate::harness::Run {
    let pw = &passwords.iter().find(|(w, _)| w == who).unwrap().1;
    let raw = message(
        &format!("{who}@example.org"),
        &format!("m{n}@example.org"),
        &format!("SIGNON {who}@{game} {pw}\n{body}"),
    );
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    crate::harness::shadowjudge_at(now, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home)
}

/// The three players of the Diplomacy games by mail (France's in Paris time).
pub const PLAYERS: &str =
    "france, Ann, ann@example.org, Europe/Paris\nitaly, Bob, bob@example.org\ngermany, Cy, cy@example.org\n";

/// The address each power of [`PLAYERS`] mails from; anyone else is the master's.
pub fn address(who: &str) -> &'static str {
    match who {
        "france" => "ann@example.org",
        "italy" => "bob@example.org",
        "germany" => "cy@example.org",
        _ => "gm@example.org",
    }
}

/// A judge directory played by mail through the built binary at fixed instants: its
/// `judge.toml`, its `players.txt`, the mails the `files` transport wrote, and the
/// passwords handed out. What the tests of a Diplomacy game by mail share.
pub struct MailJudge {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    outbox: Outbox,
    passwords: Vec<(String, String)>,
    /// Messages sent with [`MailJudge::send`]; the last one's id is `m{n}@example.org`.
    pub n: usize,
}

impl MailJudge {
    /// A judge directory whose judge.toml is the judge's address followed by `judge_toml`.
    pub fn new(judge_toml: &str, players: &str) -> MailJudge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), format!("[mail]\naddress = \"judge@example.org\"\n{judge_toml}"))
            .unwrap();
        std::fs::write(root.join("players.txt"), players).unwrap();
        MailJudge { _tmp: tmp, root, outbox: Outbox::default(), passwords: Vec::new(), n: 0 }
    }

    /// `new NAME --judge . --players players.txt --master gm@example.org EXTRA...` at `now`.
    pub fn new_game(&self, now: &str, name: &str, extra: &[&str]) {
        let base = ["new", name, "--judge", ".", "--players", "players.txt", "--master", "gm@example.org"];
        self.ok(now, &[&base[..], extra].concat());
    }

    /// `mail password GAME WHO`: the password it printed, kept for [`MailJudge::send`].
    pub fn password(&mut self, now: &str, game: &str, who: &str) -> String {
        let out = self.ok(now, &["mail", "password", game, who]);
        let pw = out.lines().next().unwrap().rsplit(' ').next().unwrap().to_string();
        self.passwords.push((who.to_string(), pw.clone()));
        pw
    }

    /// The judge at `now`, in its directory (`SHADOWJUDGE_HOME` set to it).
    pub fn run(&self, now: &str, args: &[&str], stdin: Option<&[u8]>) -> crate::harness::Run {
        let home = self.root.to_str().unwrap();
        crate::harness::shadowjudge_at(now, Some(&self.root), args, stdin, &[("SHADOWJUDGE_HOME", home)])
    }

    /// As [`MailJudge::run`], which must succeed: its standard output.
    pub fn ok(&self, now: &str, args: &[&str]) -> String {
        let out = self.run(now, args, None);
        assert_eq!(out.code, 0, "{args:?} failed: {}", out.stderr);
        out.stdout
    }

    /// Ingest one message like an MTA pipe; its exit code.
    pub fn deliver(&self, now: &str, raw: &str) -> i32 {
        self.run(now, &["mail", "ingest"], Some(raw.as_bytes())).code
    }

    /// `who` (a power or `master`, with the password last given) mails `body` to `game`
    /// at `now`, from [`address`]; every mail the judge wrote since the last look.
    pub fn send(&mut self, now: &str, game: &str, who: &str, body: &str) -> Vec<Eml> {
        self.n += 1;
        let pw = &self.passwords.iter().rev().find(|(w, _)| w == who).unwrap().1;
        let raw = message(address(who), &self.last_id(), &format!("SIGNON {who}@{game} {pw}\n{body}"));
        let out = self.run(now, &["mail", "ingest"], Some(raw.as_bytes()));
        assert_eq!(out.code, 0, "{}", out.stderr);
        self.mails()
    }

    /// The id of the last message [`MailJudge::send`] sent.
    pub fn last_id(&self) -> String {
        format!("m{}@example.org", self.n)
    }

    /// The mails written since the last look.
    pub fn mails(&mut self) -> Vec<Eml> {
        self.outbox.new_mails(&self.root)
    }

    pub fn game_dir(&self, game: &str) -> PathBuf {
        self.root.join("games").join(game)
    }

    pub fn journal(&self, game: &str) -> Vec<Entry> {
        journal(&self.game_dir(game))
    }
}

/// The line that confirms a request to observe, from the confirmation mailed to `to`.
pub fn confirmation(mails: &[Eml], to: &str) -> String {
    let mail = mails
        .iter()
        .find(|m| m.to.eq_ignore_ascii_case(to) && m.subject.ends_with("confirm that you observe"))
        .unwrap_or_else(|| panic!("no confirmation mailed to {to}: {mails:#?}"));
    let line = mail.body.lines().map(str::trim).find(|l| l.starts_with("observe ") && l.contains(" confirm "));
    format!("{}\n", line.unwrap_or_else(|| panic!("no confirmation line: {}", mail.body)))
}
