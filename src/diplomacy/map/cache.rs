//! Maps loaded once per process and shared by every game that uses them.
//!
//! Building a map (TOML parsing, validation, adjacency tables, name tables) costs far
//! more than anything else in opening an idle game, and a judge directory holds many
//! games on the same map. [`standard`] builds the shipped map once; [`from_toml`] keeps
//! one map per file name, and reuses it only while the file's text is exactly the text
//! it was built from, so an edited map file is read again, never served stale. The map
//! layer still does no IO: callers read the file and pass its text.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::{Map, MapError};

/// The shipped standard map, built on first use.
pub fn standard() -> Arc<Map> {
    super::shipped::map("standard").expect("the standard variant is shipped")
}

/// Per file name: the text a map was built from, and the map.
type Loaded = HashMap<String, (String, Arc<Map>)>;

/// [`Map::from_toml`], shared: the same file with the same text gives the same map.
/// A map that does not load is not kept (the next call reports it again).
pub fn from_toml(text: &str, file: &str) -> Result<Arc<Map>, MapError> {
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let loaded = LOADED.get_or_init(|| Mutex::new(HashMap::new()));
    // A panic elsewhere while holding the lock leaves the table whole: keep using it.
    let lookup = |table: &Loaded| table.get(file).filter(|(t, _)| t == text).map(|(_, m)| m.clone());
    if let Some(map) = lookup(&loaded.lock().unwrap_or_else(|e| e.into_inner())) {
        return Ok(map);
    }
    // Built outside the lock: two threads may both build a new map; either copy is right.
    let map = Arc::new(Map::from_toml(text, file)?);
    loaded.lock().unwrap_or_else(|e| e.into_inner()).insert(file.to_string(), (text.to_string(), map.clone()));
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_map_is_built_once() {
        assert!(Arc::ptr_eq(&standard(), &standard()));
        assert_eq!(standard().id_fingerprint(), Map::standard().id_fingerprint());
    }

    #[test]
    fn a_file_is_shared_while_its_text_is_the_same() {
        let text = super::super::STANDARD_TOML;
        let a = from_toml(text, "cache-test.toml").unwrap();
        let b = from_toml(text, "cache-test.toml").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Edited: read again, not served stale.
        let edited = text.replacen("victory_centers = 18", "victory_centers = 17", 1);
        assert_ne!(edited, text, "the test edits a real key");
        let c = from_toml(&edited, "cache-test.toml").unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.victory_centers, 17);
        // A broken file is reported every time and never cached.
        assert!(from_toml("not a map", "cache-test-broken.toml").is_err());
        assert!(from_toml("not a map", "cache-test-broken.toml").is_err());
    }
}
