//! The game master's commands: `new`, `submit`, `adjudicate`, `status`, `history`,
//! `results`, `rollback`, `draw`, `ledger`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{DateTime, Utc};

use super::{now, read_input, CliError};
use crate::diplomacy::judge::rulebook::{Edition, Rulebook};
use crate::diplomacy::map::Map;
use crate::diplomacy::position::parse_position;
use crate::diplomacy::report::deadline_text;
use crate::diplomacy::state::GameState;
use crate::diplomacy::variant::shadow::VictoryCounts;
use crate::game::any::MAX_TURN_BYTES;
use crate::game::any::{self, Answer, GameSession, Lacking, Submit, Who};
use crate::game::error::GameError;
use crate::game::settings::{parse_players, parse_variant, Settings, VariantKind};

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The game directory to create (it must not exist, or be empty).
    pub dir: PathBuf,
    /// `standard` (the default), `shadow-worlds`, or a variant's map: `ancmed`, `modern`, `pure`,
    /// `france-austria` (`shadowjudge map list` lists them).
    #[arg(long)]
    pub variant: Option<String>,
    /// The map of a `standard` or `shadow-worlds` game: a variant's (`ancmed`) or a map
    /// file (default: the standard map). `--variant shadow-worlds --map ancmed` plays
    /// Shadow Worlds on two Ancient Mediterranean boards.
    #[arg(long, value_name = "MAP")]
    pub map: Option<String>,
    /// Run one of the small games instead of Diplomacy: `duplexity`, `overdue` or `duple`
    /// (`shadowjudge games` lists every game; `--game standard` is `--variant standard`).
    #[arg(long, value_name = "GAME", conflicts_with_all = ["variant", "from", "short_game", "rulebook"])]
    pub game: Option<String>,
    /// The players: one line each, `power, name, email` (optionally `, time zone`); for a
    /// small game `name, email` (optionally `, time zone`), in seat order.
    #[arg(long, required_unless_present = "open", conflicts_with = "open")]
    pub players: Option<PathBuf>,
    /// No players file; the seats are open and players `join` by mail. The game starts by
    /// itself when the last seat is filled (Diplomacy: powers assigned from the players'
    /// preferences by the verifiable dice; a small game: seated in the order they joined,
    /// `--seats` of them).
    #[arg(long, conflicts_with_all = ["from"])]
    pub open: bool,
    /// Small games with `--open`: how many seats (default: the fewest the game takes).
    #[arg(long, value_name = "N", requires = "open")]
    pub seats: Option<u8>,
    /// Small games: the dice's secret seed, 64 hex digits (default: drawn from the
    /// operating system). For tests and replays: a known seed makes known rolls.
    #[arg(long, value_name = "HEX", requires = "game")]
    pub seed: Option<String>,
    /// Small games: a rules option, `KEY=VALUE` (repeat for more; see the game's docs).
    #[arg(long = "option", value_name = "KEY=VALUE", requires = "game")]
    pub options: Vec<String>,
    /// Start from this position (a TOML file: season, year, phase, units, centers, and
    /// dislodged units in a retreat phase; see docs/positions.md) instead of Spring 1901.
    #[arg(long)]
    pub from: Option<PathBuf>,
    /// The game's name (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Shadow Worlds: the shorter game, won at 18 distinct centers instead of 34.
    #[arg(long)]
    pub short_game: bool,
    /// Shadow Worlds: count victory by `distinct` centers (default) or by the `ledger` count.
    #[arg(long, default_value = "distinct")]
    pub victory_counts: String,
    /// The rulebook edition: 2023 (default), 2000, 1982 or 1971.
    #[arg(long)]
    pub rulebook: Option<String>,
    /// Create the game in JUDGE/games/DIR, with judge.toml's `[deadlines]` as its policy.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<PathBuf>,
    /// The game master's address (results, outage notices; `SIGNON master@game`).
    #[arg(long, value_name = "EMAIL")]
    pub master: Option<String>,
    /// An observer's address: they receive every results mail (repeat for more).
    #[arg(long, value_name = "EMAIL")]
    pub observer: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct SubmitArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// The power the orders are for (`france`, `FRA`, `French`).
    #[arg(long, required_unless_present = "player", conflicts_with = "player")]
    pub power: Option<String>,
    /// Small games: the player whose turn file it is (their name in the players file, or
    /// `master` for the game master's lines). A line `wait` holds a step that takes every
    /// player's input together (the bids) to its deadline; `nowait` takes it back.
    #[arg(long)]
    pub player: Option<String>,
    /// Small games: when the turn counts as received (RFC 3339; default: now).
    #[arg(long, value_name = "RFC3339", requires = "player")]
    pub at: Option<String>,
    /// The order file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    /// Check the orders (in a small game, the turn file) and print what the judge
    /// understood, line by line, without keeping anything.
    #[arg(long)]
    pub check: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct AdjudicateArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// Adjudicate even though some powers have not sent orders (at the deadline): their
    /// units hold, dislodged units disband, builds are waived, removals go by civil disorder.
    #[arg(long)]
    pub force: bool,
    /// Print the results the phase would get now (as with --force) and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Small games: when the step is done (RFC 3339; default: now), as `submit --at`
    /// gives a turn's time.
    #[arg(long, value_name = "RFC3339", conflicts_with = "dry_run")]
    pub at: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct DirArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct ResultsArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// The phase (`S1901M`, `F1901R`, `W1901A`, "fall 1901"); default: the last one. In a
    /// small game, the journal entry's number (as `history` shows it).
    pub phase: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct RollbackArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// The phase to go back to the start of (`S1902M`); in a small game, the round (`3`,
    /// `round 3`; `0` is the setup).
    pub phase: String,
}

pub(super) fn game_error(e: GameError) -> CliError {
    use crate::store::StoreError;
    // The message, then each cause it does not already say.
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(&format!("\n  caused by: {said}"));
        }
        source = cause.source();
    }
    match e {
        GameError::NotReady(_) | GameError::Awaiting(_) => CliError::NotReady(text),
        GameError::Store(
            StoreError::Parse { .. }
            | StoreError::Corrupt { .. }
            | StoreError::StateAheadOfJournal { .. }
            | StoreError::JournalCutShort { .. },
        )
        | GameError::Replay(_)
        | GameError::Damaged(_) => CliError::Damaged(text),
        GameError::Store(_) => CliError::Io(text),
        _ => CliError::Usage(text),
    }
}

/// What `new` reads the same way for every game: the name, the addresses, the players
/// file, and the judge directory the game may go in.
pub(super) struct NewGame {
    pub name: String,
    pub players: String,
    pub players_file: String,
    /// The judge directory's deadline policy, for a game created in one.
    pub deadlines: Option<crate::game::schedule::DeadlinePolicy>,
    dir: PathBuf,
    judge: Option<crate::mail::home::JudgeHome>,
}

impl NewGame {
    pub fn read(a: &NewArgs) -> Result<NewGame, CliError> {
        let name = a
            .name
            .clone()
            .or_else(|| a.dir.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "game".into());
        for address in a.master.iter().chain(&a.observer) {
            if !address.contains('@') || address.contains(char::is_whitespace) {
                return Err(CliError::Usage(format!("`{address}` is not an email address")));
            }
        }
        let (players_file, players) = match &a.players {
            Some(file) => {
                let players_file = file.display().to_string();
                let text = std::fs::read_to_string(file).map_err(|e| CliError::Io(format!("{players_file}: {e}")))?;
                (players_file, crate::text::strip_invisible(&text).into_owned())
            }
            None => (String::new(), String::new()),
        };
        let judge = match &a.judge {
            None => None,
            Some(judge) => Some(crate::mail::home::JudgeHome::open(judge).map_err(|e| CliError::Usage(e.to_string()))?),
        };
        let deadlines = judge.as_ref().map(|home| home.config.deadlines.clone());
        Ok(NewGame { name, players, players_file, deadlines, dir: a.dir.clone(), judge })
    }

    /// The game's directory: as given, or made in the judge directory's `games/`.
    pub fn dir(&self) -> Result<PathBuf, CliError> {
        match &self.judge {
            None => Ok(self.dir.clone()),
            Some(home) => home.new_game_dir(&self.dir).map_err(|e| CliError::Usage(e.to_string())),
        }
    }
}

pub fn new(a: NewArgs) -> Result<ExitCode, CliError> {
    let variant_name = a.variant.as_deref().unwrap_or("standard");
    let map_file = match a.map.as_deref() {
        // A map file is kept by its full path: the game finds it from its own folder.
        Some(m) if m.ends_with(".toml") => Some(
            std::fs::canonicalize(m)
                .map_err(|e| CliError::Usage(format!("--map {m}: {e}")))?
                .to_string_lossy()
                .into_owned(),
        ),
        other => other.map(str::to_string),
    };
    let (variant, map_name) = parse_variant(variant_name, map_file.as_deref()).map_err(CliError::Usage)?;
    if a.seats.is_some() {
        return Err(CliError::Usage("--seats is for the small games; a Diplomacy game has one seat per power".into()));
    }
    let new = NewGame::read(&a)?;
    let mut settings = Settings::new(&new.name, variant);
    settings.map = map_name;
    if let Some(r) = &a.rulebook {
        let edition = Edition::parse(r)
            .ok_or_else(|| CliError::Usage(format!("unknown rulebook `{r}`: use 2023, 2000, 1982, 1971 or dptg")))?;
        settings.rules = Rulebook::edition(edition);
    }
    settings.shadow.short_game = a.short_game;
    settings.shadow.victory_counts = match a.victory_counts.as_str() {
        "distinct" => VictoryCounts::Distinct,
        "ledger" => VictoryCounts::Ledger,
        other => return Err(CliError::Usage(format!("--victory-counts takes `distinct` or `ledger`, not `{other}`"))),
    };
    if variant == VariantKind::Standard && (a.short_game || a.victory_counts != "distinct") {
        return Err(CliError::Usage("--short-game and --victory-counts are Shadow Worlds options".into()));
    }
    settings.master.email = a.master.clone();
    settings.observers = a.observer.clone();
    let map = super::load_map(&settings.map).map_err(|e| CliError::Usage(e.to_string()))?;
    settings.players = parse_players(&new.players, &new.players_file, &map).map_err(CliError::Usage)?;
    let dir = new.dir()?;
    if let Some(deadlines) = new.deadlines {
        settings.deadlines = deadlines;
    }
    if a.open {
        return new_open(&dir, &settings, &map);
    }
    let state = match &a.from {
        None => GameState::start(&map, variant.boards()),
        Some(path) => {
            let file = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|e| CliError::Io(format!("{file}: {e}")))?;
            let pos =
                parse_position(&text, &file, &map, variant.boards()).map_err(|e| CliError::Usage(e.to_string()))?;
            GameState::from_position(&map, &pos)
        }
    };
    let new = any::NewGame::Diplomacy { settings: &settings, state: Box::new(state), open: false };
    let g = any::create(&dir, new, now()).map_err(game_error)?;
    println!(
        "Created {} ({}) in {}.",
        settings.name,
        crate::game::settings::variant_label(&settings, &map, false),
        dir.display()
    );
    for line in &g.options {
        println!("  {line}");
    }
    println!("Players:");
    for p in &settings.players {
        println!("  {:<8} {} <{}>", map.power(map.lookup_power(&p.power).expect("checked")).name, p.name, p.email);
    }
    let empty: Vec<String> = map
        .power_ids()
        .filter(|id| !settings.players.iter().any(|p| map.lookup_power(&p.power) == Some(*id)))
        .map(|id| map.power(id).name.clone())
        .collect();
    for name in &empty {
        println!("  {name:<8} (no player)");
    }
    println!("Phase: {}. Deadline: {}.", g.step, deadline_text(g.deadline));
    if !empty.is_empty() {
        eprintln!(
            "warning: nobody plays {}: {} in civil disorder (units hold, nothing is built) and the judge does not \
             wait for {}. To fill a seat, the master sends `replace POWER ADDRESS` by mail (the new player gets \
             a password), or add the player to game.toml's players.",
            empty.join(", "),
            if empty.len() == 1 { "it is" } else { "they are" },
            if empty.len() == 1 { "it" } else { "them" },
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `new --open`: a game whose players join by mail.
fn new_open(dir: &Path, settings: &Settings, map: &Map) -> Result<ExitCode, CliError> {
    let state = GameState::start(map, settings.variant.boards());
    let g = any::create(dir, any::NewGame::Diplomacy { settings, state: Box::new(state), open: true }, now())
        .map_err(game_error)?;
    let commitment = g.commitment.unwrap_or_default();
    let name = &settings.name;
    println!(
        "Created {name} ({}) in {}, with {} open seats.",
        crate::game::settings::variant_label(settings, map, false),
        dir.display(),
        map.powers().len()
    );
    for line in &g.options {
        println!("  {line}");
    }
    let two: Vec<String> = map.powers().iter().take(2).map(|p| p.name.to_lowercase()).collect();
    println!(
        "Players join by mail with `join {name} PASSWORD` (optionally `prefer {} ...`); the game starts by \
         itself when the last seat is filled, and no deadline runs until then.",
        two.join(" ")
    );
    println!("The powers will be assigned with the dice whose seed has the commitment {commitment}.");
    Ok(ExitCode::SUCCESS)
}

/// `list --judge J [NAME]`: the judge's games, or one game in full (as `list` by mail).
pub fn list(a: ListArgs) -> Result<ExitCode, CliError> {
    use crate::mail::GameHost;
    let root = a
        .judge
        .or_else(|| std::env::var_os(crate::mail::home::HOME_VAR).map(PathBuf::from))
        .ok_or_else(|| CliError::Usage("no judge directory: give --judge DIR or set SHADOWJUDGE_HOME".into()))?;
    let home = crate::mail::home::JudgeHome::open(&root).map_err(|e| CliError::Io(e.to_string()))?;
    let host = crate::host::JudgeHost::new(home.games_dir());
    let text = host.list_games(a.name.as_deref()).map_err(|e| CliError::Usage(e.to_string()))?;
    print!("{text}");
    for p in host.take_problems() {
        eprintln!("warning: {}: {}", if p.game.is_empty() { "judge" } else { &p.game }, p.cause);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// One game to show in full (its seats, phase, centers).
    pub name: Option<String>,
    /// The judge directory; default: $SHADOWJUDGE_HOME.
    #[arg(long, value_name = "JUDGE")]
    pub judge: Option<PathBuf>,
}

/// Open any game to change it, printing the repairs the store made.
fn open_any(dir: &Path) -> Result<Box<dyn GameSession>, CliError> {
    let g = any::open(dir).map_err(game_error)?;
    for n in g.notes() {
        eprintln!("note: {n}");
    }
    Ok(g)
}

/// Open any game only to read it.
fn read_any(dir: &Path) -> Result<Box<dyn GameSession>, CliError> {
    any::open_read_only(dir).map_err(game_error)
}

/// Say what went wrong after a change was made (the change stands).
fn warn_any(g: &dyn GameSession) {
    for w in g.warnings() {
        eprintln!("warning: {w}");
    }
}

/// Print an answer as text or JSON; its exit status.
fn print_answer(answer: &Answer, as_json: bool) -> ExitCode {
    if as_json {
        println!("{}", answer.json);
    } else {
        print!("{}", answer.text);
    }
    if answer.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// When a turn counts as received (`--at`), for the small games.
fn parse_at(at: Option<&str>) -> Result<Option<DateTime<Utc>>, CliError> {
    at.map(|s| {
        DateTime::parse_from_rfc3339(s.trim())
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| CliError::Usage(format!("--at `{s}`: {e} (write it like 2026-11-23T18:00:00Z)")))
    })
    .transpose()
}

pub fn submit(a: SubmitArgs) -> Result<ExitCode, CliError> {
    let mut g = open_any(&a.dir)?;
    let who = match (&a.power, &a.player) {
        (Some(power), _) => Who::Power(power),
        (None, Some(player)) => Who::Player(player),
        (None, None) => {
            return Err(CliError::Usage("say whose orders with --power (or --player in a small game)".into()))
        }
    };
    let at = parse_at(a.at.as_deref())?;
    let (text, name) = read_input(a.file.as_deref())?;
    // Only the size is about the file itself: other refusals (the power, the player) are
    // about the arguments, and say so without naming the file.
    if matches!(who, Who::Player(_)) && text.len() > MAX_TURN_BYTES {
        return Err(CliError::Usage(format!(
            "{name}: {} bytes; a turn file is at most {} KiB",
            text.len(),
            MAX_TURN_BYTES / 1024
        )));
    }
    let answer = any::under_way(g.as_mut())
        .map_err(game_error)?
        .submit(Submit { who, text: &text, check: a.check, at }, now())
        .map_err(game_error)?;
    warn_any(g.as_ref());
    Ok(print_answer(&answer, a.json))
}

pub fn adjudicate(a: AdjudicateArgs) -> Result<ExitCode, CliError> {
    if a.dry_run {
        let mut g = read_any(&a.dir)?;
        any::under_way(g.as_mut()).map_err(game_error)?;
        let preview = g.preview().ok_or_else(|| lacks(&a.dir, Lacking::Preview))?;
        return Ok(print_answer(&preview.map_err(game_error)?, a.json));
    }
    let at = parse_at(a.at.as_deref())?;
    let mut g = open_any(&a.dir)?;
    if at.is_some() && !g.offers().timed_input {
        return Err(CliError::Usage(
            "--at is for the small games, whose input counts at the time it came; this game adjudicates when it \
             is run"
                .into(),
        ));
    }
    // A game of a judge directory owes its results by mail, as when the tick processes it.
    let answer = any::under_way(g.as_mut())
        .map_err(game_error)?
        .adjudicate(a.force, in_judge_dir(&a.dir), at.unwrap_or_else(now))
        .map_err(game_error)?;
    warn_any(g.as_ref());
    Ok(print_answer(&answer, a.json))
}

/// Whether a game directory is one of a judge directory's games (`JUDGE/games/NAME`, with
/// `JUDGE/judge.toml`).
fn in_judge_dir(dir: &std::path::Path) -> bool {
    let Ok(dir) = dir.canonicalize() else { return false };
    let Some(games) = dir.parent() else { return false };
    games.file_name().is_some_and(|n| n == "games") && games.parent().is_some_and(|j| j.join("judge.toml").is_file())
}

pub fn status(a: DirArgs) -> Result<ExitCode, CliError> {
    let g = read_any(&a.dir)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&g.status_json()).expect("serializable"));
    } else {
        print!("{}", g.status_text());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn history(a: DirArgs) -> Result<ExitCode, CliError> {
    let g = read_any(&a.dir)?;
    let history = g.history().map_err(game_error)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&history.to_json()).expect("serializable"));
    } else {
        print!("{}", history.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn results(a: ResultsArgs) -> Result<ExitCode, CliError> {
    let mut g = read_any(&a.dir)?;
    Ok(print_answer(
        &any::under_way(g.as_mut()).map_err(game_error)?.results(a.phase.as_deref()).map_err(game_error)?,
        a.json,
    ))
}

pub fn rollback(a: RollbackArgs) -> Result<ExitCode, CliError> {
    let mut g = open_any(&a.dir)?;
    let said = any::under_way(g.as_mut()).map_err(game_error)?.rollback(&a.phase, now()).map_err(game_error)?;
    warn_any(g.as_ref());
    println!("{said}");
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The game directory.
    pub dir: PathBuf,
}

pub fn verify(a: VerifyArgs) -> Result<ExitCode, CliError> {
    let mut g = read_any(&a.dir)?;
    Ok(print_answer(&any::under_way(g.as_mut()).map_err(game_error)?.verify().map_err(game_error)?, false))
}

#[derive(clap::Args, Debug)]
pub struct RevealArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// Reveal the seed of a game that is not over: from then on anyone who has the seed
    /// can foresee every roll, and every player is told so in the next report.
    #[arg(long)]
    pub force: bool,
}

pub fn reveal(a: RevealArgs) -> Result<ExitCode, CliError> {
    let mut g = open_any(&a.dir)?;
    let answer = any::under_way(g.as_mut()).map_err(game_error)?.reveal(a.force, now()).map_err(game_error)?;
    warn_any(g.as_ref());
    Ok(print_answer(&answer, false))
}

#[derive(clap::Args, Debug)]
pub struct DrawArgs {
    /// The game directory.
    pub dir: PathBuf,
    /// Record this power's vote for a draw (the game is drawn when every surviving power
    /// has voted). Without it, the game master declares the draw at once.
    #[arg(long)]
    pub power: Option<String>,
}

pub fn draw(a: DrawArgs) -> Result<ExitCode, CliError> {
    let mut g = open_any(&a.dir)?;
    let Some(votes) = g.votes() else {
        return Err(lacks(&a.dir, Lacking::Votes));
    };
    let outcome = match &a.power {
        None => votes.declare_draw(now()),
        Some(power) => {
            let draw = crate::game::by_mail::PlayerCommand::Draw { powers: Vec::new() };
            votes.player_command(&any::Role::Seat(power.clone()), &draw, None, now())
        }
    }
    .map_err(game_error)?;
    warn_any(g.as_ref());
    println!("{}", outcome.said);
    // The command line mails nothing: what mail would carry is shown here.
    for notice in &outcome.notices {
        println!("\nNot mailed from the command line: \"{}\"\n\n{}", notice.subject, notice.body.trim_end());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn ledger(a: DirArgs) -> Result<ExitCode, CliError> {
    let g = read_any(&a.dir)?;
    let answer = g.ledger().ok_or_else(|| lacks(&a.dir, Lacking::Ledger))?;
    Ok(print_answer(&answer, a.json))
}

/// What a game without a capability a command needs says, as mail says it too
/// ([`Lacking`]).
pub(super) fn lacks(dir: &Path, lacking: Lacking) -> CliError {
    CliError::Usage(format!("{}: {}", dir.display(), lacking.words()))
}
