//! The round-robin balancer of the replica tests: connections go to the backends in turn,
//! bytes pass both ways, and a backend that refuses connections is skipped.

use a2a_wire_tests::balancer::Balancer;
use smol::io::{AsyncReadExt as _, AsyncWriteExt as _};
use smol::net::{TcpListener, TcpStream};
use std::net::SocketAddr;

/// A backend that answers each connection with its name and the bytes it read, then closes.
async fn backend(name: &'static str) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a test backend binds");
    let addr = listener.local_addr().expect("a bound listener has an address");
    smol::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            smol::spawn(async move {
                let mut buf = [0u8; 4];
                if s.read_exact(&mut buf).await.is_ok() {
                    let _ = s.write_all(format!("{name}:{}", String::from_utf8_lossy(&buf)).as_bytes()).await;
                }
            })
            .detach();
        }
    })
    .detach();
    addr
}

/// An address nothing listens on (bound, then closed).
fn refused() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a port binds");
    l.local_addr().expect("a bound listener has an address")
}

async fn ask(addr: SocketAddr, msg: &str) -> String {
    let mut s = TcpStream::connect(addr).await.expect("the balancer accepts");
    s.write_all(msg.as_bytes()).await.expect("the request is sent");
    let mut out = String::new();
    s.read_to_string(&mut out).await.expect("the answer is read to its end");
    out
}

#[test]
fn connections_go_round_robin_and_a_dead_backend_is_skipped() {
    smol::block_on(async {
        let (a, b) = (backend("a").await, backend("b").await);
        let balancer =
            Balancer::start("127.0.0.1:0".parse().expect("a literal address"), vec![a, refused(), b]).await.expect("the balancer starts");
        let mut answers = Vec::new();
        for i in 0..6 {
            answers.push(ask(balancer.addr(), &format!("req{i}")).await);
        }
        // Turns 0, 1, 2 repeat; turn 1's backend refuses, so its connection goes on to b.
        assert_eq!(answers, ["a:req0", "b:req1", "b:req2", "a:req3", "b:req4", "b:req5"]);
        assert_eq!(balancer.relayed(), [2, 0, 4]);
    });
}

#[test]
fn a_balancer_needs_a_backend_and_listens_on_loopback_only() {
    smol::block_on(async {
        let any: SocketAddr = "0.0.0.0:0".parse().expect("a literal address");
        assert!(Balancer::start("127.0.0.1:0".parse().expect("a literal address"), Vec::new()).await.is_err());
        assert!(Balancer::start(any, vec![refused()]).await.is_err());
    });
}
