//! `ReadOnlyDict`: what `set_orders` and `process` return. A read-only mapping (registered
//! as a `collections.abc.Mapping`) over a Rust value kept as it is: its Python objects,
//! the same dict `to_py` gives, are made only when it is first read, so a caller that
//! never looks pays for none of them.
use std::sync::{Arc, OnceLock};

use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

use shadowjudge::diplomacy::engine::Adjudicated;
use shadowjudge::diplomacy::map::Map;
use shadowjudge::diplomacy::report::PhaseReport;
use shadowjudge::game::settings::Settings;

use crate::topy::to_py;

/// A Rust value that gives a dict when asked.
pub(crate) trait Source: Send + Sync {
    fn build<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>>;
}

/// A phase as `process` decided it, worded (the judge's report) when first read.
pub(crate) struct Report {
    decided: Adjudicated,
    settings: Arc<Settings>,
    map: Arc<Map>,
    words: OnceLock<PhaseReport>,
}

impl Report {
    pub(crate) fn new(decided: Adjudicated, settings: Arc<Settings>, map: Arc<Map>) -> Report {
        Report { decided, settings, map, words: OnceLock::new() }
    }

    /// The report, made on the first call.
    pub(crate) fn get(&self) -> &PhaseReport {
        self.words.get_or_init(|| self.decided.report(&self.settings, &self.map))
    }
}

impl Source for Report {
    fn build<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        Ok(to_py(py, self.get())?.cast_into::<PyDict>()?)
    }
}

/// A read-only dict whose contents are made when first read.
#[pyclass(frozen, mapping, module = "shadowjudge", name = "ReadOnlyDict")]
pub struct ReadOnlyDict {
    source: Arc<dyn Source>,
    dict: PyOnceLock<Py<PyDict>>,
}

impl ReadOnlyDict {
    /// Over a source that may be kept elsewhere too.
    pub(crate) fn shared(source: Arc<dyn Source>) -> ReadOnlyDict {
        ReadOnlyDict { source, dict: PyOnceLock::new() }
    }

    /// The contents, made on the first call.
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self.dict.get_or_try_init(py, || self.source.build(py).map(Bound::unbind))?;
        Ok(d.bind(py).clone())
    }

    /// Make `collections.abc.Mapping` count this class as one of its own.
    pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
        let py = module.py();
        let class = py.get_type::<ReadOnlyDict>();
        py.import("collections.abc")?.getattr("Mapping")?.call_method1("register", (class,))?;
        Ok(())
    }
}

#[pymethods]
impl ReadOnlyDict {
    #[allow(non_upper_case_globals)]
    const __hash__: Option<Py<PyAny>> = None;

    fn __getitem__<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.as_any().get_item(key)
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.dict(py)?.len())
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.dict(py)?.contains(key)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.dict(py)?.as_any().try_iter()?.into_any())
    }

    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0("keys")
    }

    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0("values")
    }

    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.dict(py)?.call_method0("items")
    }

    #[pyo3(signature = (key, default = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let default = default.unwrap_or_else(|| py.None().into_bound(py));
        self.dict(py)?.call_method1("get", (key, default))
    }

    /// A dict of the same contents (a new one, free to change).
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.dict(py)?.copy()
    }

    fn __richcmp__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
        op: CompareOp,
    ) -> PyResult<Bound<'py, PyAny>> {
        let other = match other.cast::<ReadOnlyDict>() {
            Ok(o) => o.get().dict(py)?.into_any(),
            Err(_) => other.clone(),
        };
        match op {
            CompareOp::Eq | CompareOp::Ne => self.dict(py)?.as_any().rich_compare(other, op),
            _ => Ok(py.NotImplemented().into_bound(py)),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.dict(py)?.repr()?.to_string())
    }

    /// `dict(x)` and `json.dumps(dict(x))` as for a dict; pickled as the dict.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyType>, (Bound<'py, PyDict>,))> {
        Ok((py.get_type::<PyDict>(), (self.dict(py)?.copy()?,)))
    }
}
