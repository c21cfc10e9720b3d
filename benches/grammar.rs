//! Order grammar speed (criterion; never a timed test): a one-megabyte order file of
//! sections, moves, coasts, convoys, comments and one misspelt line in five, read whole.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::order::grammar::parse_orders;

fn benches(c: &mut Criterion) {
    let map = Map::standard();
    let block = "France:\nA par - bur\nF mao - spa/nc # comment\nF nth C A lon - bel\nA par - Bugundy\n\n";
    let text = block.repeat(1_000_000 / block.len() + 1);
    let mut group = c.benchmark_group("grammar");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.bench_function("one_megabyte_file", |b| b.iter(|| parse_orders(black_box(&text), &map)));
    group.finish();
}

criterion_group!(grammar, benches);
criterion_main!(grammar);
