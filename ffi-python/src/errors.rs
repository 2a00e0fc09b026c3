//! Between the core's errors and the Python exception classes of `a2a_wire.errors`.
//!
//! The classes are plain Python (so that they subclass `Exception` / `ValueError` like any
//! other and pickle); this file finds them once per interpreter and fills them from the
//! core's values. The wire forms (codes, statuses, bodies) are the core's: `_render_error`
//! asks it, and `_error_table` hands its table to the classes at import.

use crate::model::{json_to_py, type_name};
use a2a::codec::{DecodeError, DecodeErrorKind};
use a2a::error::{A2aError, ClientError, ErrorKind, Received, ERROR_TABLE};
use a2a::proto::validate::Violation;
use prost::Message as _;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyType};
use std::borrow::Cow;

const MODULE: &str = "a2a_wire.errors";

macro_rules! class {
    ($fn:ident, $name:literal) => {
        pub(crate) fn $fn(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
            static CELL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
            CELL.import(py, MODULE, $name)
        }
    };
}

class!(a2a_error_class, "A2AError");
class!(not_a2a_class, "NotA2AError");
class!(protocol_class, "ProtocolError");
class!(cannot_send_class, "CannotSendError");
class!(transport_class, "TransportError");
class!(card_class, "CardError");
class!(signature_class, "CardSignatureError");
class!(tls_class, "TLSError");
class!(timeout_class, "CallTimeoutError");
class!(syntax_class, "JsonSyntaxError");
class!(invalid_value_class, "InvalidValueError");
class!(missing_class, "MissingFieldError");
class!(protobuf_class, "ProtobufError");
class!(conversion_class, "ConversionError");
class!(encode_class, "EncodeError");

/// A PyErr for an exception made by calling `cls(*args, **kwargs)`; if even that fails, the
/// failure itself is what the caller sees.
fn make<'py, A: pyo3::call::PyCallArgs<'py>>(cls: PyResult<&Bound<'py, PyType>>, args: A, kwargs: Option<&Bound<'py, PyDict>>) -> PyErr {
    match cls.and_then(|c| c.call(args, kwargs)) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

fn violations_list<'py>(py: Python<'py>, v: &[Violation]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for x in v {
        list.append((x.field.as_str(), x.description.as_ref()))?;
    }
    Ok(list)
}

/// A decode error as the `ValidationError` subclass of its kind.
pub(crate) fn decode_error(py: Python<'_>, e: &DecodeError) -> PyErr {
    validation(py, decode_class(py, e), e.field(), e.description(), e.violations(), e.position())
}

/// The `ValidationError` subclass of a decode error's kind.
fn decode_class<'py>(py: Python<'py>, e: &DecodeError) -> PyResult<&'py Bound<'py, PyType>> {
    match e.kind() {
        DecodeErrorKind::Syntax => syntax_class(py),
        DecodeErrorKind::MissingRequired => missing_class(py),
        DecodeErrorKind::Protobuf => protobuf_class(py),
        _ => invalid_value_class(py),
    }
}

/// [`decode_error`] of a value given as the argument `at` (`extended_cards["bob"]`): the
/// paths name the argument, then the field inside it.
pub(crate) fn decode_error_in(py: Python<'_>, e: &DecodeError, at: &str) -> PyErr {
    let path_in = |field: &str| match field {
        "" => at.to_string(),
        f if f.starts_with('[') => format!("{at}{f}"),
        f => format!("{at}.{f}"),
    };
    let violations: Vec<Violation> =
        e.violations().iter().map(|v| Violation { field: path_in(&v.field), description: v.description.clone() }).collect();
    validation(py, decode_class(py, e), &path_in(e.field()), e.description(), &violations, e.position())
}

/// A conversion (v0.3 translation) error.
pub(crate) fn conversion_error(py: Python<'_>, field: &str, description: &str) -> PyErr {
    validation(py, conversion_class(py), field, description, &[], None)
}

fn validation(
    py: Python<'_>,
    cls: PyResult<&Bound<'_, PyType>>,
    field: &str,
    description: &str,
    violations: &[Violation],
    position: Option<(usize, usize)>,
) -> PyErr {
    let build = || -> PyResult<Bound<'_, PyDict>> {
        let kw = PyDict::new(py);
        kw.set_item("path", field)?;
        if !violations.is_empty() {
            kw.set_item("violations", violations_list(py, violations)?)?;
        }
        if let Some((line, column)) = position {
            kw.set_item("line", line)?;
            kw.set_item("column", column)?;
        }
        Ok(kw)
    };
    match build() {
        Ok(kw) => make(cls, (description,), Some(&kw)),
        Err(e) => e,
    }
}

/// REQUIRED-field violations of a message built in Python.
pub(crate) fn violations_error(py: Python<'_>, v: &[Violation]) -> PyErr {
    let (field, description) = v.first().map_or(("", "invalid message"), |x| (x.field.as_str(), x.description.as_ref()));
    validation(py, missing_class(py), field, description, v, None)
}

pub(crate) fn encode_error(py: Python<'_>, message: &str) -> PyErr {
    make(encode_class(py), (message,), None)
}

fn kind_name(kind: ErrorKind) -> String {
    format!("{kind:?}")
}

/// An A2A error as the subclass of its kind. `binding` and `wire_status` say how it was
/// received (None when it was made here).
pub(crate) fn a2a_error(py: Python<'_>, e: &A2aError, binding: Option<&str>, wire_status: Option<i64>) -> PyErr {
    let build = || -> PyResult<(Bound<'_, PyType>, Bound<'_, PyDict>)> {
        let cls = a2a_error_class(py)?.call_method1("from_kind", (kind_name(e.kind()),))?.cast_into::<PyType>()?;
        let kw = PyDict::new(py);
        let meta = PyDict::new(py);
        for (k, v) in e.metadata() {
            meta.set_item(k, v)?;
        }
        kw.set_item("metadata", meta)?;
        if !e.violations().is_empty() {
            kw.set_item("violations", violations_list(py, e.violations())?)?;
        }
        kw.set_item("binding", binding)?;
        kw.set_item("wire_status", wire_status)?;
        Ok((cls, kw))
    };
    match build() {
        Ok((cls, kw)) => make(Ok(&cls), (e.message(),), Some(&kw)),
        Err(err) => err,
    }
}

/// What the client core reports, as the exception a Python caller expects.
pub(crate) fn client_error(py: Python<'_>, e: &ClientError, binding: &str) -> PyErr {
    match e {
        ClientError::Remote(r) => received(py, r, binding, None),
        ClientError::Protocol(m) => make(protocol_class(py), (m.as_str(),), None),
        ClientError::Local(m) => make(cannot_send_class(py), (m.as_str(),), None),
        other => make(protocol_class(py), (other.to_string(),), None),
    }
}

/// A classified received error; `wire_status` is the status seen on `binding` (HTTP status,
/// gRPC code, JSON-RPC code) when known.
pub(crate) fn received(py: Python<'_>, r: &Received, binding: &str, wire_status: Option<i64>) -> PyErr {
    match r {
        Received::A2a(e) => a2a_error(py, e, Some(binding), wire_status),
        Received::NotA2a { status, message } => {
            let kw = PyDict::new(py);
            if let Err(e) = kw.set_item("binding", binding) {
                return e;
            }
            make(not_a2a_class(py), (*status, message.as_str()), Some(&kw))
        }
        other => make(protocol_class(py), (format!("{other:?}"),), None),
    }
}

pub(crate) fn transport_error(py: Python<'_>, message: &str) -> PyErr {
    make(transport_class(py), (message,), None)
}

/// A call that outlived its deadline (`CallTimeoutError`, also the built-in `TimeoutError`).
pub(crate) fn timeout_error(py: Python<'_>, message: &str) -> PyErr {
    make(timeout_class(py), (message,), None)
}

/// A TLS failure: an untrusted or misnamed certificate, a broken handshake, unusable TLS
/// files.
pub(crate) fn tls_error(py: Python<'_>, message: &str) -> PyErr {
    make(tls_class(py), (message,), None)
}

/// Reads an `A2AError` instance back into the core's error (an agent or application raised
/// it). Anything else is `None`.
pub(crate) fn from_py(err: &Bound<'_, PyAny>) -> PyResult<Option<A2aError>> {
    let py = err.py();
    if !err.is_instance(a2a_error_class(py)?)? {
        return Ok(None);
    }
    let number: u32 = err.getattr("number")?.extract()?;
    let Some(kind) = ErrorKind::from_number(number) else { return Ok(None) };
    let message: String = err.getattr("message")?.str()?.to_str()?.to_owned();
    let mut e = A2aError::with_message(kind, Cow::Owned(message));
    if let Ok(meta) = err.getattr("metadata")?.cast_into::<PyDict>() {
        for (k, v) in meta.iter() {
            e = e.meta(k.str()?.to_str()?, v.str()?.to_str()?.to_owned());
        }
    }
    let mut violations = Vec::new();
    for item in err.getattr("violations")?.try_iter()? {
        let (field, description): (String, String) = item?.extract()?;
        violations.push(Violation { field, description: Cow::Owned(description) });
    }
    if !violations.is_empty() {
        e = e.with_violations(violations);
    }
    Ok(Some(e))
}

/// `_error_table()`: the core's table, one tuple per kind:
/// `(number, kind, jsonrpc_code, grpc_code, http_status, reason, default_message)`.
#[pyfunction]
pub(crate) fn _error_table(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for row in ERROR_TABLE.iter() {
        list.append((
            row.kind.number(),
            kind_name(row.kind),
            row.jsonrpc,
            row.grpc as i32,
            row.http,
            row.reason.unwrap_or(""),
            row.message,
        ))?;
    }
    Ok(list)
}

/// `_render_error(err, form)`: an `A2AError` in one of its wire forms: `"jsonrpc"` (the error
/// object), `"http"` / `"http-0.3"` (`(status, body)`), `"grpc"` (`(code, message,
/// status_details_bytes)`).
#[pyfunction]
pub(crate) fn _render_error<'py>(err: &Bound<'py, PyAny>, form: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = err.py();
    let Some(e) = from_py(err)? else {
        return Err(PyTypeError::new_err(format!("expected an A2AError subclass instance, got {}", type_name(err))));
    };
    Ok(match form {
        "jsonrpc" => json_to_py(py, &e.to_jsonrpc_error())?,
        "http" => (e.http_status(), json_to_py(py, &e.to_http_body())?).into_pyobject(py)?.into_any(),
        "http-0.3" => (e.http_status(), json_to_py(py, &e.to_http_body_v03())?).into_pyobject(py)?.into_any(),
        "grpc" => {
            let status = e.to_grpc_status();
            (status.code, PyString::new(py, &status.message), PyBytes::new(py, &status.encode_to_vec())).into_pyobject(py)?.into_any()
        }
        other => return Err(PyValueError::new_err(format!("unknown error form {other:?} (jsonrpc, http, http-0.3, grpc)"))),
    })
}

pub(crate) fn cannot_send(py: Python<'_>, message: &str) -> PyErr {
    make(cannot_send_class(py), (message,), None)
}

pub(crate) fn card_error(py: Python<'_>, message: &str) -> PyErr {
    make(card_class(py), (message,), None)
}

/// An Agent Card whose signature does not verify, or that is unsigned where a signature is
/// required.
pub(crate) fn signature_error(py: Python<'_>, message: &str) -> PyErr {
    make(signature_class(py), (message,), None)
}
