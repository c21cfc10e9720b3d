//! Diplomacy variants as data: a game of a shipped variant made, joined and played by
//! mail in the variant's own names, with its board drawn; Shadow Worlds on another map.

use std::path::Path;

use crate::judge_dir::{judge_cli, message, Eml, Outbox};

const NOW: &str = "2026-03-01T12:00:00Z";

fn send(root: &Path, from: &str, id: &str, body: &str) {
    let raw = message(from, id, body);
    let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
    let out = crate::harness::shadowjudge_at(NOW, Some(root), &["mail", "ingest"], Some(raw.as_bytes()), &home);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

fn to<'a>(mails: &'a [Eml], address: &str) -> Vec<&'a Eml> {
    mails.iter().filter(|m| m.to == address).collect()
}

#[test]
fn an_ancient_mediterranean_game_is_created_joined_and_played_by_mail() {
    let (_tmp, root) = crate::judge_dir::judge_with_a_master();
    let mut outbox = Outbox::default();
    send(&root, "boss@example.org", "c0@x", "create anc variant ancmed\n");
    let mails = outbox.new_mails(&root);
    let made = to(&mails, "boss@example.org").into_iter().find(|m| m.subject.contains("game master")).unwrap();
    assert!(made.body.contains("anc"), "{}", made.body);
    let listed = judge_cli(NOW, &root, &["list"]).ok().stdout;
    assert!(listed.contains("0 of 5"), "{listed}");
    // The game is listed as the variant it is, with its own powers to prefer.
    let anc = judge_cli(NOW, &root, &["list", "anc"]).ok().stdout;
    assert!(anc.starts_with("anc (ancmed)"), "{anc}");
    assert!(anc.contains("`join anc PASSWORD prefer carthage egypt ...`"), "{anc}");
    let players = ["ann", "bob", "cy", "di", "ed"];
    for (i, who) in players.iter().enumerate() {
        send(&root, &format!("{who}@example.org"), &format!("j{i}@x"), &format!("join anc {who}secret1\n"));
    }
    let mails = outbox.new_mails(&root);
    // Each player is told their power, and sends orders in the variant's names.
    let mut seen = Vec::new();
    for who in players {
        let address = format!("{who}@example.org");
        let start = to(&mails, &address).into_iter().find(|m| m.subject.contains("you play")).unwrap();
        let power = start.subject.rsplit(' ').next().unwrap().to_string();
        // The example orders are the player's own units, in the variant's names.
        let example = format!("SIGNON {}@anc yourpassword", power.to_lowercase());
        assert!(start.body.contains(&example), "{}", start.body);
        let orders = match power.as_str() {
            "Rome" => "F nea - tyrrhenian sea\nA roma - etruria\nA rav - venetia\n",
            "Carthage" => "F tha - pun\nA car - mauretania\nA cir - num\n",
            "Egypt" => "F ale - egy\nA mem - cyr\nA thb - sinai\n",
            "Greece" => "F spa - aeg\nA ath - epirus\nA mac - byz\n",
            "Persia" => "F sid - cil\nA ant - cap\nA dam - arabia\n",
            other => panic!("{other} is no power of Ancient Mediterranean"),
        };
        seen.push(power.clone());
        let body = format!("signon {}@anc {who}secret1\n{orders}", power.to_lowercase());
        send(&root, &address, &format!("o-{who}@x"), &body);
        let replies = outbox.new_mails(&root);
        let reply = &to(&replies, &address)[0].body;
        assert!(!reply.contains("not taken") && !reply.contains("did you mean"), "{reply}");
    }
    seen.sort();
    assert_eq!(seen, ["Carthage", "Egypt", "Greece", "Persia", "Rome"]);
    // Every order in: the phase is adjudicated at the tick, the board drawn.
    let out = judge_cli("2026-03-01T12:20:00Z", &root, &["mail", "tick"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mails = outbox.new_mails(&root);
    let results = to(&mails, "ann@example.org").into_iter().find(|m| m.subject.contains("Spring 1")).unwrap();
    assert!(results.body.contains("Ancient Mediterranean Diplomacy"), "{}", results.body);
    assert!(results.body.contains("A mac - byz"), "{}", results.body);
    assert!(results.attachments.iter().any(|a| a.ends_with(".png")), "{:?}", results.attachments);
    let status = judge_cli(NOW, &root, &["status", "games/anc"]).ok().stdout;
    assert!(status.contains("Fall 1 movement"), "{status}");
    // The site shows the game and its board.
    let site = root.join("site-out");
    let out = judge_cli(NOW, &root, &["site", "--judge", ".", "--out", site.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let page = std::fs::read_to_string(site.join("games/anc/index.html")).unwrap();
    assert!(page.contains("<svg") || page.contains(".svg"), "{page}");
    assert!(page.contains("Diplomacy (Ancient Mediterranean)"), "{page}");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("Diplomacy (Ancient Mediterranean)"), "{index}");
}

#[test]
fn shadow_worlds_plays_on_another_variants_map_with_its_own_ledger() {
    let tmp = tempfile::tempdir().unwrap();
    let players = tmp.path().join("players");
    std::fs::write(&players, "rome, Ann, ann@example.org\ncarthage, Bob, bob@example.org\n").unwrap();
    let dir = tmp.path().join("sw");
    let args = ["new", dir.to_str().unwrap(), "--variant", "shadow-worlds", "--map", "ancmed"];
    let out = crate::harness::shadowjudge_at(
        NOW,
        None,
        &[&args[..], &["--players", players.to_str().unwrap()]].concat(),
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("shadow-worlds on Ancient Mediterranean"), "{}", out.stdout);
    assert!(out.stdout.contains("victory at 34 centers"), "{}", out.stdout);
    let ledger = crate::harness::shadowjudge_at(NOW, None, &["ledger", dir.to_str().unwrap()], None, &[]);
    assert_eq!(ledger.code, 0, "{}", ledger.stderr);
    // Rome's three home centers, owned on both boards, count twice: 6.
    let rome = ledger.stdout.lines().find(|l| l.starts_with("Rome")).unwrap();
    assert!(rome.contains("count  6 (control list  3)"), "{}", ledger.stdout);
    // The short game is won at the map's centers for victory.
    let short = tmp.path().join("sw2");
    let out = crate::harness::shadowjudge_at(
        NOW,
        None,
        &[
            "new",
            short.to_str().unwrap(),
            "--variant",
            "shadow-worlds",
            "--map",
            "pure",
            "--short-game",
            "--players",
            players.to_str().unwrap(),
        ],
        None,
        &[],
    );
    assert_ne!(out.code, 0, "rome is no power of Pure");
    assert!(out.stderr.contains("unknown power `rome`"), "{}", out.stderr);
    std::fs::write(
        &players,
        "austria, Ann, ann@example.org
",
    )
    .unwrap();
    let args = ["new", short.to_str().unwrap(), "--variant", "shadow-worlds", "--map", "pure", "--short-game"];
    let out = crate::harness::shadowjudge_at(
        NOW,
        None,
        &[&args[..], &["--players", players.to_str().unwrap()]].concat(),
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("short game: victory at 4 centers"), "{}", out.stdout);
    // An unknown variant or map names the known ones.
    let args = ["new", "elsewhere", "--variant", "colonial", "--players", players.to_str().unwrap()];
    let out = crate::harness::shadowjudge_at(NOW, None, &args, None, &[]);
    assert!(out.stderr.contains("ancmed, modern, pure, france-austria"), "{}", out.stderr);
}

#[test]
fn a_variant_is_shown_checked_and_listed() {
    let out = crate::harness::shadowjudge_at(NOW, None, &["map", "list"], None, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for name in ["standard", "ancmed", "modern", "pure", "france-austria"] {
        assert!(out.stdout.lines().any(|l| l.starts_with(name)), "{}", out.stdout);
    }
    let out = crate::harness::shadowjudge_at(NOW, None, &["map", "show", "ancmed"], None, &[]);
    assert!(out.stdout.contains("Baleares"), "{}", out.stdout);
    let out = crate::harness::shadowjudge_at(NOW, None, &["map", "check", "france-austria"], None, &[]);
    assert!(out.stdout.contains("2 powers") && out.stdout.contains("no problem found"), "{}", out.stdout);
    let out = crate::harness::shadowjudge_at(NOW, None, &["map", "show", "colonial"], None, &[]);
    assert!(out.stderr.contains("the shipped maps are standard, ancmed"), "{}", out.stderr);
}
