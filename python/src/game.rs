//! `shadowjudge.Game`: a whole Diplomacy game in memory (standard or Shadow Worlds) over
//! the judge's phase machine, with the names bot authors know from MILA's `diplomacy`.
//!
//! Names are MILA's: powers in capitals (`FRANCE`), places by their three-letter
//! abbreviation in capitals (`PAR`, `STP/SC`), units as `A PAR`. In Shadow Worlds a name
//! asked for without a board carries its board at the end (`A PAR (A)`), which is also how
//! an order names its board.
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use shadowjudge::diplomacy::engine::{self, Submission};
use shadowjudge::diplomacy::judge::rulebook::{Edition, Rulebook};
use shadowjudge::diplomacy::map::{cache, Map, PowerId, ProvinceId, RegionId};
use shadowjudge::diplomacy::order::grammar::{OrderParser, ParsedFile, ParsedOrder};
use shadowjudge::diplomacy::order::{Board, Order, Place};
use shadowjudge::diplomacy::state::GameState;
use shadowjudge::game::settings::{Settings, VariantKind};

use crate::lazy::{ReadOnlyDict, Report, Source};
use crate::possible::{self, Possible};
use crate::topy::to_py;

/// The standard map every game here is played on, with what is read from it again and
/// again: its order parser (name tables hashed once) and its names in capitals.
pub(crate) struct Standard {
    pub map: Arc<Map>,
    pub parser: OrderParser<'static>,
    /// By region id: `PAR`, `STP/SC`.
    pub regions: Vec<String>,
    /// By province id: `STP`.
    pub provinces: Vec<String>,
}

pub(crate) fn standard() -> &'static Standard {
    static MAP: OnceLock<Arc<Map>> = OnceLock::new();
    static STANDARD: OnceLock<Standard> = OnceLock::new();
    STANDARD.get_or_init(|| {
        let map: &'static Arc<Map> = MAP.get_or_init(cache::standard);
        Standard {
            map: map.clone(),
            parser: OrderParser::new(map),
            regions: (0..map.region_count()).map(|r| map.region_name(RegionId(r as _)).to_uppercase()).collect(),
            provinces: map.province_ids().map(|p| map.province(p).key.to_uppercase()).collect(),
        }
    })
}

/// The powers' names in capitals, made once: the keys of every dict by power.
fn power_strings(py: Python<'_>) -> &'static [(PowerId, Py<PyString>)] {
    static NAMES: PyOnceLock<Vec<(PowerId, Py<PyString>)>> = PyOnceLock::new();
    NAMES.get_or_init(py, || {
        let map = &standard().map;
        map.power_ids().map(|p| (p, PyString::new(py, &map.power(p).name.to_uppercase()).unbind())).collect()
    })
}

/// A Diplomacy game in memory.
#[pyclass(module = "shadowjudge", name = "Game")]
#[derive(Clone)]
pub struct Game {
    pub(crate) inner: engine::Game,
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
    fn made(settings: Settings, map: Arc<Map>, state: GameState) -> Game {
        Game {
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
        if let Some((p, _)) = power_strings(power.py()).iter().find(|(_, s)| s.as_ptr() == power.as_ptr()) {
            return Ok(*p);
        }
        let name = power.cast::<PyString>().map_err(|_| PyTypeError::new_err("a power is named by a string"))?;
        self.power(&name.to_cow()?)
    }

    /// A power's name as the dicts by power give it (`FRANCE`): one string object per power.
    fn power_key<'py>(&self, py: Python<'py>, p: PowerId) -> &Bound<'py, PyString> {
        let names = power_strings(py);
        names.iter().find(|(q, _)| *q == p).map(|(_, s)| s.bind(py)).expect("every power of the standard map is named")
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
        &standard().provinces[p.0 as usize]
    }

    pub(crate) fn region_name(&self, r: RegionId) -> &'static str {
        &standard().regions[r.0 as usize]
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
                Arc::new(possible::orders(self, &powers))
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
    #[pyo3(signature = (variant = "standard", rules = None, *, short_game = false))]
    fn new(variant: &str, rules: Option<&Bound<'_, PyAny>>, short_game: bool) -> PyResult<Game> {
        let kind = VariantKind::parse(variant).ok_or_else(|| {
            value_error(format!("unknown variant `{variant}`: use \"standard\" or \"shadow-worlds\""))
        })?;
        let mut settings = Settings::new("python", kind);
        settings.rules = rulebook(rules)?;
        settings.shadow.short_game = short_game;
        let map = standard().map.clone();
        let state = GameState::start(&map, kind.boards());
        Ok(Game::made(settings, map, state))
    }

    /// `standard` or `shadow-worlds`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.inner.settings.variant.name()
    }

    /// The phase code: `S1901M`, `F1901R`, `W1901A`.
    #[getter]
    fn phase(&self) -> String {
        self.inner.state.phase.code()
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

    /// Every power of the map, eliminated ones too.
    #[getter]
    fn powers(&self) -> Vec<String> {
        self.map().power_ids().map(|p| self.power_name(p)).collect()
    }

    /// Powers out of the game.
    #[getter]
    fn eliminated(&self) -> Vec<String> {
        self.inner.state.eliminated.iter().map(|p| self.power_name(*p)).collect()
    }

    /// Units (`A PAR`; a dislodged one as `*A PAR`), of one power or as a dict by power.
    #[pyo3(signature = (power = None, board = None))]
    fn get_units<'py>(&self, py: Python<'py>, power: Option<&str>, board: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        let boards = self.boards_asked(board)?;
        self.by_power(py, power, |p| self.units_of(p, &boards, board.is_some()))
    }

    /// Supply centers owned (`PAR`), of one power or as a dict by power.
    #[pyo3(signature = (power = None, board = None))]
    fn get_centers<'py>(
        &self,
        py: Python<'py>,
        power: Option<&str>,
        board: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let boards = self.boards_asked(board)?;
        self.by_power(py, power, |p| self.centers_of(p, &boards, board.is_some()))
    }

    /// The places a power may order this phase (`PAR`; `PAR (A)` in Shadow Worlds), or a
    /// dict of them by power.
    #[pyo3(signature = (power = None))]
    fn get_orderable_locations<'py>(&self, py: Python<'py>, power: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
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
    fn set_orders(
        slf: &Bound<'_, Self>,
        power: &Bound<'_, PyAny>,
        orders: &Bound<'_, PyAny>,
    ) -> PyResult<ReadOnlyDict> {
        let mut me = slf.borrow_mut();
        let me = &mut *me;
        let p = me.power_given(power)?;
        let (start, first) = (me.pending_text.len(), me.pending_orders.len());
        let whole = |text: &str| Read::Whole(standard().parser.parse_orders_on(text, &me.inner.unit_places(), Some(p)));
        let read = if orders.is_instance_of::<PyString>() {
            me.pending_text.push_str(&orders.cast::<PyString>()?.to_cow()?);
            whole(&me.pending_text[start..])
        } else {
            let lines = read_lines(orders, &mut me.pending_text, &mut me.pending_orders);
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
    #[pyo3(signature = (power = None))]
    fn clear_orders(&mut self, power: Option<&str>) -> PyResult<()> {
        let powers = self.powers_asked(power)?;
        self.settle();
        let s = &mut self.inner.state;
        s.orders.retain(|o| !powers.contains(&o.power));
        s.submitted.retain(|p| !powers.contains(p));
        Ok(())
    }

    /// The orders given this phase (in capitals), of one power or as a dict by power.
    #[pyo3(signature = (power = None))]
    fn get_orders<'py>(&mut self, py: Python<'py>, power: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
        self.settle();
        self.by_power(py, power, |p| {
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
        let decided = self.inner.decide();
        let report = Arc::new(Report::new(decided, self.settings.clone(), self.inner.map.clone()));
        self.possible = OnceLock::new();
        self.last = Some(report.clone());
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
        d.set_item("variant", self.variant())?;
        d.set_item("phase", self.phase())?;
        d.set_item("units", self.get_units(py, None, None)?)?;
        d.set_item("centers", self.get_centers(py, None, None)?)?;
        let retreats = PyDict::new(py);
        for p in self.map().power_ids() {
            let mine = PyDict::new(py);
            for (b, s) in self.inner.state.boards.iter().enumerate() {
                let suffix = self.suffix(Board(b as u8), false);
                for r in s.retreating.iter().filter(|r| r.dislodgement.unit.power == p) {
                    let u = r.dislodgement.unit;
                    let options: Vec<String> = r.options.iter().map(|o| self.region_name(*o).to_string()).collect();
                    mine.set_item(format!("{} {}{suffix}", u.kind.letter(), self.region_name(u.region)), options)?;
                }
            }
            retreats.set_item(self.power_key(py, p), mine)?;
        }
        d.set_item("retreats", retreats)?;
        if self.shadow() {
            let boards = PyDict::new(py);
            for b in ["A", "B"] {
                let one = PyDict::new(py);
                one.set_item("units", self.get_units(py, None, Some(b))?)?;
                one.set_item("centers", self.get_centers(py, None, Some(b))?)?;
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
        let saved = Saved { settings: self.inner.settings.clone(), state: self.inner.state.clone() };
        serde_json::to_string(&saved).expect("a game serializes")
    }

    /// A game from `to_json`'s text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Game> {
        let saved: Saved = serde_json::from_str(text).map_err(|e| value_error(format!("not a saved game: {e}")))?;
        if saved.settings.map != "standard" {
            return Err(value_error(format!(
                "settings.map: `{}`: only the standard map is played here",
                saved.settings.map
            )));
        }
        let map = standard().map.clone();
        saved.state.check(&map, saved.settings.variant.boards()).map_err(|e| value_error(format!("state: {e}")))?;
        Ok(Game::made(saved.settings, map, saved.state))
    }

    fn __repr__(&self) -> String {
        format!("<Game {} {}>", self.variant(), self.phase())
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

/// An order line read alone: the order, the power and board it names, and where it
/// stands in the line (bytes).
#[derive(Clone, Copy)]
struct ReadLine {
    order: Order<Place>,
    power: Option<PowerId>,
    board: Option<Board>,
    span: (u32, u32),
}

/// The longest line the table by object keeps (a place of the table is one cache line).
const KEPT_TEXT: usize = 64 - std::mem::size_of::<usize>() - std::mem::size_of::<ReadLine>() - 1;
// The text's length and the `OURS` mark share a byte.
const _: () = assert!(KEPT_TEXT < OURS as usize);

/// In [`Slot::len`]: the string was made by the judge (`know_line`), and is kept for good,
/// as the possible orders keep it.
const OURS: u8 = 0x80;

/// A place of [`Objects`]: a line's string object seen before (its address, 0 for an empty
/// place), what it says and its text, in one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    object: usize,
    read: ReadLine,
    /// The text's length, with [`OURS`] when the judge made the string.
    len: u8,
    text: [u8; KEPT_TEXT],
}

const EMPTY_SLOT: Slot = Slot {
    object: 0,
    read: ReadLine { order: Order::Waive, power: None, board: None, span: (0, 0) },
    len: 0,
    text: [0; KEPT_TEXT],
};

impl Slot {
    fn text(&self) -> &str {
        std::str::from_utf8(&self.text[..(self.len & !OURS) as usize]).expect("kept from a str")
    }

    fn ours(&self) -> bool {
        self.len & OURS != 0
    }
}

/// The line strings seen before, by address: an open-addressed table holding a
/// reference to each string (so that its address names it alone), whose places can be
/// fetched ahead, all of a submission's lines at once, before any is read.
struct Objects {
    slots: Vec<Slot>,
    len: usize,
    /// Of `len`, the caller's strings (not the judge's own): what the table lets go of
    /// when it has kept too many.
    theirs: usize,
    shift: u32,
}

// SAFETY: the strings are only touched with the GIL held (behind the lock below).
unsafe impl Send for Objects {}

impl Objects {
    /// Room for 8,192 lines (a megabyte) from the start: a bot's games use a few thousand
    /// distinct order strings, and a table that grows writes all it holds again each time.
    const BITS: u32 = 14;

    fn new() -> Objects {
        Objects { slots: vec![EMPTY_SLOT; 1 << Self::BITS], len: 0, theirs: 0, shift: usize::BITS - Self::BITS }
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
            if slot.object == object {
                return Some(slot);
            }
            if slot.object == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keep `line` (a reference to it too) with what it says, `ours` when the judge made
    /// it; a line too long for a place is not kept (it is read by its text).
    fn insert(&mut self, line: &Bound<'_, PyString>, text: &str, read: ReadLine, ours: bool) {
        let object = line.as_ptr() as usize;
        if text.len() > KEPT_TEXT || self.get(object).is_some() {
            return;
        }
        if self.theirs >= 100_000 {
            self.let_go_of_theirs(line.py());
        }
        let len = text.len() as u8 | if ours { OURS } else { 0 };
        let mut slot = Slot { object: line.clone().into_ptr() as usize, read, len, ..EMPTY_SLOT };
        slot.text[..text.len()].copy_from_slice(text.as_bytes());
        self.place(slot);
        self.len += 1;
        self.theirs += usize::from(!ours);
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![EMPTY_SLOT; size]);
        self.shift -= 1;
        for s in old.into_iter().filter(|s| s.object != 0) {
            self.place(s);
        }
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.object);
        while self.slots[i].object != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Let go of the caller's strings, keeping the judge's own (the possible orders hand
    /// those out again and again, and never tell of them twice).
    fn let_go_of_theirs(&mut self, py: Python<'_>) {
        let old = std::mem::replace(self, Objects::new());
        for s in old.slots.into_iter().filter(|s| s.object != 0) {
            if s.ours() {
                self.place(s);
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
            } else {
                // SAFETY: the table holds one reference to each string it keeps.
                drop(unsafe { Bound::from_owned_ptr(py, s.object as *mut pyo3::ffi::PyObject) });
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Slot> {
        self.slots.iter().filter(|s| s.object != 0)
    }
}

/// The order lines read so far in this process: by their text, and by the string object
/// that carried them (bots send the very strings `get_all_possible_orders` gave them, again
/// and again: one of those is known by its address, without reading its characters).
struct LinesRead {
    by_text: HashMap<String, Option<ReadLine>>,
    by_object: Objects,
}

fn lines_read() -> MutexGuard<'static, LinesRead> {
    static READ: OnceLock<Mutex<LinesRead>> = OnceLock::new();
    READ.get_or_init(|| Mutex::new(LinesRead { by_text: HashMap::new(), by_object: Objects::new() }))
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

impl LinesRead {
    /// A line read alone: `None` when it is not one order alone (a header, a blank line, a
    /// line not understood), or when the whole text would split it or it opens with a
    /// byte-order mark: those are left to the whole text.
    fn read(&mut self, line: &str) -> Option<ReadLine> {
        if line.contains(['\n', '\r', '\u{feff}']) {
            return None;
        }
        if let Some(known) = self.by_text.get(line) {
            return *known;
        }
        let alone = standard().parser.parse_orders(line);
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

/// Tell `set_orders` what a string it will be given says: `order`, on `board` (Shadow
/// Worlds). For the strings `get_all_possible_orders` makes: the very objects come back.
pub(crate) fn know_line(line: &Bound<'_, PyString>, text: &str, order: Order<Place>, board: Option<Board>) {
    let Ok(end) = u32::try_from(text.len()) else { return };
    let read = ReadLine { order, power: None, board, span: (0, end) };
    lines_read().by_object.insert(line, text, read, true);
}

/// Every line `know_line` was told of, read again by the grammar: how many were, and the
/// text of each whose reading differs (a test's check that both say the same).
#[pyfunction]
pub(crate) fn _known_lines_differ() -> (usize, Vec<String>) {
    let memo = lines_read();
    let mut differ = Vec::new();
    for seen in memo.by_object.iter() {
        let parsed = standard().parser.parse_orders(seen.text());
        let same = match (&parsed.orders[..], parsed.diagnostics.is_empty()) {
            ([o], true) => o.order == seen.read.order && o.power == seen.read.power && o.board == seen.read.board,
            _ => false,
        };
        if !same {
            differ.push(seen.text().to_string());
        }
    }
    (memo.by_object.len, differ)
}

/// How many line strings are known by address: the judge's own (made by
/// `get_all_possible_orders`, kept for good) and the caller's (let go of past 100,000).
#[pyfunction]
pub(crate) fn _known_lines() -> (usize, usize) {
    let memo = lines_read();
    (memo.by_object.len - memo.by_object.theirs, memo.by_object.theirs)
}

/// Order lines given as a list (any iterable of strings): their text, one line each, put
/// at the end of `text`. When every line is one order read before, its reading is put
/// together from what was kept, at the end of `orders` (spans from the start of the lines'
/// text): their place there; otherwise `None` (the grammar reads the whole text).
fn read_lines(
    given: &Bound<'_, PyAny>,
    text: &mut String,
    orders: &mut Vec<ParsedOrder>,
) -> PyResult<Option<Range<usize>>> {
    let wrong = || PyValueError::new_err("orders are a list of order lines or one text of them");
    if let Ok(list) = given.cast::<PyList>() {
        read_items(list.len(), |i| list.get_item(i), wrong, text, orders)
    } else if let Ok(tuple) = given.cast::<PyTuple>() {
        read_items(tuple.len(), |i| tuple.get_item(i), wrong, text, orders)
    } else {
        let items = given.try_iter().map_err(|_| wrong())?.collect::<PyResult<Vec<_>>>()?;
        read_items(items.len(), |i| Ok(items[i].clone()), wrong, text, orders)
    }
}

/// [`read_lines`] of `count` lines, the `i`th given by `item`.
fn read_items<'py>(
    count: usize,
    item: impl Fn(usize) -> PyResult<Bound<'py, PyAny>>,
    wrong: impl Fn() -> PyErr,
    text: &mut String,
    orders: &mut Vec<ParsedOrder>,
) -> PyResult<Option<Range<usize>>> {
    let mut memo = lines_read();
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
                let words = line.to_cow()?;
                text.push_str(&words);
                let read = memo.read(&words);
                if let Some(read) = read {
                    memo.by_object.insert(line, &words, read, false);
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
