//! What the `a2a-wire` command's tests share: starting `a2a-wire serve` and stopping it.
#![allow(dead_code)] // each test crate uses its own part of this module

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_a2a-wire");

/// A port of 127.0.0.1 free when asked.
pub fn free_addr() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// A running `a2a-wire serve`, killed when dropped.
pub struct Served(pub Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `a2a-wire serve --addr ADDR ARGS...`, once it listens.
pub fn serve_args(addr: SocketAddr, args: &[&std::ffi::OsStr]) -> Served {
    let child = Command::new(BIN)
        .args(["serve", "--addr", &addr.to_string()])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "the server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Served(child)
}
