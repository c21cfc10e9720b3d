//! `shadowjudge.Game`: a whole Diplomacy game in memory (standard or Shadow Worlds, on any
//! shipped variant's map) over the judge's phase machine, with the names bot authors know
//! from MILA's `diplomacy`.
//!
//! Names are MILA's: powers in capitals (`FRANCE`), places by their three-letter
//! abbreviation in capitals (`PAR`, `STP/SC`), units as `A PAR`. In Shadow Worlds a name
//! asked for without a board carries its board at the end (`A PAR (A)`), which is also how
//! an order names its board.
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock, Weak};

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use shadowjudge::diplomacy::engine::{self, Submission};
use shadowjudge::diplomacy::judge::rulebook::{Edition, Rulebook};
use shadowjudge::diplomacy::judge::{Dislodgement, Ownership, Unit};
use shadowjudge::diplomacy::map::{Map, PowerId, ProvinceId, RegionId, UnitType};
use shadowjudge::diplomacy::order::grammar::{OrderParser, ParsedFile, ParsedOrder};
use shadowjudge::diplomacy::order::{Board, Order};
use shadowjudge::diplomacy::state::{BoardState, GameEnd, GameState, Retreating, StoredOrder};
use shadowjudge::game::settings::{Settings, VariantKind};
use shadowjudge::phase::{Phase, PhaseKind, Season};

use crate::lazy::{ReadOnlyDict, Report, Source};
use crate::maps::{self, Names};
use crate::possible::{self, Possible};
use crate::tables::{LinesRead, Objects, ReadLine, Slot, KEPT_TEXT, OURS};
use crate::topy::to_py;

/// A Diplomacy game in memory.
#[pyclass(module = "shadowjudge", name = "Game")]
#[derive(Clone)]
pub struct Game {
    pub(crate) inner: engine::Game,
    /// The map's names and the strings made for it.
    pub(crate) names: &'static Names,
    /// The game's settings, shared with the reports `process` returns (they never change
    /// once the game is made).
    settings: Arc<Settings>,
    /// The last phase as decided, shared with what `process` returned.
    last: Option<Arc<Report>>,
    /// Every power's possible orders in this position, once asked for (emptied when the
    /// position changes).
    possible: OnceLock<Arc<Possible>>,
    /// Orders given and not yet decided on, in the order given (see [`Game::settle`]).
    pending: Vec<Pending>,
    /// Their texts, one after the other, and their orders when read line by line (kept
    /// from one phase to the next: no new space for each call).
    pending_text: String,
    pending_orders: Vec<ParsedOrder>,
    /// The phases played so far, the last first (a copy shares them).
    played: Option<Arc<Played>>,
    /// What MILA's `Game` takes besides the judge's settings.
    python: Arc<PySettings>,
}

/// One phase played: the position before it with the orders given, and what was decided
/// (none when the game was drawn in that phase).
struct Played {
    state: GameState,
    report: Option<Arc<Report>>,
    before: Option<Arc<Played>>,
}

/// The settings of a game made here that the judge's own games do not have: MILA's game
/// id and rules (kept and written to saved games), the year of the automatic draw, and the
/// phases read from a saved game before this one (as MILA's saved-game JSON, one each).
#[derive(Clone, Serialize, Deserialize)]
pub(crate) struct PySettings {
    game_id: String,
    rules: Vec<String>,
    /// The game is drawn when the Fall of this year (counted from 1) is over without a
    /// winner, as MILA draws in the 100th year; none: never.
    draw_in_year: Option<u16>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    imported: Vec<String>,
}

impl Default for PySettings {
    fn default() -> PySettings {
        PySettings {
            game_id: new_game_id(),
            rules: vec!["NO_PRESS".into(), "POWER_CHOICE".into()],
            draw_in_year: Some(100),
            imported: Vec::new(),
        }
    }
}

/// A game id as MILA makes them: 16 letters and digits, different for each game.
fn new_game_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let digest = Sha256::digest(format!("{nanos} {} {}", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed)));
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    digest[..16].iter().map(|b| LETTERS[*b as usize % LETTERS.len()] as char).collect()
}

/// Orders given to `set_orders`, read, and waiting to be decided on: the judge decides on
/// them all at once when anything asks (the game's orders, `process`, a copy, the
/// acknowledgement itself), in the order they were given, so the outcome is the same as
/// deciding at once. Deciding seven powers' orders in one go, instead of in seven calls
/// with a bot's work between them, finds the map and the position in memory once.
#[derive(Clone)]
struct Pending {
    power: PowerId,
    /// In `Game::pending_text`.
    text: Range<usize>,
    /// In `Game::pending_orders`, the order of each line (spans in `text`), or as the
    /// grammar read the whole text.
    read: Read,
    /// The answer `set_orders` returned, while anyone holds it.
    answer: Weak<Words>,
}

#[derive(Clone)]
enum Read {
    Lines(Range<usize>),
    Whole(ParsedFile),
}

/// What `to_json` writes: the game's settings as in game.toml and its state as in
/// state.json.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    settings: Settings,
    state: GameState,
    /// Absent in a game saved before it was kept: MILA's defaults, without the draw.
    #[serde(default)]
    python: Option<PySettings>,
}

pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A JSON text as Python values.
pub(crate) fn from_json_text<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A Python value as JSON text.
pub(crate) fn to_json_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    value.py().import("json")?.call_method1("dumps", (value,))?.extract()
}

fn rulebook(rules: Option<&Bound<'_, PyAny>>) -> PyResult<Rulebook> {
    let Some(rules) = rules.filter(|r| !r.is_none()) else { return Ok(Rulebook::default()) };
    if rules.is_instance_of::<PyString>() {
        let text: String = rules.extract()?;
        let edition = Edition::parse(&text)
            .ok_or_else(|| value_error(format!("unknown rulebook `{text}`: use 1971, 1982, 2000, 2023 or dptg")))?;
        return Ok(Rulebook::edition(edition));
    }
    serde_json::from_str(&to_json_text(rules)?).map_err(|e| value_error(format!("rules: {e}")))
}

impl Game {
    fn made(settings: Settings, names: &'static Names, state: GameState, python: PySettings) -> Game {
        let map = names.map.clone();
        Game {
            names,
            played: None,
            python: Arc::new(python),
            settings: Arc::new(settings.clone()),
            inner: engine::Game::new(settings, map, state),
            last: None,
            possible: OnceLock::new(),
            pending: Vec::new(),
            pending_text: String::new(),
            pending_orders: Vec::new(),
        }
    }

    fn map(&self) -> &Map {
        &self.inner.map
    }

    fn shadow(&self) -> bool {
        self.inner.settings.variant == VariantKind::ShadowWorlds
    }

    pub(crate) fn power_name(&self, p: PowerId) -> String {
        self.map().power(p).name.to_uppercase()
    }

    fn power(&self, name: &str) -> PyResult<PowerId> {
        self.map().lookup_power(name).ok_or_else(|| {
            let known: Vec<String> = self.map().power_ids().map(|p| self.power_name(p)).collect();
            PyKeyError::new_err(format!("no power called `{name}`: the powers are {}", known.join(", ")))
        })
    }

    /// The power a name given to a method names: one of the name strings this module hands
    /// out is known by its address.
    fn power_given(&self, power: &Bound<'_, PyAny>) -> PyResult<PowerId> {
        if let Some((p, _)) = self.names.power_strings(power.py()).iter().find(|(_, s)| s.as_ptr() == power.as_ptr()) {
            return Ok(*p);
        }
        let name = power.cast::<PyString>().map_err(|_| PyTypeError::new_err("a power is named by a string"))?;
        self.power(&name.to_cow()?)
    }

    /// A power's name as the dicts by power give it (`FRANCE`): one string object per power.
    fn power_key<'py>(&self, py: Python<'py>, p: PowerId) -> &Bound<'py, PyString> {
        let names = self.names.power_strings(py);
        names.iter().find(|(q, _)| *q == p).map(|(_, s)| s.bind(py)).expect("every power of the map is named")
    }

    fn powers_asked(&self, power: Option<&str>) -> PyResult<Vec<PowerId>> {
        match power {
            Some(p) => Ok(vec![self.power(p)?]),
            None => Ok(self.map().power_ids().collect()),
        }
    }

    fn boards_asked(&self, board: Option<&str>) -> PyResult<Vec<Board>> {
        let count = self.inner.state.boards.len();
        match board {
            None => Ok((0..count).map(|b| Board(b as u8)).collect()),
            Some(b) => match b.trim().to_ascii_uppercase().as_str() {
                "A" => Ok(vec![Board::A]),
                "B" if count == 2 => Ok(vec![Board::B]),
                _ if count == 2 => Err(value_error(format!("there is no board `{b}`: the boards are A and B"))),
                _ => Err(value_error(format!("there is no board `{b}`: this game has one board, A"))),
            },
        }
    }

    /// The board at the end of a name, when the game has two and none was asked for.
    pub(crate) fn suffix(&self, board: Board, asked: bool) -> String {
        if self.shadow() && !asked {
            format!(" ({})", board.letter())
        } else {
            String::new()
        }
    }

    pub(crate) fn province_name(&self, p: ProvinceId) -> &'static str {
        &self.names.provinces[p.0 as usize]
    }

    pub(crate) fn region_name(&self, r: RegionId) -> &'static str {
        &self.names.regions[r.0 as usize]
    }

    fn units_of(&self, power: PowerId, boards: &[Board], asked: bool) -> Vec<String> {
        let mut out = Vec::new();
        for &b in boards {
            let s = &self.inner.state.boards[b.0 as usize];
            let suffix = self.suffix(b, asked);
            for u in s.units.iter().filter(|u| u.power == power) {
                out.push(format!("{} {}{suffix}", u.kind.letter(), self.region_name(u.region)));
            }
            for r in s.retreating.iter().filter(|r| r.dislodgement.unit.power == power) {
                let u = r.dislodgement.unit;
                out.push(format!("*{} {}{suffix}", u.kind.letter(), self.region_name(u.region)));
            }
        }
        out
    }

    fn centers_of(&self, power: PowerId, boards: &[Board], asked: bool) -> Vec<String> {
        let mut out = Vec::new();
        for &b in boards {
            let suffix = self.suffix(b, asked);
            for c in self.inner.state.boards[b.0 as usize].ownership.centers_of(power) {
                out.push(format!("{}{suffix}", self.province_name(c)));
            }
        }
        out
    }

    fn by_power<'py>(
        &self,
        py: Python<'py>,
        power: Option<&str>,
        mut each: impl FnMut(PowerId) -> Vec<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match power {
            Some(p) => Ok(PyList::new(py, each(self.power(p)?))?.into_any()),
            None => {
                let d = PyDict::new(py);
                for p in self.map().power_ids() {
                    d.set_item(self.power_key(py, p), each(p))?;
                }
                Ok(d.into_any())
            }
        }
    }

    /// Every power's possible orders in this position (worked out once per position).
    fn possible(&self) -> Arc<Possible> {
        self.possible
            .get_or_init(|| {
                let powers: Vec<PowerId> = self.map().power_ids().collect();
                Arc::new(possible::orders(&self.inner, self.names, &powers))
            })
            .clone()
    }

    /// Decide on every order given and not yet decided on, in the order given. An answer
    /// nobody holds any more (the caller let go of what `set_orders` returned) can never
    /// be read: its orders are kept and nothing else is worked out.
    fn settle(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        for p in pending.drain(..) {
            let text = &self.pending_text[p.text];
            let orders = match &p.read {
                Read::Lines(lines) => &self.pending_orders[lines.clone()],
                Read::Whole(parsed) => &parsed.orders[..],
            };
            let Some(answer) = p.answer.upgrade() else {
                self.inner.keep_orders(p.power, text, orders);
                continue;
            };
            let parsed = match p.read {
                Read::Lines(_) => ParsedFile { orders: orders.to_vec(), diagnostics: Vec::new() },
                Read::Whole(parsed) => parsed,
            };
            let _ = answer.decided.set(self.inner.take_orders(p.power, text, &parsed, false));
        }
        // Kept for the next phase's orders.
        self.pending = pending;
        self.pending_text.clear();
        self.pending_orders.clear();
    }

    /// After a phase is decided: the draw of the year set, once its Fall is over with no
    /// winner (as MILA draws in the 100th year).
    fn draw_at_limit(&mut self, decided: Phase) {
        let Some(years) = self.python.draw_in_year else { return };
        let state = &self.inner.state;
        let last = self.map().first_year.saturating_add(years.max(1) - 1);
        let fall_over = !(state.phase.season == Season::Fall && state.phase.kind == PhaseKind::Retreats);
        if state.end.is_none() && decided.season == Season::Fall && decided.year >= last && fall_over {
            // As MILA's draw, the phase it ends in is kept in the history, with no orders.
            let with_units = self.with_units();
            let at = self.inner.state.clone();
            self.played = Some(Arc::new(Played { state: at, report: None, before: self.played.take() }));
            self.inner.state.end = Some(GameEnd::Draw(with_units));
        }
    }

    /// No units, no centers, nothing dislodged.
    fn is_out(&self, p: PowerId) -> bool {
        !self.inner.state.boards.iter().any(|b| {
            b.units.iter().any(|u| u.power == p)
                || b.ownership.count(p) > 0
                || b.retreating.iter().any(|r| r.dislodgement.unit.power == p)
        })
    }

    /// The powers with a unit on the map (MILA's draw is between them).
    fn with_units(&self) -> Vec<PowerId> {
        let boards = &self.inner.state.boards;
        self.map().power_ids().filter(|p| boards.iter().any(|b| b.units.iter().any(|u| u.power == *p))).collect()
    }

    /// A game in a position of this one's history (to read it as the game's methods do).
    fn at(&self, state: &GameState) -> Game {
        Game::made((*self.settings).clone(), self.names, state.clone(), PySettings::default())
    }

    fn homes_of(&self, p: PowerId) -> Vec<String> {
        self.map().power(p).home_centers.iter().map(|c| self.province_name(*c).to_string()).collect()
    }

    /// The dislodged units of a power with where each may retreat.
    fn retreats_of<'py>(&self, py: Python<'py>, p: PowerId) -> PyResult<Bound<'py, PyDict>> {
        let mine = PyDict::new(py);
        for (b, s) in self.inner.state.boards.iter().enumerate() {
            let suffix = self.suffix(Board(b as u8), false);
            for r in s.retreating.iter().filter(|r| r.dislodgement.unit.power == p) {
                let u = r.dislodgement.unit;
                let options: Vec<String> = r.options.iter().map(|o| self.region_name(*o).to_string()).collect();
                mine.set_item(format!("{} {}{suffix}", u.kind.letter(), self.region_name(u.region)), options)?;
            }
        }
        Ok(mine)
    }

    /// MILA's `builds` of a power: in a Winter, builds (positive) or removals (negative)
    /// due on the first board and the home centers free to build in; otherwise none.
    fn builds_of<'py>(&self, py: Python<'py>, p: PowerId) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let b = &self.inner.state.boards[0];
        let (mut count, mut homes) = (0i64, Vec::new());
        if self.inner.state.phase.kind == PhaseKind::Adjustments && self.inner.state.end.is_none() {
            let units = b.units.iter().filter(|u| u.power == p).count() as i64;
            count = b.ownership.count(p) as i64 - units;
            if count > 0 {
                let map = self.map();
                for c in &map.power(p).home_centers {
                    let vacant = !b.units.iter().any(|u| map.province_of(u.region) == *c);
                    if vacant && b.ownership.0[c.0 as usize] == Some(p) {
                        homes.push(self.province_name(*c).to_string());
                    }
                }
            }
        }
        d.set_item("count", count)?;
        d.set_item("homes", homes)?;
        Ok(d)
    }

    /// The orders given in a position, by power, as written (in capitals).
    fn orders_given<'py>(&self, py: Python<'py>, state: &GameState) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.map().power_ids() {
            let mine: Vec<String> =
                state.orders.iter().filter(|o| o.power == p).map(|o| o.text.trim().to_uppercase()).collect();
            d.set_item(self.power_key(py, p), mine)?;
        }
        Ok(d)
    }

    /// The position alone, as hashed: phase, units, owners, dislodged units, standoffs,
    /// eliminations and the end; not the orders given so far.
    fn position_bytes(&self) -> Vec<u8> {
        let s = &self.inner.state;
        let mut boards = s.boards.clone();
        for b in &mut boards {
            b.units.sort();
            b.retreating.sort_by_key(|r| r.dislodgement.unit);
            b.standoffs.sort();
        }
        let mut eliminated = s.eliminated.clone();
        eliminated.sort();
        let key = (&self.inner.settings.variant, s.phase, boards, eliminated, &s.end);
        serde_json::to_vec(&key).expect("a state serializes")
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (variant = None, rules = None, *, short_game = false, map_name = None, game_id = None, draw_in_year = Some(100)))]
    fn new(
        variant: Option<&str>,
        rules: Option<&Bound<'_, PyAny>>,
        short_game: bool,
        map_name: Option<&str>,
        game_id: Option<String>,
        draw_in_year: Option<u16>,
    ) -> PyResult<Game> {
        let (kind, names) = variant_and_map(variant, map_name)?;
        // MILA's rules are a list of names (`["NO_PRESS"]`): kept, not the judge's rulebook.
        let mila_rules: Option<Vec<String>> = match rules {
            Some(r) if !r.is_none() && !r.is_instance_of::<PyString>() && !r.is_instance_of::<PyDict>() => {
                let names: Vec<String> = r
                    .try_iter()
                    .and_then(|i| i.map(|n| n.and_then(|n| n.extract::<String>())).collect())
                    .map_err(|_| value_error("rules: a rulebook edition (\"2000\"), a dict of its options, or a list of MILA's rule names"))?;
                Some(names.into_iter().map(|n| n.trim().to_uppercase()).collect())
            }
            _ => None,
        };
        let rules = if mila_rules.is_some() { None } else { rules };
        let mut settings = Settings::new("python", kind);
        settings.map = names.variant.to_string();
        settings.rules = rulebook(rules)?;
        settings.shadow.short_game = short_game;
        let state = GameState::start(&names.map, kind.boards());
        let mut python = PySettings { draw_in_year, ..PySettings::default() };
        if let Some(id) = game_id {
            python.game_id = id;
        }
        if let Some(rules) = mila_rules {
            python.rules = rules;
        }
        Ok(Game::made(settings, names, state, python))
    }

    /// `standard` or `shadow-worlds`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.inner.settings.variant.name()
    }

    /// The phase code: `S1901M`, `F1901R`, `W1901A` (the year in four digits, as MILA
    /// writes it: `S0001M`); `COMPLETED` once the game is over.
    #[getter]
    fn phase(&self) -> String {
        if self.inner.state.end.is_some() {
            return "COMPLETED".into();
        }
        phase_code(self.inner.state.phase)
    }

    /// The phase code, as `phase` gives it (MILA's name for it).
    fn get_current_phase(&self) -> String {
        self.phase()
    }

    /// `movement`, `retreats` or `adjustments`.
    #[getter]
    fn phase_type(&self) -> String {
        self.inner.state.phase.kind.to_string()
    }

    #[getter]
    fn is_game_done(&self) -> bool {
        self.inner.state.end.is_some()
    }

    /// The winner once a power has won; None otherwise (also in a draw).
    #[getter]
    fn winner(&self) -> Option<String> {
        match &self.inner.state.end {
            Some(shadowjudge::diplomacy::state::GameEnd::Victory(p)) => Some(self.power_name(*p)),
            _ => None,
        }
    }

    /// Every power of the map, eliminated ones too, as a dict of `Power` by name.
    #[getter]
    fn powers<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let d = PyDict::new(py);
        let me = slf.try_borrow()?;
        for p in me.map().power_ids() {
            let name = me.power_key(py, p);
            d.set_item(name, Power { game: slf.clone().unbind(), id: p, name: name.clone().unbind() })?;
        }
        Ok(d)
    }

    /// One power (MILA's `get_power`).
    fn get_power(slf: &Bound<'_, Self>, power_name: &str) -> PyResult<Power> {
        let me = slf.try_borrow()?;
        let id = me.power(power_name)?;
        Ok(Power { game: slf.clone().unbind(), id, name: me.power_key(slf.py(), id).clone().unbind() })
    }

    /// MILA's name of the map: `standard`, `ancmed`, `modern`, `pure`,
    /// `standard_france_austria`.
    #[getter]
    fn map_name(&self) -> &'static str {
        self.names.mila
    }

    /// MILA's game id: given, or made when the game is.
    #[getter]
    fn game_id(&self) -> String {
        self.python.game_id.clone()
    }

    /// MILA's rules as given (`NO_PRESS`, ...): kept and written to saved games.
    #[getter]
    fn rules(&self) -> Vec<String> {
        self.python.rules.clone()
    }

    /// The year (counted from 1) at whose end the game is drawn when nobody has won; None:
    /// never.
    #[getter]
    fn draw_in_year(&self) -> Option<u16> {
        self.python.draw_in_year
    }

    /// End the game in a draw between `winners` (names), or the powers with units.
    #[pyo3(signature = (winners = None))]
    fn draw(&mut self, winners: Option<Vec<String>>) -> PyResult<()> {
        self.settle();
        if self.inner.state.end.is_some() {
            return Err(value_error("the game is over"));
        }
        let winners = match winners {
            Some(names) => names.iter().map(|n| self.power(n)).collect::<PyResult<Vec<_>>>()?,
            None => self.with_units(),
        };
        let state = &mut self.inner.state;
        state.orders.clear();
        state.submitted.clear();
        let before = state.clone();
        state.end = Some(GameEnd::Draw(winners));
        self.played = Some(Arc::new(Played { state: before, report: None, before: self.played.take() }));
        self.possible = OnceLock::new();
        Ok(())
    }

    /// The phases played, oldest first (only the `last` ones when given): each as (phase,
    /// state as `get_state`, orders given by power, the judge's report or None). Those
    /// read from a saved game are in `_imported()`.
    #[pyo3(signature = (last = None))]
    fn _played<'py>(&self, py: Python<'py>, last: Option<usize>) -> PyResult<Bound<'py, PyList>> {
        let mut all = Vec::new();
        let mut at = self.played.as_deref();
        while let Some(p) = at.filter(|_| last.is_none_or(|n| all.len() < n)) {
            all.push(p);
            at = p.before.as_deref();
        }
        let out = PyList::empty(py);
        for p in all.into_iter().rev() {
            let then = self.at(&p.state);
            let report = match &p.report {
                Some(r) => r.build(py)?.into_any(),
                None => py.None().into_bound(py),
            };
            let row = (phase_code(p.state.phase), then.get_state(py)?, self.orders_given(py, &p.state)?, report);
            out.append(row)?;
        }
        Ok(out)
    }

    /// Put the game in a position given by names, as MILA's states give it: the phase
    /// (`S1901M`), units by power (`A PAR`, `F STP/SC`; `*A PAR` dislodged), centers by
    /// power, dislodged units by power with where each may retreat (`{"A PAR": ["BUR"]}`);
    /// `ended`: the game is over (won by a power with the most centers at or above the
    /// victory count, or drawn between the powers with units). Orders given are
    /// forgotten, the history kept. Games of one board only.
    #[pyo3(signature = (phase, units, centers, retreats = None, ended = false))]
    fn _set_position(
        &mut self,
        phase: &str,
        units: HashMap<String, Vec<String>>,
        centers: HashMap<String, Vec<String>>,
        retreats: Option<HashMap<String, HashMap<String, Vec<String>>>>,
        ended: bool,
    ) -> PyResult<()> {
        if self.shadow() {
            return Err(value_error("a position by names is for a standard game"));
        }
        let phase: Phase = phase.parse().map_err(value_error)?;
        let map = self.inner.map.clone();
        let region = |at: &str, what: &str| {
            map.parse_region(at)
                .ok_or_else(|| value_error(format!("{what}: no place `{at}` on the {} map", map.variant)))
        };
        let unit_of = |power: PowerId, text: &str| -> PyResult<(Unit, bool)> {
            let t = text.trim();
            let dislodged = t.starts_with('*');
            let t = t.trim_start_matches('*');
            let (kind, at) =
                t.split_once(' ').ok_or_else(|| value_error(format!("unit `{text}`: write it as `A PAR`")))?;
            let kind = match kind {
                "A" | "a" => UnitType::Army,
                "F" | "f" => UnitType::Fleet,
                _ => return Err(value_error(format!("unit `{text}`: a unit is `A` (army) or `F` (fleet)"))),
            };
            Ok((Unit { power, kind, region: region(at.trim(), &format!("unit `{text}`"))? }, dislodged))
        };
        let mut board = BoardState {
            units: Vec::new(),
            ownership: Ownership::new(&map),
            retreating: Vec::new(),
            standoffs: Vec::new(),
        };
        let mut dislodged_units = Vec::new();
        for (power, list) in &units {
            let p = self.power(power)?;
            for text in list {
                match unit_of(p, text)? {
                    (u, false) => board.units.push(u),
                    (u, true) => dislodged_units.push(u),
                }
            }
        }
        for (power, list) in &centers {
            let p = self.power(power)?;
            for c in list {
                let prov = map
                    .lookup_province(c.trim())
                    .ok_or_else(|| value_error(format!("center `{c}` of {power}: no such province")))?;
                board.ownership.set(prov, Some(p));
            }
        }
        for (power, by_unit) in retreats.unwrap_or_default() {
            let p = self.power(&power)?;
            for (text, options) in by_unit {
                let (unit, _) = unit_of(p, &text)?;
                let options =
                    options.iter().map(|o| region(o, &format!("retreat of `{text}`"))).collect::<PyResult<Vec<_>>>()?;
                dislodged_units.retain(|u| *u != unit);
                // Where the attack came from is not in MILA's state: the unit's own province.
                let from = map.province_of(unit.region);
                let dislodgement = Dislodgement { unit, attacker_from: from, via_convoy: false };
                board.retreating.push(Retreating { dislodgement, options });
            }
        }
        if let Some(u) = dislodged_units.first() {
            return Err(value_error(format!(
                "dislodged unit `*{} {}` has no entry in retreats",
                u.kind.letter(),
                self.region_name(u.region)
            )));
        }
        let mut state = GameState::start(&map, 1);
        state.phase = phase;
        state.boards = vec![board];
        state.check(&map, 1).map_err(|e| value_error(format!("position: {e}")))?;
        self.settle();
        self.inner.state = state;
        let out: Vec<PowerId> = self.map().power_ids().filter(|p| self.is_out(*p)).collect();
        self.inner.state.eliminated = out;
        if ended {
            let count = |p: &PowerId| self.inner.state.boards[0].ownership.count(*p);
            let best = self.map().power_ids().max_by_key(count);
            let target = self.inner.settings.victory_centers.unwrap_or(self.map().victory_centers);
            let alone = best
                .filter(|b| count(b) >= target && self.map().power_ids().filter(|p| count(p) == count(b)).count() == 1);
            self.inner.state.end = Some(match alone {
                Some(p) => GameEnd::Victory(p),
                None => GameEnd::Draw(self.with_units()),
            });
        }
        self.possible = OnceLock::new();
        self.last = None;
        Ok(())
    }

    /// The phases read from a saved game before this game's own, as MILA's JSON, one each.
    fn _imported(&self) -> Vec<String> {
        self.python.imported.clone()
    }

    /// Keep the phases read from a saved game (`_imported`), with its id and rules.
    fn _set_saved(&mut self, game_id: String, rules: Vec<String>, imported: Vec<String>) {
        let python = Arc::make_mut(&mut self.python);
        python.game_id = game_id;
        python.rules = rules;
        python.imported = imported;
    }

    /// MILA's phase history (see `shadowjudge.mila`).
    #[pyo3(signature = (from_phase = None, to_phase = None, game_role = None))]
    fn get_phase_history<'py>(
        slf: &Bound<'py, Self>,
        from_phase: Option<&Bound<'py, PyAny>>,
        to_phase: Option<&Bound<'py, PyAny>>,
        game_role: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = game_role;
        mila(slf.py())?.call_method1("phase_history", (slf, from_phase, to_phase))
    }

    /// The current phase as MILA's `GamePhaseData` (see `shadowjudge.mila`).
    fn get_phase_data<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("phase_data", (slf,))
    }

    /// The orders of each phase played, by phase, then by power.
    #[getter]
    fn order_history<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("history", (slf, "orders"))
    }

    /// Each unit's result in each phase played, by phase, then by unit (MILA's codes).
    #[getter]
    fn result_history<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("history", (slf, "results"))
    }

    /// The state (as `get_state`) at the start of each phase played, by phase.
    #[getter]
    fn state_history<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("history", (slf, "state"))
    }

    /// Messages: none are kept here (press is not offered); an empty dict by phase.
    #[getter]
    fn message_history<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("history", (slf, "messages"))
    }

    /// The result of each order of the last phase played, in MILA's codes (see
    /// `shadowjudge.mila.get_order_status`).
    #[pyo3(signature = (power_name = None, unit = None, loc = None))]
    fn get_order_status<'py>(
        slf: &Bound<'py, Self>,
        power_name: Option<&Bound<'py, PyAny>>,
        unit: Option<&Bound<'py, PyAny>>,
        loc: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        mila(slf.py())?.call_method1("order_status", (slf, power_name, unit, loc))
    }

    /// Powers out of the game.
    #[getter]
    fn eliminated(&self) -> Vec<String> {
        self.inner.state.eliminated.iter().map(|p| self.power_name(*p)).collect()
    }

    /// Units (`A PAR`; a dislodged one as `*A PAR`), of one power or as a dict by power.
    #[pyo3(signature = (power = None, board = None, *, power_name = None))]
    fn get_units<'py>(
        &self,
        py: Python<'py>,
        power: Option<&Bound<'py, PyAny>>,
        board: Option<&str>,
        power_name: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let power = power_text(power, power_name)?;
        let boards = self.boards_asked(board)?;
        self.by_power(py, power.as_deref(), |p| self.units_of(p, &boards, board.is_some()))
    }

    /// Supply centers owned (`PAR`), of one power or as a dict by power.
    #[pyo3(signature = (power = None, board = None, *, power_name = None))]
    fn get_centers<'py>(
        &self,
        py: Python<'py>,
        power: Option<&Bound<'py, PyAny>>,
        board: Option<&str>,
        power_name: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let power = power_text(power, power_name)?;
        let boards = self.boards_asked(board)?;
        self.by_power(py, power.as_deref(), |p| self.centers_of(p, &boards, board.is_some()))
    }

    /// The places a power may order this phase (`PAR`; `PAR (A)` in Shadow Worlds), or a
    /// dict of them by power.
    #[pyo3(signature = (power = None, *, power_name = None))]
    fn get_orderable_locations<'py>(
        &self,
        py: Python<'py>,
        power: Option<&Bound<'py, PyAny>>,
        power_name: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let power = power_text(power, power_name)?;
        let power = power.as_deref();
        let powers = self.powers_asked(power)?;
        let all = self.possible();
        let places = |p: PowerId| possible::orderable(py, &all, p);
        match power {
            Some(_) => Ok(PyList::new(py, places(powers[0]))?.into_any()),
            None => {
                let d = PyDict::new(py);
                for p in powers {
                    d.set_item(self.power_key(py, p), places(p))?;
                }
                Ok(d.into_any())
            }
        }
    }

    /// Every order each orderable place may be given this phase, as a dict by place.
    fn get_all_possible_orders<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        possible::by_place(py, &self.possible())
    }

    /// Give a power's orders (a list of lines, or one text); a later order for the same
    /// unit replaces the earlier one. Returns what was accepted and what was not.
    ///
    /// `replace` (as MILA's): the power's earlier orders of this phase are dropped first;
    /// `replace=False` keeps them, a later order for a unit replacing its earlier one.
    /// `expand` is MILA's and changes nothing (every order is read in full anyway).
    #[pyo3(signature = (power = None, orders = None, expand = true, replace = true, *, power_name = None))]
    fn set_orders(
        slf: &Bound<'_, Self>,
        power: Option<&Bound<'_, PyAny>>,
        orders: Option<&Bound<'_, PyAny>>,
        expand: bool,
        replace: bool,
        power_name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ReadOnlyDict> {
        let _ = expand;
        let power = one_power(power, power_name)?
            .ok_or_else(|| PyTypeError::new_err("set_orders: name the power (power_name=)"))?;
        let orders = orders.ok_or_else(|| PyTypeError::new_err("set_orders: give the orders (orders=)"))?;
        let mut me = slf.borrow_mut();
        let me = &mut *me;
        let p = me.power_given(power)?;
        if replace && (me.pending.iter().any(|q| q.power == p) || me.inner.state.orders.iter().any(|o| o.power == p)) {
            me.settle();
            me.inner.state.orders.retain(|o| o.power != p);
            me.inner.state.submitted.retain(|q| *q != p);
        }
        let (start, first) = (me.pending_text.len(), me.pending_orders.len());
        let whole = |text: &str| Read::Whole(me.names.parser.parse_orders_on(text, &me.inner.unit_places(), Some(p)));
        let read = if orders.is_instance_of::<PyString>() {
            me.pending_text.push_str(&orders.cast::<PyString>()?.to_cow()?);
            whole(&me.pending_text[start..])
        } else {
            let lines = read_lines(me.names, orders, &mut me.pending_text, &mut me.pending_orders);
            let lines = match lines {
                Ok(lines) => lines,
                Err(e) => {
                    me.pending_text.truncate(start);
                    me.pending_orders.truncate(first);
                    return Err(e);
                }
            };
            lines.map_or_else(|| whole(&me.pending_text[start..]), Read::Lines)
        };
        let answer = Arc::new(Words { game: slf.clone().unbind(), decided: OnceLock::new() });
        me.pending.push(Pending {
            power: p,
            text: start..me.pending_text.len(),
            read,
            answer: Arc::downgrade(&answer),
        });
        Ok(ReadOnlyDict::shared(answer))
    }

    /// Forget the orders given this phase, of one power or of all.
    #[pyo3(signature = (power = None, *, power_name = None))]
    fn clear_orders(
        &mut self,
        power: Option<&Bound<'_, PyAny>>,
        power_name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let power = power_text(power, power_name)?;
        let powers = self.powers_asked(power.as_deref())?;
        self.settle();
        let s = &mut self.inner.state;
        s.orders.retain(|o| !powers.contains(&o.power));
        s.submitted.retain(|p| !powers.contains(p));
        Ok(())
    }

    /// The orders given this phase (in capitals), of one power or as a dict by power.
    #[pyo3(signature = (power = None, *, power_name = None))]
    fn get_orders<'py>(
        &mut self,
        py: Python<'py>,
        power: Option<&Bound<'py, PyAny>>,
        power_name: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let power = power_text(power, power_name)?;
        self.settle();
        self.by_power(py, power.as_deref(), |p| {
            self.inner.kept_orders(p).into_iter().map(|(text, _)| text.to_uppercase()).collect()
        })
    }

    /// Adjudicate the phase (units without orders hold, missing retreats disband, missing
    /// builds are waived, missing removals go by civil disorder) and move to the next one.
    /// Returns the phase's report; `outcomes` gives its orders.
    fn process(&mut self) -> PyResult<ReadOnlyDict> {
        self.settle();
        if self.inner.state.end.is_some() {
            return Err(value_error("the game is over"));
        }
        // The position before, for the history: the orders' texts are moved there (the
        // adjudication reads the orders alone, and would drop the texts), the rest copied.
        let state = &mut self.inner.state;
        let given = std::mem::take(&mut state.orders);
        let mut before = state.clone();
        state.orders = given
            .iter()
            .map(|o| StoredOrder { power: o.power, board: o.board, order: o.order, text: String::new() })
            .collect();
        before.orders = given;
        let decided = self.inner.decide();
        let report = Arc::new(Report::new(decided, self.settings.clone(), self.inner.map.clone()));
        self.possible = OnceLock::new();
        self.last = Some(report.clone());
        let phase = before.phase;
        self.played =
            Some(Arc::new(Played { state: before, report: Some(report.clone()), before: self.played.take() }));
        self.draw_at_limit(phase);
        Ok(ReadOnlyDict::shared(report))
    }

    /// The orders of the last phase processed, each with `power`, `board` (`A`, `B`; None
    /// in a standard game), `order`, `result` (`succeeds`, `fails`, `illegal`, `default`,
    /// ...) and `reason`.
    #[getter]
    fn outcomes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        let Some(report) = self.last.as_deref().map(Report::get) else { return Ok(out) };
        let shadow = self.shadow();
        let lines = report
            .boards
            .iter()
            .flat_map(|b| b.orders.iter().map(move |o| (b.board, o)))
            .chain(report.adjustments.iter().map(|o| (o.board, o)));
        for (board, o) in lines {
            let d = PyDict::new(py);
            d.set_item("power", o.power.to_uppercase())?;
            d.set_item("board", if shadow { o.board.or(board).map(String::from) } else { None })?;
            d.set_item("order", &o.order)?;
            d.set_item("result", &o.result)?;
            d.set_item("reason", &o.reason)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// The text report of the last phase processed, as players read it ('' before any).
    fn report_text(&self) -> String {
        self.last.as_ref().map(|r| r.get().to_text()).unwrap_or_default()
    }

    /// Shadow Worlds: the combined ledger of both boards, a dict per power (empty in a
    /// standard game).
    fn ledger<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.inner.ledger())
    }

    /// The whole position: phase, units, centers, dislodged units with their retreats,
    /// and in Shadow Worlds each board and the ledger.
    fn get_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("name", self.phase())?;
        d.set_item("note", "")?;
        d.set_item("variant", self.variant())?;
        d.set_item("phase", self.phase())?;
        d.set_item("units", self.get_units(py, None, None, None)?)?;
        d.set_item("centers", self.get_centers(py, None, None, None)?)?;
        let (retreats, homes, builds, disorder) = (PyDict::new(py), PyDict::new(py), PyDict::new(py), PyDict::new(py));
        for p in self.map().power_ids() {
            let key = self.power_key(py, p);
            retreats.set_item(key, self.retreats_of(py, p)?)?;
            homes.set_item(key, self.homes_of(p))?;
            builds.set_item(key, self.builds_of(py, p)?)?;
            disorder.set_item(key, 0)?;
        }
        d.set_item("retreats", retreats)?;
        d.set_item("homes", homes)?;
        d.set_item("builds", builds)?;
        d.set_item("civil_disorder", disorder)?;
        if self.shadow() {
            let boards = PyDict::new(py);
            for b in ["A", "B"] {
                let one = PyDict::new(py);
                one.set_item("units", self.get_units(py, None, Some(b), None)?)?;
                one.set_item("centers", self.get_centers(py, None, Some(b), None)?)?;
                boards.set_item(b, one)?;
            }
            d.set_item("boards", boards)?;
            d.set_item("ledger", self.ledger(py)?)?;
        }
        d.set_item("eliminated", self.eliminated())?;
        d.set_item("winner", self.winner())?;
        d.set_item("is_game_done", self.is_game_done())?;
        Ok(d)
    }

    /// An independent copy (for search: play ahead on it, the original is untouched).
    fn clone(&mut self) -> Game {
        self.settle();
        Clone::clone(self)
    }

    fn __copy__(&mut self) -> Game {
        self.clone()
    }

    fn __deepcopy__(&mut self, _memo: &Bound<'_, PyAny>) -> Game {
        self.clone()
    }

    /// A 64-bit hash of the position (variant, phase, units, owners, dislodged units,
    /// eliminations), the same in every process and on every machine; orders given so far
    /// do not count.
    fn hash(&self) -> u64 {
        let digest = Sha256::digest(self.position_bytes());
        u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
    }

    /// The game as JSON: its settings as in game.toml and its state as in state.json
    /// (orders given so far included).
    // Python's name; `&mut` only to decide on the orders given first.
    #[allow(clippy::wrong_self_convention)]
    fn to_json(&mut self) -> String {
        self.settle();
        let saved = Saved {
            settings: self.inner.settings.clone(),
            state: self.inner.state.clone(),
            python: Some((*self.python).clone()),
        };
        serde_json::to_string(&saved).expect("a game serializes")
    }

    /// A game from `to_json`'s text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Game> {
        let saved: Saved = serde_json::from_str(text).map_err(|e| value_error(format!("not a saved game: {e}")))?;
        let names = maps::find(&saved.settings.map).ok_or_else(|| {
            value_error(format!("settings.map: `{}`: the maps played here are {}", saved.settings.map, maps::known()))
        })?;
        saved
            .state
            .check(&names.map, saved.settings.variant.boards())
            .map_err(|e| value_error(format!("state: {e}")))?;
        let python = saved.python.unwrap_or(PySettings { draw_in_year: None, ..PySettings::default() });
        Ok(Game::made(saved.settings, names, saved.state, python))
    }

    fn __repr__(&self) -> String {
        format!("<Game {} {}>", self.variant(), self.phase())
    }
}

/// A phase's code as MILA writes it: `S1901M`, and `S0001M` in the year 1.
pub(crate) fn phase_code(phase: Phase) -> String {
    let season = match phase.season {
        Season::Spring => 'S',
        Season::Fall => 'F',
        Season::Winter => 'W',
    };
    let kind = match phase.kind {
        PhaseKind::Movement => 'M',
        PhaseKind::Retreats => 'R',
        PhaseKind::Adjustments => 'A',
    };
    format!("{season}{:04}{kind}", phase.year)
}

/// The kind of game and the map a `Game` is asked for with: `variant` is `standard`,
/// `shadow-worlds` or a shipped variant's name (the standard game on its map), `map_name`
/// a map by the judge's name or MILA's (`ancmed`, `standard_france_austria`).
fn variant_and_map(variant: Option<&str>, map_name: Option<&str>) -> PyResult<(VariantKind, &'static Names)> {
    let map = |name: &str| {
        maps::find(name).ok_or_else(|| {
            value_error(format!(
                "unknown map_name `{name}`: the maps played here are {} (and Shadow Worlds on any of them as variant=\"shadow-worlds\")",
                maps::known()
            ))
        })
    };
    match (variant.map(str::trim), map_name) {
        (None, None) => Ok((VariantKind::Standard, map("standard")?)),
        (None, Some(m)) => Ok((VariantKind::Standard, map(m)?)),
        (Some(v), m) => match (VariantKind::parse(v), m) {
            (Some(kind), m) => Ok((kind, map(m.unwrap_or("standard"))?)),
            (None, None) if maps::find(v).is_some() => Ok((VariantKind::Standard, map(v)?)),
            (None, Some(_)) if maps::find(v).is_some() => Err(PyTypeError::new_err(format!(
                "`{v}` is a map: give it as map_name= (with variant=\"standard\" or \"shadow-worlds\"), or alone"
            ))),
            (None, _) => Err(value_error(format!(
                "unknown variant `{v}`: use \"standard\" or \"shadow-worlds\" (and map_name= for the map: {})",
                maps::known()
            ))),
        },
    }
}

/// The power a method was given, as `power` (positionally) or as MILA's `power_name=`.
fn one_power<'a, 'py>(
    power: Option<&'a Bound<'py, PyAny>>,
    power_name: Option<&'a Bound<'py, PyAny>>,
) -> PyResult<Option<&'a Bound<'py, PyAny>>> {
    match (power.filter(|p| !p.is_none()), power_name.filter(|p| !p.is_none())) {
        (Some(_), Some(_)) => Err(PyTypeError::new_err("name the power once: power or power_name=")),
        (p, q) => Ok(p.or(q)),
    }
}

/// [`one_power`] as a name.
fn power_text(power: Option<&Bound<'_, PyAny>>, power_name: Option<&Bound<'_, PyAny>>) -> PyResult<Option<String>> {
    one_power(power, power_name)?
        .map(|p| p.extract::<String>().map_err(|_| PyTypeError::new_err("a power is named by a string")))
        .transpose()
}

/// The Python helpers of MILA's shapes (histories, saved games).
fn mila(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("shadowjudge.mila")
}

/// A power of a game, as MILA's `game.powers` gives them: what it reads is the game's now.
#[pyclass(module = "shadowjudge", name = "Power", frozen)]
pub struct Power {
    game: Py<Game>,
    id: PowerId,
    name: Py<PyString>,
}

#[pymethods]
impl Power {
    /// `FRANCE`.
    #[getter]
    fn name(&self, py: Python<'_>) -> Py<PyString> {
        self.name.clone_ref(py)
    }

    /// Its units (`A PAR`; a dislodged one `*A PAR`).
    #[getter]
    fn units(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let g = self.game.bind(py).try_borrow()?;
        let boards: Vec<Board> = (0..g.inner.state.boards.len()).map(|b| Board(b as u8)).collect();
        Ok(g.units_of(self.id, &boards, false).into_iter().filter(|u| !u.starts_with('*')).collect())
    }

    /// Its supply centers (`PAR`).
    #[getter]
    fn centers(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let g = self.game.bind(py).try_borrow()?;
        let boards: Vec<Board> = (0..g.inner.state.boards.len()).map(|b| Board(b as u8)).collect();
        Ok(g.centers_of(self.id, &boards, false))
    }

    /// Its home centers.
    #[getter]
    fn homes(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self.game.bind(py).try_borrow()?.homes_of(self.id))
    }

    /// Its dislodged units, each with the places it may retreat to.
    #[getter]
    fn retreats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.game.bind(py).try_borrow()?.retreats_of(py, self.id)
    }

    /// Its orders given this phase, by unit (`{"A PAR": "- BUR"}`; MILA's shape).
    #[getter]
    fn orders<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut g = self.game.bind(py).try_borrow_mut()?;
        g.settle();
        let d = PyDict::new(py);
        if g.inner.state.phase.kind != PhaseKind::Adjustments {
            for (text, _) in g.inner.kept_orders(self.id) {
                let text = text.trim().to_uppercase();
                let mut words = text.splitn(3, ' ');
                let (kind, at, rest) = (words.next(), words.next(), words.next());
                if let (Some(kind), Some(at)) = (kind, at) {
                    d.set_item(format!("{kind} {at}"), rest.unwrap_or(""))?;
                }
            }
        }
        Ok(d)
    }

    /// Its builds and removals given this Winter (MILA's `adjust`).
    #[getter]
    fn adjust(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let mut g = self.game.bind(py).try_borrow_mut()?;
        g.settle();
        if g.inner.state.phase.kind != PhaseKind::Adjustments {
            return Ok(Vec::new());
        }
        Ok(g.inner.kept_orders(self.id).into_iter().map(|(t, _)| t.trim().to_uppercase()).collect())
    }

    /// Out of the game: no units, no centers, nothing to retreat (or eliminated).
    fn is_eliminated(&self, py: Python<'_>) -> PyResult<bool> {
        let g = self.game.bind(py).try_borrow()?;
        if g.inner.state.eliminated.contains(&self.id) {
            return Ok(true);
        }
        Ok(g.is_out(self.id))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<Power {}>", self.name.bind(py))
    }

    fn __str__(&self, py: Python<'_>) -> String {
        self.name.bind(py).to_string()
    }
}

/// A submission's acknowledgement, decided on (see [`Pending`]) and worded when first read.
struct Words {
    game: Py<Game>,
    decided: OnceLock<Submission>,
}

impl Source for Words {
    fn build<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let game = self.game.bind(py);
        if self.decided.get().is_none() {
            game.try_borrow_mut()?.settle();
        }
        let submission = self.decided.get().expect("settled orders are decided on");
        let words = submission.words(&game.try_borrow()?.inner.map);
        Ok(to_py(py, &words)?.cast_into::<PyDict>()?)
    }
}

impl Slot {
    fn empty() -> Slot {
        Slot {
            object: None,
            read: ReadLine { order: Order::Waive, power: None, board: None, span: (0, 0) },
            len: 0,
            text: [0; KEPT_TEXT],
        }
    }

    /// The string's address (what names it while the table holds it), 0 for none.
    fn address(&self) -> usize {
        self.object.as_ref().map_or(0, |o| o.as_ptr() as usize)
    }

    fn text(&self) -> &str {
        std::str::from_utf8(&self.text[..(self.len & !OURS) as usize]).expect("kept from a str")
    }

    fn ours(&self) -> bool {
        self.len & OURS != 0
    }
}

impl Objects {
    /// Room for 8,192 lines (a megabyte) from the start: a bot's games use a few thousand
    /// distinct order strings, and a table that grows writes all it holds again each time.
    const BITS: u32 = 14;

    fn new() -> Objects {
        Objects { slots: Objects::empty(1 << Self::BITS), len: 0, theirs: 0, shift: usize::BITS - Self::BITS }
    }

    fn empty(size: usize) -> Vec<Slot> {
        (0..size).map(|_| Slot::empty()).collect()
    }

    fn home(&self, object: usize) -> usize {
        object.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift
    }

    /// Ask for the place of `object` to be fetched, without waiting for it.
    fn prefetch(&self, object: usize) {
        possible::prefetch(&self.slots[self.home(object)]);
    }

    fn get(&self, object: usize) -> Option<&Slot> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(object);
        loop {
            let slot = &self.slots[i];
            match slot.address() {
                0 => return None,
                a if a == object => return Some(slot),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Keep `line` (a reference to it too) with what it says, `ours` when the judge made
    /// it; a line too long for a place is not kept (it is read by its text). Returns the
    /// caller's strings let go of, if the table had kept too many (to be dropped once the
    /// table is unlocked).
    #[must_use]
    pub(crate) fn insert(
        &mut self,
        line: &Bound<'_, PyString>,
        text: &str,
        read: ReadLine,
        ours: bool,
    ) -> Vec<Py<PyString>> {
        let object = line.as_ptr() as usize;
        if text.len() > KEPT_TEXT || self.get(object).is_some() {
            return Vec::new();
        }
        let let_go = if self.theirs >= 100_000 { self.let_go_of_theirs() } else { Vec::new() };
        let len = text.len() as u8 | if ours { OURS } else { 0 };
        let mut slot = Slot { object: Some(line.clone().unbind()), read, len, ..Slot::empty() };
        slot.text[..text.len()].copy_from_slice(text.as_bytes());
        self.place(slot);
        self.len += 1;
        self.theirs += usize::from(!ours);
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
        let_go
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, Objects::empty(size));
        self.shift -= 1;
        for s in old.into_iter().filter(|s| s.object.is_some()) {
            self.place(s);
        }
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.address());
        while self.slots[i].object.is_some() {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Let go of the caller's strings, keeping the judge's own (the possible orders hand
    /// those out again and again, and never tell of them twice): they are returned.
    fn let_go_of_theirs(&mut self) -> Vec<Py<PyString>> {
        let old = std::mem::replace(self, Objects::new());
        let mut let_go = Vec::with_capacity(old.theirs);
        for s in old.slots.into_iter() {
            match s.object {
                Some(_) if s.ours() => {
                    self.place(s);
                    self.len += 1;
                    if self.len * 2 > self.slots.len() {
                        self.grow();
                    }
                }
                Some(object) => let_go.push(object),
                None => {}
            }
        }
        let_go
    }

    fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(|s| s.object.is_some())
    }
}

impl LinesRead {
    pub(crate) fn new() -> LinesRead {
        LinesRead { by_text: HashMap::new(), by_object: Objects::new() }
    }

    /// A line read alone: `None` when it is not one order alone (a header, a blank line, a
    /// line not understood), or when the whole text would split it or it opens with a
    /// byte-order mark: those are left to the whole text.
    fn read(&mut self, parser: &OrderParser<'_>, line: &str) -> Option<ReadLine> {
        if line.contains(['\n', '\r', '\u{feff}']) {
            return None;
        }
        if let Some(known) = self.by_text.get(line) {
            return *known;
        }
        let alone = parser.parse_orders(line);
        let known = match (&alone.orders[..], alone.diagnostics.is_empty()) {
            ([o], true) => Some(ReadLine {
                order: o.order,
                power: o.power,
                board: o.board,
                span: (u32::try_from(o.span.start).ok()?, u32::try_from(o.span.end).ok()?),
            }),
            _ => None,
        };
        if self.by_text.len() > 100_000 {
            self.by_text.clear();
        }
        self.by_text.insert(line.to_string(), known);
        known
    }
}

/// Every line `know_line` was told of (on one map, or on every map played so far), read
/// again by the grammar: how many were, and the text of each whose reading differs (a
/// test's check that both say the same).
#[pyfunction]
#[pyo3(signature = (map_name = None))]
pub(crate) fn _known_lines_differ(py: Python<'_>, map_name: Option<&str>) -> PyResult<(usize, Vec<String>)> {
    let all: Vec<&Names> = match map_name {
        Some(m) => vec![maps::find(m).ok_or_else(|| value_error(format!("no map `{m}`")))?],
        None => maps::made().collect(),
    };
    let (mut count, mut differ) = (0, Vec::new());
    for names in all {
        let memo = names.lines(py);
        for seen in memo.by_object.iter() {
            let parsed = names.parser.parse_orders(seen.text());
            let same = match (&parsed.orders[..], parsed.diagnostics.is_empty()) {
                ([o], true) => o.order == seen.read.order && o.power == seen.read.power && o.board == seen.read.board,
                _ => false,
            };
            if !same {
                differ.push(format!("{}: {}", names.variant, seen.text()));
            }
        }
        count += memo.by_object.len;
    }
    Ok((count, differ))
}

/// How many line strings are known by address on a map: the judge's own (made by
/// `get_all_possible_orders`, kept for good) and the caller's (let go of past 100,000).
#[pyfunction]
#[pyo3(signature = (map_name = "standard"))]
pub(crate) fn _known_lines(py: Python<'_>, map_name: &str) -> PyResult<(usize, usize)> {
    let names = maps::find(map_name).ok_or_else(|| value_error(format!("no map `{map_name}`")))?;
    let memo = names.lines(py);
    Ok((memo.by_object.len - memo.by_object.theirs, memo.by_object.theirs))
}

/// Order lines given as a list (any iterable of strings): their text, one line each, put
/// at the end of `text`. When every line is one order read before on `names`' map, its
/// reading is put together from what was kept, at the end of `orders` (spans from the
/// start of the lines' text): their place there; otherwise `None` (the grammar reads the
/// whole text).
fn read_lines(
    names: &Names,
    given: &Bound<'_, PyAny>,
    text: &mut String,
    orders: &mut Vec<ParsedOrder>,
) -> PyResult<Option<Range<usize>>> {
    let wrong = || PyValueError::new_err("orders are a list of order lines or one text of them");
    let py = given.py();
    if let Ok(list) = given.cast::<PyList>() {
        read_items(py, names, list.len(), |i| list.get_item(i), wrong, text, orders)
    } else if let Ok(tuple) = given.cast::<PyTuple>() {
        read_items(py, names, tuple.len(), |i| tuple.get_item(i), wrong, text, orders)
    } else {
        let items = given.try_iter().map_err(|_| wrong())?.collect::<PyResult<Vec<_>>>()?;
        read_items(py, names, items.len(), |i| Ok(items[i].clone()), wrong, text, orders)
    }
}

/// [`read_lines`] of `count` lines, the `i`th given by `item` (which makes no Python
/// object: a list's or a tuple's item, or one already taken from an iterator).
fn read_items<'py>(
    py: Python<'py>,
    names: &Names,
    count: usize,
    item: impl Fn(usize) -> PyResult<Bound<'py, PyAny>>,
    wrong: impl Fn() -> PyErr,
    text: &mut String,
    orders: &mut Vec<ParsedOrder>,
) -> PyResult<Option<Range<usize>>> {
    let mut memo = names.lines(py);
    // Between two calls the table goes cold in memory (the caller's own work evicts it):
    // every line's place is asked for first, so that they are fetched together.
    for i in 0..count {
        memo.by_object.prefetch(item(i)?.as_ptr() as usize);
    }
    let base = text.len();
    let first = orders.len();
    text.reserve(count * 24);
    orders.reserve(count);
    let mut alone = true;
    for index in 0..count {
        let given = item(index)?;
        let line = given.cast::<PyString>().map_err(|_| wrong())?;
        if index > 0 {
            text.push('\n');
        }
        let start = text.len() - base;
        let read = match memo.by_object.get(line.as_ptr() as usize) {
            Some(seen) => {
                text.push_str(seen.text());
                Some(seen.read)
            }
            None => {
                // A string not seen before: its text is taken with the table unlocked
                // (taking it may make a Python object).
                drop(memo);
                let words = line.to_cow()?;
                text.push_str(&words);
                memo = names.lines(py);
                let read = memo.read(&names.parser, &words);
                if let Some(read) = read {
                    let let_go = memo.by_object.insert(line, &words, read, false);
                    if !let_go.is_empty() {
                        drop(memo);
                        drop(let_go);
                        memo = names.lines(py);
                    }
                }
                read
            }
        };
        match read {
            Some(read) if alone => orders.push(ParsedOrder {
                order: read.order,
                power: read.power,
                board: read.board,
                line: index + 1,
                span: start + read.span.0 as usize..start + read.span.1 as usize,
            }),
            _ => alone = false,
        }
    }
    if alone {
        Ok(Some(first..orders.len()))
    } else {
        orders.truncate(first);
        Ok(None)
    }
}
