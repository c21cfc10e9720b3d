//! `shadowjudge.resolve`: the batch adjudicator of `shadowjudge resolve`, cases in and
//! results out in the same JSON, spread over `jobs` threads without the GIL.
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use serde_json::value::RawValue;

use shadowjudge::diplomacy::judge::batch::BatchResolver;
use shadowjudge::diplomacy::judge::random::random_phase;
use shadowjudge::diplomacy::judge::rulebook::{Edition, Rulebook};
use shadowjudge::diplomacy::map::Map;

/// Worker stack: deep dependency chains recurse deeply (as the command line gives them).
const WORKER_STACK: usize = 64 << 20;

/// Adjudicate movement phases. `cases` is a list whose items are each a case as a dict
/// (results come back as dicts) or as one JSON line (results come back as JSON lines).
#[pyfunction]
#[pyo3(signature = (cases, *, jobs = 1, rulebook = "2023"))]
pub fn resolve<'py>(
    py: Python<'py>,
    cases: &Bound<'py, PyAny>,
    jobs: usize,
    rulebook: &str,
) -> PyResult<Bound<'py, PyList>> {
    let edition = Edition::parse(rulebook).ok_or_else(|| {
        PyValueError::new_err(format!("unknown rulebook `{rulebook}`: use 1971, 1982, 2000, 2023 or dptg"))
    })?;
    let items: Vec<Bound<'py, PyAny>> = cases.try_iter()?.collect::<PyResult<_>>()?;
    // Dicts are written as JSON by Python's own encoder, in one call for all of them.
    let json = py.import("json")?;
    let mut is_text = Vec::with_capacity(items.len());
    let mut dicts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if item.is_instance_of::<PyString>() {
            is_text.push(true);
        } else if item.hasattr("keys")? {
            is_text.push(false);
            dicts.push(item.clone());
        } else {
            return Err(PyTypeError::new_err(format!(
                "case {i}: a case is a dict or a JSON line (str), not {}",
                item.get_type().name()?
            )));
        }
    }
    let dict_text: String = if dicts.is_empty() {
        "[]".into()
    } else {
        json.call_method1("dumps", (PyList::new(py, &dicts)?,))?.extract()?
    };
    let texts: Vec<String> =
        items.iter().zip(&is_text).filter(|(_, t)| **t).map(|(i, _)| i.extract()).collect::<PyResult<_>>()?;
    let out = py.detach(|| -> Result<Vec<String>, String> {
        let raw: Vec<&RawValue> =
            serde_json::from_str(&dict_text).map_err(|e| format!("the cases cannot be written as JSON: {e}"))?;
        let (mut raw, mut texts) = (raw.into_iter(), texts.iter());
        let lines: Vec<&str> = is_text
            .iter()
            .map(|t| if *t { texts.next().map(String::as_str) } else { raw.next().map(RawValue::get) })
            .map(|l| l.unwrap_or_default())
            .collect();
        let map = Map::standard();
        resolve_lines(&map, Rulebook::edition(edition), &lines, jobs)
    });
    let out = out.map_err(PyValueError::new_err)?;
    // Results of dicts are read back by Python's decoder, again in one call.
    let mut joined = String::from("[");
    for (line, text) in out.iter().zip(&is_text) {
        if !*text {
            if joined.len() > 1 {
                joined.push(',');
            }
            joined.push_str(line);
        }
    }
    joined.push(']');
    let decoded = json.call_method1("loads", (joined,))?;
    let mut decoded = decoded.try_iter()?;
    let result = PyList::empty(py);
    for (line, text) in out.into_iter().zip(is_text) {
        if text {
            result.append(line)?;
        } else {
            result.append(decoded.next().expect("one result per dict")?)?;
        }
    }
    Ok(result)
}

/// Each line's result, in input order, over `jobs` threads (0: one per core).
fn resolve_lines(map: &Map, rulebook: Rulebook, lines: &[&str], jobs: usize) -> Result<Vec<String>, String> {
    let jobs = match jobs {
        0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        n => n.min(256),
    };
    let base = BatchResolver::new(map, rulebook);
    if jobs == 1 || lines.len() < 2 {
        let mut resolver = base;
        return Ok(lines.iter().map(|l| resolver.resolve_line(l)).collect());
    }
    let per = lines.len().div_ceil(jobs).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = lines
            .chunks(per)
            .map(|chunk| {
                let mut resolver = base.worker();
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, move || chunk.iter().map(|l| resolver.resolve_line(l)).collect::<Vec<_>>())
            })
            .collect();
        let mut out = Vec::with_capacity(lines.len());
        for w in workers {
            let w = w.map_err(|e| format!("cannot start a worker thread: {e}"))?;
            out.extend(w.join().map_err(|_| "a worker thread failed".to_string())?);
        }
        Ok(out)
    })
}

/// `count` random movement phases as `resolve` cases (JSON lines), the same ones for the
/// same `seed`: ids `c0`, `c1`, ... Phases interact (bounces, cuts, convoys) and every
/// order is legal. For tests and benchmarks.
#[pyfunction]
#[pyo3(signature = (count, *, seed = 0))]
pub fn random_cases(count: usize, seed: u64) -> Vec<String> {
    let map = Map::standard();
    (0..count).map(|i| random_phase(&map, seed.wrapping_add(i as u64)).to_json_line(&map, &format!("c{i}"))).collect()
}
