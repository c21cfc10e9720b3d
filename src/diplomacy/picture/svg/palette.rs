//! The colours: sea, land, ink, and one colour and one land tint per power.

use crate::diplomacy::map::PowerId;

pub(super) const SEA: &str = "#DDEBF5";
pub(super) const LAND: &str = "#F1E7CF";
pub(super) const OFFBOARD: &str = "#D3CDBE";
/// Impassable land: hatched, so it looks like no power's tint (Germany's is grey).
pub(super) const IMPASSABLE: &str = "url(#impassable)";
pub(super) const INK: &str = "#222222";
pub(super) const FAIL: &str = "#C00000";

/// The colour of each power, by id (the standard map's order: Austria, England, France,
/// Germany, Italy, Russia, Turkey, then five more for the larger variants, Modern's ten);
/// a map with more powers cycles through them.
pub const PALETTE: [&str; 12] = [
    "#D55E00", "#0072B2", "#56B4E9", "#4D4D4D", "#009E73", "#CC79A7", "#F0E442", "#8C510A", "#762A83", "#1B7837",
    "#B2182B", "#35978F",
];
/// Land tints: each power's colour mixed half with the land colour.
pub const TINTS: [&str; 12] = [
    "#E3A268", "#6FA3C7", "#86C3E8", "#9F9A8E", "#79C3A2", "#DFB0BB", "#F1EC89", "#BE9C6C", "#B388A9", "#86AF83",
    "#D17F7D", "#93BFAF",
];
/// Whether a power's colour is dark (white letters on its units).
const DARK: [bool; 12] = [true, true, false, true, true, false, false, true, true, true, true, true];

pub(super) fn colour(p: PowerId) -> &'static str {
    PALETTE[p.0 as usize % PALETTE.len()]
}

pub(super) fn tint(p: PowerId) -> &'static str {
    TINTS[p.0 as usize % TINTS.len()]
}

pub(super) fn letter_colour(p: PowerId) -> &'static str {
    if DARK[p.0 as usize % DARK.len()] {
        "#FFFFFF"
    } else {
        INK
    }
}
