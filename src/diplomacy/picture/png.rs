//! SVG to PNG with resvg, with the bundled font (DejaVu Sans Condensed Bold,
//! `fonts/`), so a picture looks the same on every machine and needs no system fonts.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

/// The bundled font; its licence is `fonts/LICENSE-DejaVu.txt`.
const FONT: &[u8] = include_bytes!("../../../fonts/DejaVuSansCondensed-Bold.ttf");

/// A PNG that could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the PNG: {0}")]
pub struct PngError(pub String);

fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(without_table(FONT, b"kern"));
        Arc::new(db)
    })
    .clone()
}

/// A TrueType font without one of its tables (the font as it is if it has no such table
/// or is not one). The bundled font kerns through its `GPOS` table, which the shaper
/// prefers to the old `kern` table; but the shaper builds a cache of the `kern` table for
/// every piece of text it lays out, which was a tenth of the time of a picture. Without
/// the table the text is laid out exactly as before.
fn without_table(font: &[u8], tag: &[u8; 4]) -> Vec<u8> {
    let mut out = font.to_vec();
    let Some(n) = font.get(4..6).map(|b| usize::from(u16::from_be_bytes([b[0], b[1]]))) else { return out };
    let records = 12..12 + 16 * n;
    let Some(dir) = font.get(records.clone()) else { return out };
    let Some(i) = dir.chunks_exact(16).position(|r| &r[..4] == tag) else { return out };
    // The table directory loses the record; the tables stay where they are (their
    // offsets are from the start of the file), and the freed 16 bytes are zeros.
    let (start, end) = (12 + 16 * i, records.end);
    out.copy_within(start + 16..end, start);
    out[end - 16..end].fill(0);
    let left = n - 1;
    let entry_selector = left.checked_ilog2().unwrap_or(0);
    let search_range = 16 * (1usize << entry_selector);
    let field = |v: usize| (v as u16).to_be_bytes();
    out[4..6].copy_from_slice(&field(left));
    out[6..8].copy_from_slice(&field(search_range));
    out[8..10].copy_from_slice(&u16::try_from(entry_selector).unwrap_or(0).to_be_bytes());
    out[10..12].copy_from_slice(&field(16 * left - search_range));
    out
}

/// Render SVG text as PNG bytes, `scale` times its own size, on a white ground.
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, PngError> {
    let mut opt = usvg::Options { font_family: "DejaVu Sans".to_string(), ..usvg::Options::default() };
    opt.fontdb = fonts();
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| PngError(e.to_string()))?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    let mut pixmap =
        tiny_skia::Pixmap::new(w, h).ok_or_else(|| PngError(format!("a picture of {w} x {h} pixels is too big")))?;
    // An opaque ground: every pixel stays opaque, so the PNG needs no alpha channel.
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    encode_rgb(&pixmap)
}

/// An opaque pixmap as an RGB PNG. Deflate level 1 with the Paeth filter: about as small
/// as the `png` crate's default (level 6, adaptive filters) on these pictures, and
/// several times faster.
fn encode_rgb(pixmap: &tiny_skia::Pixmap) -> Result<Vec<u8>, PngError> {
    // Opaque pixels: premultiplied and straight colours are the same.
    let mut rgb = vec![0u8; pixmap.data().len() / 4 * 3];
    for (to, from) in rgb.chunks_exact_mut(3).zip(pixmap.data().chunks_exact(4)) {
        to.copy_from_slice(&from[..3]);
    }
    let mut out = Vec::with_capacity(rgb.len() / 8);
    let mut encoder = ::png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
    encoder.set_color(::png::ColorType::Rgb);
    encoder.set_depth(::png::BitDepth::Eight);
    encoder.set_deflate_compression(::png::DeflateCompression::Level(1));
    encoder.set_filter(::png::Filter::Paeth);
    let mut writer = encoder.write_header().map_err(|e| PngError(e.to_string()))?;
    writer.write_image_data(&rgb).map_err(|e| PngError(e.to_string()))?;
    writer.finish().map_err(|e| PngError(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table records of a font: (tag, offset, length).
    fn records(font: &[u8]) -> Vec<([u8; 4], u32, u32)> {
        let n = usize::from(u16::from_be_bytes([font[4], font[5]]));
        let word = |r: &[u8], i: usize| u32::from_be_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
        font[12..12 + 16 * n].chunks_exact(16).map(|r| ([r[0], r[1], r[2], r[3]], word(r, 8), word(r, 12))).collect()
    }

    #[test]
    fn the_font_loses_its_kern_table_and_keeps_every_other() {
        let before = records(FONT);
        assert!(before.iter().any(|r| &r.0 == b"kern"), "the bundled font has a kern table");
        let stripped = without_table(FONT, b"kern");
        let after = records(&stripped);
        let kept: Vec<_> = before.into_iter().filter(|r| &r.0 != b"kern").collect();
        assert_eq!(after, kept);
        // searchRange, entrySelector, rangeShift for the new count (18 tables: 256, 4, 32).
        assert_eq!(&stripped[6..12], &[1, 0, 0, 4, 0, 32]);
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(stripped);
        assert_eq!(db.faces().count(), 1);
        assert!(db.faces().any(|f| f.families.iter().any(|(name, _)| name == "DejaVu Sans")));
    }

    #[test]
    fn a_font_without_that_table_or_no_font_is_left_as_it_is() {
        assert_eq!(without_table(FONT, b"zzzz"), FONT);
        assert_eq!(without_table(b"junk", b"kern"), b"junk");
    }

    #[test]
    fn the_png_is_opaque_rgb_of_the_svg() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="10.5" height="4"><rect width="5" height="4" fill="#0072B2"/></svg>"##;
        let png = svg_to_png(svg, 1.0).unwrap();
        let decoded = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!((decoded.width(), decoded.height()), (11, 4));
        let at = |x, y| {
            let p = decoded.pixel(x, y).unwrap();
            (p.red(), p.green(), p.blue(), p.alpha())
        };
        assert_eq!(at(1, 1), (0x00, 0x72, 0xB2, 255));
        // Beyond the drawing, even the half pixel past its width: the white ground.
        assert_eq!(at(10, 3), (255, 255, 255, 255));
    }
}
