//! The layer order of ARCHITECTURE.md, checked: each module of `src/` may name only the
//! modules below it (`crate::x` paths outside its tests), files are opened only by the IO
//! layers, and the clock is read only by the command line.

use std::path::{Path, PathBuf};

/// Every module of the library, lowest first. A module may import one of a lower rank,
/// never one of its own rank or above. Keep in step with ARCHITECTURE.md. A module is
/// named by its folder (`store`), or by folder and file where the file has a rank of its
/// own (`game::settings`); every module of a folder in [`SPLIT`] has its own rank.
const RANKS: &[(&str, u8)] = &[
    ("text", 0),
    ("span", 1),
    ("diplomacy::map", 1),
    ("phase", 1),
    ("answer", 1),
    ("dice", 1),
    ("store", 1),
    ("game::schedule", 2),
    ("game::seating", 2),
    ("diplomacy::order", 2),
    ("diplomacy::judge", 3),
    ("diplomacy::variant", 4),
    ("diplomacy::position", 4),
    ("game::settings", 5),
    ("diplomacy::state", 5),
    ("diplomacy::report", 6),
    ("diplomacy::engine", 7),
    ("turn", 8),
    ("diplomacy::picture", 8),
    ("diplomacy::kind", 9),
    ("games", 10),
    ("game", 11),
    ("mail", 13),
    ("site", 13),
    ("host", 14),
    ("cli", 15),
];

/// The folders whose modules are ranked one by one (Diplomacy's own code spans the
/// layers: its map is below everything, its pictures above the game sessions).
const SPLIT: &[&str] = &["diplomacy"];

/// The layers that may open files; the rest take text and give text.
const IO_LAYERS: &[&str] = &["store", "mail", "host", "cli"];

fn rank(module: &str) -> Option<u8> {
    RANKS.iter().find(|(m, _)| *m == module).map(|(_, r)| *r)
}

/// The ranked module a path (`game::settings`, `store::atomic`, `phase`) belongs to: the
/// folder and file if ranked on their own, else the folder (never a folder in [`SPLIT`]).
fn ranked(path: &str) -> Option<String> {
    if rank(path).is_some() {
        return Some(path.to_string());
    }
    let folder = path.split("::").next()?;
    (!SPLIT.contains(&folder) && rank(folder).is_some()).then(|| folder.to_string())
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

/// The module path of a source file, folder and file: `src/game/session.rs` ->
/// `game::session`, `src/diplomacy/judge/batch.rs` -> `diplomacy::judge`, `src/text.rs`
/// -> `text`; `None` for the crate root and for a split folder's own `mod.rs`, which
/// only lists its modules.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts = rel.components().map(|c| {
        let part = c.as_os_str().to_string_lossy().into_owned();
        part.strip_suffix(".rs").map(str::to_string).unwrap_or(part)
    });
    let first = parts.next()?;
    if first == "lib" || first == "main" {
        return None;
    }
    match parts.next() {
        Some(second) if second != "mod" => Some(format!("{first}::{second}")),
        _ if SPLIT.contains(&first.as_str()) => None,
        _ => Some(first),
    }
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

fn ident(text: &str) -> String {
    text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// Every module path `crate::a::b` a line names, as `a::b` (or `a` alone), each name of
/// a group counted: `crate::game::{any, session::OpenGame}` names `game::any` and
/// `game::session`.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        let tail = &rest[at + "crate::".len()..];
        rest = tail;
        let first = ident(tail);
        // `$crate::` in macros and `shadowjudge_crate::` are not paths into this crate.
        if matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '$') || first.is_empty() {
            continue;
        }
        let Some(after) = tail[first.len()..].strip_prefix("::") else {
            found.push(first);
            continue;
        };
        let Some(group) = after.strip_prefix('{') else {
            let second = ident(after);
            found.push(if second.is_empty() { first } else { format!("{first}::{second}") });
            continue;
        };
        let mut depth = 0;
        let mut item = true;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => item = true,
                c if item && (c.is_ascii_alphanumeric() || c == '_') => {
                    found.push(format!("{first}::{}", ident(&group[i..])));
                    item = false;
                }
                _ => {}
            }
        }
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
        let Some((module, own)) = ranked(&module).and_then(|m| Some((m.clone(), rank(&m)?))) else {
            out.push(format!("{}: module `{module}` has no place in the layer order", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in code_lines(&text) {
            for target in crate_paths(line) {
                let found = ranked(&target);
                if found.as_deref() == Some(module.as_str()) {
                    continue;
                }
                match found.and_then(|t| rank(&t)) {
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
    std::fs::create_dir_all(src.join("diplomacy/judge")).unwrap();
    std::fs::create_dir_all(src.join("diplomacy/extra")).unwrap();
    std::fs::create_dir_all(src.join("game")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod diplomacy;\n").unwrap();
    std::fs::write(src.join("diplomacy/mod.rs"), "pub mod judge;\n").unwrap();
    std::fs::write(
        src.join("diplomacy/judge/mod.rs"),
        "use crate::diplomacy::map::Map;\nuse crate::diplomacy::{order::Order, engine::Game};\n\
         // crate::mail in a comment\n\
         fn f() { let _ = std::fs::read(\"x\"); let _ = chrono::Utc::now(); }\n\
         #[cfg(test)]\nmod tests { use crate::cli; }\n",
    )
    .unwrap();
    std::fs::write(src.join("diplomacy/judge/batch.rs"), "use crate::diplomacy::judge::Unit;\n").unwrap();
    std::fs::write(src.join("diplomacy/extra/mod.rs"), "").unwrap();
    std::fs::write(
        src.join("game/settings.rs"),
        "use crate::game::{schedule, seating::Seat};\nuse crate::game::session::diplomacy::OpenGame;\n",
    )
    .unwrap();
    std::fs::write(src.join("dice.rs"), "macro_rules! m { () => { $crate::dice::x() } }\n").unwrap();
    std::fs::write(src.join("extra.rs"), "").unwrap();
    std::fs::write(src.join("store.rs"), "fn f() { std::fs::read(\"x\"); }\n").unwrap();
    std::fs::write(src.join("text.rs"), "fn f() -> ParsedFile { ParsedFile::default() }\n").unwrap();
    let found = violations(src);
    assert_eq!(found.len(), 6, "{found:#?}");
    for wanted in [
        "judge/mod.rs:2: `diplomacy::judge` imports `diplomacy::engine`, which is not below it",
        "judge/mod.rs:4: `diplomacy::judge` opens files",
        "judge/mod.rs:4: `diplomacy::judge` reads the clock",
        "settings.rs:2: `game::settings` imports `game::session`, which is not below it",
        "module `diplomacy::extra` has no place",
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
        "use crate::game::any::GameSession;\nuse crate::game::session::diplomacy::OpenGame;\nuse crate::game::{any, turn_session};\n",
    )
    .unwrap();
    let found = past_the_contract(tmp.path());
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].ends_with("mod.rs:2: names `game::session`"), "{found:#?}");
    assert!(found[1].ends_with("mod.rs:3: names `game::{..}`"), "{found:#?}");
}

/// The command line reaches every game on disk through the contract: it makes a game
/// with `game::any::create` and opens one with `game::any::open` or `open_read_only`, and
/// names no store (`game::session`) at all.
#[test]
fn the_command_line_makes_and_opens_games_only_through_the_contract() {
    let stores = |dir: &Path| -> Vec<String> {
        code_lines_under(dir)
            .into_iter()
            .filter(|(_, _, line)| ["session::", "Lobby::", "kind_of("].iter().any(|w| line.contains(w)))
            .map(|(file, n, line)| format!("{}:{n}: {}", file.display(), line.trim()))
            .collect()
    };
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let found = stores(&cli);
    assert!(found.is_empty(), "the command line names a store:\n{}", found.join("\n"));
    let tmp = tempfile::tempdir().unwrap();
    let lines = "let g = crate::game::session::diplomacy::open_read_only(dir)?;\nuse crate::game::session::turn;\n";
    std::fs::write(tmp.path().join("mod.rs"), lines).unwrap();
    assert_eq!(stores(tmp.path()).len(), 2);
}

/// The small games stand on the turn-game contract, the dice and the store alone: they
/// import nothing under `diplomacy::`. The registry (`games/mod.rs`), which lists
/// Diplomacy's kinds beside them, names Diplomacy's kind and nothing else of it.
#[test]
fn no_small_game_imports_diplomacy_code() {
    let registry = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games/mod.rs");
    let lines = code_lines_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/games"));
    assert!(lines.len() > 1000, "the small games' sources were not found");
    let found: Vec<String> = lines
        .iter()
        .flat_map(|(file, n, line)| {
            let registry = *file == registry;
            crate_paths(line)
                .into_iter()
                .filter(move |t| {
                    (t == "diplomacy" || t.starts_with("diplomacy::")) && !(registry && t == "diplomacy::kind")
                })
                .map(move |target| format!("{}:{n}: imports `{target}`", file.display()))
        })
        .collect();
    assert!(found.is_empty(), "a small game imports Diplomacy code:\n{}", found.join("\n"));
    assert_eq!(crate_paths("use crate::diplomacy::{map::Map, order};"), ["diplomacy::map", "diplomacy::order"]);
    assert_eq!(crate_paths("f(crate::diplomacy::judge::X)"), ["diplomacy::judge"]);
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

/// Issue 22: what differs between standard Diplomacy and Shadow Worlds is the variant's
/// (`engine::rules::Rules`, one value per variant): no other file of the engine names a
/// variant.
#[test]
fn the_engine_asks_the_variant_and_never_names_it() {
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/diplomacy/engine");
    let found: Vec<String> = code_lines_under(&engine)
        .into_iter()
        .filter(|(file, _, _)| !file.ends_with("rules.rs") && !file.ends_with("tests.rs"))
        .filter(|(_, _, line)| line.contains("VariantKind::") || line.contains(".variant"))
        .map(|(file, n, line)| format!("{}:{n}: {}", file.display(), line.trim()))
        .collect();
    assert!(found.is_empty(), "the engine names a variant outside its rules:\n{}", found.join("\n"));
}
