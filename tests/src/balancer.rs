//! A round-robin TCP balancer in front of several servers: what a load balancer does to the
//! clients of replicas that share one database. Each accepted connection goes to the next
//! backend in turn; a backend that refuses the connection (a killed replica) is skipped for
//! the next one, so clients only fail when every backend is down. Listens on 127.0.0.1 only.

use smol::net::{TcpListener, TcpStream};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The balancer; dropping it stops accepting (connections already relayed run on until
/// either side closes them).
pub struct Balancer {
    addr: SocketAddr,
    relayed: Arc<Vec<AtomicUsize>>,
    _accept: smol::Task<()>,
}

impl Balancer {
    /// A balancer over `backends` (at least one) on `listen` (port 0 picks a free one).
    pub async fn start(listen: SocketAddr, backends: Vec<SocketAddr>) -> std::io::Result<Balancer> {
        if backends.is_empty() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a balancer needs at least one backend"));
        }
        if !listen.ip().is_loopback() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "the balancer listens on a loopback address only"));
        }
        let listener = TcpListener::bind(listen).await?;
        let addr = listener.local_addr()?;
        let relayed: Arc<Vec<AtomicUsize>> = Arc::new(backends.iter().map(|_| AtomicUsize::new(0)).collect());
        let counts = relayed.clone();
        let accept = smol::spawn(async move {
            let mut next = 0usize;
            while let Ok((down, _)) = listener.accept().await {
                let start = next;
                next = (next + 1) % backends.len();
                let counts = counts.clone();
                let backends = backends.clone();
                // The connect runs off the accept loop: a slow backend never holds up the others.
                smol::spawn(async move {
                    for k in 0..backends.len() {
                        let i = (start + k) % backends.len();
                        if let Ok(up) = TcpStream::connect(backends[i]).await {
                            if let Some(c) = counts.get(i) {
                                c.fetch_add(1, Ordering::Relaxed);
                            }
                            let _ = up.set_nodelay(true);
                            let _ = down.set_nodelay(true);
                            smol::spawn(crate::cutter::relay(down.clone(), up.clone())).detach();
                            crate::cutter::relay(up, down).await;
                            return;
                        }
                    }
                    // Every backend refused: the client sees its connection closed.
                })
                .detach();
            }
        });
        Ok(Balancer { addr, relayed, _accept: accept })
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many connections went to each backend so far, in the order given at start.
    pub fn relayed(&self) -> Vec<usize> {
        self.relayed.iter().map(|c| c.load(Ordering::Relaxed)).collect()
    }
}
