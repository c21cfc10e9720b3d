//! A game's whole life by mail: open seats filled by `join` mails, the powers assigned
//! verifiably, `list`, `observe`, a resignation and an approved takeover, the master's
//! preview.

use std::path::{Path, PathBuf};

use crate::harness::Run;
use crate::judge_dir::{journal, judge_cli, message, Eml, Outbox};
use shadowjudge::game::journal::Entry;
use shadowjudge::game::seating::SeatEvent;

const NOW: &str = "2026-03-01T12:00:00Z";
const GAME: &str = "open1";

/// A judge directory with an open Shadow Worlds game whose master is gm@example.org (with
/// password `gmsecret`, set by hand).
fn open_game() -> (tempfile::TempDir, PathBuf) {
    let (tmp, root) = crate::judge_dir::judge_with_a_master();
    let out = judge_cli(
        NOW,
        &root,
        &["new", GAME, "--judge", ".", "--open", "--variant", "shadow-worlds", "--master", "gm@example.org"],
    )
    .ok();
    assert!(out.stdout.contains("7 open seats"), "{}", out.stdout);
    assert!(out.stdout.contains("commitment"), "{}", out.stdout);
    let commitment = out.stdout.split("commitment ").nth(1).unwrap().trim().trim_end_matches('.').to_string();
    std::fs::write(root.join("commitment.txt"), commitment).unwrap();
    (tmp, root)
}

/// Each power's home centers: its own units stand there at the start.
fn homes(power: &str) -> &'static [&'static str] {
    match power {
        "Austria" => &["vie", "bud", "tri"],
        "England" => &["lon", "edi", "lvp"],
        "France" => &["bre", "par", "mar"],
        "Germany" => &["kie", "ber", "mun"],
        "Italy" => &["ven", "rom", "nap"],
        "Russia" => &["mos", "war", "sev", "stp"],
        _ => &["con", "ank", "smy"],
    }
}

fn send(root: &Path, from: &str, id: &str, body: &str) -> Run {
    let raw = message(from, id, body);
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    crate::harness::shadowjudge_at(NOW, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home)
}

fn to<'a>(mails: &'a [Eml], address: &str) -> Vec<&'a Eml> {
    mails.iter().filter(|m| m.to == address).collect()
}

fn player(i: usize) -> String {
    format!("p{i}@example.org")
}

/// Fill the seven seats: players 0-2 prefer France (a clash), player 3 Turkey, the rest
/// nothing. Returns the outbox after the start and each player's power.
fn fill(root: &Path, outbox: &mut Outbox) -> (Vec<Eml>, Vec<(String, String)>) {
    for i in 0..7 {
        let prefer = match i {
            0..=2 => " prefer fra, eng",
            3 => " prefer TURKEY",
            _ => "",
        };
        send(root, &player(i), &format!("join{i}@x"), &format!("join {GAME} pass{i}word{prefer}\n")).ok();
        let mails = outbox.new_mails(root);
        if i < 6 {
            let reply = &to(&mails, &player(i))[0].body;
            assert!(reply.contains(&format!("You joined {GAME}")), "{reply}");
            assert!(
                reply.contains(&format!("{} still open", if i == 5 { "1 seat is" } else { "seats are" })),
                "{reply}"
            );
            assert!(!reply.contains(&format!("pass{i}word")), "{reply}");
        } else {
            let mut powers = Vec::new();
            for j in 0..7 {
                let start = to(&mails, &player(j))
                    .into_iter()
                    .find(|m| m.subject.contains("you play"))
                    .unwrap_or_else(|| panic!("no start mail to {}: {mails:#?}", player(j)));
                assert!(start.body.contains("First deadline: "), "{}", start.body);
                let power = start.subject.rsplit(' ').next().unwrap().to_string();
                assert!(
                    start.body.contains(&format!("SIGNON {}@{GAME} yourpassword", power.to_lowercase())),
                    "{}",
                    start.body
                );
                // The example orders are the player's own units', on both boards; the
                // commitment is there to check the assignment by.
                let example: Vec<&str> = start
                    .body
                    .lines()
                    .skip_while(|l| !l.contains("SIGNON"))
                    .skip(1)
                    .take_while(|l| !l.is_empty())
                    .collect();
                assert_eq!(example.iter().filter(|l| l.trim().starts_with("Board ")).count(), 2, "{}", start.body);
                let orders: Vec<&&str> = example.iter().filter(|l| !l.trim().starts_with("Board ")).collect();
                assert!(!orders.is_empty(), "{}", start.body);
                for order in orders {
                    let unit = order.split_whitespace().nth(1).unwrap();
                    assert!(homes(&power).iter().any(|h| unit.starts_with(h)), "{power}: {order}");
                }
                let commitment = std::fs::read_to_string(root.join("commitment.txt")).unwrap();
                assert!(start.body.contains(&commitment), "{}", start.body);
                // The seed is revealed with the assignment: its sha256 is the commitment.
                let seed =
                    start.body.split("The seed, revealed now:").nth(1).unwrap().split_whitespace().next().unwrap();
                let seed = shadowjudge::dice::Seed::from_hex(seed).unwrap();
                assert_eq!(seed.commitment(), commitment, "{}", start.body);
                assert!(start.body.contains("shadowjudge verify"), "{}", start.body);
                powers.push((player(j), power));
            }
            let started = to(&mails, "gm@example.org").into_iter().find(|m| m.subject.contains("has started")).unwrap();
            // The master's mail says who plays which power.
            for (email, power) in &powers {
                assert!(
                    started.body.lines().any(|l| l.contains(power.as_str()) && l.contains(email.as_str())),
                    "{}",
                    started.body
                );
            }
            return (mails, powers);
        }
    }
    unreachable!()
}

#[test]
fn a_game_filled_by_seven_join_mails_starts_and_its_powers_verify() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let dir = root.join("games").join(GAME);

    // Before anyone joins: listed as waiting, no deadline runs, verify has nothing yet.
    let list = send(&root, "someone@example.org", "list@x", "list\n").ok();
    assert_eq!(list.code, 0);
    let mails = outbox.new_mails(&root);
    assert!(mails[0].body.contains("0 of 7 seats taken"), "{}", mails[0].body);
    assert!(!mails[0].body.contains("No SIGNON line"), "{}", mails[0].body);

    let (_, powers) = fill(&root, &mut outbox);
    let mut names: Vec<&String> = powers.iter().map(|(_, p)| p).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 7, "{powers:?}");
    // The clash on France went to one of the three; Turkey's only suitor got it.
    let france = powers.iter().position(|(_, p)| p == "France").unwrap();
    assert!(france < 3, "{powers:?}");
    assert_eq!(powers[3].1, "Turkey");

    // The journal holds the commitment, every join and the assignment with its rolls;
    // `verify` redoes it from the revealed seed.
    let seats: Vec<SeatEvent> = journal(&dir)
        .into_iter()
        .filter_map(|e| match e {
            Entry::Seats { event } => Some(event),
            _ => None,
        })
        .collect();
    assert!(matches!(seats[0], SeatEvent::Opened { .. }));
    assert_eq!(seats.iter().filter(|e| matches!(e, SeatEvent::Joined { .. })).count(), 7);
    assert!(matches!(seats.last(), Some(SeatEvent::Assigned { rolls, .. }) if !rolls.is_empty()));
    let verified = judge_cli(NOW, &root, &["verify", dir.to_str().unwrap()]).ok();
    assert!(verified.stdout.starts_with("verified "), "{}", verified.stdout);

    // Every player signs on with the password they joined with; the game has a deadline.
    let (email, power) = &powers[4];
    send(&root, email, "s1@x", &format!("SIGNON {}@{GAME} pass4word\nstatus\n", power.to_lowercase())).ok();
    let reply = &outbox.new_mails(&root)[0];
    assert!(reply.body.contains(&format!("signed on as {power}")), "{}", reply.body);
    assert!(reply.body.contains("Deadline: "), "{}", reply.body);

    // A join after the start is refused with the reason; `list` shows the game running.
    send(&root, "late@example.org", "late@x", &format!("join {GAME} latecomer\nlist {GAME}\n")).ok();
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(reply.contains(&format!("not done: {GAME} has no open seats")), "{reply}");
    assert!(reply.contains("France   played"), "{reply}");
    let history = judge_cli(NOW, &root, &["history", dir.to_str().unwrap()]).ok();
    assert!(history.stdout.contains("p0@example.org joined, preferring France, England"), "{}", history.stdout);
    assert!(history.stdout.contains("powers assigned: "), "{}", history.stdout);
}

#[test]
fn a_join_can_be_left_before_the_start_and_bad_joins_say_why() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    send(&root, &player(0), "j0@x", &format!("join {GAME} pass0word prefer narnia\n")).ok();
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(reply.contains("no power `narnia`; the powers are Austria"), "{reply}");
    let mut answer = |from: &str, id: &str, body: &str| {
        send(&root, from, id, body).ok();
        outbox.new_mails(&root)
    };
    let mails = answer(&player(0), "j1@x", &format!("join {GAME} pass0word\nobserve {GAME}\n"));
    let reply = &mails.iter().find(|m| m.subject.starts_with("Re:")).unwrap().body;
    assert!(reply.contains("6 seats are still open"), "{reply}");
    assert!(reply.contains("To observe open1, confirm from p0@example.org"), "{reply}");
    let reply = &answer(&player(0), "l0@x", &format!("leave {GAME} wrongword\n"))[0].body;
    assert!(reply.contains("wrong password"), "{reply}");
    let reply = &answer(&player(0), "l1@x", &format!("leave {GAME} pass0word\n"))[0].body;
    assert!(reply.contains("You left open1; 7 seats are open."), "{reply}");
    // A game is created by mail only by a master judge.toml names.
    let reply = &answer(&player(0), "c0@x", "create mine variant standard\n")[0].body;
    assert!(reply.contains("only a game master named in the judge's judge.toml"), "{reply}");
    let mails = answer("boss@example.org", "c1@x", "create theirs variant shadow-worlds\n");
    assert!(to(&mails, "boss@example.org").iter().any(|m| m.body.contains("SIGNON master@theirs")), "{mails:#?}");
    let listed = judge_cli(NOW, &root, &["list"]).ok();
    assert!(listed.stdout.contains("theirs") && listed.stdout.contains("shadow-worlds"), "{}", listed.stdout);
}

#[test]
fn a_resignation_leaves_a_vacant_power_and_the_master_approves_a_takeover() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let (_, powers) = fill(&root, &mut outbox);
    judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
    let master_pw = {
        let out = judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    };
    let (email, power) = powers[1].clone();
    let lower = power.to_lowercase();
    // Naming another power does not confirm.
    let other = powers[2].1.to_lowercase();
    send(&root, &email, "r0@x", &format!("SIGNON {lower}@{GAME} pass1word\nresign {other}\n")).ok();
    let reply = &outbox.new_mails(&root)[0].body;
    assert!(reply.contains(&format!("to resign, write `resign {lower}`")), "{reply}");
    send(&root, &email, "r1@x", &format!("SIGNON {lower}@{GAME} pass1word\nresign {lower}\n")).ok();
    let mails = outbox.new_mails(&root);
    assert!(to(&mails, &email)[0].body.contains(&format!("You resigned {power}")), "{mails:#?}");
    for (other, _) in powers.iter().filter(|(e, _)| *e != email) {
        assert!(to(&mails, other).iter().any(|m| m.subject == format!("{GAME}: {power} is vacant")), "{other}");
    }
    // Listed as vacant; the old password no longer signs on.
    send(&root, "new@example.org", "t0@x", &format!("list {GAME}\ntakeover {lower}@{GAME} newpassword\n")).ok();
    let mails = outbox.new_mails(&root);
    let reply = &to(&mails, "new@example.org")[0].body;
    assert!(reply.contains(&format!("Vacant: {power}")), "{reply}");
    assert!(reply.contains(&format!("You asked to take over {power}")), "{reply}");
    assert!(!reply.contains("newpassword"), "{reply}");
    let ask = to(&mails, "gm@example.org");
    assert!(ask[0].body.contains(&format!("approve {lower}")), "{:#?}", ask);

    send(&root, "gm@example.org", "a0@x", &format!("SIGNON master@{GAME} {master_pw}\napprove {lower}\n")).ok();
    let mails = outbox.new_mails(&root);
    let gm = to(&mails, "gm@example.org");
    // One mail to the master: the answer to `approve`, not the news for everyone too.
    assert_eq!(gm.len(), 1, "{gm:#?}");
    assert!(gm[0].body.contains(&format!("{power} is now played by new@example.org")), "{gm:#?}");
    assert!(to(&mails, &powers[0].0).iter().any(|m| m.subject == format!("{GAME}: {power} is played again")));
    assert!(to(&mails, "new@example.org")[0].subject.contains(&format!("you now play {power}")), "{mails:#?}");
    send(&root, "new@example.org", "s0@x", &format!("SIGNON {lower}@{GAME} newpassword\nstatus\n")).ok();
    assert!(outbox.new_mails(&root)[0].body.contains(&format!("signed on as {power}")));

    // History shows every change of who plays.
    let dir = root.join("games").join(GAME);
    let history = judge_cli(NOW, &root, &["history", dir.to_str().unwrap()]).ok().stdout;
    assert!(history.contains(&format!("{power} resigned ({email}); {power} is vacant")), "{history}");
    assert!(history.contains(&format!("{power} taken over by new@example.org (approved by the master)")), "{history}");
    assert!(history.contains(&format!("{power}: address changed from {email} to none")), "{history}");
}

#[test]
fn a_preview_goes_to_the_master_only_and_keeps_nothing() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let (_, powers) = fill(&root, &mut outbox);
    let master_pw = {
        let out = judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    };
    let dir = root.join("games").join(GAME);
    let before = journal(&dir).len();
    // A player may not preview.
    let (email, power) = &powers[0];
    send(&root, email, "p0@x", &format!("SIGNON {}@{GAME} pass0word\npreview\n", power.to_lowercase())).ok();
    assert!(outbox.new_mails(&root)[0].body.contains("only the game master may do that"));
    send(&root, "gm@example.org", "p1@x", &format!("SIGNON master@{GAME} {master_pw}\npreview\n")).ok();
    let mails = outbox.new_mails(&root);
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(mails[0].to, "gm@example.org");
    assert!(mails[0].body.contains("PREVIEW: the results if the phase were processed now"), "{}", mails[0].body);
    assert!(mails[0].body.contains("Spring 1901"), "{}", mails[0].body);
    assert_eq!(journal(&dir).len(), before, "a preview journals nothing");
}

fn send_at(root: &Path, now: &str, from: &str, id: &str, body: &str) -> Vec<Eml> {
    let raw = message(from, id, body);
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    let out = crate::harness::shadowjudge_at(now, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home);
    assert_eq!(out.code, 0, "{}", out.stderr);
    Vec::new()
}

fn tick_at(root: &Path, now: &str) {
    let out = judge_cli(now, root, &["mail", "tick"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// The lines a start mail shows to send: the sign-on and the example orders.
fn example(start: &Eml, password: &str) -> String {
    start
        .body
        .lines()
        .skip_while(|l| !l.contains("SIGNON"))
        .take_while(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim().replace("yourpassword", password)))
        .collect()
}

#[test]
fn a_whole_shadow_worlds_game_by_mail_from_seven_joins_to_a_draw() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    send(&root, "obs@example.org", "obs@x", &format!("observe {GAME}\n")).ok();
    let line = crate::judge_dir::confirmation(&outbox.new_mails(&root), "obs@example.org");
    send(&root, "obs@example.org", "obs2@x", &line).ok();
    outbox.new_mails(&root);
    let (mails, mut powers) = fill(&root, &mut outbox);
    let mut passwords: Vec<String> = (0..7).map(|i| format!("pass{i}word")).collect();
    let everyone = |powers: &[(String, String)]| -> Vec<String> {
        let mut all: Vec<String> = powers.iter().map(|(e, _)| e.clone()).collect();
        all.extend(["obs@example.org".to_string(), "gm@example.org".to_string()]);
        all
    };

    // Spring 1901: each player sends what their start mail shows, as it stands; every
    // order is taken.
    let t1 = "2026-03-02T12:00:00Z";
    for (i, (email, _)) in powers.iter().enumerate() {
        let start = to(&mails, email).into_iter().find(|m| m.subject.contains("you play")).unwrap();
        send_at(&root, t1, email, &format!("o{i}@x"), &example(start, &passwords[i]));
        let reply = outbox.new_mails(&root);
        let reply = &to(&reply, email)[0].body;
        assert!(!reply.contains("refused") && !reply.contains("not understood"), "{reply}");
        assert!(reply.contains("Orders"), "{reply}");
    }
    // The tick after the deadline processes it: results to every player, observer, master.
    tick_at(&root, "2026-04-01T12:00:00Z");
    let mails = outbox.new_mails(&root);
    for who in everyone(&powers) {
        assert!(to(&mails, &who).iter().any(|m| m.subject.contains("Spring 1901")), "{who}: {mails:#?}");
    }

    // Italy's player (whoever it is) resigns; a newcomer asks for it; the master approves.
    let at = powers.iter().position(|(_, p)| p == "Italy").unwrap();
    let (email, power) = powers[at].clone();
    let t2 = "2026-04-01T13:00:00Z";
    send_at(&root, t2, &email, "r@x", &format!("SIGNON italy@{GAME} {}\nresign italy\n", passwords[at]));
    let mails = outbox.new_mails(&root);
    assert!(to(&mails, "obs@example.org").iter().any(|m| m.subject.contains("Italy is vacant")), "{mails:#?}");
    send_at(&root, t2, "newcomer@example.org", "t@x", &format!("takeover italy@{GAME} newcomer1\n"));
    outbox.new_mails(&root);
    let master_pw = {
        let out = judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    };
    send_at(&root, t2, "gm@example.org", "a@x", &format!("SIGNON master@{GAME} {master_pw}\napprove italy\n"));
    let mails = outbox.new_mails(&root);
    assert!(to(&mails, "newcomer@example.org")[0].subject.contains("you now play Italy"), "{mails:#?}");
    powers[at] = ("newcomer@example.org".to_string(), power);
    passwords[at] = "newcomer1".to_string();
    assert!(!everyone(&powers).contains(&email));

    // Fall 1901: the newcomer holds; the others send nothing; the tick processes it.
    let t3 = "2026-04-02T12:00:00Z";
    send_at(
        &root,
        t3,
        "newcomer@example.org",
        "f@x",
        "SIGNON italy@open1 newcomer1\nBoard A\nA ven H\nBoard B\nA ven H\n",
    );
    let reply = outbox.new_mails(&root);
    assert!(reply[0].body.contains("A ven H"), "{reply:#?}");
    // A tick shortly before the deadline and one after it (ticks far apart are an outage).
    tick_at(&root, "2026-04-03T11:00:00Z");
    tick_at(&root, "2026-04-03T12:30:00Z");
    let mails = outbox.new_mails(&root);
    for who in everyone(&powers) {
        assert!(to(&mails, &who).iter().any(|m| m.subject.contains("Fall 1901")), "{who}: {mails:#?}");
    }

    // Every survivor votes for a draw by mail; the last vote ends the game, and the final
    // results (the result, the centers of every power) reach every player, the observer
    // and the master; the player who resigned is no longer mailed.
    let t4 = "2026-04-03T13:00:00Z";
    for (i, (email, power)) in powers.iter().enumerate() {
        let lower = power.to_lowercase();
        send_at(&root, t4, email, &format!("d{i}@x"), &format!("SIGNON {lower}@{GAME} {}\ndraw\n", passwords[i]));
    }
    let mails = outbox.new_mails(&root);
    for who in everyone(&powers) {
        let over = to(&mails, &who).into_iter().find(|m| m.subject == format!("{GAME}: the game is over"));
        let over = over.unwrap_or_else(|| panic!("{who}: {mails:#?}"));
        assert!(over.body.contains("Every surviving power voted for it."), "{}", over.body);
        assert!(over.body.to_lowercase().contains("draw"), "{}", over.body);
        for (_, power) in &powers {
            assert!(over.body.lines().any(|l| l.trim_start().starts_with(power.as_str())), "{power}: {}", over.body);
        }
    }
    assert!(to(&mails, &email).is_empty(), "{mails:#?}");
    // Issue 41.7: the end says how long the game lasted and who played each power, the
    // takeover included, by name (never an address), in the mail and in `list`.
    let over = to(&mails, "obs@example.org").into_iter().find(|m| m.subject.ends_with("the game is over")).unwrap();
    assert!(
        over.body.contains("Played from Spring 1901 movement to Fall 1901 movement: 1 year, 2 phases."),
        "{}",
        over.body
    );
    let old = email.split('@').next().unwrap();
    let italy = over.body.lines().find(|l| l.trim_start().starts_with("Italy ") && l.contains("then")).unwrap();
    assert!(italy.ends_with(&format!("Italy    {old}, then newcomer (from Fall 1901 movement)")), "{italy}");
    assert!(!over.body.contains('@'), "{}", over.body);
    // ... with the final board, as a picture to look at and one to zoom.
    let names: Vec<&str> = over.attachments.iter().map(String::as_str).collect();
    assert_eq!(names, ["open1-W1901A.png", "open1-W1901A.svg"], "{names:?}");
    send_at(&root, t4, "someone@example.org", "l@x", &format!("list {GAME}\n"));
    let listed = &outbox.new_mails(&root)[0].body;
    assert!(listed.contains("then newcomer (from Fall 1901 movement)"), "{listed}");
    assert!(listed.contains("1 year, 2 phases"), "{listed}");
    // The site's page of the game names who played, the takeover included, and no address.
    let site = root.join("www");
    judge_cli(t4, &root, &["site", "--judge", root.to_str().unwrap(), "-o", site.to_str().unwrap()]).ok();
    let page = std::fs::read_to_string(site.join("games").join(GAME).join("index.html")).unwrap();
    assert!(page.contains(&format!("{old}, then newcomer (from Fall 1901 movement)")), "{page}");
    assert!(!page.contains("@example.org"), "{page}");
    // After the end, an order is refused with the reason.
    send_at(&root, t4, "newcomer@example.org", "x@x", "SIGNON italy@open1 newcomer1\nBoard A\nA ven H\n");
    assert!(outbox.new_mails(&root)[0].body.contains("over"));
}

/// Issue 42.11: before the last join no power is anyone's: the master's `replace` and
/// `process` (by mail and on the command line) are refused, and nothing is journaled;
/// after the start both work as ever.
#[test]
fn before_the_start_the_master_can_neither_replace_nor_process() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    send(&root, &player(0), "join0@x", &format!("join {GAME} pass0word prefer france\n")).ok();
    outbox.new_mails(&root);
    let master_pw = {
        let out = judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    };
    let dir = root.join("games").join(GAME);
    let before = journal(&dir).len();
    let body = format!("SIGNON master@{GAME} {master_pw}\nreplace france x@example.org\nprocess\n");
    send(&root, "gm@example.org", "gm1@x", &body).ok();
    let mails = outbox.new_mails(&root);
    let reply = &to(&mails, "gm@example.org")[0].body;
    assert!(reply.contains("line 2: not done: the game has not started (6 seats are still open)"), "{reply}");
    assert!(reply.contains("line 3: not done: the game has not started: 6 seats are still open"), "{reply}");
    assert!(to(&mails, "x@example.org").is_empty(), "nobody is told they play France");
    let cli = judge_cli(NOW, &root, &["adjudicate", dir.to_str().unwrap(), "--force"]);
    assert_ne!(cli.code, 0);
    assert!(cli.stderr.contains("the game has not started"), "{}", cli.stderr);
    assert_eq!(journal(&dir).len(), before, "nothing journaled");
    let toml = std::fs::read_to_string(dir.join("game.toml")).unwrap();
    assert!(!toml.contains("x@example.org"), "{toml}");
}

/// Issue 42.3: votes belong to the player who cast them. A resigned player's draw vote
/// does not count for whoever takes the power over; and a resignation that leaves every
/// remaining player agreed ends the game at once (the votes counted again), with the
/// final results to everyone.
#[test]
fn votes_go_with_the_player_and_a_resignation_counts_them_again() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let (_, powers) = fill(&root, &mut outbox);
    let master_pw = {
        let out = judge_cli(NOW, &root, &["mail", "password", GAME, "master"]).ok();
        out.stdout.lines().next().unwrap().rsplit(' ').next().unwrap().to_string()
    };
    let password = |email: &str| format!("pass{}word", email.trim_start_matches('p').split('@').next().unwrap());
    let say = |i: usize, id: &str, body: &str| {
        let (email, power) = &powers[i];
        send(&root, email, id, &format!("SIGNON {}@{GAME} {}\n{body}\n", power.to_lowercase(), password(email))).ok();
    };
    // The first player votes for a draw, then resigns; a newcomer takes the power over.
    say(0, "v0@x", "draw");
    say(0, "r0@x", &format!("resign {}", powers[0].1.to_lowercase()));
    let lower = powers[0].1.to_lowercase();
    send(&root, "new@example.org", "t0@x", &format!("takeover {lower}@{GAME} newpassword\n")).ok();
    send(&root, "gm@example.org", "a0@x", &format!("SIGNON master@{GAME} {master_pw}\napprove {lower}\n")).ok();
    outbox.new_mails(&root);
    // Every other player votes for a draw: it does not pass, the newcomer has not voted.
    for i in 1..7 {
        say(i, &format!("v{i}@x"), "draw");
    }
    let mails = outbox.new_mails(&root);
    assert!(!mails.iter().any(|m| m.subject.ends_with("the game is over")), "{mails:#?}");
    let dir = root.join("games").join(GAME);
    let history = judge_cli(NOW, &root, &["history", dir.to_str().unwrap()]).ok().stdout;
    assert!(history.contains(&format!("{}'s votes withdrawn with its player", powers[0].1)), "{history}");
    // The newcomer, the only one not agreed, resigns: the draw passes at once.
    send(&root, "new@example.org", "r1@x", &format!("SIGNON {lower}@{GAME} newpassword\nresign {lower}\n")).ok();
    let mails = outbox.new_mails(&root);
    let reply = &to(&mails, "new@example.org")[0].body;
    assert!(reply.contains("every remaining player had voted the same: the game is over"), "{reply}");
    for (email, _) in &powers[1..] {
        let over: Vec<_> = to(&mails, email).into_iter().filter(|m| m.subject.ends_with("the game is over")).collect();
        assert_eq!(over.len(), 1, "{email}: {mails:#?}");
        assert!(over[0].body.contains("the game is over"), "{}", over[0].body);
    }
    assert!(!mails.iter().any(|m| m.subject.ends_with("is vacant")), "nobody is asked to take over a finished game");
    let status = judge_cli(NOW, &root, &["status", dir.to_str().unwrap(), "--json"]).ok().stdout;
    assert!(status.contains("\"over\": \"The game is drawn"), "{status}");
    // The journal replays to the same state (verify replays it).
    judge_cli(NOW, &root, &["verify", dir.to_str().unwrap()]).ok();
    // Issue 41.7: `list GAME` afterwards says how it ended, with who played what.
    send(&root, "someone@example.org", "l9@x", &format!("list {GAME}\n")).ok();
    let listed = &outbox.new_mails(&root)[0].body;
    assert!(listed.contains("The game is drawn between"), "{listed}");
    assert!(!listed.contains("The game is over."), "{listed}");
}

/// Issue 42.9: before the start, joining again and leaving take the password joined
/// with: a forged From cannot replace a player's password or take them out, and guesses
/// are limited as at a sign-on (the sixth is not even checked).
#[test]
fn joining_again_or_leaving_takes_the_password_joined_with_and_guesses_are_limited() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let mut answer = |id: &str, body: &str| {
        send(&root, &player(0), id, body).ok();
        outbox.new_mails(&root).into_iter().next().expect("an answer").body
    };
    // Issue 41.3: a misspelt power gets a "did you mean"; the list understood is echoed.
    let reply = answer("jx@x", &format!("join {GAME} pass0word prefer englnd\n"));
    assert!(reply.contains("no power `englnd` (did you mean England?)"), "{reply}");
    let reply = answer("j0@x", &format!("join {GAME} pass0word prefer france, eng\n"));
    assert!(reply.contains("Your preferences, best first: France, England."), "{reply}");
    let toml = || std::fs::read_to_string(root.join("games").join(GAME).join("game.toml")).unwrap();
    let before = toml();
    let reply = answer("j1@x", &format!("join {GAME} forgedword prefer turkey\n"));
    assert!(reply.contains("wrong password: give the one you joined with"), "{reply}");
    assert_eq!(toml(), before, "neither the password nor the preferences changed");
    for i in 2..6 {
        let reply = answer(&format!("l{i}@x"), &format!("leave {GAME} guess{i}word\n"));
        assert!(reply.contains("wrong password"), "{reply}");
    }
    let reply = answer("l9@x", &format!("leave {GAME} pass0word\n"));
    assert!(reply.contains("closed after 5 wrong passwords"), "{reply}");
    assert_eq!(toml(), before, "still joined");
    // The right password, with new preferences, once the hour has passed.
    let later = "2026-03-01T13:30:00Z";
    let raw = message(&player(0), "j9@x", &format!("join {GAME} pass0word prefer turkey\n"));
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    crate::harness::shadowjudge_at(later, Some(&root), &["mail", "ingest"], Some(raw.as_bytes()), &home).ok();
    assert!(toml().contains("turkey"), "{}", toml());
}

/// Issue 42.10: authority comes from From, never Reply-To (which says only where the
/// answer goes): a stranger whose Reply-To is a master creates nothing, and an `observe`
/// or `join` subscribes the From address, not the Reply-To's. A master creates at most
/// 10 running games by mail, and a game takes at most 50 observers.
#[test]
fn reply_to_gives_no_authority_and_games_and_observers_are_capped() {
    let (_tmp, root) = open_game();
    let mut outbox = Outbox::default();
    let forged = |from: &str, reply_to: &str, id: &str, body: &str| {
        let raw = message(from, id, body).replacen("\r\n", &format!("\r\nReply-To: {reply_to}\r\n"), 1);
        let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
        crate::harness::shadowjudge_at(NOW, Some(&root), &["mail", "ingest"], Some(raw.as_bytes()), &home).ok();
    };
    forged("eve@example.org", "boss@example.org", "f0@x", "create evil variant standard\n");
    let mails = outbox.new_mails(&root);
    let answer = &to(&mails, "boss@example.org")[0].body;
    assert!(answer.contains("only a game master named in the judge's judge.toml"), "{answer}");
    assert!(!root.join("games/evil").exists());
    forged("eve@example.org", "victim@example.org", "f1@x", &format!("observe {GAME}\njoin {GAME} evilsecret\n"));
    let mails = outbox.new_mails(&root);
    let toml = std::fs::read_to_string(root.join("games").join(GAME).join("game.toml")).unwrap();
    assert!(!toml.contains("victim@"), "the Reply-To address was subscribed:\n{toml}");
    assert!(toml.contains("eve@example.org"), "{toml}");
    // Issue 42.10: a forged From subscribes nobody: the code goes to the From address
    // only (never to Reply-To, never in the answer), and until it comes back from there
    // the address observes nothing.
    let answer = &to(&mails, "victim@example.org")[0].body;
    assert!(answer.contains("confirm from eve@example.org"), "{answer}");
    let code_line = crate::judge_dir::confirmation(&mails, "eve@example.org");
    assert!(!answer.contains(code_line.trim()), "{answer}");
    let observers = |toml: &str| -> Vec<String> {
        let t: toml::Table = toml.parse().unwrap();
        t.get("observers").and_then(|o| o.as_array()).into_iter().flatten().map(|o| o.to_string()).collect()
    };
    assert!(observers(&toml).is_empty(), "{toml}");
    forged("victim@example.org", "victim@example.org", "f2@x", &format!("observe {GAME} confirm 0123456789ab\n"));
    let mails = outbox.new_mails(&root);
    let wrong = &to(&mails, "victim@example.org")[0].body;
    assert!(wrong.contains("waits for that code"), "{wrong}");
    forged("eve@example.org", "eve@example.org", "f3@x", &code_line);
    let toml = std::fs::read_to_string(root.join("games").join(GAME).join("game.toml")).unwrap();
    assert_eq!(observers(&toml), ["\"eve@example.org\""], "{toml}");
    outbox.new_mails(&root);

    // Caps: ten running games per master by mail; fifty observers a game.
    for i in 0..10 {
        send(&root, "boss@example.org", &format!("c{i}@x"), &format!("create g{i} variant standard\n")).ok();
    }
    send(&root, "boss@example.org", "c10@x", "create g10 variant standard\n").ok();
    let mails = outbox.new_mails(&root);
    let refused =
        mails.iter().filter(|m| m.to == "boss@example.org" && m.body.contains("a master creates at most 10 by mail"));
    assert_eq!(refused.count(), 1, "{mails:#?}");
    assert!(!root.join("games/g10").exists());
    let mut mails = Vec::new();
    for i in 1..60 {
        let who = format!("o{i}@example.org");
        send(&root, &who, &format!("o{i}@x"), &format!("observe {GAME}\n")).ok();
        mails = outbox.new_mails(&root);
        if i < 50 {
            let line = crate::judge_dir::confirmation(&mails, &who);
            send(&root, &who, &format!("oc{i}@x"), &line).ok();
            outbox.new_mails(&root);
        }
    }
    let refused = &to(&mails, "o59@example.org")[0].body;
    assert!(refused.contains("this game has its 50 observers already"), "{refused}");
    let toml = std::fs::read_to_string(root.join("games").join(GAME).join("game.toml")).unwrap();
    assert!(!toml.contains("o59@example.org"), "{toml}");
}
