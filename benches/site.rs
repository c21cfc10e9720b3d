//! The public site (criterion; never a timed test): `shadowjudge site` over a judge of 200
//! standard games of 20 processed phases each. The judge is built once, outside the
//! timing: one game played to its 20th phase (every unit holding by default), copied 200
//! times. `shadow_worlds_example`: the site of the Shadow Worlds example game.
//! `write_200_games` is the whole command (open every game, draw, write the files);
//! `draw_200_games` only the drawing, from games already opened. `cargo bench --bench site`.

use chrono::{Duration, TimeZone, Utc};
use criterion::{criterion_group, criterion_main, Criterion};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::game::any;
use shadowjudge::game::schedule::DeadlinePolicy;
use shadowjudge::host::site::write_site;
use shadowjudge::site::SiteWriter;

mod common;

const GAMES: usize = 200;
const PHASES: usize = 20;

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("a game folder");
    for e in std::fs::read_dir(from).expect("the game") {
        let e = e.expect("a file");
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("a copy");
        }
    }
}

fn judge(root: &std::path::Path) -> std::path::PathBuf {
    let games = root.join("games");
    let first = games.join("g000");
    let mut now = Utc.with_ymd_and_hms(2026, 2, 1, 12, 0, 0).unwrap();
    let email = |power: &str| format!("{power}@example.org");
    common::standard_game(&first, "g000", &Map::standard(), &DeadlinePolicy::default(), email, now);
    let mut g = any::open(&first).expect("the game");
    let orders = [
        ("austria", "A vie - gal\nA bud - ser\nF tri - alb\n"),
        ("russia", "A war - gal\nF sev - bla\nA mos - ukr\nF stp/sc - bot\n"),
        ("turkey", "F ank - bla\nA con - bul\nA smy - con\n"),
        ("france", "A par - bur\nA mar - spa\nF bre - mao\n"),
    ];
    while g.public().steps.len() < PHASES {
        for (power, text) in orders {
            let who = any::Submit { who: any::Who::Power(power), text, check: false, at: None };
            let _ = g.play().expect("under way").submit(who, now);
        }
        g.play().expect("under way").adjudicate(true, false, now).expect("a phase");
        now += Duration::hours(1);
    }
    for i in 1..GAMES {
        copy_dir(&first, &games.join(format!("g{i:03}")));
    }
    games
}

fn site(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    // The Shadow Worlds example (both boards, the ledger, 4 phases): the whole command.
    let example = tmp.path().join("example");
    copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shadow-worlds/game"),
        &example.join("games/shadow-example"),
    );
    c.bench_function("site/shadow_worlds_example", |b| {
        b.iter(|| {
            let run = write_site(&example.join("games"), &example.join("www")).expect("the site");
            assert_eq!(run.games, 1, "{:?}", run.problems);
        })
    });
    let games = judge(tmp.path());
    let out = tmp.path().join("www");
    let mut group = c.benchmark_group("site");
    group.sample_size(10);
    group.bench_function("write_200_games", |b| {
        b.iter(|| {
            let run = write_site(&games, &out).expect("the site");
            assert_eq!(run.games, GAMES, "{:?}", run.problems);
        })
    });
    let opened: Vec<(String, any::PublicGame)> = (0..GAMES)
        .map(|i| {
            let name = format!("g{i:03}");
            let g = any::open_read_only(&games.join(&name)).expect("a game").public();
            (name, g)
        })
        .collect();
    group.bench_function("draw_200_games", |b| {
        b.iter(|| {
            let files = SiteWriter::new().site(&opened);
            assert!(files.len() > GAMES * PHASES * 2);
        })
    });
    group.finish();
}

criterion_group!(benches, site);
criterion_main!(benches);
