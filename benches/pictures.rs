//! Picture speed (criterion): the results of a Shadow Worlds phase, both boards side by
//! side, as SVG and as PNG (the PNG includes drawing the SVG), from the shipped example
//! game (`examples/shadow-worlds/game`, Fall 1904 movement and Winter 1904). The geometry
//! is read once, as the judge does for a run of mails. `cargo bench --bench pictures`.

use std::path::Path;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shadowjudge::diplomacy::picture::{self, Geometry};
use shadowjudge::game::session::diplomacy as session;

fn pictures(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shadow-worlds/game");
    let g = session::open_read_only(&dir).expect("the shipped example game");
    let map = &g.game.map;
    let geometry = Geometry::standard(map).expect("the shipped geometry");
    for code in ["F1904M", "W1904A"] {
        let scene =
            shadowjudge::game::journal::results_scene(map, "shadow", &g.entries, Some(code.parse().expect("a phase")))
                .expect("results");
        c.bench_function(&format!("picture/shadow_{code}_svg"), |b| {
            b.iter(|| picture::draw_svg(map, &geometry, black_box(&scene)).expect("drawn"))
        });
        c.bench_function(&format!("picture/shadow_{code}_svg_and_png"), |b| {
            b.iter(|| picture::draw_png(map, &geometry, black_box(&scene)).expect("drawn"))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = pictures
}
criterion_main!(benches);
