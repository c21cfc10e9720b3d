//! `shadowjudge orders ...`: read order files the way the judge will, and say what was
//! understood and what was not.
//!
//! Arguments are checked into a [`CheckConfig`] (map loaded, input chosen) before any
//! order is read; the grammar itself is `order::grammar`. Whether an order is possible
//! in a position (`--position`) is the game engine's judgement, reported as a warning.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use annotate_snippets::{Level, Renderer, Snippet};

use super::CliError;
use crate::diplomacy::engine::Game;
use crate::diplomacy::map::{Map, PowerId};
use crate::diplomacy::order::grammar::{parse_orders, parse_orders_on, Diagnostic, ParsedFile, ParsedOrder};
use crate::diplomacy::order::power_label;
use crate::diplomacy::position::parse_position;
use crate::diplomacy::state::GameState;
use crate::game::settings::{Settings, VariantKind};
use crate::phase::PhaseKind;
use crate::text::count;

#[derive(clap::Subcommand, Debug)]
pub enum OrdersCommand {
    /// Check an order file: print each order as understood, and each line not understood.
    #[command(long_about = CHECK_ABOUT)]
    Check(CheckArgs),
}

const CHECK_ABOUT: &str = "\
Check an order file: print each order as understood, and each line not understood.

Each order understood is printed on standard output in canonical form, one per line:

    [A] France: A par - bur

`[A]` or `[B]` is the board, when a `Board A` header or a `(B)` suffix gave one; \
`France: ` is the power, when a power header or prefix gave one; then the order as \
`A par H`, `A par - bur`, `A par - bur via convoy`, `A mun S A bur`, `A mun S A par - bur`, \
`F nth C A lon - bel`, `A par R bur`, `A par disband`, `build F stp/sc`, `build A par` or \
`waive` (unit type left out when the order left it out).

Each line not understood is drawn on standard error as a snippet of the file, with the \
line, the column and what was expected. The exit code is 1 when any line was not \
understood, 0 otherwise.

With --json, standard output is one JSON object:
{\"orders\":[{\"line\":1,\"power\":\"France\",\"board\":\"A\",\"order\":\"A par - bur\"}],
 \"diagnostics\":[{\"line\":2,\"column\":9,\"message\":\"...\",\"hint\":\"...\"}]}
(`power`, `board` and `hint` are null when unknown).";

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The map: `standard`, or the path of a map file.
    #[arg(long, default_value = "standard")]
    map: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// A position file (units on the board: see docs/positions.md). With it, orders that
    /// are understood but impossible there (no such unit, not adjacent, wrong coast, a
    /// build in an occupied center...) are reported as illegal, as warnings.
    #[arg(long)]
    position: Option<String>,
    /// The order file; `-` reads standard input.
    file: String,
}

/// Validated settings of `orders check`.
struct CheckConfig {
    map: Map,
    /// What to call the input in messages.
    origin: String,
    text: String,
    json: bool,
    /// The position to check legality against, as a game in that position.
    position: Option<Game>,
}

impl CheckConfig {
    fn from_args(args: CheckArgs) -> Result<CheckConfig, CliError> {
        let map = super::load_map(&args.map).map_err(|e| CliError::Usage(e.to_string()))?;
        let mut bytes = Vec::new();
        let origin = if args.file == "-" {
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| CliError::Io(format!("cannot read stdin: {e}")))?;
            "<stdin>".to_string()
        } else {
            bytes = std::fs::read(&args.file).map_err(|e| CliError::Io(format!("cannot read `{}`: {e}", args.file)))?;
            args.file
        };
        // Order files come from mail and editors of every kind: read what can be read, and
        // drop the characters no one sees (a byte-order mark, zero-width spaces).
        let text = crate::text::strip_invisible(&String::from_utf8_lossy(&bytes)).into_owned();
        let position = match &args.position {
            None => None,
            Some(path) => Some(load_position(&map, path)?),
        };
        Ok(CheckConfig { map, origin, text, json: args.json, position })
    }
}

pub fn run(c: OrdersCommand) -> Result<ExitCode, CliError> {
    match c {
        OrdersCommand::Check(args) => check(CheckConfig::from_args(args)?),
    }
}

/// A position file as a game in that position: one board, or two when it has `[boards]`.
fn load_position(map: &Map, path: &str) -> Result<Game, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::Io(format!("cannot read `{path}`: {e}")))?;
    let two_boards = toml::from_str::<toml::Table>(&text).map(|t| t.contains_key("boards")).unwrap_or(false);
    let variant = if two_boards { VariantKind::ShadowWorlds } else { VariantKind::Standard };
    let pos = parse_position(&text, path, map, variant.boards()).map_err(|e| CliError::Usage(e.to_string()))?;
    let state = GameState::from_position(map, &pos);
    Ok(Game::new(Settings::new("check", variant), map.clone(), state))
}

/// An order understood but impossible in the position: its line and why.
struct Illegal {
    line: usize,
    span: std::ops::Range<usize>,
    message: String,
}

fn illegal_orders(game: &Game, parsed: &ParsedFile) -> Vec<Illegal> {
    let mut out = Vec::new();
    let mut winter: Vec<(PowerId, &ParsedOrder)> = Vec::new();
    for po in &parsed.orders {
        let illegal = |message: String| Illegal { line: po.line, span: po.span.clone(), message };
        let Some(power) = po.power.or_else(|| game.owner_of_ordered_unit(po)) else {
            let what = match po.order.unit() {
                Some(u) => format!("no unit in {}", game.map.province(u.at.province).name),
                None => "say which power this is for (a `France:` line above it)".to_string(),
            };
            out.push(illegal(what));
            continue;
        };
        match game.check_order(power, po) {
            Err(message) => out.push(illegal(message)),
            Ok((_, _, Some(note))) => {
                out.push(illegal(note.words(&game.map).trim_start_matches("illegal, ").to_string()))
            }
            Ok(_) if game.state.phase.kind == PhaseKind::Adjustments => winter.push((power, po)),
            Ok(_) => {}
        }
    }
    // Winter orders are judged together, power by power.
    let mut powers: Vec<PowerId> = winter.iter().map(|(p, _)| *p).collect();
    powers.dedup();
    for power in powers {
        let mine: Vec<&ParsedOrder> = winter.iter().filter(|(p, _)| *p == power).map(|(_, o)| *o).collect();
        for (po, (ok, why)) in mine.iter().zip(game.preview_winter(power, &mine)) {
            if !ok {
                out.push(Illegal { line: po.line, span: po.span.clone(), message: why });
            }
        }
    }
    out.sort_by_key(|i| i.line);
    out
}

fn check(config: CheckConfig) -> Result<ExitCode, CliError> {
    let parsed = match &config.position {
        Some(game) => parse_orders_on(&config.text, &config.map, &game.unit_places(), None),
        None => parse_orders(&config.text, &config.map),
    };
    let illegal = config.position.as_ref().map(|g| illegal_orders(g, &parsed)).unwrap_or_default();
    let out = if config.json {
        let mut value = json_report(&config.map, &parsed);
        if config.position.is_some() {
            value["illegal"] =
                illegal.iter().map(|i| serde_json::json!({"line": i.line, "message": i.message})).collect();
        }
        let mut s = value.to_string();
        s.push('\n');
        s
    } else {
        parsed.orders.iter().map(|o| format!("{}\n", order_text(&config.map, o))).collect()
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes()).map_err(|e| CliError::Io(format!("cannot write: {e}")))?;
    if !config.json && !parsed.diagnostics.is_empty() {
        let stderr = std::io::stderr();
        let styled = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let rendered = render_diagnostics(&config.text, &config.origin, &parsed.diagnostics, styled);
        stderr.lock().write_all(rendered.as_bytes()).map_err(|e| CliError::Io(format!("cannot write: {e}")))?;
    }
    if !config.json && !illegal.is_empty() {
        let stderr = std::io::stderr();
        let styled = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let renderer = if styled { Renderer::styled() } else { Renderer::plain() };
        let mut out = String::new();
        for i in &illegal {
            let (source, span) = line_and_span(&config.text, i.line, i.span.clone());
            let title = format!("illegal order: {}", i.message);
            let message = Level::Warning.title(&title).snippet(
                Snippet::source(source)
                    .line_start(i.line)
                    .origin(&config.origin)
                    .annotation(Level::Warning.span(span).label("understood, but not possible here")),
            );
            out.push_str(&format!("{}\n\n", renderer.render(message)));
        }
        stderr.lock().write_all(out.as_bytes()).map_err(|e| CliError::Io(format!("cannot write: {e}")))?;
    }
    if !config.json {
        // The count last, where a reader's eye lands after the diagnostics.
        let summary = check_summary(parsed.orders.len(), parsed.diagnostics.len(), illegal.len());
        let _ = writeln!(std::io::stderr().lock(), "{summary}");
    }
    Ok(if parsed.diagnostics.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `40 orders understood, 10 lines not understood.` (and how many are illegal here).
fn check_summary(orders: usize, broken: usize, illegal: usize) -> String {
    let mut s = format!("{} understood", count(orders, "order", "orders"));
    if illegal > 0 {
        s.push_str(&format!(" ({illegal} not possible in this position)"));
    }
    if broken > 0 {
        s.push_str(&format!(", {} not understood", count(broken, "line", "lines")));
    }
    s.push('.');
    s
}

/// `[A] France: A par - bur`.
fn order_text(map: &Map, o: &ParsedOrder) -> String {
    let mut s = String::new();
    if let Some(b) = o.board {
        s.push_str(&format!("[{b}] "));
    }
    if let Some(p) = o.power {
        s.push_str(&format!("{}: ", power_label(map, p)));
    }
    s.push_str(&o.order.canonical(map));
    s
}

fn json_report(map: &Map, parsed: &ParsedFile) -> serde_json::Value {
    let orders: Vec<_> = parsed
        .orders
        .iter()
        .map(|o| {
            serde_json::json!({
                "line": o.line,
                "power": o.power.map(|p| power_label(map, p)),
                "board": o.board.map(|b| b.to_string()),
                "order": o.order.canonical(map),
            })
        })
        .collect();
    let diagnostics: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| serde_json::json!({"line": d.line, "column": d.column, "message": d.message, "hint": d.hint}))
        .collect();
    serde_json::json!({ "orders": orders, "diagnostics": diagnostics })
}

/// Each diagnostic as a snippet of its line, like a compiler error.
pub(crate) fn render_diagnostics(text: &str, origin: &str, diagnostics: &[Diagnostic], styled: bool) -> String {
    let renderer = if styled { Renderer::styled() } else { Renderer::plain() };
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut out = String::new();
    for d in diagnostics {
        let (source, span) = line_and_span_with(text, &line_starts, d.line, d.span.clone());
        let label = if span.is_empty() { "here" } else { "not understood" };
        let mut message = Level::Error.title(&d.message).snippet(
            Snippet::source(source).line_start(d.line).origin(origin).annotation(Level::Error.span(span).label(label)),
        );
        if let Some(hint) = &d.hint {
            message = message.footer(Level::Help.title(hint));
        }
        out.push_str(&format!("{}\n\n", renderer.render(message)));
    }
    out
}

/// The text of a line and a span within it (from a span in the whole text).
fn line_and_span(text: &str, line: usize, span: std::ops::Range<usize>) -> (&str, std::ops::Range<usize>) {
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    line_and_span_with(text, &line_starts, line, span)
}

fn line_and_span_with<'t>(
    text: &'t str,
    line_starts: &[usize],
    line: usize,
    span: std::ops::Range<usize>,
) -> (&'t str, std::ops::Range<usize>) {
    let start = line_starts.get(line.saturating_sub(1)).copied().unwrap_or(0).min(text.len());
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let source = text[start..end].trim_end_matches('\r');
    let span = span.start.saturating_sub(start).min(source.len())..span.end.saturating_sub(start).min(source.len());
    (source, span)
}
