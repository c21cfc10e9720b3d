//! `shadowjudge.TurnGame`: every game of the judge's registry (`shadowjudge.games()`) as
//! one environment for game-playing programs; `Duplexity`, `Overdue` and `Duple` in the
//! package are this class made for one game. Input is turn-file lines, as players send
//! them; the observation is the JSON of `status --json`; every roll comes from the game's
//! verifiable dice, so the same seed and the same lines replay exactly.
use chrono::{DateTime, Utc};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString};

use shadowjudge::dice::{Dice, Seed};
use shadowjudge::games::{self, GameKind, Options};
use shadowjudge::turn::{Defaulted, Ending, Seat, TurnAck, TurnContext, TurnGame, MASTER};

use crate::game::{from_json_text, value_error};

/// One game in memory with its dice.
pub struct Env {
    kind: &'static GameKind,
    name: String,
    names: Vec<String>,
    seed: Seed,
    dice: Dice,
    game: Box<dyn TurnGame>,
}

/// The time every input counts as received: the small games read no clock.
fn now() -> DateTime<Utc> {
    DateTime::UNIX_EPOCH
}

/// A seed from Python: a whole number (its 32 bytes, big-endian) or 64 hex digits.
fn seed_of(seed: &Bound<'_, PyAny>) -> PyResult<Seed> {
    let wrong = || value_error("seed is a whole number from 0 below 2**256, or 64 hex digits");
    if seed.is_instance_of::<PyString>() {
        let text: String = seed.extract()?;
        return Seed::from_hex(&text).map_err(|e| value_error(format!("seed: {e}")));
    }
    if !seed.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err("seed is a whole number from 0 below 2**256, or 64 hex digits"));
    }
    let bytes: Vec<u8> = seed.call_method1("to_bytes", (32, "big")).map_err(|_| wrong())?.extract()?;
    let bytes: [u8; 32] = bytes.try_into().map_err(|_| wrong())?;
    Ok(Seed::from_bytes(bytes))
}

impl Env {
    fn new(kind: &'static GameKind, names: Vec<String>, options: Options, seed: Seed, name: String) -> PyResult<Env> {
        let mut dice = Dice::new(seed.clone(), &name, 0);
        let mut ctx = TurnContext { dice: &mut dice, now: now(), hold: false };
        let mut game = games::create(kind.name, names.clone(), &options, &mut ctx).map_err(value_error)?;
        game.advance(&mut ctx);
        dice.take_rolls();
        Ok(Env { kind, name, names, seed, dice, game })
    }

    fn copy(&self) -> Env {
        let game = games::load(self.kind.name, &self.game.save()).expect("a saved game loads back");
        Env {
            kind: self.kind,
            name: self.name.clone(),
            names: self.names.clone(),
            seed: self.seed.clone(),
            dice: self.dice.clone(),
            game,
        }
    }

    /// Who plays, by name (`master`: the game master, where the game awaits a ruling);
    /// by default the first awaited.
    fn player(&self, player: Option<&str>) -> PyResult<Seat> {
        match player {
            Some(p) if p.eq_ignore_ascii_case(MASTER) => Ok(Seat::Master),
            Some(p) => self.names.iter().position(|n| n.eq_ignore_ascii_case(p)).map(Seat::Player).ok_or_else(|| {
                value_error(format!("no player called `{p}`: the players are {}", self.names.join(", ")))
            }),
            None => self.to_play().into_iter().next().ok_or_else(|| value_error("the game is over")),
        }
    }

    /// Whose input is awaited now: the seats, then the master.
    fn to_play(&self) -> Vec<Seat> {
        if self.game.ending().is_some() {
            return Vec::new();
        }
        let awaiting = self.game.awaiting();
        let mut out: Vec<Seat> = awaiting.players.into_iter().map(Seat::Player).collect();
        if awaiting.master {
            out.push(Seat::Master);
        }
        out
    }

    fn name_of(&self, who: Seat) -> Option<String> {
        match who {
            Seat::Player(p) => self.names.get(p).cloned(),
            Seat::Master => Some(MASTER.to_string()),
        }
    }

    /// Submit a turn file and run the automatic steps; (accepted, answers, events).
    fn submit(&mut self, who: Seat, text: &str) -> (bool, Vec<(usize, bool, String)>, Vec<String>) {
        let mut ctx = TurnContext { dice: &mut self.dice, now: now(), hold: false };
        let ack = match who {
            Seat::Player(p) => self.game.submit(p, text, &mut ctx),
            Seat::Master => match self.game.master_lines() {
                Some(master) => master.master(text, &mut ctx),
                None => TurnAck::no_master_lines(text),
            },
        };
        let mut events = ack.events.clone();
        if ack.changed() {
            events.extend(self.game.advance(&mut ctx));
        }
        ctx.dice.take_rolls();
        let ok = !ack.lines.is_empty() && ack.lines.iter().all(|l| l.accepted);
        (ok, ack.lines.into_iter().map(|l| (l.line, l.accepted, l.text)).collect(), events)
    }

    /// The lines the judge would accept from `who` now, one each.
    fn legal(&self, who: Seat) -> Vec<String> {
        if !self.to_play().contains(&who) {
            return Vec::new();
        }
        // The game's candidates (its grammar's offer at this step), kept where it takes them;
        // a game whose candidates are all legal needs no trial.
        let lines = self.game.candidate_lines(who);
        if self.kind.offers.legal_candidates {
            return lines;
        }
        lines.into_iter().filter(|line| self.accepts(who, line)).collect()
    }

    fn accepts(&self, who: Seat, line: &str) -> bool {
        let mut trial = self.copy();
        let (accepted, _, _) = trial.submit(who, line);
        accepted
    }

    fn observation(&self) -> serde_json::Value {
        let mut v = self.game.status_json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("name".into(), self.name.clone().into());
            let revealed = self.game.ending().is_some().then(|| self.seed.to_hex());
            obj.insert(
                "dice".into(),
                serde_json::json!({"commitment": self.dice.commitment(), "seed": revealed, "rolls": self.dice.next_index()}),
            );
        }
        v
    }

    fn winners(&self) -> Option<Vec<String>> {
        match self.game.ending()? {
            Ending::Won { players } => Some(players.iter().filter_map(|p| self.names.get(*p).cloned()).collect()),
            Ending::Lost | Ending::Drawn => Some(Vec::new()),
        }
    }
}

/// A game of the judge's registry, played by turn files.
#[pyclass(module = "shadowjudge", name = "TurnGame")]
pub struct TurnGameEnv {
    env: Env,
}

#[pymethods]
impl TurnGameEnv {
    /// A new game of `game` (a name `games()` lists); `players` is how many (named p1,
    /// p2, ...) or their names, by default the fewest the game seats; `seed` (a whole
    /// number or 64 hex digits) and `name` make the rolls, as `new --seed` and `--name`
    /// do; `options` as `--option KEY=VALUE`.
    #[new]
    #[pyo3(signature = (game, seed, *, players = None, name = "python", options = None))]
    fn new(
        game: &str,
        seed: &Bound<'_, PyAny>,
        players: Option<&Bound<'_, PyAny>>,
        name: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<TurnGameEnv> {
        let kind = games::kind(game)
            .ok_or_else(|| value_error(format!("unknown game `{game}`: the judge runs {}", games::names())))?;
        let names = match players {
            Some(p) => names_of(p)?,
            None => (1..=kind.players.0).map(|i| format!("p{i}")).collect(),
        };
        let env = Env::new(kind, names, options_of(options)?, seed_of(seed)?, name.into())?;
        Ok(TurnGameEnv { env })
    }

    /// The game's name, as `games()` lists it.
    #[getter]
    fn game(&self) -> &'static str {
        self.env.kind.name
    }

    /// The players' names in seat order.
    #[getter]
    fn players(&self) -> Vec<String> {
        self.env.names.clone()
    }

    /// The players whose input is awaited now, `master` last where the game awaits the
    /// game master's ruling (empty once the game is over).
    #[getter]
    fn to_play(&self) -> Vec<String> {
        self.env.to_play().into_iter().filter_map(|w| self.env.name_of(w)).collect()
    }

    #[getter]
    fn is_done(&self) -> bool {
        self.env.game.ending().is_some()
    }

    /// The one winner's name; None while the game goes on, and when nobody won or
    /// the win is shared (see `winners`).
    #[getter]
    fn winner(&self) -> Option<String> {
        self.env.winners().filter(|w| w.len() == 1).and_then(|w| w.into_iter().next())
    }

    /// Every winner's name (empty when nobody won); None while the game goes on.
    #[getter]
    fn winners(&self) -> Option<Vec<String>> {
        self.env.winners()
    }

    /// The lines the judge would accept now from `player` (default: the first
    /// player awaited), each one a whole turn file.
    #[pyo3(signature = (player = None))]
    fn legal_actions(&self, player: Option<&str>) -> PyResult<Vec<String>> {
        if self.env.game.ending().is_some() {
            return Ok(Vec::new());
        }
        Ok(self.env.legal(self.env.player(player)?))
    }

    /// Send a turn file (one line or several) for `player` (default: the first
    /// player awaited) and run the game on. Returns `accepted` (every line was),
    /// `lines` (each line's answer) and `events` (what happened).
    #[pyo3(signature = (line, player = None))]
    fn step<'py>(&mut self, py: Python<'py>, line: &str, player: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        if self.env.game.ending().is_some() {
            return Err(PyValueError::new_err("the game is over"));
        }
        let p = self.env.player(player)?;
        let (ok, lines, events) = self.env.submit(p, line);
        let d = PyDict::new(py);
        d.set_item("accepted", ok)?;
        let answers: Vec<Bound<'py, PyDict>> = lines
            .into_iter()
            .map(|(n, accepted, text)| {
                let a = PyDict::new(py);
                a.set_item("line", n)?;
                a.set_item("accepted", accepted)?;
                a.set_item("text", text)?;
                Ok(a)
            })
            .collect::<PyResult<_>>()?;
        d.set_item("lines", answers)?;
        d.set_item("events", events)?;
        Ok(d)
    }

    /// The deadline passed: the defaults for every awaited input, and the game on.
    fn force(&mut self) -> Vec<String> {
        let mut ctx = TurnContext { dice: &mut self.env.dice, now: now(), hold: false };
        let mut events = self.env.game.force(Defaulted::Deadline, &mut ctx);
        events.extend(self.env.game.advance(&mut ctx));
        ctx.dice.take_rolls();
        events
    }

    /// The position as `status --json` gives it (with the dice's commitment and
    /// the number of rolls; the seed once the game is over).
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        from_json_text(py, &self.env.observation().to_string())
    }

    /// The position as text, as players read it.
    fn report_text(&self) -> String {
        self.env.game.report_text()
    }

    /// An independent copy, dice included: the same lines give the same rolls.
    fn clone(&self) -> TurnGameEnv {
        TurnGameEnv { env: self.env.copy() }
    }

    fn __copy__(&self) -> TurnGameEnv {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> TurnGameEnv {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!("<{} {}>", self.env.kind.title, self.env.game.step_label())
    }
}

fn options_of(options: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut out = Options::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            out.insert(k.extract()?, v.str()?.extract()?);
        }
    }
    Ok(out)
}

fn names_of(players: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(n) = players.extract::<usize>() {
        return Ok((1..=n).map(|i| format!("p{i}")).collect());
    }
    players.extract().map_err(|_| PyTypeError::new_err("players is a number of players or a list of their names"))
}

/// The games of the judge's registry, each a dict: `name` (for `TurnGame`), `title`,
/// `summary`, `players` (the fewest and the most it seats), `dice` (whether it rolls) and
/// `powers` (whether its seats are Diplomacy's powers).
#[pyfunction(name = "games")]
pub fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for kind in games::KINDS {
        let d = PyDict::new(py);
        d.set_item("name", kind.name)?;
        d.set_item("title", kind.title)?;
        d.set_item("summary", kind.summary)?;
        d.set_item("players", kind.players)?;
        d.set_item("dice", kind.offers.dice)?;
        d.set_item("powers", kind.offers.powers)?;
        list.append(d)?;
    }
    Ok(list)
}
