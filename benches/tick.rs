//! `mail tick` over a judge directory of 2,000 idle standard games (criterion; never a
//! timed test). The directory is built once, outside the timing: `judge.toml` and 2,000
//! games of seven players each, created at one instant whose deadlines are days away.
//! Each iteration runs `tick_judge`, the function behind `shadowjudge mail tick`, in this
//! process at that instant: no mail is due and every game is left alone. The first tick
//! (criterion's warm-up) opens every game in full and keeps its glance (`glance.json`);
//! the ticks measured pass over each game at a glance, as a judge's every tick after the
//! first does for a game nobody touched. `first_look` measures the tick that has no
//! glance to go by (each game's `glance.json` removed before it, outside the timing):
//! every game opened in full and its glance kept. `with_site`: the idle tick of a judge
//! that keeps a public site (`[site]`), every game already drawn. `500_idle_duplexity_games`
//! and its `_first_look`: the same two ticks over small games, which keep a glance too.
//! `cargo bench --bench tick`.

use chrono::{TimeZone, Utc};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::host::tick_judge;
use shadowjudge::mail::home::{JudgeHome, SiteSettings};

mod common;

const GAMES: usize = 2_000;

fn judge_dir(root: &std::path::Path) -> JudgeHome {
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").expect("judge.toml");
    let home = JudgeHome::open(root).expect("the judge directory");
    let map = Map::standard();
    let now = Utc.with_ymd_and_hms(2026, 2, 1, 12, 0, 0).unwrap();
    for i in 0..GAMES {
        let name = format!("g{i:04}");
        let email = |power: &str| format!("{power}-{i}@example.org");
        common::standard_game(&home.games_dir().join(&name), &name, &map, &home.config.deadlines, email, now);
    }
    home
}

/// A judge directory of `SMALL_GAMES` Duplexity games for two, each with its first report
/// already mailed (so nothing is owed), created at one instant.
fn small_judge_dir(root: &std::path::Path) -> JudgeHome {
    use shadowjudge::game::session::turn::{self as turn_session, TurnPlayer, TurnSettings};
    std::fs::write(root.join("judge.toml"), "[mail]\naddress = \"judge@example.org\"\n").expect("judge.toml");
    let home = JudgeHome::open(root).expect("the judge directory");
    let now = Utc.with_ymd_and_hms(2026, 2, 1, 12, 0, 0).unwrap();
    for i in 0..SMALL_GAMES {
        let name = format!("d{i:04}");
        let players = ["ann", "bob"]
            .map(|n| TurnPlayer {
                name: n.into(),
                email: format!("{n}-{i}@example.org"),
                timezone: None,
                password_hash: None,
                reports: None,
            })
            .to_vec();
        let settings = TurnSettings {
            name: name.clone(),
            game: "duplexity".into(),
            observers: Vec::new(),
            observer_passwords: Default::default(),
            deadlines: home.config.deadlines.clone(),
            players,
            master: Default::default(),
            word_list: None,
            seats: Default::default(),
        };
        let seed = shadowjudge::dice::Seed::from_bytes([(i % 251) as u8; 32]);
        turn_session::create(&home.games_dir().join(&name), &settings, &Default::default(), seed, now)
            .expect("a Duplexity game");
    }
    // The first reports go out once, outside the timing.
    tick_judge(&home, now, &mut |_| Ok(())).expect("the first tick");
    home
}

const SMALL_GAMES: usize = 500;

/// One tick at `now` over a judge whose games are all idle: it sends nothing and reads
/// every game.
fn idle_tick(home: &JudgeHome, now: chrono::DateTime<Utc>) {
    let done = tick_judge(home, now, &mut |_| panic!("an idle tick sends no mail")).expect("the tick");
    assert!(done.iter().all(|l| !l.contains("not read")), "{done:?}");
}

/// Remove every game's glance, so the next tick opens each game in full.
fn forget_glances(home: &JudgeHome) {
    for game in std::fs::read_dir(home.games_dir()).expect("the games") {
        let glance = game.expect("a game").path().join(shadowjudge::game::glance::GLANCE_FILE);
        std::fs::remove_file(glance).expect("its glance");
    }
}

fn tick(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let home = judge_dir(tmp.path());
    let now = Utc.with_ymd_and_hms(2026, 2, 1, 13, 0, 0).unwrap();
    let mut group = c.benchmark_group("mail_tick");
    group.sample_size(10);
    group.bench_function("2000_idle_standard_games", |b| b.iter(|| idle_tick(&home, now)));
    group.bench_function("2000_idle_standard_games_first_look", |b| {
        b.iter_batched(|| forget_glances(&home), |()| idle_tick(&home, now), BatchSize::PerIteration)
    });
    // The same idle tick keeping a public site (`[site] dir`): the first tick (warm-up)
    // draws every game; the ticks measured find every game as it was drawn.
    let mut with_site = home.clone();
    with_site.config.site = Some(SiteSettings { dir: tmp.path().join("www") });
    group.bench_function("2000_idle_standard_games_with_site", |b| {
        b.iter(|| {
            let done = tick_judge(&with_site, now, &mut |_| panic!("an idle tick sends no mail")).expect("the tick");
            assert!(done.iter().all(|l| !l.contains("not read") && !l.contains("not drawn")), "{done:?}");
        })
    });
    let small_tmp = tempfile::tempdir().expect("a temporary directory");
    let small = small_judge_dir(small_tmp.path());
    group.bench_function("500_idle_duplexity_games", |b| b.iter(|| idle_tick(&small, now)));
    group.bench_function("500_idle_duplexity_games_first_look", |b| {
        b.iter_batched(|| forget_glances(&small), |()| idle_tick(&small, now), BatchSize::PerIteration)
    });
    group.finish();
}

criterion_group!(benches, tick);
criterion_main!(benches);
