//! Overdue playout speed (criterion; never a timed test).
//!
//! `overdue/random_playouts`: 100 seeded random games (3-10 players, 10 rounds, 3 dice
//! each), every turn a random legal turn file sent through the engine as the judge sends
//! it (the grammar, the checks, the turns sent ahead, the deadline's squeeze-ins and every
//! roll through the verifiable dice). Throughput is counted in rounds: the
//! elements per second are rounds per second.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shadowjudge::dice::Seed;
use shadowjudge::games::overdue::random::{playout, RandomPlayer};
use shadowjudge::games::Options;

const GAMES: u64 = 100;
const ROUNDS: u64 = 10;

fn random_playouts(c: &mut Criterion) {
    let options: Options = [("rounds".to_string(), ROUNDS.to_string())].into_iter().collect();
    let mut group = c.benchmark_group("overdue");
    group.throughput(Throughput::Elements(GAMES * ROUNDS));
    group.bench_function("random_playouts", |b| {
        b.iter(|| {
            for game in 0..GAMES {
                let mut bytes = [0u8; 32];
                bytes[..8].copy_from_slice(&game.to_be_bytes());
                let mut chooser = RandomPlayer::new(game);
                let players = 3 + (game % 8) as usize;
                let done = playout(players, &options, Seed::from_bytes(bytes), &mut chooser).expect("a legal game");
                black_box(done);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, random_playouts);
criterion_main!(benches);
