//! The public site (`shadowjudge site`, `[site]` in judge.toml): nothing secret ever
//! reaches it, every player text is escaped, and `mail tick` redraws only the games that
//! changed.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::harness::shadowjudge_at;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::any::{self, PressTo, Role, Submit, Who};
use shadowjudge::game::journal::fingerprint;
use shadowjudge::game::session::diplomacy as session;
use shadowjudge::game::settings::{parse_players, Settings, VariantKind};
use shadowjudge::host::site::{refresh_site, write_site, SITE_RECORD};

const T0: &str = "2025-03-01T12:00:00Z";
const SEED: &str = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e7abcd";
const HASH_FRANCE: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$SECRETHASHFRANCEaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const HASH_MASTER: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$SECRETHASHMASTERbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn at(t: &str) -> DateTime<Utc> {
    t.parse().unwrap()
}

/// Every file under `dir`, with its text.
fn site_files(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
                out.push((p, text));
            }
        }
    }
    assert!(out.len() > 3, "the site has only {} files", out.len());
    out
}

/// The files of the site that hold `needle`, ignoring case.
fn holding(files: &[(PathBuf, String)], needle: &str) -> Vec<PathBuf> {
    let needle = needle.to_lowercase();
    files.iter().filter(|(_, t)| t.to_lowercase().contains(&needle)).map(|(p, _)| p.clone()).collect()
}

/// A judge directory with `judge.toml`.
fn judge(tmp: &Path) -> PathBuf {
    let root = tmp.join("judge");
    std::fs::create_dir_all(root.join("games")).unwrap();
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").unwrap();
    root
}

/// A standard game full of secrets: addresses, password hashes, an observer, private
/// press, orders of the phase under way. Spring 1901 is processed; Fall 1901 is not.
fn secret_diplomacy(root: &Path, players: &str, name: &str) -> PathBuf {
    let map = Map::standard();
    let mut settings = Settings::new(name, VariantKind::Standard);
    settings.players = parse_players(players, "players", &map).unwrap();
    settings.players[0].password_hash = Some(HASH_FRANCE.into());
    settings.master.email = Some("gm-secret@example.org".into());
    settings.master.password_hash = Some(HASH_MASTER.into());
    settings.observers = vec!["observer-secret@example.org".into()];
    let path = root.join("games").join("secrets");
    session::create(&path, &settings, GameState::start(&map, 1), at(T0)).unwrap();
    let mut g = any::open(&path).unwrap();
    let now = at("2025-03-02T12:00:00Z");
    let submit = |who, text| Submit { who: Who::Power(who), text, check: false, at: None };
    g.play().unwrap().submit(submit("france", "A par - bur\nA mar - spa\nF bre - mao\n"), now).unwrap();
    g.press()
        .unwrap()
        .send(&Role::Seat("France".into()), &PressTo::All, "Peace to all: PUBLIC-PRESS-1234", now)
        .unwrap();
    g.press()
        .unwrap()
        .send(&Role::Seat("France".into()), &PressTo::Powers(vec!["italy".into()]), "PRIVATE-PRESS-7788", now)
        .unwrap();
    g.play().unwrap().adjudicate(true, false, now).unwrap();
    // Fall 1901: orders in, not processed.
    g.play().unwrap().submit(submit("germany", "Army Kiel - Holland\nA ber - sil\n"), now).unwrap();
    g.press()
        .unwrap()
        .send(&Role::Master, &PressTo::Powers(vec!["germany".into()]), "MASTER-WHISPER-5511", now)
        .unwrap();
    path
}

/// A Duplexity game with a known seed, under way (its seed not revealed), played with
/// the example's first turn files.
fn secret_duplexity(root: &Path, tmp: &Path) {
    let players = tmp.join("players.txt");
    std::fs::write(&players, "ann, ann-secret@example.org\nbob, bob-secret@example.org\n").unwrap();
    let dir = root.join("games").join("dx");
    let (d, p) = (dir.to_str().unwrap(), players.to_str().unwrap());
    shadowjudge_at(
        T0,
        None,
        &["new", d, "--name", "dx", "--game", "duplexity", "--players", p, "--seed", SEED],
        None,
        &[],
    )
    .ok();
    let orders = Path::new(env!("CARGO_MANIFEST_DIR")).join("orders/duplexity");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&orders).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files.iter().take(6) {
        let player = f.file_stem().unwrap().to_str().unwrap().split('-').nth(1).unwrap().to_string();
        // With this seed some of the example's turns are refused: what matters is that
        // the game is under way.
        shadowjudge_at(T0, None, &["submit", d, "--player", &player, f.to_str().unwrap()], None, &[]);
    }
}

const PLAYERS: &str = "france, Ann Archer, ann-secret@example.org, Europe/Paris\n\
                       italy, Bob Bell, bob-secret@example.org\n\
                       germany, Cy Cole, cy-secret@example.org\n";

#[test]
fn nothing_secret_reaches_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    secret_diplomacy(&root, PLAYERS, "secrets");
    secret_duplexity(&root, tmp.path());
    let out = tmp.path().join("site");
    let run = write_site(&root.join("games"), &out).unwrap();
    assert!(run.problems.is_empty(), "{:?}", run.problems);
    assert_eq!(run.games, 2);
    let files = site_files(&out);

    // What is public is there: the processed phase's orders, the broadcast, the players,
    // the small game's steps.
    for public in [
        "A par - bur",
        "PUBLIC-PRESS-1234",
        "Ann Archer",
        "Spring 1901 movement",
        "The game begins",
        "Dice: commitment",
    ] {
        assert!(!holding(&files, public).is_empty(), "`{public}` is missing from the site");
    }
    // What is not, nowhere.
    let mut secrets = vec![
        "secret@example.org".to_string(),
        "@example.org".to_string(),
        "PRIVATE-PRESS-7788".to_string(),
        "MASTER-WHISPER-5511".to_string(),
        "kie - hol".to_string(),
        "Army Kiel".to_string(),
        "ber - sil".to_string(),
        "argon2".to_string(),
        "SECRETHASH".to_string(),
        fingerprint(HASH_FRANCE),
        SEED.to_string(),
        SEED[..16].to_string(),
        "observer".to_string(),
        "Europe/Paris".to_string(),
    ];
    secrets.push(std::fs::read_to_string(root.join("games/dx/seed.json")).unwrap_or_default().trim().to_string());
    // The game's own files do hold them: the site is drawn from a game that knows them.
    let game_files = site_files(&root.join("games"));
    for on_disk in ["secret@example.org", "PRIVATE-PRESS-7788", "MASTER-WHISPER-5511", "Army Kiel", "SECRETHASH", SEED]
    {
        assert!(!holding(&game_files, on_disk).is_empty(), "`{on_disk}` is not in the games' files");
    }
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        let found = holding(&files, secret);
        assert!(found.is_empty(), "the secret `{secret}` is on the site: {found:?}");
    }
}

#[test]
fn player_text_cannot_inject_html() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    let evil = "france, <script>alert(1)</script>, ann@example.org\n\
                italy, \"><img src=x onerror=alert(2)>, bob@example.org\n\
                germany, Cy & 'Co', cy@example.org\n";
    let path = secret_diplomacy(&root, evil, "<b>bold</b> game");
    let mut g = any::open(&path).unwrap();
    g.press()
        .unwrap()
        .send(&Role::Seat("Italy".into()), &PressTo::All, "</pre><iframe src=\"//evil\"></iframe>", at(T0))
        .unwrap();
    drop(g);
    let out = tmp.path().join("site");
    write_site(&root.join("games"), &out).unwrap();
    let files = site_files(&out);
    for raw in ["<script", "<img src=x", "<iframe", "<b>bold", "onerror=alert(2)>"] {
        let found = holding(&files, raw);
        assert!(found.is_empty(), "`{raw}` reached the site unescaped: {found:?}");
    }
    for escaped in
        ["&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;iframe src=&quot;//evil&quot;&gt;", "Cy &amp; &#39;Co&#39;"]
    {
        assert!(!holding(&files, escaped).is_empty(), "`{escaped}` is not on the site");
    }
}

#[test]
fn the_tick_redraws_only_the_games_that_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    let path = secret_diplomacy(&root, PLAYERS, "secrets");
    secret_duplexity(&root, tmp.path());
    let (games, out, record) = (root.join("games"), tmp.path().join("site"), root.join(SITE_RECORD));

    let first = refresh_site(&games, &out, &record).unwrap();
    assert_eq!(first.drawn, ["dx", "secrets"]);
    assert!(out.join("games/secrets/S1901M.html").is_file());
    assert!(!out.join("games/secrets/F1901M.html").exists());

    let idle = refresh_site(&games, &out, &record).unwrap();
    assert!(idle.drawn.is_empty(), "{idle:?}");
    assert_eq!(idle.games, 2);

    let mut g = any::open(&path).unwrap();
    g.play().unwrap().adjudicate(true, false, at("2025-03-04T12:00:00Z")).unwrap();
    drop(g);
    let after = refresh_site(&games, &out, &record).unwrap();
    assert_eq!(after.drawn, ["secrets"]);
    let page = std::fs::read_to_string(out.join("games/secrets/F1901M.html")).unwrap();
    assert!(page.contains("A kie - hol"), "the processed Fall orders are shown");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("Fall 1901 retreats") || index.contains("Winter 1901"), "{index}");

    // A site folder that lost its index is drawn whole again.
    std::fs::remove_file(out.join("index.html")).unwrap();
    assert_eq!(refresh_site(&games, &out, &record).unwrap().drawn.len(), 2);
}

#[test]
fn the_site_command_writes_the_site_and_refuses_the_judge_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    secret_diplomacy(&root, PLAYERS, "secrets");
    let (j, out) = (root.to_str().unwrap(), tmp.path().join("www"));
    let run = shadowjudge_at(T0, None, &["site", "--judge", j, "-o", out.to_str().unwrap()], None, &[]).ok();
    assert!(run.stdout.contains("1 game in"), "{}", run.stdout);
    for f in
        ["index.html", "style.css", "games/secrets/index.html", "games/secrets/board.svg", "games/secrets/S1901M.svg"]
    {
        assert!(out.join(f).is_file(), "{f} is missing");
    }
    let refused = shadowjudge_at(T0, None, &["site", "--judge", j, "-o", j], None, &[]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(refused.stderr.contains("cannot be or hold the judge directory"), "{}", refused.stderr);
    // Issue 42.12: nor any spelling of the judge's own folders, relative to where it runs.
    for inside in ["games/..", "spool", "outbox", "x/../claims"] {
        let refused = shadowjudge_at(T0, Some(&root), &["site", "--judge", j, "-o", inside], None, &[]);
        assert_eq!(refused.code, 2, "{inside}: {refused:?}");
        assert!(refused.stderr.contains("give a folder of its own"), "{inside}: {}", refused.stderr);
    }
    assert!(!root.join("spool/index.html").exists() && !root.join("index.html").exists());
    let nowhere = shadowjudge_at(T0, None, &["site", "--judge", j], None, &[]);
    assert_eq!(nowhere.code, 2);
    assert!(nowhere.stderr.contains("give -o DIR"), "{}", nowhere.stderr);
}

#[test]
fn every_page_has_a_title_a_heading_and_alt_text_on_every_picture() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    secret_diplomacy(&root, PLAYERS, "secrets");
    secret_duplexity(&root, tmp.path());
    let out = tmp.path().join("site");
    write_site(&root.join("games"), &out).unwrap();
    let pages: Vec<_> =
        site_files(&out).into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "html")).collect();
    assert!(pages.len() > 5, "{} pages", pages.len());
    for (path, text) in &pages {
        assert!(text.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"), "{}", path.display());
        assert!(text.contains("name=\"viewport\""), "{}: no viewport", path.display());
        let title = text.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or("");
        assert!(!title.trim().is_empty(), "{}: no title", path.display());
        assert_eq!(text.matches("<h1>").count(), 1, "{}: one heading", path.display());
        for img in text.split("<img ").skip(1) {
            let alt = img.split("alt=\"").nth(1).and_then(|a| a.split('"').next()).unwrap_or("");
            assert!(alt.len() > 20, "{}: a picture without alt text: {img:.80}", path.display());
        }
    }
    let game = std::fs::read_to_string(out.join("games/secrets/index.html")).unwrap();
    assert!(game.contains("<img src=\"board.svg\""), "the board now is drawn");
    let svg = std::fs::read_to_string(out.join("games/secrets/board.svg")).unwrap();
    for colour in ["#D55E00", "#0072B2", "#56B4E9"] {
        assert!(svg.contains(colour) && game.contains(colour), "{colour}: the map's palette");
    }
}

/// A game removed from the judge leaves the site: its pages and pictures go, by the tick
/// and by `shadowjudge site`, while a file of the site's owner in its folder stays.
#[test]
fn a_removed_game_leaves_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    secret_diplomacy(&root, PLAYERS, "secrets");
    secret_duplexity(&root, tmp.path());
    let (games, out, record) = (root.join("games"), tmp.path().join("site"), root.join(SITE_RECORD));
    refresh_site(&games, &out, &record).unwrap();
    assert!(out.join("games/dx/index.html").is_file());

    std::fs::remove_dir_all(games.join("dx")).unwrap();
    let run = refresh_site(&games, &out, &record).unwrap();
    assert_eq!(run.games, 1);
    assert!(!out.join("games/dx").exists(), "the removed game's folder is gone");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!index.contains("games/dx/"), "{index}");
    assert!(out.join("games/secrets/index.html").is_file(), "the other game stays");

    // The whole-site writer does the same; a file of the site's owner keeps its folder.
    std::fs::create_dir_all(out.join("games/old")).unwrap();
    std::fs::write(out.join("games/old/index.html"), "<html></html>").unwrap();
    std::fs::write(out.join("games/old/notes.txt"), "mine").unwrap();
    write_site(&games, &out).unwrap();
    assert!(!out.join("games/old/index.html").exists());
    assert_eq!(std::fs::read_to_string(out.join("games/old/notes.txt")).unwrap(), "mine");
    assert!(out.join("games/secrets/index.html").is_file());
}

/// Players who joined by mail are shown by their From header's display name, else their
/// address's local part: no address reaches any page of the site by any road. In a
/// gunboat game nobody's name is shown while the game is under way.
#[test]
fn players_who_joined_by_mail_show_no_address_on_the_site() {
    use crate::judge_dir::{judge_cli, message};
    const NOW: &str = "2026-03-01T12:00:00Z";
    let froms = [
        "Ann Smith <ann.smith@example.org>",
        "\"eve@evil.example\" <eve@example.org>",
        "=?UTF-8?Q?Zo=C3=AB_Quinn?= <zoe@example.org>",
        "p3@example.org",
        "<p4@example.org>",
        "p5@example.org",
        "Sam <p6@example.org>",
    ];
    for gunboat in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let root = judge(tmp.path());
        judge_cli(NOW, &root, &["new", "g", "--judge", ".", "--open", "--master", "gm@example.org"]).ok();
        if gunboat {
            let toml = root.join("games/g/game.toml");
            let text = std::fs::read_to_string(&toml).unwrap();
            std::fs::write(&toml, format!("press = \"none\"\n{text}")).unwrap();
        }
        let home = [("SHADOWJUDGE_HOME", root.to_str().unwrap())];
        for (i, from) in froms.iter().enumerate() {
            let raw = message(from, &format!("join{i}@x"), &format!("join g pass{i}word\n"));
            shadowjudge_at(NOW, Some(&root), &["mail", "ingest"], Some(raw.as_bytes()), &home).ok();
        }
        let toml = std::fs::read_to_string(root.join("games/g/game.toml")).unwrap();
        assert!(toml.contains("name = \"Ann Smith\""), "{toml}");
        let out = tmp.path().join("site");
        judge_cli(NOW, &root, &["site", "-o", out.to_str().unwrap()]).ok();
        let files = site_files(&out);
        let pages: Vec<(PathBuf, String)> =
            files.iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "html" || e == "svg")).cloned().collect();
        assert!(pages.len() >= 2, "{pages:?}");
        let with_at = holding(&pages, "@");
        assert!(with_at.is_empty(), "an address on the site: {with_at:?}");
        for address in ["ann.smith@", "example.org", "evil.example"] {
            let found = holding(&files, address);
            assert!(found.is_empty(), "`{address}` is on the site: {found:?}");
        }
        let game = std::fs::read_to_string(out.join("games/g/index.html")).unwrap();
        let names = ["Ann Smith", "Zoë Quinn", ">eve</td>", ">p3</td>", ">p4</td>", ">Sam</td>"];
        for name in names {
            assert_eq!(game.contains(name), !gunboat, "gunboat {gunboat}: `{name}` in {game}");
        }
        assert_eq!(game.contains("not shown"), gunboat, "{game}");
    }
}

/// Issue 41.8: a small game's steps are listed #1, #2, #3 ... (not by journal entry, with
/// gaps), each titled with what happened in it, so that several in one step differ.
#[test]
fn a_small_games_steps_are_numbered_in_order_and_say_what_happened() {
    let tmp = tempfile::tempdir().unwrap();
    let root = judge(tmp.path());
    secret_duplexity(&root, tmp.path());
    let out = tmp.path().join("site");
    write_site(&root.join("games"), &out).unwrap();
    let page = std::fs::read_to_string(out.join("games/dx/index.html")).unwrap();
    let codes: Vec<usize> = page
        .split("\">#")
        .skip(1)
        .filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse().ok()))
        .collect();
    assert!(codes.len() >= 3, "{page}");
    assert_eq!(codes, (1..=codes.len()).collect::<Vec<_>>(), "{page}");
    assert!(page.contains(": ann played") || page.contains(": bob played"), "{page}");
}
