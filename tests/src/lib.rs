//! Test-only crate: see `tests/`. [`balancer`] spreads connections over replicas round-robin; [`hostile`] is a server that attacks its clients, for the
//! tests of every client (Rust here; the command in `cli/tests`); [`testca`] makes throwaway
//! certificate authorities for the TLS tests; [`cutter`] cuts connections mid-stream;
//! [`receiver`] is a plain webhook receiver whose answers the test decides; [`framing`] runs
//! the HTTP/1.1 framing table against a live server and the sans-IO reader.

pub mod balancer;
pub mod cutter;
pub mod framing;
pub mod hostile;
pub mod receiver;
pub mod testca;

/// One check's outcome in the interop and isolation runners: what passed, or what failed.
pub type Check = Result<String, String>;

/// `f`, or a failure after 20 s: no check of the runners can hang them.
pub async fn bounded<F: std::future::Future<Output = Check>>(f: F) -> Check {
    smol::future::or(f, async {
        smol::Timer::after(std::time::Duration::from_secs(20)).await;
        Err(String::from("timed out after 20 s"))
    })
    .await
}
