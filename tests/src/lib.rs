//! Test-only crate: see `tests/`. [`hostile`] is a server that attacks its clients, for the
//! tests of every client (Rust here; the command in `cli/tests`); [`testca`] makes throwaway
//! certificate authorities for the TLS tests.

pub mod hostile;
pub mod testca;
