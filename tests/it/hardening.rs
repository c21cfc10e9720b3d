//! Hardening (issue 17, items 4 to 8): hand-edited and damaged game files give an error
//! naming the file and the key, never a panic; a full disk after the journal write is a
//! warning, mended at the next open; a bad judge.toml keeps the mail with the mail server;
//! game names that mail cannot reach are refused; `resolve` answers a line that is not
//! UTF-8 like any bad line; the map loader's bounds.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::harness::{shadowjudge_at, Run};
use crate::judge_dir::message;

const NOW: &str = "2026-02-01T12:00:00Z";

struct Judge {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Judge {
    fn new() -> Judge {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("judge");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
        std::fs::write(root.join("players.txt"), "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\n")
            .unwrap();
        std::fs::write(root.join("orders.txt"), "A par - bur\nA mar h\nF bre - mao\n").unwrap();
        Judge { _tmp: tmp, root }
    }

    fn with_game(name: &str) -> Judge {
        let judge = Judge::new();
        judge.new_game(name).ok();
        judge
    }

    fn new_game(&self, name: &str) -> Run {
        self.cli(&["new", name, "--judge", ".", "--players", "players.txt", "--master", "gm@example.org"], None)
    }

    fn cli(&self, args: &[&str], stdin: Option<&[u8]>) -> Run {
        self.cli_at(NOW, args, stdin)
    }

    fn cli_at(&self, now: &str, args: &[&str], stdin: Option<&[u8]>) -> Run {
        shadowjudge_at(now, Some(&self.root), args, stdin, &[("SHADOWJUDGE_HOME", self.root.to_str().unwrap())])
    }

    fn game(&self, name: &str) -> PathBuf {
        self.root.join("games").join(name)
    }

    fn submit_france(&self, name: &str) -> Run {
        let dir = self.game(name);
        self.cli(&["submit", dir.to_str().unwrap(), "--power", "france", "orders.txt"], None)
    }

    fn status(&self, name: &str) -> Run {
        let dir = self.game(name);
        self.cli(&["status", dir.to_str().unwrap()], None)
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write_json(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// A damaged game is refused with exit 5, naming the file and the key.
fn assert_refused(run: &Run, file: &str, key: &str) {
    assert_eq!(run.code, 5, "stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(file), "the error names {file}: {}", run.stderr);
    assert!(run.stderr.contains(key), "the error names {key}: {}", run.stderr);
}

#[test]
fn hand_edited_state_files_are_errors_naming_file_and_key() {
    type Edit = fn(&mut Value);
    let cases: &[(&str, Edit, &str)] = &[
        ("region", |s| s["state"]["boards"][0]["units"][0]["region"] = 65000.into(), "boards[0].units[0].region"),
        ("power", |s| s["state"]["boards"][0]["units"][2]["power"] = 200.into(), "boards[0].units[2].power"),
        ("no boards", |s| s["state"]["boards"] = Value::Array(Vec::new()), "boards: 0 boards"),
        (
            "short ownership",
            |s| {
                s["state"]["boards"][0]["ownership"].as_array_mut().unwrap().truncate(10);
            },
            "boards[0].ownership: 10 entries",
        ),
        ("owner", |s| s["state"]["boards"][0]["ownership"][0] = 77.into(), "boards[0].ownership[0]"),
        ("eliminated", |s| s["state"]["eliminated"] = serde_json::json!([250]), "eliminated[0]"),
        ("year", |s| s["state"]["phase"]["year"] = 65535.into(), "year 65535"),
    ];
    for (what, edit, key) in cases {
        let judge = Judge::with_game("g1");
        let path = judge.game("g1").join("state.json");
        let mut state = read_json(&path);
        edit(&mut state);
        // Edited with its check still in place, the file is not trusted at all (issue 42.14);
        // without one (as a file written before checks were kept), every value is checked.
        write_json(&path, &state);
        assert_refused(&judge.status("g1"), "state.json", "changed by hand");
        state.as_object_mut().unwrap().remove("check");
        write_json(&path, &state);
        assert_refused(&judge.status("g1"), "state.json", key);
        // Writers refuse it too, and leave the files as they were.
        let before = std::fs::read(&path).unwrap();
        let run = judge.submit_france("g1");
        assert_refused(&run, "state.json", key);
        assert_eq!(std::fs::read(&path).unwrap(), before, "{what}: state.json untouched");
    }
}

/// Issue 42.14: a consistent hand edit of state.json (a unit moved to another real
/// province, the file valid in every way) is not trusted until the next replay: it is
/// refused at once, and the game is whole again once the copy is deleted.
#[test]
fn a_consistent_hand_edit_of_the_state_is_not_trusted() {
    let judge = Judge::with_game("g1");
    let path = judge.game("g1").join("state.json");
    let before = judge.status("g1").stdout;
    let mut state = read_json(&path);
    let region = state["state"]["boards"][0]["units"][0]["region"].as_u64().unwrap();
    state["state"]["boards"][0]["units"][0]["region"] = (region + 1).into();
    write_json(&path, &state);
    assert_refused(&judge.status("g1"), "state.json", "changed by hand");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(judge.status("g1").stdout, before);
}

#[test]
fn a_journal_entry_with_region_65000_is_an_error_naming_the_journal() {
    let judge = Judge::with_game("g1");
    let dir = judge.game("g1");
    let journal = dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let units = find_key(&mut line, "units").expect("the created state has units");
    units[0]["region"] = 65000.into();
    std::fs::write(&journal, format!("{}\n", serde_json::to_string(&line).unwrap())).unwrap();
    std::fs::remove_file(dir.join("state.json")).unwrap();
    assert_refused(&judge.status("g1"), "journal.jsonl", "region 65000");
}

fn find_key<'v>(v: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    if v.get(key).is_some() {
        return v.get_mut(key);
    }
    match v {
        Value::Object(map) => map.values_mut().find_map(|x| find_key(x, key)),
        Value::Array(items) => items.iter_mut().find_map(|x| find_key(x, key)),
        _ => None,
    }
}

#[test]
fn an_empty_or_shortened_journal_is_an_error_and_never_overwrites_the_state() {
    for cut in ["empty", "shortened"] {
        let judge = Judge::with_game("g1");
        judge.submit_france("g1").ok();
        let dir = judge.game("g1");
        let journal = dir.join("journal.jsonl");
        let text = std::fs::read_to_string(&journal).unwrap();
        assert_eq!(text.lines().count(), 2);
        let kept = if cut == "empty" { String::new() } else { format!("{}\n", text.lines().next().unwrap()) };
        std::fs::write(&journal, kept).unwrap();
        let state = std::fs::read(dir.join("state.json")).unwrap();
        let run = judge.submit_france("g1");
        assert_eq!(run.code, 5, "{cut}: {}", run.stderr);
        assert!(run.stderr.contains("journal.jsonl"), "{cut}: {}", run.stderr);
        let status = judge.status("g1");
        assert_eq!(status.code, 5, "{cut}: {}", status.stderr);
        assert_eq!(std::fs::read(dir.join("state.json")).unwrap(), state, "{cut}: state.json is the last copy");
    }
    let judge = Judge::with_game("g1");
    judge.submit_france("g1").ok();
    let journal = judge.game("g1").join("journal.jsonl");
    let first = std::fs::read_to_string(&journal).unwrap().lines().next().unwrap().to_string();
    std::fs::write(&journal, format!("{first}\n")).unwrap();
    assert!(judge.status("g1").stderr.contains("cut short"));
}

#[test]
fn huge_deadline_numbers_in_game_toml_are_errors_naming_the_key() {
    for key in ["movement_hours", "grace_hours", "remind_hours_before"] {
        let judge = Judge::with_game("g1");
        let path = judge.game("g1").join("game.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let edited = if key == "movement_hours" {
            text.replace("movement_hours = 48", "movement_hours = 4294967295")
        } else {
            text.replace("[deadlines]\n", &format!("[deadlines]\n{key} = 4294967295\n"))
                .replace(&format!("{key} = 24\n"), "")
                .replace(&format!("{key} = 0\n"), "")
        };
        assert_ne!(edited, text, "{key}: the edit applies to:\n{text}");
        std::fs::write(&path, edited).unwrap();
        assert_refused(&judge.status("g1"), "game.toml", key);
        // The mail tick goes on without it, and says so.
        let tick = judge.cli(&["mail", "tick"], None);
        assert_eq!(tick.code, 1, "{key}: {}", tick.stderr);
        assert!(tick.stderr.contains(key), "{key}: {}", tick.stderr);
    }
}

#[test]
fn a_game_toml_switched_to_another_map_is_refused() {
    let judge = Judge::with_game("g1");
    let dir = judge.game("g1");
    // Another map: the standard one with one province more, so its ids differ.
    let standard =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/standard/map.toml")).unwrap();
    std::fs::write(
        dir.join("other.toml"),
        standard.replacen(
            "[provinces.",
            "[provinces.aaa]\nname = \"Aaa\"\nterrain = \"land\"\narmy = []\n\n[provinces.",
            1,
        ),
    )
    .unwrap();
    let path = dir.join("game.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("map = \"standard\"", "map = \"other.toml\"");
    assert_ne!(edited, text, "{text}");
    std::fs::write(&path, edited).unwrap();
    let run = judge.status("g1");
    assert!(run.code != 0, "{}", run.stdout);
    assert!(run.stderr.contains("map.json") || run.stderr.contains("other.toml"), "{}", run.stderr);
}

#[test]
fn one_bad_game_does_not_stop_the_tick_for_the_others() {
    let judge = Judge::with_game("g1");
    judge.new_game("g2").ok();
    let path = judge.game("g1").join("state.json");
    let mut state = read_json(&path);
    state["state"]["boards"][0]["units"][0]["region"] = 65000.into();
    write_json(&path, &state);
    // Three days on: g2's deadline has passed, so the tick processes it.
    let tick = judge.cli_at("2026-02-04T12:00:00Z", &["mail", "tick"], None);
    assert_eq!(tick.code, 1, "{}\n{}", tick.stdout, tick.stderr);
    assert!(tick.stdout.contains("g1: not read"), "{}", tick.stdout);
    let g2 = judge.status("g2").ok();
    assert!(g2.stdout.contains("1901 retreats") || g2.stdout.contains("Fall 1901"), "g2 moved on: {}", g2.stdout);
}

#[test]
fn a_bad_judge_toml_keeps_the_mail_with_the_mail_server() {
    for bad in [
        "[mail]\naddress = \"judge@example.org\"\n[deadlines]\ngrace_hours = 4294967295\n",
        "[mail]\naddress = \"judge@example.org\"\n[deadlines.schedule]\nkind = \"interval\"\nmovement_hours = 4294967295\n",
        "not toml at all [[[",
    ] {
        let judge = Judge::with_game("g1");
        std::fs::write(judge.root.join("judge.toml"), bad).unwrap();
        let raw = message("ann@example.org", "x1@example.org", "SIGNON france@g1 whatever\nA par - bur\n");
        let run = judge.cli(&["mail", "ingest"], Some(raw.as_bytes()));
        assert_eq!(run.code, 75, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("judge.toml"), "{}", run.stderr);
        let log = std::fs::read_to_string(judge.root.join("judge.log")).unwrap();
        assert!(log.contains("judge.toml"), "{log}");
    }
}

#[test]
fn new_refuses_game_names_mail_cannot_reach() {
    let judge = Judge::new();
    for name in ["../x", ".hidden", "two words", "a/b", "é"] {
        let run = judge.new_game(name);
        assert_eq!(run.code, 2, "`{name}`: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("cannot be a game's name"), "`{name}`: {}", run.stderr);
    }
    assert!(!judge.root.join("x").exists() && !judge.root.join("games/.hidden").exists());
    judge.new_game("good-name_1.2").ok();
}

#[test]
fn ingest_stops_reading_past_the_size_limit() {
    let judge = Judge::with_game("g1");
    std::fs::write(
        judge.root.join("judge.toml"),
        "[mail]\naddress = \"judge@example.org\"\nmax_message_bytes = 2048\n",
    )
    .unwrap();
    let mut raw = message("ann@example.org", "big@example.org", "SIGNON france@g1 whatever\n").into_bytes();
    raw.extend(std::iter::repeat_n(b'x', 8 << 20));
    let run = judge.cli(&["mail", "ingest"], Some(&raw));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("refused: too large"), "{}", run.stderr);
    // Nothing of it was kept: only what was read could have been.
    let spooled: u64 = std::fs::read_dir(judge.root.join("spool"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.metadata().map(|m| m.len()).unwrap_or(0)).sum())
        .unwrap_or(0);
    assert!(spooled <= 2049, "{spooled} bytes spooled");
}

/// The simulated full disk: no atomic write succeeds in a directory holding `disk-full`.
fn full_disk(target: &Path) -> std::io::Result<()> {
    match target.parent() {
        Some(dir) if dir.join("disk-full").exists() => {
            Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "No space left on device (simulated)"))
        }
        _ => Ok(()),
    }
}

#[test]
fn a_full_disk_after_the_journal_write_is_a_warning_and_mended_at_the_next_open() {
    use shadowjudge::game::session::diplomacy as session;
    use shadowjudge::store::fault;
    fault::set_write_check(full_disk);
    let judge = Judge::with_game("g1");
    let dir = judge.game("g1");
    let state = dir.join("state.json");
    let before = std::fs::read(&state).unwrap();
    std::fs::write(dir.join("disk-full"), "").unwrap();
    let mut g = session::open(&dir).unwrap();
    let france = g.game.map.lookup_power("france").unwrap();
    let now: chrono::DateTime<chrono::Utc> = NOW.parse().unwrap();
    let ack = g.submit(france, "A par - bur\nA mar h\nF bre - mao\n", false, now).expect("the orders stand");
    assert_eq!(ack.accepted.len(), 3);
    assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
    assert!(
        g.warnings[0].contains("No space left") && g.warnings[0].contains("The change itself is made"),
        "{:?}",
        g.warnings
    );
    assert_eq!(std::fs::read(&state).unwrap(), before, "state.json could not be written");
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 2, "the submission is journaled");
    // Read while the disk is still full: the position comes from the journal.
    let read = session::open_read_only(&dir).unwrap();
    assert!(read.game.state.submitted.contains(&france));
    // Space again: the next open rebuilds the cache from the journal.
    std::fs::remove_file(dir.join("disk-full")).unwrap();
    let g = session::open(&dir).unwrap();
    assert!(g.notes.iter().any(|n| n.contains("rebuilt")), "{:?}", g.notes);
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
    let cached = read_json(&state);
    assert_eq!(cached["seq_applied"], 2);
    assert!(g.game.state.submitted.contains(&france));
    assert_eq!(serde_json::to_value(&g.game.state).unwrap(), cached["state"]);
}

#[test]
fn a_full_disk_after_a_turn_is_journaled_is_a_warning_for_small_games_too() {
    use shadowjudge::game::session::turn::{self as turn_session, Seat};
    use shadowjudge::store::fault;
    fault::set_write_check(full_disk);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("duel");
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "ann, ann@example.org\nbob, bob@example.org\n").unwrap();
    let seed = "5eed".repeat(16);
    let args = ["new", dir.to_str().unwrap(), "--game", "duplexity", "--players", players.to_str().unwrap()];
    shadowjudge_at(NOW, None, &[&args[..], &["--seed", &seed]].concat(), None, &[]).ok();
    let status = shadowjudge_at(NOW, None, &["status", dir.to_str().unwrap(), "--json"], None, &[]).ok().json();
    let first = status["awaiting"][0].as_str().unwrap().to_string();
    std::fs::write(dir.join("disk-full"), "").unwrap();
    let mut g = turn_session::open(&dir).unwrap();
    let seat = Seat::Player(g.player_index(&first).unwrap());
    let now: chrono::DateTime<chrono::Utc> = NOW.parse().unwrap();
    let sub = g.submit(seat, "place P1\n", now, now).expect("the turn stands");
    assert!(sub.seq.is_some(), "{:?}", sub.ack);
    assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
    assert!(g.warnings[0].contains("The change itself is made"), "{:?}", g.warnings);
    // The cache is behind; the next open replays the journal and sees the placed pawn.
    std::fs::remove_file(dir.join("disk-full")).unwrap();
    let after = shadowjudge_at(NOW, None, &["status", dir.to_str().unwrap(), "--json"], None, &[]).ok().json();
    assert!(after["board"]["P1"]["pawn"].is_string(), "{after}");
}

#[test]
fn resolve_answers_a_line_that_is_not_utf8_and_goes_on() {
    let good = br#"{"id":1,"units":[{"power":"FRANCE","type":"A","loc":"PAR"}],"orders":["FRANCE: A PAR - BUR"]}"#;
    let mut input = Vec::new();
    input.extend_from_slice(good);
    input.extend_from_slice(b"\n{\"id\":2,\"units\":[{\"power\":\"FRANCE\",\"type\":\"A\",\"loc\":\"P\xffR\"}]}\n");
    input.extend_from_slice(good);
    input.push(b'\n');
    for jobs in ["1", "3"] {
        let run = shadowjudge_at("", None, &["resolve", "--jobs", jobs], Some(&input), &[]).ok();
        let lines: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{}", run.stdout);
        assert!(lines[1].contains("not UTF-8") && lines[1].contains("\"error\""), "{}", lines[1]);
        assert_eq!(lines[0], lines[2]);
        assert!(!lines[0].contains("error"), "{}", lines[0]);
    }
}

#[test]
fn the_map_loader_refuses_maps_past_its_bounds() {
    use shadowjudge::diplomacy::map::{Map, MAX_MAP_BYTES, MAX_REGIONS};
    let big = format!("# {}\n", "x".repeat(MAX_MAP_BYTES));
    let e = Map::from_toml(&big, "big.toml").unwrap_err();
    assert!(e.to_string().contains("at most"), "{e}");
    // 801 provinces with four coasts each: 4,005 regions, though far fewer provinces.
    let mut text =
        String::from("name = \"coasts\"\n[powers.a]\nname = \"Aa\"\nadjective = \"Aan\"\nabbreviation = \"AAA\"\n\n");
    for i in 0..801 {
        text.push_str(&format!(
            "[provinces.p{i}]\nname = \"P{i}\"\nterrain = \"coast\"\ncoasts = {{ nc = [], sc = [], ec = [], wc = [] }}\n\n"
        ));
    }
    const { assert!(MAX_REGIONS < 801 * 5) };
    let started = std::time::Instant::now();
    let e = Map::from_toml(&text, "ring.toml").unwrap_err();
    assert!(e.to_string().contains("regions"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// Every game's results mailing under a full disk ([`full_disk`] in the game's folder):
/// the mails sent, each as (address, subject, body): a small game's steps may share a
/// subject.
struct Mailing {
    judge: Judge,
    game: &'static str,
    sent: Vec<(String, String, String)>,
}

impl Mailing {
    /// `kind`: `standard` (the game `g1`, France and Italy and a master) or a small game
    /// (`sg`, three players and a master). Its step under way is processed: its results
    /// are owed.
    fn new(kind: &str) -> Mailing {
        let (judge, game) = if kind == "standard" {
            (Judge::with_game("g1"), "g1")
        } else {
            let judge = Judge::new();
            std::fs::write(
                judge.root.join("p3.txt"),
                "ann, ann@example.org\nbob, bob@example.org\ncy, cy@example.org\n",
            )
            .unwrap();
            let args =
                ["new", "sg", "--judge", ".", "--game", kind, "--players", "p3.txt", "--master", "gm@example.org"];
            judge.cli(&args, None).ok();
            (judge, "sg")
        };
        let mut host = shadowjudge::host::JudgeHost::new(judge.root.join("games"));
        host.process(game, None, NOW.parse().unwrap()).unwrap();
        Mailing { judge, game, sent: Vec::new() }
    }

    fn dir(&self) -> PathBuf {
        self.judge.game(self.game)
    }

    fn disk_full(&self, full: bool) {
        let flag = self.dir().join("disk-full");
        if full {
            std::fs::write(flag, "").unwrap();
        } else {
            let _ = std::fs::remove_file(flag);
        }
    }

    /// One mailing of what is owed; with `fill`, the disk fills as soon as the first mail
    /// has gone (the transport took it; the record of it cannot be written).
    fn mail(&mut self, fill: bool) -> Vec<String> {
        use shadowjudge::mail::reply::OutgoingMail;
        use shadowjudge::mail::send::SendError;
        let host = shadowjudge::host::JudgeHost::new(self.judge.root.join("games"));
        let (dir, sent) = (self.dir(), &mut self.sent);
        let mut send = |m: &OutgoingMail| -> Result<(), SendError> {
            sent.push((m.to.clone(), m.subject.clone(), m.body.clone()));
            if fill {
                std::fs::write(dir.join("disk-full"), "").unwrap();
            }
            Ok(())
        };
        host.mail_results(Some(&[self.game.to_string()]), true, NOW.parse().unwrap(), &mut send)
    }

    /// How many times each address had each results mail.
    fn counts(&self) -> std::collections::BTreeMap<(String, String, String), usize> {
        let mut counts = std::collections::BTreeMap::new();
        for m in &self.sent {
            *counts.entry(m.clone()).or_insert(0) += 1;
        }
        counts
    }

    fn mailed(&self) -> Value {
        read_json(&self.dir().join("mailed.json"))
    }
}

/// A full disk when the results are to be mailed: nothing goes out (what cannot be marked
/// as being mailed could not be recorded as mailed either), and once there is space again
/// everyone has them once. Before, every result went out twice after space returned.
#[test]
fn results_are_not_mailed_on_a_full_disk_and_go_out_once_when_space_returns() {
    shadowjudge::store::fault::set_write_check(full_disk);
    for kind in ["standard", "overdue"] {
        let mut m = Mailing::new(kind);
        m.disk_full(true);
        let log = m.mail(false);
        assert!(m.sent.is_empty(), "{kind}: mailed on a full disk: {:?}\n{log:?}", m.sent);
        assert!(log.iter().any(|l| l.contains("not mailed") && l.contains("No space left")), "{kind}: {log:?}");
        m.disk_full(false);
        let log = m.mail(false);
        assert!(!m.sent.is_empty(), "{kind}: {log:?}");
        assert!(m.mail(false).is_empty(), "{kind}: a third mailing did something");
        assert!(m.counts().values().all(|&n| n == 1), "{kind}: {:?}", m.counts());
        assert!(m.mailed().get("sending").is_none(), "{kind}: {}", m.mailed());
    }
}

/// A mailing cut short after the transport took the mails and before their record (the
/// disk fills meanwhile; a kill does the same): the next mailing sends them once more and
/// says so; if that one is cut short too, they are taken as mailed, never sent a third
/// time. Each step is recorded as mailed to everyone in the end.
#[test]
fn results_a_mailing_was_cut_short_in_go_out_at_most_once_more() {
    shadowjudge::store::fault::set_write_check(full_disk);
    for kind in ["standard", "overdue"] {
        let mut m = Mailing::new(kind);
        let log = m.mail(true);
        let first = m.sent.len();
        assert!(first > 0, "{kind}: {log:?}");
        assert!(log.iter().any(|l| l.contains("not recorded as mailed")), "{kind}: {log:?}");
        // Still full: nothing can be marked, so nothing goes.
        let log = m.mail(false);
        assert_eq!(m.sent.len(), first, "{kind}: {log:?}");
        // Space again, and the disk fills again while mailing.
        m.disk_full(false);
        let log = m.mail(true);
        assert!(log.iter().any(|l| l.contains("cut short") && l.contains("mailed once more")), "{kind}: {log:?}");
        m.disk_full(false);
        let log = m.mail(false);
        assert!(log.iter().any(|l| l.contains("taken as mailed")), "{kind}: {log:?}");
        if kind == "standard" {
            // Its only results went to no one this time: no line says they were mailed.
            assert!(!log.iter().any(|l| l.contains("mailed to")), "{log:?}");
        }
        assert!(m.mail(false).is_empty(), "{kind}: more was mailed");
        let counts = m.counts();
        assert!(counts.values().all(|&n| n <= 2), "{kind}: {counts:?}");
        assert!(counts.values().any(|&n| n == 2), "{kind}: {counts:?}");
        let mailed = m.mailed();
        assert!(mailed.get("sending").is_none(), "{mailed}");
        for record in mailed["results"].as_object().unwrap().values() {
            assert!(record.get("retry").is_none(), "{kind}: {mailed}");
            let to = record["to"].as_array().unwrap();
            assert!(to.iter().any(|a| a == "gm@example.org") && to.len() >= 3, "{kind}: {mailed}");
        }
    }
}
