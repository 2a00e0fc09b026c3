//! The worker threads a ready server runs the agent's callbacks on
//! (`a2a_server_config_set_workers`): a callback that blocks (sleeps, waits for a model)
//! then holds one worker, never the thread that serves every connection.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// A fixed pool of threads taking jobs in order from one queue.
pub(crate) struct Workers {
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Workers {
    /// `n` threads (at least one). Fails when the system refuses a thread.
    pub(crate) fn new(n: usize) -> std::io::Result<Arc<Workers>> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut threads = Vec::with_capacity(n);
        for i in 0..n.max(1) {
            let rx = rx.clone();
            let t = std::thread::Builder::new().name(format!("a2a-wire-agent-{i}")).spawn(move || loop {
                // One worker waits on the queue at a time; the others wait for the lock.
                let job = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                match job {
                    Ok(job) => job(),
                    Err(_) => return, // the queue closed: the server stopped
                }
            });
            match t {
                Ok(t) => threads.push(t),
                Err(e) => {
                    drop(tx);
                    for t in threads {
                        let _ = t.join();
                    }
                    return Err(e);
                }
            }
        }
        Ok(Arc::new(Workers { queue: Mutex::new(Some(tx)), threads: Mutex::new(threads) }))
    }

    /// Queues `job`; false (the job dropped) once the pool stopped.
    pub(crate) fn run(&self, job: impl FnOnce() + Send + 'static) -> bool {
        let q = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        q.as_ref().is_some_and(|tx| tx.send(Box::new(job)).is_ok())
    }

    /// Closes the queue and waits for the threads: the jobs queued before still run. Never
    /// called from a worker (the header forbids `a2a_server_free` in a callback).
    pub(crate) fn stop(&self) {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner).take();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(PoisonError::into_inner));
        for t in threads {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Workers;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn two_workers_run_two_blocking_jobs_at_once_and_stop_after_the_queued_ones() -> std::io::Result<()> {
        let w = Workers::new(2)?;
        let done = Arc::new(AtomicUsize::new(0));
        let start = Instant::now();
        for _ in 0..4 {
            let d = done.clone();
            assert!(w.run(move || {
                std::thread::sleep(Duration::from_millis(200));
                d.fetch_add(1, Ordering::SeqCst);
            }));
        }
        w.stop();
        assert_eq!(done.load(Ordering::SeqCst), 4);
        let took = start.elapsed();
        assert!(took < Duration::from_millis(700), "two workers took {took:?} for four 200 ms jobs");
        assert!(!w.run(|| {}), "a stopped pool takes no job");
        Ok(())
    }
}
