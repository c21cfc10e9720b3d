//! Duplexity playout speed (criterion; never a timed test): whole games between two
//! random players through the typed API, every roll through the verifiable dice (sha256
//! per roll), no words written. The throughput is in rounds, so criterion's figure is
//! rounds per second on one core. `cargo bench --bench duplexity`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shadowjudge::dice::{Dice, Seed};
use shadowjudge::games::duplexity::random::playout;

/// Games per measured batch, each capped at this many rounds.
const GAMES: u64 = 200;
const MAX_ROUNDS: u32 = 200;

fn play_batch() -> u64 {
    let mut rounds = 0;
    for n in 0..GAMES {
        let mut seed = [0u8; 32];
        seed[..8].copy_from_slice(&n.to_be_bytes());
        let mut dice = Dice::new(Seed::from_bytes(seed), "bench", 0);
        let mut rng = ChaCha8Rng::seed_from_u64(n);
        let g = playout(&mut dice, &mut rng, MAX_ROUNDS);
        rounds += u64::from(black_box(g.round));
    }
    rounds
}

fn playouts(c: &mut Criterion) {
    // The same seeds every batch: the rounds played are known before timing.
    let rounds = play_batch();
    let mut group = c.benchmark_group("duplexity");
    group.throughput(Throughput::Elements(rounds));
    group.bench_function(format!("random_playouts ({GAMES} games, {rounds} rounds)"), |b| b.iter(play_batch));
    group.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
