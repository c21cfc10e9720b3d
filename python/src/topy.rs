//! Rust values straight to Python objects, as `json.loads(serde_json::to_string(value))`
//! would give them (the same keys in the same order, the same values), without the text
//! in between: dicts for structs and maps, lists for sequences and tuples, `None` for
//! unit and missing options, an enum variant with data as a one-key dict.
use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};

/// `value` as Python objects.
pub fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(Ser { py }).map_err(|e| e.0)
}

pub struct Error(PyErr);

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type Out<'py> = Result<Bound<'py, PyAny>, Error>;

/// The Python string of a field's or a variant's name, made once per thread: the same
/// few names come back in every answer.
fn name<'py>(py: Python<'py>, text: &'static str) -> Bound<'py, PyString> {
    thread_local! {
        static NAMES: std::cell::RefCell<HashMap<(usize, usize), Py<PyString>>> = Default::default();
    }
    NAMES.with(|names| {
        names
            .borrow_mut()
            .entry((text.as_ptr() as usize, text.len()))
            .or_insert_with(|| PyString::new(py, text).unbind())
            .bind(py)
            .clone()
    })
}

#[derive(Clone, Copy)]
struct Ser<'py> {
    py: Python<'py>,
}

impl<'py> Ser<'py> {
    fn obj<T: IntoPyObject<'py>>(self, v: T) -> Out<'py> {
        Ok(v.into_bound_py_any(self.py)?)
    }

    /// `{variant: value}`, as serde_json writes an enum variant with data.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Out<'py> {
        let d = PyDict::new(self.py);
        d.set_item(name(self.py, variant), value)?;
        Ok(d.into_any())
    }
}

impl<'py> ser::Serializer for Ser<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Map<'py>;
    type SerializeStructVariant = Map<'py>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_i128(self, v: i128) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_u128(self, v: u128) -> Out<'py> {
        self.obj(v)
    }
    fn serialize_f32(self, v: f32) -> Out<'py> {
        self.serialize_f64(v as f64)
    }
    fn serialize_f64(self, v: f64) -> Out<'py> {
        // JSON has no NaN or infinity: serde_json writes them as null.
        if v.is_finite() {
            self.obj(v)
        } else {
            Ok(self.py.None().into_bound(self.py))
        }
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        self.obj(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Out<'py> {
        Ok(PyList::new(self.py, v)?.into_any())
    }
    fn serialize_none(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Out<'py> {
        Ok(name(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Out<'py> {
        let inner = value.serialize(self)?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'py>, Error> {
        Ok(Seq { ser: self, items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, Error> {
        Ok(Seq { ser: self, items: Vec::with_capacity(len), variant: Some(variant) })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map { ser: self, dict: PyDict::new(self.py), key: None, variant: None })
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Map<'py>, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Map<'py>, Error> {
        Ok(Map { ser: self, dict: PyDict::new(self.py), key: None, variant: Some(variant) })
    }
}

pub struct Seq<'py> {
    ser: Ser<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }

    fn done(self) -> Out<'py> {
        let list = PyList::new(self.ser.py, self.items)?.into_any();
        match self.variant {
            Some(v) => self.ser.tagged(v, list),
            None => Ok(list),
        }
    }
}

impl<'py> ser::SerializeSeq for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTuple for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleVariant for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

pub struct Map<'py> {
    ser: Ser<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Map<'py> {
    fn done(self) -> Out<'py> {
        let dict = self.dict.into_any();
        match self.variant {
            Some(v) => self.ser.tagged(v, dict),
            None => Ok(dict),
        }
    }
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // JSON keys are strings: a number or a bool key is written as its text.
        let key = key.serialize(self.ser)?;
        let key = if key.is_instance_of::<PyString>() {
            key
        } else if let Ok(b) = key.extract::<bool>() {
            PyString::new(self.ser.py, if b { "true" } else { "false" }).into_any()
        } else {
            key.str()?.into_any()
        };
        self.key = Some(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().ok_or_else(|| <Error as ser::Error>::custom("a map value without its key"))?;
        self.dict.set_item(key, value.serialize(self.ser)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeStruct for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.dict.set_item(name(self.ser.py, key), value.serialize(self.ser)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeStructVariant for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.dict.set_item(name(self.ser.py, key), value.serialize(self.ser)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}
