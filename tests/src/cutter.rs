//! A TCP relay that can cut every connection through it at once: what a flaky network, a
//! proxy restart or a load balancer's idle reaper does to a long stream. Listens on
//! 127.0.0.1 only.

use smol::net::{TcpListener, TcpStream};
use std::net::{Shutdown, SocketAddr};
use std::sync::{Arc, Mutex};

/// The relay; dropping it stops accepting (connections already relayed run on until cut or
/// closed).
pub struct Cutter {
    addr: SocketAddr,
    open: Arc<Mutex<Vec<TcpStream>>>,
    _accept: smol::Task<()>,
}

impl Cutter {
    /// A relay to `target` on a free port of 127.0.0.1.
    pub async fn start(target: SocketAddr) -> std::io::Result<Cutter> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let conns = open.clone();
        let accept = smol::spawn(async move {
            while let Ok((down, _)) = listener.accept().await {
                let Ok(up) = TcpStream::connect(target).await else { continue };
                let _ = up.set_nodelay(true);
                let _ = down.set_nodelay(true);
                if let Ok(mut list) = conns.lock() {
                    list.push(down.clone());
                    list.push(up.clone());
                }
                smol::spawn(relay(down.clone(), up.clone())).detach();
                smol::spawn(relay(up, down)).detach();
            }
        });
        Ok(Cutter { addr, open, _accept: accept })
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Cuts every connection relayed so far, both ways (the peers see the connection end
    /// mid-stream). Returns how many connections were cut.
    pub fn cut(&self) -> usize {
        let cut: Vec<TcpStream> = match self.open.lock() {
            Ok(mut list) => std::mem::take(&mut *list),
            Err(_) => Vec::new(),
        };
        for s in &cut {
            let _ = s.shutdown(Shutdown::Both);
        }
        cut.len() / 2
    }
}

pub(crate) async fn relay(mut from: TcpStream, mut to: TcpStream) {
    let _ = smol::io::copy(&mut from, &mut to).await;
    let _ = to.shutdown(Shutdown::Write);
}
