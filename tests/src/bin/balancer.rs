//! `a2a-wire-balancer LISTEN BACKEND...`: a round-robin TCP balancer on a loopback address
//! (`127.0.0.1:0` picks a free port) in front of the backends, for the tests that run several
//! replicas behind one address. Prints `listening on ADDR` once it accepts, then relays until
//! killed, printing `relayed N1 N2 ...` (connections relayed to each backend so far) whenever
//! those change. Exit status 2 on bad arguments, 1 when it cannot listen.

use std::io::Write as _;
use std::net::SocketAddr;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addrs: Result<Vec<SocketAddr>, _> = args.iter().map(|a| a.parse::<SocketAddr>()).collect();
    let (listen, backends) = match addrs.as_deref() {
        Ok([listen, backends @ ..]) if !backends.is_empty() => (*listen, backends.to_vec()),
        _ => {
            eprintln!("usage: a2a-wire-balancer LISTEN BACKEND... (addresses as 127.0.0.1:PORT)");
            return std::process::ExitCode::from(2);
        }
    };
    smol::block_on(async {
        match a2a_wire_tests::balancer::Balancer::start(listen, backends).await {
            Ok(b) => {
                println!("listening on {}", b.addr());
                let _ = std::io::stdout().flush();
                let mut shown = Vec::new();
                loop {
                    smol::Timer::after(std::time::Duration::from_millis(100)).await;
                    let now = b.relayed();
                    if now != shown {
                        let counts: Vec<String> = now.iter().map(usize::to_string).collect();
                        println!("relayed {}", counts.join(" "));
                        let _ = std::io::stdout().flush();
                        shown = now;
                    }
                }
            }
            Err(e) => {
                eprintln!("a2a-wire-balancer: {e}");
                std::process::ExitCode::from(1)
            }
        }
    })
}
