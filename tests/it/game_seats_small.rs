//! A small game's life by mail: open seats filled by `join` mails (seated in the order
//! they joined), `leave`, `observe`, a resignation that leaves the seat vacant and an
//! approved takeover, each in the history and kept by a rollback.

use std::path::{Path, PathBuf};

use crate::harness::Run;
use crate::judge_dir::{judge_cli, message, Eml, Outbox};

const NOW: &str = "2026-03-01T12:00:00Z";
const GAME: &str = "duel";

/// A judge directory with an open Duplexity game whose master is gm@example.org.
fn open_game(extra: &[&str]) -> (tempfile::TempDir, PathBuf, Run) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("judge");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
    let mut args = vec!["new", GAME, "--judge", ".", "--open", "--master", "gm@example.org"];
    args.extend_from_slice(extra);
    let out = judge_cli(NOW, &root, &args);
    (tmp, root, out)
}

fn send(root: &Path, from: &str, id: &str, body: &str) -> Vec<Eml> {
    let raw = message(from, id, body);
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    crate::harness::shadowjudge_at(NOW, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home).ok();
    Vec::new()
}

fn to<'a>(mails: &'a [Eml], address: &str) -> Vec<&'a Eml> {
    mails.iter().filter(|m| m.to == address).collect()
}

fn master_password(root: &Path) -> String {
    let out = judge_cli(NOW, root, &["mail", "password", GAME, "master"]).ok();
    out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
}

/// Issue 41.5: the master of an open small game has a password from the start: it signs
/// on while the game waits for players, and still once it has begun.
#[test]
fn the_master_of_an_open_small_game_signs_on_before_and_after_the_start() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pw = master_password(&root);
    let mut outbox = Outbox::default();
    send(&root, "gm@example.org", "m0@x", &format!("SIGNON master@{GAME} {pw}\nstatus\n"));
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(reply.contains("signed on as the game master") || reply.contains("signed on as master"), "{reply}");
    assert!(reply.contains("waits for players"), "{reply}");
    send(&root, "ann@example.org", "j0@x", &format!("join {GAME} annsecret\n"));
    send(&root, "bob@example.org", "j1@x", &format!("join {GAME} bobsecret\n"));
    outbox.new_mails(&root);
    send(&root, "gm@example.org", "m1@x", &format!("SIGNON master@{GAME} {pw}\nstatus\n"));
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(!reply.contains("wrong password") && !reply.contains("Nothing was done"), "{reply}");
}

/// Issue 41.5: a master named in judge.toml creates a small game by mail, with the
/// number of seats asked for; players fill it by mail and it begins.
#[test]
fn a_master_creates_a_small_game_by_mail() {
    let (_tmp, root) = crate::judge_dir::judge_with_a_master();
    let mut outbox = Outbox::default();
    send(&root, "boss@example.org", "c0@x", "create race variant overdue seats 3\n");
    let mails = outbox.new_mails(&root);
    let reply = &to(&mails, "boss@example.org").into_iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    assert!(reply.contains("race"), "{reply}");
    let made = to(&mails, "boss@example.org").into_iter().find(|m| m.subject.contains("game master")).unwrap();
    assert!(made.body.contains("You created race (overdue), with open seats"), "{}", made.body);
    let listed = judge_cli(NOW, &root, &["list"]).ok().stdout;
    assert!(listed.contains("waiting for players: 0 of 3 seats taken"), "{listed}");
    // A small game's seats are asked for in words the judge understands, and checked.
    send(&root, "boss@example.org", "c1@x", "create tiny variant duplexity seats 5\n");
    let refused = &outbox.new_mails(&root)[0].body;
    assert!(refused.contains("5 seats"), "{refused}");
    assert!(!root.join("games/tiny").exists());
    for (i, who) in ["ann", "bob", "cy"].iter().enumerate() {
        send(&root, &format!("{who}@example.org"), &format!("j{i}@x"), "join race secret1\n");
    }
    let mails = outbox.new_mails(&root);
    assert!(to(&mails, "cy@example.org").iter().any(|m| m.body.contains("That was the last seat")), "{mails:#?}");
}

#[test]
fn a_small_game_is_opened_with_a_number_of_seats_the_game_takes() {
    let (_tmp, _root, out) = open_game(&["--game", "duplexity", "--seats", "3"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("3 seats:"), "{}", out.stderr);
    let (_tmp, root, out) = open_game(&["--game", "overdue", "--seats", "4", "--option", "rounds=3"]);
    assert!(out.stdout.contains("with 4 open seats"), "{}", out.stdout);
    assert!(out.stdout.contains("Dice commitment"), "{}", out.stdout);
    let listed = judge_cli(NOW, &root, &["list"]).ok().stdout;
    assert!(listed.contains("waiting for players: 0 of 4 seats taken"), "{listed}");
    // Diplomacy has seven seats, one per power.
    let (_tmp, _root, out) = open_game(&["--seats", "4"]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("--seats"), "{}", out.stderr);
}

#[test]
fn a_small_game_filled_by_join_mails_begins_and_a_vacant_seat_is_taken_over() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert!(out.stdout.contains("with 2 open seats"), "{}{}", out.stdout, out.stderr);
    let dir = root.join("games").join(GAME);
    let mut outbox = Outbox::default();
    let mut mail = |from: &str, id: &str, body: &str| {
        send(&root, from, id, body);
        outbox.new_mails(&root)
    };

    // Joining, leaving, observing before the start; a preference list makes no sense.
    let reply = &mail("ann@example.org", "j0@x", &format!("join {GAME} annsecret prefer france\n"))[0].body;
    assert!(reply.contains("its seats have no powers to prefer"), "{reply}");
    let reply = &mail("zed@example.org", "j2@x", &format!("join {GAME} zedsecret\nleave {GAME} zedsecret\n"))[0].body;
    assert!(reply.contains("You left duel; 2 seats are open."), "{reply}");
    let reply = &mail("ann@example.org", "j1@x", &format!("join {GAME} annsecret\nlist {GAME}\n"))[0].body;
    assert!(reply.contains("You joined duel"), "{reply}");
    assert!(reply.contains("1 seat is still open"), "{reply}");
    assert!(reply.contains("Waiting for players: 1 of 2 seats taken"), "{reply}");
    assert!(reply.contains("Dice commitment"), "{reply}");
    let mails = mail("obs@example.org", "o0@x", &format!("observe {GAME}\n"));
    let line = crate::judge_dir::confirmation(&mails, "obs@example.org");
    let reply = &mail("obs@example.org", "o1@x", &line)[0].body;
    assert!(reply.contains("You observe duel"), "{reply}");
    let commitment = {
        let status = judge_cli(NOW, &root, &["status", dir.to_str().unwrap()]).ok().stdout;
        status
            .lines()
            .find_map(|l| l.strip_prefix("Dice commitment (sha256 of the secret seed): "))
            .unwrap()
            .to_string()
    };

    // The last seat: the game begins; each player is mailed their seat, how to send a
    // turn and the commitment; the master gets who plays what.
    let mails = mail("Bob.B@example.org", "j3@x", &format!("join {GAME} bobsecret\n"));
    let reply = &to(&mails, "Bob.B@example.org");
    assert!(reply.iter().any(|m| m.body.contains("That was the last seat")), "{mails:#?}");
    for (address, seat) in [("ann@example.org", "ann"), ("Bob.B@example.org", "bobb")] {
        let start = to(&mails, address).into_iter().find(|m| m.subject.contains("you play")).unwrap();
        assert_eq!(start.subject, format!("{GAME}: you play {seat}"));
        assert!(start.body.contains(&format!("SIGNON {seat}@{GAME} yourpassword")), "{}", start.body);
        assert!(start.body.contains(&commitment), "{}", start.body);
        assert!(start.body.contains("First deadline: "), "{}", start.body);
        assert!(!start.body.contains("A par"), "{}", start.body);
    }
    let gm = to(&mails, "gm@example.org");
    assert!(gm.iter().any(|m| m.body.contains("ann   ann@example.org")), "{gm:#?}");
    let obs = to(&mails, "obs@example.org");
    assert!(obs.iter().any(|m| m.subject.contains("has started") && !m.body.contains("@example.org")), "{obs:#?}");
    let reply = &mail("ann@example.org", "s0@x", &format!("SIGNON ann@{GAME} annsecret\nstatus\n"))[0].body;
    assert!(reply.contains("You play ann"), "{reply}");

    // Bob resigns (naming his seat confirms it): the seat is vacant, everyone is told,
    // his password signs on no more.
    let reply = &mail("Bob.B@example.org", "r0@x", &format!("SIGNON bobb@{GAME} bobsecret\nresign ann\n"))[0].body;
    assert!(reply.contains("to resign, write `resign bobb`"), "{reply}");
    let mails = mail("Bob.B@example.org", "r1@x", &format!("SIGNON bobb@{GAME} bobsecret\nresign bobb\n"));
    assert!(to(&mails, "Bob.B@example.org")[0].body.contains("You resigned bobb"), "{mails:#?}");
    for who in ["ann@example.org", "obs@example.org", "gm@example.org"] {
        let told = to(&mails, who);
        assert!(told.iter().any(|m| m.body.contains("the game's defaults play for it")), "{who}: {mails:#?}");
    }
    let reply = &mail("Bob.B@example.org", "s1@x", &format!("SIGNON bobb@{GAME} bobsecret\nstatus\n"))[0].body;
    assert!(!reply.contains("signed on as"), "{reply}");

    // Cy asks for it; the master approves; one mail each.
    let mails = mail("cy@example.org", "t0@x", &format!("list {GAME}\ntakeover bobb@{GAME} cysecret1\n"));
    let reply = &to(&mails, "cy@example.org")[0].body;
    assert!(reply.contains("Vacant: bobb (the deadline defaults play for it)"), "{reply}");
    assert!(reply.contains("You asked to take over bobb"), "{reply}");
    assert!(to(&mails, "gm@example.org")[0].body.contains("approve bobb"), "{mails:#?}");
    let pw = master_password(&root);
    let mails = mail("gm@example.org", "a0@x", &format!("SIGNON master@{GAME} {pw}\napprove bobb\n"));
    assert_eq!(to(&mails, "gm@example.org").len(), 1, "{mails:#?}");
    assert!(to(&mails, "cy@example.org")[0].subject.contains("you now play bobb"), "{mails:#?}");
    assert!(to(&mails, "ann@example.org")[0].subject.contains("bobb is played again"), "{mails:#?}");
    let reply = &mail("cy@example.org", "s2@x", &format!("SIGNON bobb@{GAME} cysecret1\nstatus\n"))[0].body;
    assert!(reply.contains("You play bobb"), "{reply}");

    // Every change is in the history, and a rollback keeps it.
    judge_cli(NOW, &root, &["rollback", dir.to_str().unwrap(), "0"]).ok();
    let history = judge_cli(NOW, &root, &["history", dir.to_str().unwrap()]).ok().stdout;
    for said in [
        "seated in the order they joined: ann ann@example.org, bobb Bob.B@example.org",
        "bobb resigned (Bob.B@example.org); bobb is vacant",
        "cy@example.org asks to take over bobb",
        "bobb taken over by cy@example.org (approved by the master)",
    ] {
        assert!(history.contains(said), "{said}: {history}");
    }
    let reply = &mail("cy@example.org", "s3@x", &format!("SIGNON bobb@{GAME} cysecret1\nstatus\n"))[0].body;
    assert!(reply.contains("You play bobb"), "{reply}");
}

#[test]
fn a_small_game_by_mail_from_the_joins_to_its_end() {
    let (_tmp, root, out) = open_game(&["--game", "overdue", "--seats", "3", "--option", "rounds=1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut outbox = Outbox::default();
    let mut mail = |from: &str, id: &str, body: &str| {
        send(&root, from, id, body);
        outbox.new_mails(&root)
    };
    // `list` of a small game offers no preference list (there are no powers).
    let mails = mail("obs@example.org", "o0@x", &format!("observe {GAME}\nlist {GAME}\n"));
    let reply = &to(&mails, "obs@example.org").into_iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    assert!(reply.contains(&format!("Join with `join {GAME} PASSWORD`;")), "{reply}");
    assert!(!reply.contains("prefer"), "{reply}");
    mail("obs@example.org", "o1@x", &crate::judge_dir::confirmation(&mails, "obs@example.org"));
    let mut joined = Vec::new();
    for (i, who) in ["ann", "bob", "cy"].iter().enumerate() {
        joined = mail(&format!("{who}@example.org"), &format!("j{i}@x"), &format!("join {GAME} {who}secret\n"));
    }
    // Issue 41.5: the opening report, whose turn it is, goes out with the start.
    for who in ["ann@example.org", "bob@example.org", "cy@example.org"] {
        let opening = to(&joined, who).into_iter().find(|m| m.body.contains("The game begins."));
        let opening = opening.unwrap_or_else(|| panic!("{who}: {joined:#?}"));
        assert!(opening.body.contains("Waiting for "), "{}", opening.body);
    }
    // Every player cashes at once; the master processes what is left to the end.
    let pw = master_password(&root);
    for (i, who) in ["ann", "bob", "cy"].iter().enumerate() {
        mail(&format!("{who}@example.org"), &format!("c{i}@x"), &format!("SIGNON {who}@{GAME} {who}secret\ncash\n"));
    }
    let mut last = String::new();
    let mut mails = Vec::new();
    for i in 0..20 {
        let got = mail("gm@example.org", &format!("p{i}@x"), &format!("SIGNON master@{GAME} {pw}\nprocess\n"));
        last = got.iter().find(|m| m.subject.starts_with("Re:")).map(|m| m.body.clone()).unwrap_or_default();
        mails.extend(got);
        if last.contains("Now: round 1, over") || last.contains("not done") || last.contains("is over") {
            break;
        }
    }
    // The step that ended the game says how it was processed.
    assert!(last.contains("processed (by the game master"), "{last}");
    let tick = judge_cli(NOW, &root, &["mail", "tick"]);
    assert_eq!(tick.code, 0, "{}", tick.stderr);
    mails.extend(outbox.new_mails(&root));
    for who in ["ann@example.org", "bob@example.org", "cy@example.org", "obs@example.org", "gm@example.org"] {
        let end = to(&mails, who).into_iter().find(|m| m.body.contains("The game is over:"));
        let end = end.unwrap_or_else(|| panic!("{who}: {mails:#?}"));
        assert!(end.body.contains("Final totals"), "{}", end.body);
        assert!(end.body.contains("seed revealed"), "{}", end.body);
    }
}

/// A step that awaits only vacant seats goes on at the next tick, with their defaults,
/// as early processing does: nobody can send what it waits for (before: it waited for
/// the whole deadline).
#[test]
fn a_step_awaiting_only_vacant_seats_goes_on_at_once() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dir = root.join("games").join(GAME);
    let mut outbox = Outbox::default();
    let mut mail = |from: &str, id: &str, body: &str| {
        send(&root, from, id, body);
        outbox.new_mails(&root)
    };
    mail("ann@example.org", "j0@x", &format!("join {GAME} annsecret\n"));
    mail("bob@example.org", "j1@x", &format!("join {GAME} bobsecret\n"));
    mail("bob@example.org", "r0@x", &format!("SIGNON bob@{GAME} bobsecret\nresign bob\n"));
    let status = || judge_cli(NOW, &root, &["status", dir.to_str().unwrap()]).ok().stdout;
    let reply = |mails: Vec<Eml>| mails.into_iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    let reply = reply(mail("ann@example.org", "p0@x", &format!("SIGNON ann@{GAME} annsecret\nplace P3\n")));
    assert!(reply.contains("from bob"), "{reply}");
    // Long before the deadline, the tick plays bob's placement and goes on to the bids.
    let tick = judge_cli(NOW, &root, &["mail", "tick"]);
    assert_eq!(tick.code, 0, "{}", tick.stderr);
    assert!(tick.stdout.contains("only vacant seats"), "{}", tick.stdout);
    let now = status();
    assert!(now.contains("Initiative"), "{now}");
    // Ann's bid leaves only bob's awaited: the next tick opens the bids.
    let mails = mail("ann@example.org", "b0@x", &format!("SIGNON ann@{GAME} annsecret\nbid 1\n"));
    let reply = &mails.iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    assert!(reply.contains("from bob"), "{reply}");
    judge_cli(NOW, &root, &["mail", "tick"]).ok();
    let now = status();
    assert!(!now.contains("Initiative"), "{now}");
    let mails = outbox.new_mails(&root);
    let report = to(&mails, "ann@example.org").into_iter().find(|m| m.body.contains("Only vacant seats were awaited"));
    let report = report.unwrap_or_else(|| panic!("{mails:#?}"));
    // The default is worded for a vacant seat: no deadline had passed.
    assert!(report.body.contains("bob's seat is vacant: the bid is 0."), "{}", report.body);
    assert!(!report.body.contains("by the deadline"), "{}", report.body);
    let history = judge_cli(NOW, &root, &["history", dir.to_str().unwrap()]).ok().stdout;
    assert!(history.contains("only vacant seats were awaited"), "{history}");
}

/// An observer of a small game signs on with the password `observe` kept: it reads the
/// game, and is told the game has no press and that it sends no turn.
#[test]
fn an_observer_of_a_small_game_signs_on_and_reads() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut outbox = Outbox::default();
    let mut mail = |from: &str, id: &str, body: &str| {
        send(&root, from, id, body);
        outbox.new_mails(&root)
    };
    let mails = mail("obs@example.org", "o0@x", &format!("observe {GAME} obssecret1\n"));
    let line = crate::judge_dir::confirmation(&mails, "obs@example.org");
    let reply = &mail("obs@example.org", "o1@x", &line)[0].body;
    assert!(reply.contains("Your password is kept"), "{reply}");
    mail("ann@example.org", "j0@x", &format!("join {GAME} annsecret\n"));
    mail("bob@example.org", "j1@x", &format!("join {GAME} bobsecret\n"));
    let body = format!("SIGNON observer@{GAME} obssecret1\nstatus\nplace P3\npress to all\nhi\nendpress\n");
    let mails = mail("obs@example.org", "s0@x", &body);
    let reply = &mails.iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    assert!(reply.contains("signed on as the observer obs@example.org in duel"), "{reply}");
    assert!(reply.contains("Status:") && reply.contains("setup"), "{reply}");
    assert!(reply.contains("an observer sends no orders"), "{reply}");
    assert!(reply.contains("press not sent"), "{reply}");
    assert_eq!(mails.len(), 1, "{mails:#?}");
}

/// Issue 42.7: the seed a game starts with is the one whose commitment was published when
/// its seats opened. With seed.json swapped, the last join starts nothing (the master
/// and the log hear why); with it restored, the game starts on the published seed.
#[test]
fn an_open_game_does_not_start_on_a_seed_other_than_the_one_committed_to() {
    for (args, seats) in [(&["--game", "duplexity"][..], 2), (&["--variant", "standard"][..], 7)] {
        let (_tmp, root, out) = open_game(args);
        let hex64 = |w: &&&str| w.len() == 64 && w.chars().all(|c| c.is_ascii_hexdigit());
        let words: Vec<&str> = out.stdout.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        let published = words.iter().find(hex64).expect("the commitment is published").to_string();
        let dir = root.join("games").join(GAME);
        for i in 0..seats - 1 {
            send(&root, &format!("p{i}@example.org"), &format!("j{i}@x"), &format!("join {GAME} secret{i}word\n"));
        }
        let seed_file = dir.join("seed.json");
        let kept = std::fs::read_to_string(&seed_file).unwrap();
        let hex: String = kept.split('"').find(|s| s.len() == 64).unwrap().to_string();
        std::fs::write(&seed_file, kept.replace(&hex, &"1".repeat(64))).unwrap();
        let last = seats - 1;
        send(&root, &format!("p{last}@example.org"), "jl@x", &format!("join {GAME} secret{last}word\n"));
        let toml = std::fs::read_to_string(dir.join("game.toml")).unwrap();
        assert!(toml.contains("open = true"), "{args:?}: the game started on another seed:\n{toml}");
        let log = std::fs::read_to_string(root.join("judge.log")).unwrap_or_default();
        assert!(log.contains("does not match the commitment published"), "{args:?}: {log}");
        // Restored, the last join (sent again) starts the game on the published seed.
        std::fs::write(&seed_file, &kept).unwrap();
        send(&root, &format!("p{last}@example.org"), "jl2@x", &format!("join {GAME} secret{last}word\n"));
        let toml = std::fs::read_to_string(dir.join("game.toml")).unwrap();
        assert!(!toml.contains("open = true"), "{args:?}:\n{toml}");
        // The game's first entry publishes the same commitment; Diplomacy's powers verify.
        let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        assert!(journal.contains(&published), "{args:?}: {journal}");
        if seats == 7 {
            judge_cli(NOW, &root, &["verify", dir.to_str().unwrap()]).ok();
        }
    }
}

/// A game waiting for players does nothing a game under way does, and says so the same
/// way whatever was asked, from the command line or by mail (issue 38: a waiting game is
/// a state of the session, refused in one place).
#[test]
fn a_small_game_waiting_for_players_refuses_play_in_one_sentence() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dir = root.join("games").join(GAME);
    let dir = dir.to_str().unwrap();
    let refusal = format!("{GAME} has not begun: it waits for players, and begins when the last seat is filled");
    for args in [
        &["adjudicate", dir, "--force"][..],
        &["adjudicate", dir, "--dry-run"],
        &["results", dir],
        &["rollback", dir, "1"],
        &["verify", dir],
        &["reveal", dir, "--force"],
        &["submit", dir, "--player", "ann", "-"],
    ] {
        let run = judge_cli(NOW, &root, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(&refusal), "{args:?}: {}", run.stderr);
    }
    let status = judge_cli(NOW, &root, &["status", dir]).ok();
    assert!(status.stdout.contains("waits for players: 0 of 2 seats taken"), "{}", status.stdout);
    // By mail, the master's commands get the same sentence.
    let pw = master_password(&root);
    let mut outbox = Outbox::default();
    send(&root, "gm@example.org", "m0@x", &format!("SIGNON master@{GAME} {pw}\nprocess\npause\n"));
    let reply = &outbox.new_mails(&root)[0].body;
    assert_eq!(reply.matches(&refusal).count(), 2, "{reply}");
}

/// The master of a game whose master rules on nothing (Duplexity) sends no turn lines: the
/// mail says so in the game's words, once, not line by line from the game.
#[test]
fn the_master_of_a_game_without_master_lines_is_told_so_in_its_words() {
    let (_tmp, root, out) = open_game(&["--game", "duplexity"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let pw = master_password(&root);
    let mut outbox = Outbox::default();
    send(&root, "ann@example.org", "j0@x", &format!("join {GAME} annsecret\n"));
    send(&root, "bob@example.org", "j1@x", &format!("join {GAME} bobsecret\n"));
    outbox.new_mails(&root);
    send(&root, "gm@example.org", "m0@x", &format!("SIGNON master@{GAME} {pw}\nplace P1\n"));
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(reply.contains("the game master has no turn lines to give; not a command"), "{reply}");
}
