//! The public web site of a judge: plain files (HTML, SVG pictures, one stylesheet) that
//! any static web server can serve, no JavaScript needed.
//!
//! ```text
//! index.html                 every game: name, game and variant, where it stands, the next
//!                            deadline, players or open seats, over or not
//! style.css
//! games/<game>/index.html    the board now, the seats, the ledger, press to everyone,
//!                            the list of phases or steps
//! games/<game>/board.svg     the board now (Diplomacy)
//! games/<game>/<step>.html   one processed phase (`S1901M`) or step (`42`): every order
//!                            with its outcome, and links to the one before and after
//! games/<game>/<step>.svg    that phase's picture (Diplomacy)
//! ```
//!
//! Everything is drawn from [`PublicGame`], which holds nothing secret; every text is
//! escaped ([`html::esc`]). No IO here: the files come out as paths and bytes, and the
//! host or the command line writes them.

pub mod html;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::diplomacy::map::Map;
use crate::diplomacy::picture::scene::Scene;
use crate::diplomacy::picture::svg::PALETTE;
use crate::diplomacy::picture::Geometry;
use crate::diplomacy::report::{format_deadline, LedgerLine, OrderLine, PhaseReport};
use crate::game::public::{Holder, PublicBoard, PublicGame, PublicStep, PublicStepBody};
use html::{card_table, classed_table, esc, page, report_text, slug};

/// The stylesheet, one for every page.
pub const STYLESHEET: &str = include_str!("style.css");

/// One file of the site: its path below the site's folder (`/`-separated) and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl SiteFile {
    fn text(path: String, text: String) -> SiteFile {
        SiteFile { path, bytes: text.into_bytes() }
    }
}

/// One game's line on the index page; the host keeps it between runs so that the index
/// can be written again without opening every game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexRow {
    /// The game's folder below `games/`.
    pub folder: String,
    pub name: String,
    pub kind: String,
    pub step: String,
    pub deadline: Option<DateTime<Utc>>,
    /// Seats with a player.
    pub players: usize,
    /// Seats without one, by name.
    pub open: Vec<String>,
    /// The result, once over.
    pub over: Option<String>,
}

/// The folder of the game called `dir_name` (its directory's name), below `games/`.
pub fn game_folder(dir_name: &str) -> String {
    format!("games/{}", slug(dir_name))
}

/// Draws sites; keeps each map's picture geometry once read.
#[derive(Default)]
pub struct SiteWriter {
    geometries: BTreeMap<String, Option<Geometry>>,
}

impl SiteWriter {
    pub fn new() -> SiteWriter {
        SiteWriter::default()
    }

    fn geometry(&mut self, map: &Map) -> Option<&Geometry> {
        self.geometries
            .entry(format!("{}\u{0}{}", map.name, map.region_count()))
            .or_insert_with(|| crate::diplomacy::picture::geometry_for(map).ok())
            .as_ref()
    }

    /// The picture of a scene as SVG, or `None` when the map has no picture geometry.
    fn svg(&mut self, map: &Map, scene: &Scene) -> Option<String> {
        let g = self.geometry(map)?;
        crate::diplomacy::picture::draw_svg(map, g, scene).ok()
    }

    /// Every file of one game (its folder: [`game_folder`]), and its index line.
    /// The game is named by its directory, as players name it in mail.
    pub fn game(&mut self, dir_name: &str, g: &PublicGame) -> (Vec<SiteFile>, IndexRow) {
        let folder = game_folder(dir_name);
        let named;
        let g = if g.name == dir_name {
            g
        } else {
            named = PublicGame { name: dir_name.to_string(), ..g.clone() };
            &named
        };
        let mut files = Vec::new();
        let picture = match &g.board {
            PublicBoard::Diplomacy { map, state, .. } => self.svg(map, &Scene::from_state(&g.name, state)),
            PublicBoard::Text(_) => None,
        };
        if let Some(svg) = &picture {
            files.push(SiteFile::text(format!("{folder}/board.svg"), svg.clone()));
        }
        files.push(SiteFile::text(format!("{folder}/index.html"), game_page(g, picture.is_some())));
        for (i, step) in g.steps.iter().enumerate() {
            let picture = match (&g.board, &step.body) {
                (PublicBoard::Diplomacy { map, .. }, PublicStepBody::Phase { before, report, after }) => {
                    Scene::from_results(map, &g.name, before, report, after).ok().and_then(|s| self.svg(map, &s))
                }
                _ => None,
            };
            let code = slug(&step.code);
            if let Some(svg) = &picture {
                files.push(SiteFile::text(format!("{folder}/{code}.svg"), svg.clone()));
            }
            let (prev, next) = (i.checked_sub(1).map(|p| &g.steps[p]), g.steps.get(i + 1));
            files.push(SiteFile::text(
                format!("{folder}/{code}.html"),
                step_page(g, step, prev, next, picture.is_some()),
            ));
        }
        (files, index_row(dir_name, g))
    }

    /// The whole site of these games (`(directory name, game)`): the index, the stylesheet
    /// and every game's files.
    pub fn site(&mut self, games: &[(String, PublicGame)]) -> Vec<SiteFile> {
        let mut files = Vec::new();
        let mut rows = Vec::new();
        for (dir, g) in games {
            let (f, row) = self.game(dir, g);
            files.extend(f);
            rows.push(row);
        }
        files.push(index_page(&rows));
        files.push(stylesheet());
        files
    }
}

/// The stylesheet's file.
pub fn stylesheet() -> SiteFile {
    SiteFile::text("style.css".into(), STYLESHEET.to_string())
}

/// A game's line on the index.
pub fn index_row(dir_name: &str, g: &PublicGame) -> IndexRow {
    IndexRow {
        folder: game_folder(dir_name),
        name: g.name.clone(),
        kind: kind_of(g),
        step: g.step.clone(),
        deadline: g.deadline,
        players: g.seats.iter().filter(|s| !s.player.is_open()).count(),
        open: g.seats.iter().filter(|s| s.player.is_open()).map(|s| s.seat.clone()).collect(),
        over: g.over.clone(),
    }
}

/// A game's kind as the index keeps it: a Diplomacy game off the standard map names its
/// variant (`standard:Ancient Mediterranean`).
fn kind_of(g: &PublicGame) -> String {
    match &g.board {
        crate::game::public::PublicBoard::Diplomacy { map, .. } if !map.is_standard_variant() => {
            format!("{}:{}", g.kind, map.title)
        }
        _ => g.kind.clone(),
    }
}

/// What kind of game, in words.
fn kind_words(kind: &str) -> String {
    match kind.split_once(':') {
        Some(("standard", title)) => return format!("Diplomacy ({title})"),
        Some(("shadow-worlds", title)) => return format!("Diplomacy (Shadow Worlds on {title})"),
        _ => {}
    }
    match kind {
        "standard" => "Diplomacy (standard)".into(),
        "shadow-worlds" => "Diplomacy (Shadow Worlds)".into(),
        other => {
            let mut c = other.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        }
    }
}

/// A result as a sentence: `bob wins` -> `bob wins.`
fn full_stop(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '!', '?']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

fn deadline_words(d: Option<DateTime<Utc>>) -> String {
    d.map_or_else(|| "none".to_string(), |d| format_deadline(d, None))
}

/// The index page: every game, sorted by name as given.
pub fn index_page(rows: &[IndexRow]) -> SiteFile {
    let body = if rows.is_empty() {
        "<h1>Games</h1>\n<p>This judge has no games yet.</p>\n".to_string()
    } else {
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let seats = if r.open.is_empty() {
                    crate::text::count(r.players, "player", "players")
                } else {
                    format!("{}; open: {}", crate::text::count(r.players, "player", "players"), esc(&r.open.join(", ")))
                };
                vec![
                    format!("<a href=\"{}/index.html\">{}</a>", esc(&r.folder), esc(&r.name)),
                    esc(&kind_words(&r.kind)),
                    esc(&r.step),
                    esc(&if r.over.is_some() { "-".to_string() } else { deadline_words(r.deadline) }),
                    seats,
                    match &r.over {
                        Some(result) => format!("<strong>Over.</strong> {}", esc(&full_stop(result))),
                        None => "Under way".into(),
                    },
                ]
            })
            .collect();
        format!(
            "<h1>Games</h1>\n<p>{} on this judge. Times are UTC.</p>\n{}",
            crate::text::count(rows.len(), "game", "games"),
            card_table(None, &["Game", "Game and variant", "Now", "Next deadline", "Players", "State"], &cells)
        )
    };
    SiteFile::text("index.html".into(), page("", "Games", &[], &body))
}

/// A swatch of a power's colour on the map, beside its name (colour is never the only sign).
fn swatch(index: usize) -> String {
    format!(
        "<span class=\"swatch\" style=\"background:{}\" aria-hidden=\"true\"></span>",
        PALETTE[index % PALETTE.len()]
    )
}

/// A power's name with its swatch, when `map` knows it.
fn power_cell(map: Option<&Map>, name: &str) -> String {
    match map.and_then(|m| m.lookup_power(name)) {
        Some(p) => format!("{}{}", swatch(p.0 as usize), esc(name)),
        None => esc(name),
    }
}

fn diplomacy_map(g: &PublicGame) -> Option<&Map> {
    match &g.board {
        PublicBoard::Diplomacy { map, .. } => Some(map),
        PublicBoard::Text(_) => None,
    }
}

fn step_words(g: &PublicGame) -> (&'static str, &'static str) {
    match g.board {
        PublicBoard::Diplomacy { .. } => ("phase", "Phases"),
        PublicBoard::Text(_) => ("step", "Steps"),
    }
}

/// The picture of the board, or why there is none.
fn board_picture(src: &str, alt: &str, drawn: bool) -> String {
    if drawn {
        // As wide as the screen at most; the picture itself, to zoom, a tap away.
        format!(
            "<figure class=\"board\"><a href=\"{src}\"><img src=\"{src}\" alt=\"{}\" class=\"board\"></a>\
             <figcaption><a href=\"{src}\">Open the picture at full size</a></figcaption></figure>\n",
            esc(alt)
        )
    } else {
        "<p>There is no picture of this map.</p>\n".to_string()
    }
}

fn boards_words(g: &PublicGame) -> &'static str {
    match &g.board {
        PublicBoard::Diplomacy { state, .. } if state.boards.len() > 1 => "boards A and B",
        _ => "the board",
    }
}

fn game_page(g: &PublicGame, drawn: bool) -> String {
    let mut b = String::new();
    b.push_str(&format!("<h1>{}</h1>\n", esc(&g.name)));
    b.push_str(&format!("<p class=\"lead\">{}. Now: {}.", esc(&kind_words(&kind_of(g))), esc(&g.step)));
    match &g.over {
        Some(result) => b.push_str(&format!(" <strong>{}</strong>", esc(&crate::text::game_over(result)))),
        None => b.push_str(&format!(" Next deadline: {}.", esc(&deadline_words(g.deadline)))),
    }
    b.push_str("</p>\n");
    let map = diplomacy_map(g);
    b.push_str("<h2>The board now</h2>\n");
    match &g.board {
        PublicBoard::Diplomacy { .. } => b.push_str(&board_picture(
            "board.svg",
            &format!("Map of {}, {}: units and supply center owners on {}", g.name, g.step, boards_words(g)),
            drawn,
        )),
        PublicBoard::Text(text) => b.push_str(&report_text(text)),
    }
    let rows: Vec<Vec<String>> = g
        .seats
        .iter()
        .map(|s| {
            let player = match &s.player {
                Holder::Named(p) => esc(p),
                Holder::Unnamed => "<em>not shown</em>".into(),
                Holder::Open => "<em>open</em>".into(),
            };
            let mut standing = esc(&s.standing);
            if s.out {
                standing.push_str(if standing.is_empty() { "out" } else { "; out" });
            }
            vec![power_cell(map, &s.seat), player, standing]
        })
        .collect();
    let (seat_word, standing_word) = if map.is_some() { ("Power", "Centers and units") } else { ("Seat", "") };
    b.push_str("<h2>Players</h2>\n");
    if map.is_some() {
        b.push_str(&classed_table(None, &[seat_word, "Player", standing_word], &["power"], &rows));
        if g.names_secret {
            b.push_str("<p>A gunboat game: who plays each power is shown when the game is over.</p>\n");
        }
    } else {
        let names: Vec<String> = g.seats.iter().map(|s| esc(&s.seat)).collect();
        b.push_str(&format!("<p>{}</p>\n", names.join(", ")));
    }
    if let PublicBoard::Diplomacy { ledger, .. } = &g.board {
        if !ledger.is_empty() {
            b.push_str("<h2>Ledger</h2>\n");
            b.push_str(&ledger_table(map, ledger));
        }
    }
    if !g.press.is_empty() {
        b.push_str("<h2>Press to everyone</h2>\n");
        for p in &g.press {
            b.push_str(&format!(
                "<article class=\"press\"><h3>From {} <small>({})</small></h3><pre>{}</pre></article>\n",
                esc(&p.from),
                esc(&p.during),
                esc(&p.text)
            ));
        }
    }
    let (word, heading) = step_words(g);
    b.push_str(&format!("<h2>{heading} processed</h2>\n"));
    if g.steps.is_empty() {
        b.push_str(&format!("<p>No {word} has been processed yet.</p>\n"));
    } else {
        b.push_str("<ol class=\"steps\">\n");
        for s in &g.steps {
            b.push_str(&format!("<li><a href=\"{}.html\">{}</a>", esc(&slug(&s.code)), esc(&step_title(s))));
            if let Some(at) = s.at {
                b.push_str(&format!(" <small>{}</small>", at.format("%Y-%m-%d %H:%M UTC")));
            }
            b.push_str("</li>\n");
        }
        b.push_str("</ol>\n");
    }
    page("../../", &g.name, &[("index.html".into(), g.name.clone())], &b)
}

fn step_title(s: &PublicStep) -> String {
    match &s.body {
        PublicStepBody::Phase { .. } => s.title.clone(),
        PublicStepBody::Text(_) => format!("#{} {}", s.code, s.title),
    }
}

fn ledger_table(map: Option<&Map>, ledger: &[LedgerLine]) -> String {
    let rows: Vec<Vec<String>> = ledger
        .iter()
        .map(|l| {
            vec![
                power_cell(map, &l.power),
                l.count.to_string(),
                l.control_list.to_string(),
                format!("{}+{}", l.units_a, l.units_b),
                if l.delta > 0 { format!("+{}", l.delta) } else { l.delta.to_string() },
                esc(&l.doubled.join(" ")),
            ]
        })
        .collect();
    classed_table(
        Some("Count: the control list plus doubled home centers; delta: builds (+) or removals (-) due"),
        &["Power", "Count", "Control list", "Units A+B", "Delta", "Doubled home centers"],
        &["power"],
        &rows,
    )
}

fn orders_table(map: Option<&Map>, caption: &str, orders: &[&OrderLine]) -> String {
    let rows: Vec<Vec<String>> = orders
        .iter()
        .map(|o| {
            let result = format!("<span class=\"result {}\">{}</span>", slug(&o.result), esc(&o.result));
            vec![power_cell(map, &o.power), esc(&o.order), result, esc(&o.reason)]
        })
        .collect();
    // An order is never broken across lines: the table scrolls sideways instead.
    classed_table(Some(caption), &["Power", "Order", "Result", "Why"], &["power", "order", "outcome", "why"], &rows)
}

fn report_html(map: Option<&Map>, r: &PhaseReport) -> String {
    let mut b = String::new();
    for board in &r.boards {
        let on = board.board.map(|c| format!(" on board {c}")).unwrap_or_default();
        b.push_str(&format!("<h2>Orders{on}</h2>\n"));
        if board.orders.is_empty() {
            b.push_str("<p>No orders.</p>\n");
        } else {
            let orders: Vec<&OrderLine> = board.orders.iter().collect();
            b.push_str(&orders_table(map, &format!("Every order{on} and what became of it"), &orders));
        }
        if !board.dislodged.is_empty() {
            b.push_str(&format!("<h3>Dislodged{on}</h3>\n<ul>\n"));
            for d in &board.dislodged {
                let retreats = if d.retreats.is_empty() {
                    "no retreat".to_string()
                } else {
                    format!("may retreat to {}", d.retreats.join(", "))
                };
                b.push_str(&format!(
                    "<li>{}: {} (attacked from {}), {}</li>\n",
                    power_cell(map, &d.power),
                    esc(&d.unit),
                    esc(&d.attacked_from),
                    esc(&retreats)
                ));
            }
            b.push_str("</ul>\n");
        }
        if !board.ownership_changes.is_empty() {
            b.push_str(&format!("<h3>Supply centers changing hands{on}</h3>\n<ul>\n"));
            for c in &board.ownership_changes {
                b.push_str(&format!("<li>{}</li>\n", esc(c)));
            }
            b.push_str("</ul>\n");
        }
    }
    if !r.adjustments.is_empty() {
        b.push_str("<h2>Adjustments</h2>\n");
        let orders: Vec<&OrderLine> = r.adjustments.iter().collect();
        b.push_str(&orders_table(map, "Every build, removal and waiver, and what became of it", &orders));
    }
    if !r.defaults.is_empty() {
        b.push_str("<h2>Defaults</h2>\n<ul>\n");
        for d in &r.defaults {
            b.push_str(&format!("<li>{}</li>\n", esc(d)));
        }
        b.push_str("</ul>\n");
    }
    if !r.ledger.is_empty() {
        b.push_str("<h2>Ledger</h2>\n");
        b.push_str(&ledger_table(map, &r.ledger));
    }
    if !r.standings.is_empty() {
        b.push_str("<h2>Centers and units after the phase</h2>\n");
        let plus = |v: &[usize]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>().join("+");
        let rows: Vec<Vec<String>> = r
            .standings
            .iter()
            .map(|s| {
                let adj = match s.adjustment {
                    Some(n) if n > 0 => format!("builds {n}"),
                    Some(n) if n < 0 => format!("removes {}", -n),
                    _ => String::new(),
                };
                vec![power_cell(map, &s.power), plus(&s.centers), plus(&s.units), adj]
            })
            .collect();
        b.push_str(&classed_table(None, &["Power", "Centers", "Units", "Next Winter"], &["power"], &rows));
    }
    if !r.notices.is_empty() {
        b.push_str("<h2>Notices</h2>\n");
        for n in &r.notices {
            b.push_str(&format!("<p class=\"notice\">{}</p>\n", esc(n)));
        }
    }
    b
}

fn step_page(
    g: &PublicGame,
    s: &PublicStep,
    prev: Option<&PublicStep>,
    next: Option<&PublicStep>,
    drawn: bool,
) -> String {
    let title = step_title(s);
    let (word, _) = step_words(g);
    let mut b = format!("<h1>{}: {}</h1>\n", esc(&g.name), esc(&title));
    let link = |other: Option<&PublicStep>, rel: &str, label: &str| match other {
        Some(o) => format!(
            "<a rel=\"{rel}\" href=\"{}.html\">{label} {word}: {}</a>",
            esc(&slug(&o.code)),
            esc(&step_title(o))
        ),
        None => format!("<span>No {} {word}</span>", label.to_lowercase()),
    };
    let steps_nav = format!(
        "<nav class=\"prevnext\" aria-label=\"Other {word}s\">{} {}</nav>\n",
        link(prev, "prev", "Previous"),
        link(next, "next", "Next")
    );
    b.push_str(&steps_nav);
    if let Some(at) = s.at {
        b.push_str(&format!("<p>Processed {}.</p>\n", at.format("%Y-%m-%d %H:%M UTC")));
    }
    match &s.body {
        PublicStepBody::Phase { report, .. } => {
            b.push_str(&board_picture(
                &format!("{}.svg", slug(&s.code)),
                &format!(
                    "Map of {} results on {}: units before the phase, every order drawn with its outcome, \
                     dislodged units and supply center owners after it",
                    s.title,
                    boards_words(g)
                ),
                drawn,
            ));
            b.push_str(&report_html(diplomacy_map(g), report));
        }
        PublicStepBody::Text(text) => b.push_str(&report_text(text)),
    }
    b.push_str(&steps_nav);
    page("../../", &format!("{}: {}", g.name, title), &[("index.html".into(), g.name.clone())], &b)
}
