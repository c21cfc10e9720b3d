//! Variants: what Shadow Worlds adds to the standard game.
pub mod shadow;
