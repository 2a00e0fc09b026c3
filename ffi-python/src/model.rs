//! The runtime of the generated model classes (`codegen/model.rs`): conversions between the
//! prost fields and Python values, and the shared methods (ProtoJSON, dict, protobuf,
//! validation, repr). Every value a user hands in is checked here and a wrong one raises
//! `TypeError` / `ValueError` naming the field (`Message.parts[2]: expected Part, got dict`);
//! nothing in this file panics on any input.

use crate::errors;
use a2a::codec::{self, DecodeError};
use a2a::proto::google::protobuf::{value::Kind, ListValue, Struct, Timestamp, Value};
use a2a::proto::validate::Validate;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PyMemoryView, PyString, PyTuple, PyType};
use std::collections::BTreeMap;

pub(crate) mod generated {
    #![allow(clippy::all, unused_variables, non_snake_case, deprecated, dead_code)]
    use super as rt;
    use a2a::v1;
    use pyo3::prelude::*;
    use pyo3::types::PyDict;
    include!(concat!(env!("OUT_DIR"), "/model.rs"));
}

pub use generated::{class_of, register, ENUMS, ENUM_TASK_STATE as TASK_STATE};

/// The stub the generator wrote next to the classes (the tests compare it with the committed
/// `_model.pyi`).
pub const STUB: &str = include_str!(concat!(env!("OUT_DIR"), "/model.pyi"));

// ---------------------------------------------------------------- enums

/// The enum classes, in the order of `ENUMS`, made at import time.
static ENUM_CLASSES: PyOnceLock<Vec<Py<PyType>>> = PyOnceLock::new();

/// Makes the `enum.Enum` classes from the generated table and adds them to `m`.
pub fn register_enums(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let make = py.import("a2a_wire._enum")?.getattr("make_enum")?;
    let mut classes = Vec::with_capacity(ENUMS.len());
    for (name, full, members) in ENUMS {
        let list = PyList::empty(py);
        for (member, proto_name, number) in members.iter() {
            list.append((member, number, proto_name))?;
        }
        let cls = make.call1((name, full, list))?.cast_into::<PyType>()?;
        m.add(name, &cls)?;
        classes.push(cls.unbind());
    }
    ENUM_CLASSES.set(py, classes).map_err(|_| PyValueError::new_err("a2a_wire enums initialised twice"))?;
    Ok(())
}

fn enum_class(py: Python<'_>, idx: usize) -> PyResult<&Bound<'_, PyType>> {
    ENUM_CLASSES
        .get(py)
        .and_then(|v| v.get(idx))
        .map(|c| c.bind(py))
        .ok_or_else(|| PyValueError::new_err("a2a_wire enums are not initialised"))
}

pub fn enum_to(py: Python<'_>, idx: usize, v: i32) -> PyResult<Bound<'_, PyAny>> {
    enum_class(py, idx)?.call1((v,))
}

pub fn enum_from(idx: usize, v: &Bound<'_, PyAny>) -> PyResult<i32> {
    let cls = enum_class(v.py(), idx)?;
    if v.is_instance(cls)? {
        return v.getattr("value")?.extract::<i32>();
    }
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        return v.extract::<i32>().map_err(|_| PyValueError::new_err("enum number out of int32 range"));
    }
    Err(PyTypeError::new_err(format!("expected {} or int, got {}", cls.name()?, type_name(v))))
}

// ---------------------------------------------------------------- scalars

pub(crate) fn type_name(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

pub fn str_to<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyString::new(py, s).into_any())
}
pub fn bool_to(py: Python<'_>, b: bool) -> PyResult<Bound<'_, PyAny>> {
    Ok(PyBool::new(py, b).to_owned().into_any())
}
pub fn int_to(py: Python<'_>, i: i32) -> PyResult<Bound<'_, PyAny>> {
    Ok(i.into_pyobject(py)?.into_any())
}
pub fn bytes_to<'py>(py: Python<'py>, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyBytes::new(py, b).into_any())
}

pub fn str_from(v: &Bound<'_, PyAny>) -> PyResult<String> {
    match v.cast::<PyString>() {
        Ok(s) => Ok(s.to_str()?.to_owned()),
        Err(_) => Err(PyTypeError::new_err(format!("expected str, got {}", type_name(v)))),
    }
}
pub fn bool_from(v: &Bound<'_, PyAny>) -> PyResult<bool> {
    match v.cast::<PyBool>() {
        Ok(b) => Ok(b.is_true()),
        Err(_) => Err(PyTypeError::new_err(format!("expected bool, got {}", type_name(v)))),
    }
}
pub fn int_from(v: &Bound<'_, PyAny>) -> PyResult<i32> {
    if !v.is_instance_of::<PyInt>() || v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("expected int, got {}", type_name(v))));
    }
    v.extract::<i32>().map_err(|_| PyValueError::new_err("out of the int32 range"))
}
pub fn bytes_from(v: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(b) = v.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = v.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if v.is_instance_of::<PyMemoryView>() {
        return Ok(PyBytes::new(v.py(), &[]).getattr("join")?.call1(((v,),))?.cast_into::<PyBytes>()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!("expected bytes, got {}", type_name(v))))
}

// ---------------------------------------------------------------- messages

pub fn msg_to<T: pyo3::PyClass + Into<pyo3::PyClassInitializer<T>>>(py: Python<'_>, v: T) -> PyResult<Bound<'_, PyAny>> {
    Ok(Bound::new(py, v)?.into_any())
}

pub fn msg_from<T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Clone + Sync>(v: &Bound<'_, PyAny>) -> PyResult<T> {
    match v.cast::<T>() {
        Ok(m) => Ok(m.get().clone()),
        Err(_) => Err(PyTypeError::new_err(format!("expected {}, got {}", T::NAME, type_name(v)))),
    }
}

// ---------------------------------------------------------------- containers

pub fn tuple_to<'py>(py: Python<'py>, items: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>) -> PyResult<Bound<'py, PyAny>> {
    let v: Vec<Bound<'py, PyAny>> = items.collect::<PyResult<_>>()?;
    Ok(PyTuple::new(py, v)?.into_any())
}

pub fn dict_to<'py, 'a>(
    py: Python<'py>,
    items: impl Iterator<Item = (&'a String, PyResult<Bound<'py, PyAny>>)>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v?)?;
    }
    Ok(d.into_any())
}

/// A sequence of values (list, tuple, any iterable except str, bytes and mappings).
pub fn seq_from<T>(at: &str, v: &Bound<'_, PyAny>, mut f: impl FnMut(&Bound<'_, PyAny>) -> PyResult<T>) -> PyResult<Vec<T>> {
    if v.is_instance_of::<PyString>() || v.is_instance_of::<PyBytes>() || v.is_instance_of::<PyDict>() || v.cast::<PyMapping>().is_ok() {
        return Err(PyTypeError::new_err(format!("{at}: expected a sequence, got {}", type_name(v))));
    }
    let iter = v.try_iter().map_err(|_| PyTypeError::new_err(format!("{at}: expected a sequence, got {}", type_name(v))))?;
    let mut out = Vec::new();
    for (i, item) in iter.enumerate() {
        let item = item?;
        out.push(at_path(&format!("{at}[{i}]"), f(&item))?);
    }
    Ok(out)
}

/// A mapping with `str` keys.
pub fn map_from<T>(at: &str, v: &Bound<'_, PyAny>, mut f: impl FnMut(&Bound<'_, PyAny>) -> PyResult<T>) -> PyResult<BTreeMap<String, T>> {
    let Ok(m) = v.cast::<PyMapping>() else {
        return Err(PyTypeError::new_err(format!("{at}: expected a mapping, got {}", type_name(v))));
    };
    let mut out = BTreeMap::new();
    for item in m.items()?.iter() {
        let (k, x): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let key = at_path(&format!("{at} (a key)"), str_from(&k))?;
        let value = at_path(&format!("{at}.{key}"), f(&x))?;
        out.insert(key, value);
    }
    Ok(out)
}

/// Prefixes a TypeError / ValueError raised for a field with the field's name.
pub fn at<T>(path: &str, r: PyResult<T>) -> PyResult<T> {
    at_path(path, r)
}

fn at_path<T>(path: &str, r: PyResult<T>) -> PyResult<T> {
    r.map_err(|e| {
        Python::attach(|py| {
            // Errors already naming a path (from a nested container) keep theirs.
            let msg = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
            if msg.starts_with(path) {
                return e;
            }
            let text = format!("{path}: {msg}");
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(text)
            } else if e.is_instance_of::<PyValueError>(py) && !e.is_instance_of::<pyo3::exceptions::PyUnicodeError>(py) {
                PyValueError::new_err(text)
            } else {
                e
            }
        })
    })
}

pub fn unknown_field(class: &str, key: &str) -> PyErr {
    PyTypeError::new_err(format!("{class}() got an unexpected keyword argument '{key}'"))
}

/// Applies keyword arguments through the class's `set_field`, refusing two members of one
/// oneof in the same call.
pub fn apply<M>(
    class: &str,
    oneofs: &[(&str, &[&str])],
    m: &mut M,
    fields: Option<&Bound<'_, PyDict>>,
    set: fn(&mut M, &str, &Bound<'_, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    let Some(fields) = fields else { return Ok(()) };
    for (name, members) in oneofs {
        let mut given = Vec::new();
        for member in members.iter() {
            if let Some(v) = fields.get_item(member)? {
                if !v.is_none() {
                    given.push(*member);
                }
            }
        }
        if given.len() > 1 {
            return Err(PyTypeError::new_err(format!(
                "{class}: {} are members of the oneof `{name}`; give at most one",
                given.join(" and ")
            )));
        }
    }
    for (k, v) in fields.iter() {
        let key = k.cast::<PyString>().map_err(|_| PyTypeError::new_err("keywords must be strings"))?.to_str()?.to_owned();
        set(m, &key, &v)?;
    }
    Ok(())
}

pub fn repr(class: &str, parts: &[(&str, Bound<'_, PyAny>)]) -> PyResult<String> {
    let mut s = String::with_capacity(32);
    s.push_str(class);
    s.push('(');
    for (i, (name, v)) in parts.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(name);
        s.push('=');
        s.push_str(v.repr()?.to_str()?);
    }
    s.push(')');
    Ok(s)
}

// ---------------------------------------------------------------- well-known types

pub fn value_to<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match &v.kind {
        None | Some(Kind::NullValue(_)) => py.None().into_bound(py),
        Some(Kind::NumberValue(n)) => PyFloat::new(py, *n).into_any(),
        Some(Kind::StringValue(s)) => PyString::new(py, s).into_any(),
        Some(Kind::BoolValue(b)) => PyBool::new(py, *b).to_owned().into_any(),
        Some(Kind::StructValue(s)) => struct_to(py, s)?,
        Some(Kind::ListValue(l)) => {
            let list = PyList::empty(py);
            for x in &l.values {
                list.append(value_to(py, x)?)?;
            }
            list.into_any()
        }
    })
}

pub fn struct_to<'py>(py: Python<'py>, s: &Struct) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    for (k, v) in &s.fields {
        d.set_item(k, value_to(py, v)?)?;
    }
    Ok(d.into_any())
}

/// Depth limit for JSON-like values handed in from Python (a self-referencing list would
/// otherwise recurse forever).
const MAX_DEPTH: usize = 100;

pub fn value_from(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    value_from_at(v, 0)
}

fn value_from_at(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("value nested too deeply (more than 100 levels)"));
    }
    let kind = if v.is_none() {
        Kind::NullValue(0)
    } else if let Ok(b) = v.cast::<PyBool>() {
        Kind::BoolValue(b.is_true())
    } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
        let n: f64 = v.extract()?;
        if !n.is_finite() {
            return Err(PyValueError::new_err("a JSON number must be finite"));
        }
        Kind::NumberValue(n)
    } else if let Ok(s) = v.cast::<PyString>() {
        Kind::StringValue(s.to_str()?.to_owned())
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut values = Vec::new();
        for x in v.try_iter()? {
            values.push(value_from_at(&x?, depth + 1)?);
        }
        Kind::ListValue(ListValue { values })
    } else if v.cast::<PyMapping>().is_ok() {
        Kind::StructValue(struct_from_at(v, depth + 1)?)
    } else {
        return Err(PyTypeError::new_err(format!("expected a JSON value (None, bool, int, float, str, list, dict), got {}", type_name(v))));
    };
    Ok(Value { kind: Some(kind) })
}

pub fn struct_from(v: &Bound<'_, PyAny>) -> PyResult<Struct> {
    struct_from_at(v, 0)
}

fn struct_from_at(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<Struct> {
    let Ok(m) = v.cast::<PyMapping>() else {
        return Err(PyTypeError::new_err(format!("expected a dict, got {}", type_name(v))));
    };
    let mut fields = BTreeMap::new();
    for item in m.items()?.iter() {
        let (k, x): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let key = str_from(&k).map_err(|_| PyTypeError::new_err(format!("dict keys must be str, got {}", type_name(&k))))?;
        let value = at_path(&key, value_from_at(&x, depth))?;
        fields.insert(key, value);
    }
    Ok(Struct { fields })
}

static EPOCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static TIMEDELTA: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn epoch(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    EPOCH
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            let dt = py.import("datetime")?;
            let utc = dt.getattr("timezone")?.getattr("utc")?;
            let kw = PyDict::new(py);
            kw.set_item("tzinfo", utc)?;
            Ok(dt.getattr("datetime")?.call((1970, 1, 1), Some(&kw))?.unbind())
        })
        .map(|e| e.bind(py))
}

/// A Timestamp as an aware `datetime` in UTC (sub-microsecond digits are cut: `datetime`
/// cannot hold them; `to_json` of the object itself keeps them).
pub fn timestamp_to<'py>(py: Python<'py>, t: &Timestamp) -> PyResult<Bound<'py, PyAny>> {
    let td = TIMEDELTA.import(py, "datetime", "timedelta")?;
    let kw = PyDict::new(py);
    kw.set_item("seconds", t.seconds)?;
    kw.set_item("microseconds", t.nanos / 1000)?;
    let delta = td.call((), Some(&kw))?;
    epoch(py)?.add(delta).map_err(|e| PyValueError::new_err(format!("timestamp out of datetime's range: {e}")))
}

/// An aware `datetime` (a naive one is refused: its zone is unknown) or an RFC 3339 string.
pub fn timestamp_from(v: &Bound<'_, PyAny>) -> PyResult<Timestamp> {
    let py = v.py();
    if let Ok(s) = v.cast::<PyString>() {
        let (seconds, nanos) = a2a::proto::json::timestamp::parse(s.to_str()?).map_err(|e| PyValueError::new_err(format!("{e}")))?;
        return Ok(Timestamp { seconds, nanos });
    }
    let dt = DATETIME.import(py, "datetime", "datetime")?;
    if !v.is_instance(dt)? {
        return Err(PyTypeError::new_err(format!("expected datetime.datetime or an RFC 3339 str, got {}", type_name(v))));
    }
    if v.call_method0("utcoffset")?.is_none() {
        return Err(PyValueError::new_err("naive datetime: give it a tzinfo (e.g. datetime.timezone.utc)"));
    }
    let delta = v.sub(epoch(py)?)?;
    let days: i64 = delta.getattr("days")?.extract()?;
    let secs: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i32 = delta.getattr("microseconds")?.extract()?;
    let t = Timestamp { seconds: days * 86_400 + secs, nanos: micros * 1000 };
    a2a::proto::json::timestamp::format(t.seconds, t.nanos).map_err(|e| PyValueError::new_err(format!("{e}")))?;
    Ok(t)
}

// ---------------------------------------------------------------- JSON values

pub(crate) fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        J::String(s) => PyString::new(py, s).into_any(),
        J::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json_to_py(py, x)?)?;
            }
            list.into_any()
        }
        J::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

pub(crate) fn py_to_json(v: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    py_to_json_at(v, 0, "")
}

fn py_to_json_at(v: &Bound<'_, PyAny>, depth: usize, at: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("value nested too deeply (more than 100 levels)"));
    }
    let here = |what: String| if at.is_empty() { what } else { format!("{at}: {what}") };
    Ok(if v.is_none() {
        J::Null
    } else if let Ok(b) = v.cast::<PyBool>() {
        J::Bool(b.is_true())
    } else if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            J::from(i)
        } else if let Ok(u) = v.extract::<u64>() {
            J::from(u)
        } else {
            return Err(PyValueError::new_err(here("int too large for JSON".into())));
        }
    } else if v.is_instance_of::<PyFloat>() {
        let f: f64 = v.extract()?;
        match serde_json::Number::from_f64(f) {
            Some(n) => J::Number(n),
            None => return Err(PyValueError::new_err(here("a JSON number must be finite".into()))),
        }
    } else if let Ok(s) = v.cast::<PyString>() {
        J::String(s.to_str()?.to_owned())
    } else if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, x) in v.try_iter()?.enumerate() {
            out.push(py_to_json_at(&x?, depth + 1, &format!("{at}[{i}]"))?);
        }
        J::Array(out)
    } else if let Ok(m) = v.cast::<PyMapping>() {
        let mut out = serde_json::Map::new();
        for item in m.items()?.iter() {
            let (k, x): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(here(format!("dict keys must be str, got {}", type_name(&k)))));
            };
            let key = key.to_str()?.to_owned();
            let path = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
            let value = py_to_json_at(&x, depth + 1, &path)?;
            out.insert(key, value);
        }
        J::Object(out)
    } else {
        return Err(PyTypeError::new_err(here(format!("expected a JSON value, got {}", type_name(v)))));
    })
}

// ---------------------------------------------------------------- shared methods

/// The bytes of a `str` (UTF-8), `bytes`, `bytearray` or `memoryview` argument.
pub(crate) fn with_bytes<R>(data: &Bound<'_, PyAny>, what: &str, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(s) = data.cast::<PyString>() {
        return Ok(f(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if data.is_instance_of::<PyByteArray>() || data.is_instance_of::<PyMemoryView>() {
        let copy = bytes_from(data)?;
        return Ok(f(&copy));
    }
    Err(PyTypeError::new_err(format!("{what}: expected str or bytes, got {}", type_name(data))))
}

/// Inputs at least this long are decoded with the GIL released (below it, releasing and
/// taking it back costs more than it lets other threads gain).
const DETACH_AT: usize = 4096;

pub fn to_json<T: codec::Message + Sync>(py: Python<'_>, m: &T) -> PyResult<String> {
    let r = if m.encoded_len() >= DETACH_AT { py.detach(|| codec::json::encode(m)) } else { codec::json::encode(m) };
    let bytes = r.map_err(|e| errors::encode_error(py, &e.to_string()))?;
    // serde_json writes UTF-8 only.
    String::from_utf8(bytes).map_err(|e| errors::encode_error(py, &e.to_string()))
}

fn decode_json<T: codec::Message + Send>(py: Python<'_>, bytes: &[u8], validate: bool) -> Result<T, DecodeError> {
    let run = || if validate { codec::json::decode::<T>(bytes) } else { codec::json::decode_unchecked::<T>(bytes) };
    if bytes.len() >= DETACH_AT {
        py.detach(run)
    } else {
        run()
    }
}

pub fn from_json<T: codec::Message + Send>(data: &Bound<'_, PyAny>, validate: bool) -> PyResult<T> {
    let py = data.py();
    with_bytes(data, "data", |b| decode_json::<T>(py, b, validate))?.map_err(|e| errors::decode_error(py, &e))
}

pub fn to_dict<'py, T: codec::Message>(py: Python<'py>, m: &T) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(m).map_err(|e| errors::encode_error(py, &e.to_string()))?;
    json_to_py(py, &v)
}

pub fn from_dict<T: codec::Message + Send>(data: &Bound<'_, PyAny>, validate: bool) -> PyResult<T> {
    let py = data.py();
    if data.cast::<PyMapping>().is_err() {
        return Err(PyTypeError::new_err(format!("data: expected a dict, got {}", type_name(data))));
    }
    let v = py_to_json(data)?;
    let bytes = serde_json::to_vec(&v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    decode_json::<T>(py, &bytes, validate).map_err(|e| errors::decode_error(py, &e))
}

pub fn to_protobuf<'py, T: codec::Message>(py: Python<'py>, m: &T) -> Bound<'py, PyBytes> {
    let len = m.encoded_len();
    // `PyBytes::new_with` hands a zeroed buffer of exactly `len` bytes; prost writes exactly
    // `encoded_len()` bytes, so the encode cannot run out of room.
    PyBytes::new_with(py, len, |mut buf: &mut [u8]| {
        let _ = m.encode(&mut buf);
        Ok(())
    })
    .unwrap_or_else(|_| PyBytes::new(py, &m.encode_to_vec()))
}

pub fn from_protobuf<T: codec::Message + Send>(data: &Bound<'_, PyAny>, validate: bool) -> PyResult<T> {
    let py = data.py();
    if data.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("data: expected bytes, got str"));
    }
    let run = |b: &[u8]| if validate { codec::protobuf::decode::<T>(b) } else { codec::protobuf::decode_unchecked::<T>(b) };
    with_bytes(data, "data", |b| if b.len() >= DETACH_AT { py.detach(|| run(b)) } else { run(b) })?
        .map_err(|e| errors::decode_error(py, &e))
}

pub fn validate<T: Validate>(m: &T) -> PyResult<()> {
    match m.validate() {
        Ok(()) => Ok(()),
        Err(v) => Python::attach(|py| Err(errors::violations_error(py, v.as_slice()))),
    }
}
