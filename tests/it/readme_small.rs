//! The README's own lines for the small games, run as written by a shell (issue 27): the
//! Duplexity example works whoever wins the roll for the first placement.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The lines of the first ```sh block after `heading` in README.md.
fn readme_block(heading: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let after = &readme[readme.find(heading).unwrap_or_else(|| panic!("README has {heading}"))..];
    let start = after.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let end = after[start..].find("```").expect("the block ends");
    after[start..start + end].lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect()
}

/// Run each line with `sh` in `dir`, the built binary first on the PATH; every line must
/// succeed. Returns what each printed.
fn run_lines(dir: &Path, lines: &[String]) -> Vec<String> {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_shadowjudge"));
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    lines
        .iter()
        .map(|line| {
            let out = Command::new("sh")
                .arg("-c")
                .arg(line)
                .current_dir(dir)
                .env("PATH", &path)
                .env_remove("SHADOWJUDGE_NOW")
                .output()
                .expect("sh runs");
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            assert!(
                out.status.success(),
                "`{line}` failed ({})\nstdout:\n{stdout}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            stdout
        })
        .collect()
}

#[test]
fn issue_27_the_readmes_duplexity_lines_work_whoever_places_first() {
    let lines = readme_block("### Duplexity");
    assert!(lines.iter().any(|l| l.contains("shadowjudge new duel")), "{lines:?}");
    // As written (the roll is the judge's), then with seeds that give each player the
    // first placement: every line succeeds either way.
    let mut firsts = Vec::new();
    for seed in [None, Some("1"), Some("2"), Some("3"), Some("4")] {
        let tmp = tempfile::tempdir().unwrap();
        let lines: Vec<String> = match seed {
            None => lines.clone(),
            Some(s) => lines
                .iter()
                .map(|l| {
                    if l.contains("shadowjudge new ") {
                        l.replacen(" --game ", &format!(" --seed {s:0>64} --game "), 1)
                    } else {
                        l.clone()
                    }
                })
                .collect(),
        };
        let out = run_lines(tmp.path(), &lines);
        let created = out.iter().find(|o| o.starts_with("Created duel")).expect("new's output");
        let first = ["ann", "bob"]
            .into_iter()
            .find(|p| created.contains(&format!("{p} places the first pawn.")))
            .unwrap_or_else(|| panic!("new says who places first:\n{created}"));
        assert!(created.contains("Who places first: ann rolls"), "{created}");
        if seed.is_some() {
            firsts.push(first);
        }
        let status = out.last().unwrap();
        assert!(status.contains("round 1, act"), "{status}");
        assert!(status.contains("pawns at NF"), "ann's pawn shifted to the Near Future:\n{status}");
    }
    assert!(firsts.contains(&"ann") && firsts.contains(&"bob"), "the seeds cover both rolls: {firsts:?}");
}
