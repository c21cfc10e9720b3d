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
