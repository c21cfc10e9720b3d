//! The layer order of ARCHITECTURE.md, checked: each module of `src/` may name only the
//! modules below it (`crate::x` paths outside its tests), files are opened only by the IO
//! layers, and the clock is read only by the command line.

use std::path::{Path, PathBuf};

/// Every module of the library, lowest first. A module may import one of a lower rank,
/// never one of its own rank or above. Keep in step with ARCHITECTURE.md.
const RANKS: &[(&str, u8)] = &[
    ("text", 0),
    ("map", 1),
    ("phase", 1),
    ("dice", 1),
    ("store", 1),
    ("order", 2),
    ("judge", 3),
    ("variant", 4),
    ("report", 5),
    ("turn", 6),
    ("games", 7),
    ("game", 8),
    ("picture", 9),
    ("mail", 10),
    ("site", 10),
    ("host", 11),
    ("cli", 12),
];

/// The layers that may open files; the rest take text and give text.
const IO_LAYERS: &[&str] = &["store", "mail", "host", "cli"];

fn rank(module: &str) -> Option<u8> {
    RANKS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a source file belongs to: `src/game/engine.rs` -> `game`.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code lines of a file that are not comments, up to its test module (a file that
/// is all test code says so with `#![cfg(test)]`).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| !l.starts_with("#[cfg(test)]") && !l.starts_with("#![cfg(test)]"))
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l))
}

/// Every `crate::name` a line names.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + "crate::".len()..];
        let name: String = tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        // `$crate::` in macros and `shadowjudge_crate::` are not paths into this crate.
        if !matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '$') && !name.is_empty() {
            found.push(name);
        }
        rest = tail;
    }
    found
}

/// Whether `line` holds `word` as a path start (`fs::read`, not `ParsedFile::default`).
fn names(line: &str, word: &str) -> bool {
    line.match_indices(word)
        .any(|(at, _)| !line[..at].chars().last().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// What breaks the layer order in the library's sources, one line each.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let Some(module) = module_of(src, &file) else { continue };
        let Some(own) = rank(&module) else {
            out.push(format!("{}: module `{module}` has no place in the layer order", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in code_lines(&text) {
            for target in crate_paths(line) {
                if target == module {
                    continue;
                }
                match rank(&target) {
                    Some(r) if r < own => {}
                    _ => out
                        .push(format!("{}:{n}: `{module}` imports `{target}`, which is not below it", file.display())),
                }
            }
            let opens_files = ["fs::", "File::"].iter().any(|w| names(line, w));
            if opens_files && !IO_LAYERS.contains(&module.as_str()) {
                out.push(format!("{}:{n}: `{module}` opens files; only {IO_LAYERS:?} do", file.display()));
            }
            if line.contains("Utc::now") && module != "cli" {
                out.push(format!("{}:{n}: `{module}` reads the clock; only `cli` does", file.display()));
            }
        }
    }
    out
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "the layer order is broken:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_an_upward_import_a_file_opened_and_the_clock_read() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    std::fs::create_dir_all(src.join("judge")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod judge;\n").unwrap();
    std::fs::write(
        src.join("judge/mod.rs"),
        "use crate::map::Map;\nuse crate::game::engine::Game;\n// crate::mail in a comment\n\
         fn f() { let _ = std::fs::read(\"x\"); let _ = chrono::Utc::now(); }\n\
         #[cfg(test)]\nmod tests { use crate::cli; }\n",
    )
    .unwrap();
    std::fs::write(src.join("dice.rs"), "macro_rules! m { () => { $crate::dice::x() } }\n").unwrap();
    std::fs::write(src.join("extra.rs"), "").unwrap();
    std::fs::write(src.join("store.rs"), "fn f() { std::fs::read(\"x\"); }\n").unwrap();
    std::fs::create_dir_all(src.join("order")).unwrap();
    std::fs::write(src.join("order/mod.rs"), "fn f() -> ParsedFile { ParsedFile::default() }\n").unwrap();
    let found = violations(src);
    assert_eq!(found.len(), 4, "{found:#?}");
    for wanted in [
        "judge/mod.rs:2: `judge` imports `game`, which is not below it",
        "judge/mod.rs:4: `judge` opens files",
        "judge/mod.rs:4: `judge` reads the clock",
        "module `extra` has no place",
    ] {
        assert!(found.iter().any(|f| f.contains(wanted)), "missing {wanted:?} in {found:#?}");
    }
}

/// Every code line (outside comments and test modules) of the sources under `dir`: the
/// file, the line's number and its text, in file order.
fn code_lines_under(dir: &Path) -> Vec<(PathBuf, usize, String)> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        out.extend(code_lines(&text).map(|(n, line)| (file.clone(), n, line.to_string())));
    }
    out
}

/// The lines of the files under `dir` that reach into the game layer other than through
/// its contract, `game::any` (the mail host must not know which store a game is kept in).
fn past_the_contract(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (file, n, line) in code_lines_under(dir) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("crate::game::") {
            rest = &rest[at + "crate::game::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name != "any" {
                let name = if name.is_empty() { "{..}".to_string() } else { name };
                out.push(format!("{}:{n}: names `game::{name}`", file.display()));
            }
        }
    }
    out
}

#[test]
fn the_mail_host_reaches_games_only_through_the_game_session_contract() {
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/host");
    let found = past_the_contract(&host);
    assert!(found.is_empty(), "the mail host reaches past `game::any`:\n{}", found.join("\n"));

    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("mod.rs"),
        "use crate::game::any::GameSession;\nuse crate::game::session::OpenGame;\nuse crate::game::{any, turn_session};\n",
    )
    .unwrap();
    let found = past_the_contract(tmp.path());
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].ends_with("mod.rs:2: names `game::session`"), "{found:#?}");
    assert!(found[1].ends_with("mod.rs:3: names `game::{..}`"), "{found:#?}");
}

/// The Diplomacy modules a small game must not import: the small games stand on the
/// turn-game contract, the dice and the store alone.
const DIPLOMACY: &[&str] = &["map", "order", "judge", "variant", "report", "game"];

#[test]
fn no_small_game_imports_diplomacy_code() {
    let lines = code_lines_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games"));
    assert!(lines.len() > 1000, "the small games' sources were not found");
    let found: Vec<String> = lines
        .iter()
        .flat_map(|(file, n, line)| {
            crate_paths(line)
                .into_iter()
                .filter(|t| DIPLOMACY.contains(&t.as_str()))
                .map(move |target| format!("{}:{n}: imports `{target}`", file.display()))
        })
        .collect();
    assert!(found.is_empty(), "a small game imports Diplomacy code:\n{}", found.join("\n"));
}

/// Issue 22.5: no hidden state. What a message carries out and the problems met while
/// serving travel as values (the store's message tag, the host's problems), never
/// through thread-local or global mutable state.
#[test]
fn no_state_is_kept_in_thread_locals_or_mutable_statics() {
    let lines = code_lines_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(lines.len() > 10_000, "the sources were not found");
    let found: Vec<String> = lines
        .iter()
        .filter(|(_, _, line)| line.contains("thread_local!") || line.contains("static mut "))
        .map(|(file, n, line)| format!("{}:{n}: {}", file.display(), line.trim()))
        .collect();
    assert!(found.is_empty(), "hidden state:\n{}", found.join("\n"));
}
