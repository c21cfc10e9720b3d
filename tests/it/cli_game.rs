//! The game master's commands, run through the built binary in a temporary directory with
//! the clock fixed (`SHADOWJUDGE_NOW`), as a game master would run them.
use std::path::{Path, PathBuf};

use crate::harness::Run;

const NOW: &str = "2026-01-01T12:00:00Z";

fn shadowjudge(args: &[&str], stdin: Option<&str>) -> Run {
    crate::harness::shadowjudge_at(NOW, None, args, stdin.map(str::as_bytes), &[])
}

/// A new standard game in a temporary directory.
struct TestGame {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
}

impl TestGame {
    fn new() -> (TestGame, Run) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("game");
        let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standard-game/players.txt");
        let run = shadowjudge(
            &["new", dir.to_str().unwrap(), "--variant", "standard", "--players", players.to_str().unwrap()],
            None,
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        (TestGame { _tmp: tmp, dir }, run)
    }

    fn dir(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    fn run(&self, command: &str, extra: &[&str]) -> Run {
        let mut args = vec![command, self.dir()];
        args.extend_from_slice(extra);
        shadowjudge(&args, None)
    }

    fn submit(&self, power: &str, orders: &str, extra: &[&str]) -> Run {
        let mut args = vec!["submit", self.dir(), "--power", power];
        args.extend_from_slice(extra);
        args.push("-");
        shadowjudge(&args, Some(orders))
    }

    fn journal_lines(&self) -> usize {
        std::fs::read_to_string(self.dir.join("journal.jsonl")).unwrap().lines().count()
    }

    fn status_json(&self) -> serde_json::Value {
        let run = self.run("status", &["--json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    }
}

fn power_status<'a>(status: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    status["powers"].as_array().unwrap().iter().find(|p| p["power"] == name).unwrap()
}

#[test]
fn cli_new_prints_the_players_and_the_first_deadline() {
    let (_game, run) = TestGame::new();
    assert!(run.stdout.contains("Created game (standard)"), "{}", run.stdout);
    assert!(run.stdout.contains("  Russia   Olga Petrova <olga@example.org>"), "{}", run.stdout);
    // Movement phases get 48 hours by default.
    assert!(
        run.stdout.contains("Phase: Spring 1901 movement. Deadline: Saturday 3 January 2026, 12:00 UTC."),
        "{}",
        run.stdout
    );
}

#[test]
fn cli_submit_check_keeps_nothing() {
    let (game, _) = TestGame::new();
    let before = game.journal_lines();
    let run = game.submit("france", "A par - bur\nF bre - mao\n", &["--check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("line   1: A par - bur"), "{}", run.stdout);
    // What would still be missing if these orders were kept.
    assert!(run.stdout.contains("Still without orders: A mar"), "{}", run.stdout);
    assert!(run.stdout.contains("Checked only: nothing was kept; the game is as it was."), "{}", run.stdout);
    assert_eq!(game.journal_lines(), before);
    assert_eq!(power_status(&game.status_json(), "France")["submitted"], false);
}

/// A wrong `--power` is an error about the argument, not about the order file: the
/// message names the power, as before the commands were written over `GameSession`.
#[test]
fn cli_submit_to_an_unknown_power_does_not_blame_the_order_file() {
    let (game, _) = TestGame::new();
    let run = game.submit("atlantis", "A par - bur\n", &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("unknown power `atlantis`"), "{}", run.stderr);
    assert!(!run.stderr.contains("<stdin>"), "{}", run.stderr);
}

#[test]
fn cli_submit_with_a_broken_line_keeps_the_rest_and_exits_1() {
    let (game, _) = TestGame::new();
    let run = game.submit("france", "A par - bur\nF bre - mao\nA mar - xyz\n", &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("Not taken:\n  line   3, column 9: expected a province after `-`, found `xyz`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Still without orders: A mar"), "{}", run.stdout);
    assert_eq!(power_status(&game.status_json(), "France")["submitted"], true);
    let report = game.run("adjudicate", &["--force"]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    assert!(report.stdout.contains("A par - bur                  succeeds"), "{}", report.stdout);
    assert!(report.stdout.contains("F bre - mao                  succeeds"), "{}", report.stdout);
    assert!(report.stdout.contains("A mar H                      default: no orders; held"), "{}", report.stdout);
}

#[test]
fn cli_a_second_submission_replaces_the_first_unit_by_unit() {
    let (game, _) = TestGame::new();
    assert_eq!(game.submit("france", "A par - bur\nF bre - mao\n", &[]).code, 0);
    let second = game.submit("france", "A par - pic\nA mar - spa\n", &[]);
    assert_eq!(second.code, 0, "{}", second.stdout);
    assert!(second.stdout.contains("Every unit has an order."), "{}", second.stdout);
    let report = game.run("adjudicate", &["--force"]);
    assert_eq!(report.code, 0, "{}", report.stderr);
    let france: Vec<&str> = report
        .stdout
        .lines()
        .skip_while(|l| *l != "France:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    assert_eq!(
        france,
        [
            "F bre - mao                  succeeds",
            "A par - pic                  succeeds",
            "A mar - spa                  succeeds"
        ]
    );
}

#[test]
fn cli_adjudicate_without_force_names_who_is_missing() {
    let (game, _) = TestGame::new();
    game.submit("france", "A par - bur\nF bre - mao\nA mar - spa\n", &[]);
    let before = game.journal_lines();
    let run = game.run("adjudicate", &[]);
    assert_eq!(run.code, 4);
    assert_eq!(
        run.stderr.trim(),
        "error: the judge is still waiting for orders from Austria, England, Germany, Italy, Russia, Turkey; \
         use --force to adjudicate at the deadline"
    );
    assert_eq!(game.journal_lines(), before);
    assert_eq!(game.status_json()["phase_code"], "S1901M");
}

#[test]
fn cli_adjudicate_force_reports_the_defaults_and_results_reprints_it() {
    let (game, _) = TestGame::new();
    game.submit("england", "F lon - nth\nF edi - nwg\nA lvp - yor\n", &[]);
    let run = game.run("adjudicate", &["--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("F lon - nth                  succeeds"), "{}", run.stdout);
    assert!(
        run.stdout.contains("\nDefaults applied:\n  Austria: no orders for A vie, A bud, F tri: held\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("  Russia: no orders for A war, A mos, F sev, F stp/sc: held\n"), "{}", run.stdout);
    assert!(!run.stdout.contains("England: no orders"), "{}", run.stdout);
    assert!(run.stdout.contains("Next phase: Fall 1901 movement.\nDeadline: Saturday 3 January 2026, 12:00 UTC.\n"));

    let results = game.run("results", &[]);
    assert_eq!(results.code, 0, "{}", results.stderr);
    let report_only = run.stdout.strip_suffix("Deadline: Saturday 3 January 2026, 12:00 UTC.\n").unwrap();
    assert_eq!(results.stdout, report_only);
    let by_phase = game.run("results", &["S1901M"]);
    assert_eq!(by_phase.stdout, report_only);
}

#[test]
fn cli_status_json_has_the_phase_and_the_powers() {
    let (game, _) = TestGame::new();
    game.submit("turkey", "F ank - bla\nA con - bul\nA smy - con\n", &[]);
    let status = game.status_json();
    assert_eq!(status["game"], "game");
    assert_eq!(status["variant"], "standard");
    assert_eq!(status["phase"], "Spring 1901 movement");
    assert_eq!(status["phase_code"], "S1901M");
    assert_eq!(status["deadline"], "2026-01-03T12:00:00Z");
    let names: Vec<&str> = status["powers"].as_array().unwrap().iter().map(|p| p["power"].as_str().unwrap()).collect();
    assert_eq!(names, ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]);
    let turkey = power_status(&status, "Turkey");
    assert_eq!(turkey["player"], "Emre Aydin");
    assert_eq!(turkey["submitted"], true);
    assert_eq!(turkey["waiting"], false);
    assert_eq!(turkey["centers"], serde_json::json!([3]));
    assert_eq!(turkey["units"], serde_json::json!([["F ank", "A con", "A smy"]]));
    assert_eq!(power_status(&status, "Russia")["waiting"], true);
}

#[test]
fn cli_rollback_returns_to_spring_and_history_lists_it() {
    let (game, _) = TestGame::new();
    game.submit("germany", "A mun - ruh\nA ber - kie\nF kie - den\n", &[]);
    assert_eq!(game.run("adjudicate", &["--force"]).code, 0);
    assert_eq!(game.status_json()["phase_code"], "F1901M");

    // A phase the game never reached is refused, naming the phases it may go back to.
    let never = game.run("rollback", &["S1905M"]);
    assert_eq!(never.code, 2, "{}", never.stderr);
    assert!(never.stderr.contains("never at the start of Spring 1905"), "{}", never.stderr);
    assert!(never.stderr.contains("it may go back to S1901M F1901M"), "{}", never.stderr);

    let run = game.run("rollback", &["S1901M"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let status = game.run("status", &[]);
    assert!(status.stdout.starts_with("game (standard): Spring 1901 movement\n"), "{}", status.stdout);
    // Back at the start of the phase: nobody's orders are in, the German army is in Munich.
    let json = game.status_json();
    assert_eq!(power_status(&json, "Germany")["submitted"], false);
    assert_eq!(power_status(&json, "Germany")["units"], serde_json::json!([["F kie", "A ber", "A mun"]]));

    let history = game.run("history", &[]);
    assert_eq!(history.code, 0, "{}", history.stderr);
    let events: Vec<&str> = history.stdout.lines().map(|l| l.split("  ").last().unwrap().trim()).collect();
    assert_eq!(
        events,
        ["created", "orders from germany", "adjudicated (forced)", "rolled back to Spring 1901 movement"],
        "{}",
        history.stdout
    );
}

#[test]
fn cli_a_corrupt_journal_line_is_an_error_naming_the_file_and_line() {
    let (game, _) = TestGame::new();
    game.submit("italy", "A ven H\nA rom - apu\nF nap - ion\n", &[]);
    game.submit("italy", "A ven - tyr\n", &[]);
    assert_eq!(game.journal_lines(), 3);
    let path = game.dir.join("journal.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Damage the middle entry (a torn last line would be a crash to recover from instead).
    lines[1] = lines[1].replacen("\"entry\"", "\"entry\" oops", 1);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    for command in ["status", "history", "results"] {
        let run = game.run(command, &[]);
        assert_eq!(run.code, 5, "{command}: damaged files have their own exit code: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{command}: {}", run.stderr);
        assert!(run.stderr.contains("journal.jsonl:2:"), "{command}: {}", run.stderr);
    }
}

#[test]
fn cli_a_bad_value_in_game_toml_is_an_error_naming_the_file_and_line() {
    let (game, _) = TestGame::new();
    let path = game.dir.join("game.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("name = \"game\"\nvariant = \"standard\"\n"), "{text}");
    std::fs::write(&path, text.replacen("variant = \"standard\"", "variant = \"chess\"", 1)).unwrap();
    let run = game.run("status", &[]);
    assert_eq!(run.code, 5, "damaged files have their own exit code");
    assert!(run.stderr.contains("game.toml:2:"), "{}", run.stderr);
    assert!(run.stderr.contains("unknown variant `chess`"), "{}", run.stderr);
}

#[test]
fn cli_history_shows_each_entry_under_the_phase_it_happened_in() {
    let (game, _) = TestGame::new();
    for (command, extra) in
        [("adjudicate", &["--force"][..]), ("draw", &["--power", "france"]), ("rollback", &["S1901M"])]
    {
        let run = game.run(command, extra);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    }
    let history = game.run("history", &["--json"]);
    let rows: serde_json::Value = serde_json::from_str(&history.stdout).unwrap();
    let vote = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["event"].as_str().is_some_and(|e| e.eq_ignore_ascii_case("france votes for a draw")))
        .expect("the vote");
    assert_eq!(vote["phase"], "F1901M", "the vote was cast in Fall 1901, though the game is back in Spring");
}

/// `draw` goes through the game's votes, as mail does: a power's vote is kept as by mail,
/// the master's draw ends the game with the final results (shown, since the command line
/// mails nothing), and a game without votes says so.
#[test]
fn cli_draw_is_the_games_own_vote_and_a_game_without_votes_says_so() {
    let (game, _) = TestGame::new();
    let vote = game.run("draw", &["--power", "france"]);
    assert_eq!(vote.code, 0, "{}", vote.stderr);
    assert!(vote.stdout.starts_with("Kept: a draw."), "{}", vote.stdout);
    let again = game.run("draw", &["--power", "gondor"]);
    assert_ne!(again.code, 0);
    assert!(again.stderr.contains("gondor"), "{}", again.stderr);
    let declared = game.run("draw", &[]);
    assert_eq!(declared.code, 0, "{}", declared.stderr);
    assert!(declared.stdout.contains("Not mailed from the command line"), "{}", declared.stdout);
    assert!(declared.stdout.contains("The game master declared it."), "{}", declared.stdout);
    assert!(!game.status_json()["over"].is_null(), "the game is over: {}", game.status_json());
    let over = game.run("draw", &["--power", "italy"]);
    assert_ne!(over.code, 0, "the game is over: {}", over.stdout);

    let tmp = tempfile::tempdir().unwrap();
    let duel = tmp.path().join("duel");
    let players = tmp.path().join("players.txt");
    std::fs::write(&players, "ann, ann@example.org\nbob, bob@example.org\n").unwrap();
    let args = ["new", duel.to_str().unwrap(), "--game", "duplexity", "--players", players.to_str().unwrap()];
    assert_eq!(shadowjudge(&args, None).code, 0);
    // The same words as by mail, for every game that lacks what a command needs.
    for (command, lacks) in [
        (&["draw"][..], "this game has no votes or absences"),
        (&["ledger"], "the ledger belongs to Shadow Worlds games"),
        (&["adjudicate", "--dry-run"], "this game has no preview: its steps run as soon as no input is awaited"),
    ] {
        let mut args = command.to_vec();
        args.insert(1, duel.to_str().unwrap());
        let run = shadowjudge(&args, None);
        assert_eq!(run.code, 2, "{command:?}: a usage error: {}", run.stderr);
        assert!(run.stderr.contains(lacks), "{command:?}: {}", run.stderr);
    }
}

#[test]
fn cli_submit_suggests_the_powers_own_unit_for_a_misspelt_one() {
    let (game, _) = TestGame::new();
    let run = game.submit("austria", "A vei - tyr\n", &["--check"]);
    assert!(
        run.stdout.contains("did you mean `vie` (Vienna)?") || run.stderr.contains("did you mean `vie` (Vienna)?"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// Issue 28, item 12: a game created with seats nobody plays says which, and how to fill them.
#[test]
fn cli_new_names_the_powers_without_a_player() {
    let tmp = tempfile::tempdir().unwrap();
    let players = tmp.path().join("p.txt");
    std::fs::write(
        &players,
        "france, Ann, ann@example.org\nitaly, Bob, bob@example.org\nengland, Cy, cy@example.org\n",
    )
    .unwrap();
    let dir = tmp.path().join("game");
    let args = ["new", dir.to_str().unwrap(), "--variant", "shadow-worlds", "--players", players.to_str().unwrap()];
    let run = shadowjudge(&args, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: nobody plays Austria, Germany, Russia, Turkey: they are in civil disorder"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`replace POWER ADDRESS`"), "{}", run.stderr);
    assert!(run.stdout.contains("  Russia   (no player)"), "{}", run.stdout);
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/standard-game/players.txt");
    let dir = tmp.path().join("full");
    let run = shadowjudge(&["new", dir.to_str().unwrap(), "--players", full.to_str().unwrap()], None);
    assert!(!run.stderr.contains("nobody plays"), "{}", run.stderr);
}

/// Issue 28, item 11: after a rollback, `results` and the pictures read the same phases
/// (the undone ones are gone), and a rollback goes back only.
#[test]
fn cli_rollback_goes_back_only_and_results_forget_what_it_undid() {
    let (game, _) = TestGame::new();
    for _ in 0..2 {
        assert_eq!(game.run("adjudicate", &["--force"]).code, 0);
    }
    assert_eq!(game.status_json()["phase"], "Spring 1902 movement");
    let run = game.run("rollback", &["F1901M"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let results = game.run("results", &[]);
    assert!(results.stdout.contains("Spring 1901 movement results"), "{}", results.stdout);
    assert!(
        !results.stdout.contains("Fall 1901 movement results"),
        "the undone Fall is not the last results: {}",
        results.stdout
    );
    let undone = game.run("results", &["F1901M"]);
    assert_ne!(undone.code, 0, "{}", undone.stdout);
    let forward = game.run("rollback", &["S1902M"]);
    assert_ne!(forward.code, 0);
    assert!(forward.stderr.contains("a rollback goes back only"), "{}", forward.stderr);
}
