//! Pictures of the board: the map's geometry ([`geometry`]), a phase as a scene of units,
//! owners and orders ([`scene`]), drawn as SVG ([`svg`]) and turned into PNG ([`png`]).
//! No IO: text and bytes in, text and bytes out.

pub mod generated;
pub mod geometry;
pub mod png;
pub mod scene;
pub mod svg;

pub use geometry::{Geometry, GeometryError};
pub use scene::{Scene, SceneError};

use crate::diplomacy::map::Map;

/// A picture that could not be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PictureError {
    #[error(transparent)]
    Geometry(#[from] GeometryError),
    #[error(transparent)]
    Scene(#[from] SceneError),
    #[error(transparent)]
    Png(#[from] png::PngError),
}

/// The geometry of a map: its variant's drawn board when it has one, else a board
/// generated from its borders ([`generated`]).
pub fn geometry_for(map: &Map) -> Result<Geometry, GeometryError> {
    let drawn = crate::diplomacy::map::shipped::find(&map.variant)
        .filter(|v| {
            crate::diplomacy::map::shipped::map(v.name).is_some_and(|m| m.id_fingerprint() == map.id_fingerprint())
        })
        .and_then(|v| v.geometry);
    match drawn {
        Some((text, file)) => Geometry::from_toml(text, file, map),
        None => Ok(generated::geometry(map)),
    }
}

/// A scene as SVG text, after checking that every unit stands where the geometry has a
/// place for it.
pub fn draw_svg(map: &Map, g: &Geometry, scene: &Scene) -> Result<String, PictureError> {
    for (i, b) in scene.boards.iter().enumerate() {
        for u in b.units.iter().chain(b.dislodged.iter().map(|d| &d.unit)) {
            if u.region.0 as usize >= g.units.len() || u.region.0 as usize >= map.region_count() {
                let board = b.board.map_or(String::new(), |c| format!("board {c}: "));
                return Err(SceneError(format!(
                    "{board}a unit stands in region #{} (board {}), which the map does not have",
                    u.region.0,
                    i + 1
                ))
                .into());
            }
        }
    }
    Ok(svg::draw(map, g, scene))
}

/// A scene as PNG bytes, at its own size.
pub fn draw_png(map: &Map, g: &Geometry, scene: &Scene) -> Result<Vec<u8>, PictureError> {
    let svg = draw_svg(map, g, scene)?;
    Ok(png::svg_to_png(&svg, 1.0)?)
}

/// The picture of a phase's results from a game's journal: the last time `phase` was
/// adjudicated (the last adjudication of all when `phase` is none), not undone by a
/// rollback. `title` heads the picture (the game's name).
pub fn results_scene(
    map: &Map,
    title: &str,
    entries: &[crate::game::journal::Entry],
    phase: Option<crate::phase::Phase>,
) -> Result<Scene, SceneError> {
    use crate::game::journal::{undone_by_rollback, Entry};
    let undone = undone_by_rollback(entries);
    let found = entries.iter().enumerate().rev().find(|(i, e)| {
        !undone.contains(i) && matches!(e, Entry::Adjudicated { phase: p, .. } if phase.is_none_or(|want| *p == want))
    });
    let Some((at, _)) = found else {
        return Err(SceneError(match phase {
            Some(p) => format!("{p} has not been adjudicated in this game"),
            None => "no phase has been adjudicated yet".to_string(),
        }));
    };
    results_scene_at(map, title, entries, at)
}

/// The picture of the board as a game's journal leaves it (its final position, once
/// over): no orders, only units and centers.
pub fn board_scene(title: &str, entries: &[crate::game::journal::Entry]) -> Result<Scene, SceneError> {
    use crate::game::journal::Entry;
    let state = entries.iter().rev().find_map(|e| match e {
        Entry::Created { state }
        | Entry::Adjudicated { state, .. }
        | Entry::RolledBack { state, .. }
        | Entry::DrawDeclared { state, .. } => Some(state),
        _ => None,
    });
    let state = state.ok_or_else(|| SceneError("the journal holds no position".to_string()))?;
    Ok(Scene::from_state(title, state))
}

/// The picture of the adjudication at `index` in a game's journal (its seq less one).
pub fn results_scene_at(
    map: &Map,
    title: &str,
    entries: &[crate::game::journal::Entry],
    index: usize,
) -> Result<Scene, SceneError> {
    use crate::game::journal::Entry;
    let Some(Entry::Adjudicated { report, state: after, .. }) = entries.get(index) else {
        return Err(SceneError(format!("journal entry {} is no adjudication", index + 1)));
    };
    let before = entries[..index].iter().rev().find_map(|e| match e {
        Entry::Created { state } | Entry::RolledBack { state, .. } | Entry::Adjudicated { state, .. } => Some(state),
        _ => None,
    });
    let before = before.ok_or_else(|| SceneError(format!("the journal has no state before {}", report.phase)))?;
    Scene::from_results(map, title, before, report, after)
}
