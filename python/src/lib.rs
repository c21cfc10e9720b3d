//! The Python module `shadowjudge._shadowjudge`: the judge's engines for bot and AI
//! authors. The pure-Python package `shadowjudge` re-exports it (see python/README.md).
use pyo3::prelude::*;

// A game in memory allocates many small values and frees them soon: mimalloc does that
// faster than the system's allocator, and keeps them closer together.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod game;
mod lazy;
mod maps;
mod possible;
mod resolve;
mod small;
mod tables;
mod topy;

#[pymodule]
fn _shadowjudge(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(resolve::resolve, m)?)?;
    m.add_function(wrap_pyfunction!(resolve::random_cases, m)?)?;
    m.add_function(wrap_pyfunction!(game::_known_lines_differ, m)?)?;
    m.add_function(wrap_pyfunction!(game::_known_lines, m)?)?;
    m.add_class::<game::Game>()?;
    m.add_class::<game::Power>()?;
    m.add_class::<lazy::ReadOnlyDict>()?;
    lazy::ReadOnlyDict::register(m)?;
    m.add_class::<small::TurnGameEnv>()?;
    m.add_function(wrap_pyfunction!(small::registry, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
