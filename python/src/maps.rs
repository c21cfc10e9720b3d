//! The maps games are played on here: the judge's shipped variants (`standard`, `ancmed`,
//! `modern`, `pure`, `france-austria`), each with what is read from it again and again,
//! made once per process when a game on it is first made: its order parser (name tables
//! hashed once), its names in capitals, and the Python strings handed out for it (the
//! powers' names, the possible orders' strings, the order lines known by their string).
//!
//! The tables of strings live in one [`Names`] per map, each behind its own lock, taken
//! only while no Python object is made (the strings are made with the lock let go, then
//! put in).
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use pyo3::prelude::*;
use pyo3::sync::{MutexExt, PyOnceLock};
use pyo3::types::PyString;

use shadowjudge::diplomacy::map::{shipped, Map, PowerId, RegionId};
use shadowjudge::diplomacy::order::grammar::OrderParser;

use crate::tables::{LinesRead, Rows};

/// A shipped variant's map, with its names and the strings made for it.
pub(crate) struct Names {
    /// The judge's name of the variant (`france-austria`): a saved game's `settings.map`.
    pub variant: &'static str,
    /// MILA's name of the map (`standard_france_austria`): `Game.map_name`, and saved games'.
    pub mila: &'static str,
    pub map: Arc<Map>,
    pub parser: OrderParser<'static>,
    /// By region id: `PAR`, `STP/SC`.
    pub regions: Vec<String>,
    /// By province id: `STP`.
    pub provinces: Vec<String>,
    /// By province id: its place in the alphabetical order of the names.
    pub ranks: Vec<u32>,
    /// The powers' names in capitals, made once: the keys of every dict by power.
    powers: PyOnceLock<Vec<(PowerId, Py<PyString>)>>,
    /// The possible orders' strings (see `possible`).
    strings: Mutex<Rows>,
    /// The order lines read so far (see `game`).
    lines: Mutex<LinesRead>,
}

const COUNT: usize = shipped::VARIANTS.len();

/// Each shipped variant's map, kept here for good so that its parser may borrow it.
static MAPS: [OnceLock<Arc<Map>>; COUNT] = [const { OnceLock::new() }; COUNT];
static NAMES: [OnceLock<Names>; COUNT] = [const { OnceLock::new() }; COUNT];

/// MILA's name of a shipped variant's map, where it is not the variant's own.
fn mila_name(variant: &'static str) -> &'static str {
    match variant {
        "france-austria" => "standard_france_austria",
        v => v,
    }
}

/// The map a name names (the variant's name or MILA's), made on first use.
pub(crate) fn find(name: &str) -> Option<&'static Names> {
    let v = shipped::find(name)?;
    // By name: a `const` slice may be a copy of its own in each crate.
    let i = shipped::VARIANTS.iter().position(|x| x.name == v.name)?;
    Some(NAMES[i].get_or_init(|| {
        let map = MAPS[i].get_or_init(|| shipped::map(v.name).expect("a shipped variant's map builds (tested)"));
        Names::new(v.name, map)
    }))
}

/// The maps' names for errors: the variants', with MILA's where it differs.
pub(crate) fn known() -> String {
    let names: Vec<String> = shipped::VARIANTS
        .iter()
        .map(|v| match mila_name(v.name) {
            m if m == v.name => m.to_string(),
            m => format!("{m} ({})", v.name),
        })
        .collect();
    names.join(", ")
}

/// The maps whose tables were made (for the tests' checks of them).
pub(crate) fn made() -> impl Iterator<Item = &'static Names> {
    NAMES.iter().filter_map(OnceLock::get)
}

impl Names {
    fn new(variant: &'static str, map: &'static Arc<Map>) -> Names {
        let provinces: Vec<String> = map.province_ids().map(|p| map.province(p).key.to_uppercase()).collect();
        let mut ids: Vec<usize> = (0..provinces.len()).collect();
        ids.sort_by(|a, b| provinces[*a].cmp(&provinces[*b]));
        let mut ranks = vec![0; provinces.len()];
        for (i, id) in ids.into_iter().enumerate() {
            ranks[id] = i as u32;
        }
        Names {
            variant,
            mila: mila_name(variant),
            map: map.clone(),
            parser: OrderParser::new(map),
            regions: (0..map.region_count()).map(|r| map.region_name(RegionId(r as _)).to_uppercase()).collect(),
            strings: Mutex::new(Rows::new(map, provinces.len())),
            provinces,
            ranks,
            powers: PyOnceLock::new(),
            lines: Mutex::new(LinesRead::new()),
        }
    }

    /// The powers' names in capitals, one string object each.
    pub fn power_strings(&self, py: Python<'_>) -> &[(PowerId, Py<PyString>)] {
        self.powers.get_or_init(py, || {
            let map = &self.map;
            map.power_ids().map(|p| (p, PyString::new(py, &map.power(p).name.to_uppercase()).unbind())).collect()
        })
    }

    /// The possible orders' strings. Never held while a Python object is made.
    pub fn strings(&self, py: Python<'_>) -> MutexGuard<'_, Rows> {
        self.strings.lock_py_attached(py).unwrap_or_else(|e| e.into_inner())
    }

    /// The order lines read so far. Never held while a Python object is made.
    pub fn lines(&self, py: Python<'_>) -> MutexGuard<'_, LinesRead> {
        self.lines.lock_py_attached(py).unwrap_or_else(|e| e.into_inner())
    }
}
