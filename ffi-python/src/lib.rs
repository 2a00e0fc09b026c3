//! # a2a-wire-python
//!
//! The native module `a2a_wire._a2a_wire` of the Python package `a2a_wire`. Like the C
//! binding it holds no protocol logic: each function maps Python values onto a piece of the
//! Rust core (`core::service`, the step-function client, the codecs) or the smol transport
//! (the ready server with a non-future agent, the client), and the Python package on top
//! (`python/a2a_wire/`) gives them Pythonic names and asyncio.
//!
//! No panic crosses into Python: pyo3 turns a Rust panic inside a `#[pyfunction]` or
//! `#[pymethods]` into `pyo3_runtime.PanicException`, and the code here is written not to
//! panic at all (every input is checked and refused with a Python exception).

mod client;
mod errors;
mod model;
mod run;
mod server;
mod service;
mod signing;
mod store;
mod wake;
mod webhook;
mod wire;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _a2a_wire(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("_MODEL_STUB", model::STUB)?;
    m.add("_MODEL_NAMES", model::generated::NAMES.to_vec())?;
    m.add("AGENT_FAILED", a2a::engine::AGENT_FAILED)?;
    m.add("CARD_PATH", a2a::service::CARD_PATH)?;
    model::register_enums(m)?;
    model::register(m)?;
    m.add_class::<run::Run>()?;
    m.add_class::<server::ReadyServer>()?;
    m.add_class::<server::AuthCall>()?;
    m.add_class::<service::ServiceHost>()?;
    m.add_class::<store::PyTaskStore>()?;
    m.add_class::<store::PyStoreRequest>()?;
    m.add_class::<store::PyStoreReply>()?;
    m.add_class::<client::ClientHub>()?;
    m.add_class::<signing::PySigningKey>()?;
    m.add_class::<signing::PyCardKeySet>()?;
    m.add_class::<signing::VerifiedSignature>()?;
    m.add_class::<webhook::PyWebhookReceiver>()?;
    m.add_class::<webhook::PyDelivery>()?;
    m.add_function(wrap_pyfunction!(errors::_error_table, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_render_error, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_v03_to_v1, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_v03_from_v1, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_v03_type_names, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_v03_canonical, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_v1_class, m)?)?;
    m.add_function(wrap_pyfunction!(wire::_select_interface, m)?)?;
    m.add_function(wrap_pyfunction!(wire::negotiate, m)?)?;
    m.add_function(wrap_pyfunction!(wire::read_card, m)?)?;
    m.add_function(wrap_pyfunction!(wire::transcode, m)?)?;
    m.add_function(wrap_pyfunction!(wire::classify_http, m)?)?;
    m.add_function(wrap_pyfunction!(wire::classify_grpc, m)?)?;
    m.add_function(wrap_pyfunction!(wire::classify_jsonrpc, m)?)?;
    // pyo3 lists every added name in `__all__`; this module is private and the package's
    // `__init__` says what is public.
    m.delattr("__all__")?;
    Ok(())
}
