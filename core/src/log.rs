//! The logging hook: the core never prints (it has no IO); what a host should know — a
//! webhook given up, a store write that failed — goes to a [`Log`] the host gives. The
//! transport's default writes to stderr; the bindings route it to their language's logging.

use alloc::sync::Arc;

/// How much a log line matters.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u32)]
pub enum Level {
    /// Something failed that a peer or an operator needs to know about.
    Error = 1,
    /// Something was dropped or degraded on purpose (a lagging subscriber cut off).
    Warn = 2,
    /// Normal operation worth a line.
    Info = 3,
    /// Detail for finding a fault, such as a request refused for its framing (one line per
    /// refused connection: a scanner must not fill a log kept at `Info`). Hosts drop it
    /// unless asked for it.
    Debug = 4,
}

impl Level {
    /// The lowercase name (`error`, `warn`, `info`, `debug`).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warn => "warn",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }

    /// The level named `name` (case-insensitive; `warning` is `warn`).
    pub fn from_name(name: &str) -> Option<Level> {
        [Level::Error, Level::Warn, Level::Info, Level::Debug]
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(name))
            .or_else(|| name.eq_ignore_ascii_case("warning").then_some(Level::Warn))
    }
}

/// Where log lines go. Implemented for every `Fn(Level, &str) + Send + Sync`.
pub trait Log: Send + Sync {
    /// One line.
    fn log(&self, level: Level, message: &str);
}

impl<F: Fn(Level, &str) + Send + Sync> Log for F {
    fn log(&self, level: Level, message: &str) {
        self(level, message)
    }
}

/// Drops every line.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Log for Silent {
    fn log(&self, _level: Level, _message: &str) {}
}

/// A shared log, as configurations hold it.
pub type SharedLog = Arc<dyn Log>;

/// The silent log, shared.
pub fn silent() -> SharedLog {
    Arc::new(Silent)
}
