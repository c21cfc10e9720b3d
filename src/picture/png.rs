//! SVG to PNG with resvg, with the bundled font (DejaVu Sans Condensed Bold,
//! `fonts/`), so a picture looks the same on every machine and needs no system fonts.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

/// The bundled font; its licence is `fonts/LICENSE-DejaVu.txt`.
const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSansCondensed-Bold.ttf");

/// A PNG that could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the PNG: {0}")]
pub struct PngError(pub String);

fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        Arc::new(db)
    })
    .clone()
}

/// Render SVG text as PNG bytes, `scale` times its own size.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PngError> {
    let mut opt = usvg::Options { font_family: "DejaVu Sans".to_string(), ..usvg::Options::default() };
    opt.fontdb = fonts();
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| PngError(e.to_string()))?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| PngError(format!("a picture of {w} x {h} pixels is too big")))?;
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PngError(e.to_string()))
}
