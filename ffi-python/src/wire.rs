//! Protocol helpers that are not model methods: v0.3 translation, version negotiation,
//! interface selection, reading a card of either version, and the classification of errors
//! received from peers. Each is one call into the core.

use crate::errors;
use crate::model::{class_of, type_name, with_bytes};
use a2a::card::{self, Binding, ClientSupport};
use a2a::v03::by_name::{translate_to_v03, translate_to_v1, V03Error};
use a2a::version::{self, ProtocolVersion};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyType};

fn v03_error(py: Python<'_>, e: V03Error) -> PyErr {
    match e {
        V03Error::UnknownType(n) => PyValueError::new_err(format!("no v0.3 translation for the type {n:?}")),
        V03Error::Decode(d) => errors::decode_error(py, &d),
        V03Error::Convert(c) => errors::conversion_error(py, c.path(), &c.to_string()),
        V03Error::Encode(e) => errors::encode_error(py, &e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn losses<'py>(py: Python<'py>, l: &[String]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for x in l {
        let (kind, path) = x.split_once('@').unwrap_or((x.as_str(), ""));
        list.append((kind, path))?;
    }
    Ok(list)
}

/// `_v03_to_v1(type_name, data) -> (v03_canonical_json, v1_object, losses)`: decodes a v0.3
/// object of `type_name` and translates it to the v1.0 model.
#[pyfunction]
pub(crate) fn _v03_to_v1<'py>(
    py: Python<'py>,
    type_name: &str,
    data: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyAny>, Bound<'py, PyList>)> {
    let t = with_bytes(data, "data", |b| translate_to_v1(type_name, b))?.map_err(|e| v03_error(py, e))?;
    let cls = class_of(py, t.v1_type).ok_or_else(|| PyValueError::new_err(format!("no class for {}", t.v1_type)))?;
    // The translation is what it is (an unknown v0.3 state becomes UNSPECIFIED, with its
    // loss reported): read it without the REQUIRED-field check.
    let kw = pyo3::types::PyDict::new(py);
    kw.set_item("validate", false)?;
    let obj = cls.call_method("from_json", (PyBytes::new(py, &t.v1_json),), Some(&kw))?;
    Ok((PyBytes::new(py, &t.v03_json), obj, losses(py, &t.losses)?))
}

/// `_v03_from_v1(obj) -> (v03_type_name, v03_json, losses)`: translates a v1.0 model object
/// to v0.3.
#[pyfunction]
pub(crate) fn _v03_from_v1<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(String, Bound<'py, PyBytes>, Bound<'py, PyList>)> {
    let py = obj.py();
    let full = format!("lf.a2a.v1.{}", obj.get_type().name()?);
    if class_of(py, &full).is_none_or(|c| !obj.is_exact_instance(&c)) {
        return Err(PyTypeError::new_err(format!("expected an a2a_wire model object, got {}", type_name(obj))));
    }
    let json: String = obj.call_method0("to_json")?.extract()?;
    let t = translate_to_v03(&full, json.as_bytes()).map_err(|e| v03_error(py, e))?;
    if t.v03_type == "-" {
        return Err(errors::conversion_error(py, "", &format!("{full} has no v0.3 form")));
    }
    Ok((t.v03_type.to_string(), PyBytes::new(py, &t.v03_json), losses(py, &t.losses)?))
}

/// `_v03_canonical(type_name, data) -> bytes`: decodes a v0.3 object and returns its
/// canonical v0.3 JSON (no translation).
#[pyfunction]
pub(crate) fn _v03_canonical<'py>(py: Python<'py>, type_name: &str, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let out = with_bytes(data, "data", |b| a2a::v03::by_name::canonical_v03(type_name, b))?.map_err(|e| v03_error(py, e))?;
    Ok(PyBytes::new(py, &out))
}

/// `_v03_type_names()`: the v0.3 type names the translation knows.
#[pyfunction]
pub(crate) fn _v03_type_names() -> Vec<&'static str> {
    a2a::v03::by_name::TYPE_NAMES.to_vec()
}

fn parse_version(v: &str) -> PyResult<ProtocolVersion> {
    ProtocolVersion::parse(v).ok_or_else(|| PyValueError::new_err(format!("{v:?} is not a protocol version (Major.Minor)")))
}

/// `negotiate(requested, supported) -> str`: the version a request is served with: the
/// requested one (`A2A-Version`; None or blank means 0.3) if `supported` has it, else
/// `VersionNotSupportedError` with the supported list.
#[pyfunction]
#[pyo3(signature = (requested, supported))]
pub(crate) fn negotiate(py: Python<'_>, requested: Option<&str>, supported: Vec<String>) -> PyResult<String> {
    let supported: Vec<ProtocolVersion> = supported.iter().map(|s| parse_version(s)).collect::<PyResult<_>>()?;
    version::negotiate(version::requested(requested), &supported).map(|v| v.to_string()).map_err(|e| errors::a2a_error(py, &e, None, None))
}

/// What a client speaks, from the binding and version names it was given (in preference order).
pub(crate) fn client_support(bindings: &[String], versions: &[String]) -> PyResult<ClientSupport> {
    let mut client = ClientSupport { bindings: Vec::new(), versions: Vec::new() };
    for b in bindings {
        match Binding::parse(b) {
            Binding::Custom(_) => return Err(PyValueError::new_err(format!("unknown binding {b:?} (JSONRPC, HTTP+JSON, GRPC)"))),
            known => client.bindings.push(known),
        }
    }
    for v in versions {
        client.versions.push(parse_version(v)?);
    }
    Ok(client)
}

/// `select_interface(card, bindings, versions) -> (url, binding, version, tenant, index)`.
#[pyfunction]
#[pyo3(signature = (card, bindings, versions))]
pub(crate) fn _select_interface(
    card: &Bound<'_, PyAny>,
    bindings: Vec<String>,
    versions: Vec<String>,
) -> PyResult<(String, String, String, String, usize)> {
    let card = card
        .cast::<crate::model::generated::PyAgentCard>()
        .map_err(|_| PyTypeError::new_err(format!("card: expected AgentCard, got {}", type_name(card))))?;
    let client = client_support(&bindings, &versions)?;
    let s = card::select_interface(&card.get().0, &client).map_err(|e| errors::cannot_send(card.py(), &e.to_string()))?;
    Ok((s.url, s.binding.as_str().to_string(), s.version.to_string(), s.tenant, s.index))
}

/// `read_card(data) -> (AgentCard, shape)`: an Agent Card document of either version (v0.3
/// fields become `supported_interfaces`); `shape` is `"1.0"`, `"0.3"` or `"both"`.
#[pyfunction]
pub(crate) fn read_card<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, &'static str)> {
    let view = with_bytes(data, "data", card::read_card)?.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let shape = match view.shape {
        card::CardShape::V1 => "1.0",
        card::CardShape::V03 => "0.3",
        _ => "both",
    };
    Ok((Bound::new(py, crate::model::generated::PyAgentCard(view.card))?.into_any(), shape))
}

fn is_v03(version: &str) -> PyResult<bool> {
    Ok(parse_version(version)?.is_legacy())
}

/// `classify_http(status, body, version="1.0")`: the exception an HTTP+JSON error response
/// means (an `A2AError` subclass, or `NotA2AError` for a status without A2A meaning).
#[pyfunction]
#[pyo3(signature = (status, body, version = "1.0"))]
pub(crate) fn classify_http<'py>(py: Python<'py>, status: u16, body: &Bound<'py, PyAny>, version: &str) -> PyResult<Bound<'py, PyAny>> {
    let legacy = is_v03(version)?;
    let r =
        with_bytes(body, "body", |b| if legacy { a2a::error::classify_http_v03(status, b) } else { a2a::error::classify_http(status, b) })?;
    Ok(errors::received(py, &r, "HTTP+JSON", Some(i64::from(status))).into_value(py).into_bound(py).into_any())
}

/// `classify_grpc(code, message, details=None, version="1.0")`: the exception a gRPC status
/// means; `details` is the `grpc-status-details-bin` trailer (a `google.rpc.Status`).
#[pyfunction]
#[pyo3(signature = (code, message, details = None, version = "1.0"))]
pub(crate) fn classify_grpc<'py>(
    py: Python<'py>,
    code: i32,
    message: &str,
    details: Option<&Bound<'py, PyAny>>,
    version: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let legacy = is_v03(version)?;
    let status = match details {
        None => None,
        Some(d) => Some(
            with_bytes(d, "details", |b| <a2a::proto::google::rpc::Status as prost::Message>::decode(b))?
                .map_err(|e| PyValueError::new_err(format!("details is not a google.rpc.Status: {e}")))?,
        ),
    };
    let r = if legacy {
        a2a::error::classify_grpc_v03(code, message, status.as_ref())
    } else {
        a2a::error::classify_grpc(code, message, status.as_ref())
    };
    Ok(errors::received(py, &r, "GRPC", Some(i64::from(code))).into_value(py).into_bound(py).into_any())
}

/// `classify_jsonrpc(error)`: the exception a JSON-RPC `error` object means.
#[pyfunction]
pub(crate) fn classify_jsonrpc<'py>(error: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = error.py();
    let v = crate::model::py_to_json(error)?;
    let r = a2a::error::classify_jsonrpc(&v);
    let code = v.get("code").and_then(serde_json::Value::as_i64);
    Ok(errors::received(py, &r, "JSONRPC", code).into_value(py).into_bound(py).into_any())
}

/// `_v1_class(full_name)`: the model class of a v1.0 message by full proto name, or None.
#[pyfunction]
pub(crate) fn _v1_class<'py>(py: Python<'py>, full_name: &str) -> Option<Bound<'py, PyType>> {
    class_of(py, full_name)
}

/// `transcode(type_name, data, source="json", target="json", *, validate=True) -> bytes`: a
/// message chosen by full proto name (any message of the model, the well-known types and
/// `google.rpc` errors included) from one wire format to the other (`"json"`: ProtoJSON,
/// `"protobuf"`: binary). Valid JSON comes out canonical.
#[pyfunction]
#[pyo3(signature = (type_name, data, source = "json", target = "json", *, validate = true))]
pub(crate) fn transcode<'py>(
    py: Python<'py>,
    type_name: &str,
    data: &Bound<'py, PyAny>,
    source: &str,
    target: &str,
    validate: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    use a2a::codec::by_name::{self, ByNameError, Format};
    let format = |f: &str| match f {
        "json" => Ok(Format::Json),
        "protobuf" => Ok(Format::Protobuf),
        other => Err(PyValueError::new_err(format!("unknown wire format {other:?} (json, protobuf)"))),
    };
    let (from, to) = (format(source)?, format(target)?);
    let r = with_bytes(data, "data", |b| {
        let run =
            || if validate { by_name::transcode(type_name, b, from, to) } else { by_name::transcode_unchecked(type_name, b, from, to) };
        if b.len() >= 4096 {
            py.detach(run)
        } else {
            run()
        }
    })?;
    match r {
        Ok(out) => Ok(PyBytes::new(py, &out)),
        Err(ByNameError::UnknownType(n)) => Err(PyValueError::new_err(format!("unknown message type {n:?}"))),
        Err(ByNameError::Decode(d)) => Err(errors::decode_error(py, &d)),
        Err(ByNameError::Encode(e)) => Err(errors::encode_error(py, &e.to_string())),
        Err(other) => Err(PyValueError::new_err(other.to_string())),
    }
}
