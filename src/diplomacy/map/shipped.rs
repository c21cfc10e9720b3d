//! The variants shipped with the judge. A variant is a folder of `maps/`: its map
//! (`map.toml`, or another variant's), its rules (`rules.toml`), its picture geometry
//! when it has one (`geometry.toml`) and a short doc (`README.md`), compiled into the
//! binary by one line of [`VARIANTS`].
//!
//! Each variant's map is built once per process, on first use, and shared.

use std::sync::{Arc, OnceLock};

use super::{Map, MapError};

/// A variant compiled into the judge.
pub struct Shipped {
    /// The name games and commands use (`ancmed`).
    pub name: &'static str,
    map: &'static str,
    map_file: &'static str,
    rules: &'static str,
    rules_file: &'static str,
    /// The picture geometry, when the variant has one; without, pictures are generated
    /// from the map's borders.
    pub geometry: Option<(&'static str, &'static str)>,
}

/// One line of [`VARIANTS`]: `shipped!(name, map folder, geometry folder or none)`.
macro_rules! shipped {
    ($name:literal, $map:literal, none) => {
        Shipped {
            name: $name,
            map: include_str!(concat!("../../../maps/", $map, "/map.toml")),
            map_file: concat!("maps/", $map, "/map.toml"),
            rules: include_str!(concat!("../../../maps/", $name, "/rules.toml")),
            rules_file: concat!("maps/", $name, "/rules.toml"),
            geometry: None,
        }
    };
    ($name:literal, $map:literal, $geometry:literal) => {
        Shipped {
            geometry: Some((
                include_str!(concat!("../../../maps/", $geometry, "/geometry.toml")),
                concat!("maps/", $geometry, "/geometry.toml"),
            )),
            ..shipped!($name, $map, none)
        }
    };
}

/// Every shipped variant; the first is the default.
pub const VARIANTS: &[Shipped] = &[
    shipped!("standard", "standard", "standard"),
    shipped!("ancmed", "ancmed", "ancmed"),
    shipped!("modern", "modern", "modern"),
    shipped!("pure", "pure", none),
    shipped!("france-austria", "standard", "standard"),
];

impl Shipped {
    /// Build the variant's map (not shared; [`map`] shares it).
    pub fn build(&self) -> Result<Map, MapError> {
        Map::from_variant(self.name, self.map, self.map_file, self.rules, self.rules_file)
    }
}

/// The shipped variant called `name` (its name or one of MILA's names for it), if any.
pub fn find(name: &str) -> Option<&'static Shipped> {
    let n = super::normalize_name(name);
    // Every name each variant answers to, normalized, read from its rules once.
    static NAMES: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        VARIANTS
            .iter()
            .map(|v| {
                std::iter::once(v.name.to_string()).chain(v.aliases()).map(|a| super::normalize_name(&a)).collect()
            })
            .collect()
    });
    VARIANTS.iter().zip(names).find(|(_, known)| known.contains(&n)).map(|(v, _)| v)
}

impl Shipped {
    /// Other names the variant answers to (MILA's map names), from its rules.
    pub fn aliases(&self) -> Vec<String> {
        super::load::rules_aliases(self.rules)
    }
}

/// The shipped variant's map, built on first use and shared.
pub fn map(name: &str) -> Option<Arc<Map>> {
    static BUILT: OnceLock<Vec<OnceLock<Arc<Map>>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| VARIANTS.iter().map(|_| OnceLock::new()).collect());
    let v = find(name)?;
    let i = VARIANTS.iter().position(|x| std::ptr::eq(x, v))?;
    Some(built[i].get_or_init(|| Arc::new(v.build().expect("a shipped variant is valid (tested)"))).clone())
}

/// The names of the shipped variants, for help and errors.
pub fn names() -> Vec<&'static str> {
    VARIANTS.iter().map(|v| v.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_variant_builds_and_is_found_by_its_names() {
        for v in VARIANTS {
            let map = v.build().unwrap_or_else(|e| panic!("{}: {e}", v.name));
            assert_eq!(map.variant, v.name);
            assert!(Arc::ptr_eq(&super::map(v.name).unwrap(), &super::map(v.name).unwrap()));
            for a in v.aliases() {
                assert_eq!(find(&a).unwrap().name, v.name, "{a}");
            }
        }
        assert!(find("no-such-map").is_none());
        assert_eq!(find("standard_france_austria").unwrap().name, "france-austria");
    }
}
