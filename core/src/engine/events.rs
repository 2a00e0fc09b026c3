//! Stream event ids and the bounded per-task event log that lets a dropped subscriber resume.
//!
//! Every event the engine publishes for a task gets the next number of that task's sequence
//! (1, 2, 3, …); a stream's first event, the Task snapshot, carries the number of the last
//! event the snapshot already contains (0 before any). So the events one stream carries have
//! consecutive numbers, whatever point it started from. The id on the wire is
//! `{epoch:08x}-{seq}`, where the epoch is drawn once per engine from its keyed id generator:
//! ids from before a restart (a new engine over the same persistent store, whose sequences
//! start again) never match the new engine's, so they are never mistaken for a position in
//! the new sequences.
//!
//! The log is bounded by [`EventLogLimits`]: the last events of each task, for a number of
//! tasks, in a number of bytes (counted as the events' protobuf size); the least recently
//! updated tasks lose their events first. A subscriber that comes back with the id of the last event it saw (`Last-Event-ID`) gets
//! exactly the events after it when the log still holds all of them; otherwise it gets the
//! current Task, as a new subscriber does, and loses intermediate events but no state.

use super::store::{default_seed, IdMap};
use crate::v1;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The id of one stream event: the engine's epoch and the event's number in its task's
/// sequence. Its text form (`Display`, [`EventId::parse`]) is `{epoch:08x}-{seq}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId {
    /// Drawn once per engine (changes with every restart).
    pub epoch: u32,
    /// The event's number in its task's sequence (the snapshot's: the last event it holds).
    pub seq: u64,
}

/// Bounds of the event log (see the module docs). [`EventLogLimits::default`]: 64 events per
/// task, 1024 tasks, 8 MiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLogLimits {
    /// Events kept per task (0: none; a subscriber can then resume only from the latest).
    pub per_task: usize,
    /// Tasks whose events are kept.
    pub tasks: usize,
    /// Bytes of events kept in all (their protobuf size).
    pub bytes: usize,
}

impl Default for EventLogLimits {
    fn default() -> Self {
        EventLogLimits { per_task: 64, tasks: 1024, bytes: 8 << 20 }
    }
}

/// The longest id text [`EventId::parse`] looks at (8 hex digits, `-`, 20 decimal digits).
pub const MAX_EVENT_ID_LEN: usize = 29;

impl EventId {
    /// Reads an id's text form; `None` for anything else (too long, other characters, a
    /// number out of range).
    pub fn parse(text: &str) -> Option<EventId> {
        if text.len() > MAX_EVENT_ID_LEN {
            return None;
        }
        let (epoch, seq) = text.split_once('-')?;
        if epoch.len() != 8 || !epoch.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) || (seq.len() > 1 && seq.starts_with('0')) {
            return None;
        }
        Some(EventId { epoch: u32::from_str_radix(epoch, 16).ok()?, seq: seq.parse().ok()? })
    }

    /// The id `n` events later in the same sequence (how a gRPC client numbers the messages
    /// after the first one, whose id comes in the `a2a-event-id` header).
    pub fn plus(self, n: u64) -> EventId {
        EventId { epoch: self.epoch, seq: self.seq.saturating_add(n) }
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:08x}-{}", self.epoch, self.seq)
    }
}

#[derive(Debug, Default)]
struct TaskLog {
    /// The number of the task's last event (0: none yet).
    last: u64,
    /// The newest number no longer held (events after it are all in `events`).
    floor: u64,
    /// When it last changed, in `EventLog::tick`s (its key in `EventLog::recent`).
    tick: u64,
    /// The kept events, protobuf-encoded: one allocation each (a clone of an event would be
    /// one per string and part), and decoded only for the rare subscriber that resumes.
    events: VecDeque<(u64, Vec<u8>)>,
    /// The protobuf size of `events`.
    bytes: usize,
}

/// What a resuming subscriber gets.
#[derive(Debug, PartialEq)]
pub(crate) enum Resume {
    /// The events after its id, in order (possibly none).
    Events(Vec<(u64, v1::StreamResponse)>),
    /// Its id names no position the log can continue from: it starts over, with the Task.
    Restart,
}

/// The per-task sequences and their recent events.
#[derive(Debug)]
pub(crate) struct EventLog {
    epoch: u32,
    limits: EventLogLimits,
    /// The protobuf size of every task's `events`.
    bytes: usize,
    /// By task id (a hash map: a B-tree of string ids compares their bytes at every level).
    logs: IdMap<TaskLog>,
    /// Tasks by last change, oldest first.
    recent: BTreeMap<u64, String>,
    tick: u64,
}

impl EventLog {
    pub(crate) fn new(epoch: u32, limits: EventLogLimits) -> Self {
        EventLog { epoch, limits, bytes: 0, logs: IdMap::new(default_seed()), recent: BTreeMap::new(), tick: 0 }
    }

    /// The id of the latest event of `task_id` (number 0 before its first event).
    pub(crate) fn current(&self, task_id: &str) -> EventId {
        EventId { epoch: self.epoch, seq: self.logs.get(task_id).map_or(0, |l| l.last) }
    }

    /// Starts the sequence of a new task (or of a task this engine has not seen since it
    /// started), so that a resume from number 0 is known to miss nothing. Afterwards, while
    /// [`EventLog::over_bound`] names a task, [`EventLog::evict`] it.
    pub(crate) fn open(&mut self, task_id: &str) {
        if self.logs.get(task_id).is_none() {
            self.touch(task_id);
        }
    }

    /// Numbers the next event of `task_id`, keeps it (`bytes` is its protobuf encoding),
    /// and returns its id. Afterwards, while [`EventLog::over_bound`] names a task,
    /// [`EventLog::evict`] it (the caller knows which tasks are over).
    pub(crate) fn record(&mut self, task_id: &str, bytes: Vec<u8>) -> EventId {
        let seq = self.logs.get(task_id).map_or(0, |l| l.last).saturating_add(1);
        self.record_at(task_id, seq, bytes)
    }

    /// Keeps event number `seq` of `task_id` (the next one, `last + 1`: an event another
    /// server numbered and the store handed over) and returns its id.
    pub(crate) fn record_at(&mut self, task_id: &str, seq: u64, bytes: Vec<u8>) -> EventId {
        let limits = self.limits;
        let size = bytes.len();
        self.touch(task_id);
        let epoch = self.epoch;
        // `touch` made the log if it was missing: the fallback is never taken.
        let Some(log) = self.logs.get_mut(task_id) else { return EventId { epoch, seq: 0 } };
        log.last = seq;
        let mut freed = 0;
        let kept = limits.per_task > 0 && size <= limits.bytes;
        if kept {
            log.events.push_back((seq, bytes));
            log.bytes += size;
            // This task alone stays within both bounds.
            while log.events.len() > limits.per_task || log.bytes > limits.bytes {
                let Some((n, e)) = log.events.pop_front() else { break };
                log.floor = n;
                log.bytes = log.bytes.saturating_sub(e.len());
                freed += e.len();
            }
        } else {
            // Not kept: positions before it can no longer be resumed.
            freed = log.bytes;
            log.events.clear();
            log.bytes = 0;
            log.floor = seq;
        }
        // `self.bytes` is the sum of every log's `bytes`, `freed` came out of this one.
        self.bytes = self.bytes.saturating_add(if kept { size } else { 0 }).saturating_sub(freed);
        EventId { epoch: self.epoch, seq }
    }

    /// The stored task says its last event is number `last`: a log that is behind it (the
    /// task was changed by another server, or stored by an earlier process) moves up to it,
    /// without the events between, which only the store holds. Afterwards, while
    /// [`EventLog::over_bound`] names a task, [`EventLog::evict`] it.
    pub(crate) fn sync(&mut self, task_id: &str, last: u64) {
        match self.logs.get_mut(task_id) {
            Some(log) if log.last >= last => {}
            Some(log) => {
                self.bytes = self.bytes.saturating_sub(log.bytes);
                log.events.clear();
                log.bytes = 0;
                log.last = last;
                log.floor = last;
            }
            None => {
                self.touch(task_id);
                if let Some(log) = self.logs.get_mut(task_id) {
                    log.last = last;
                    log.floor = last;
                }
            }
        }
    }

    /// Forgets the numbers after `after` of `task_id` (they were never written: another
    /// server numbers them), keeping the events up to it.
    pub(crate) fn rewind(&mut self, task_id: &str, after: u64) {
        let Some(log) = self.logs.get_mut(task_id) else { return };
        while log.events.back().is_some_and(|(n, _)| *n > after) {
            if let Some((_, e)) = log.events.pop_back() {
                log.bytes = log.bytes.saturating_sub(e.len());
                self.bytes = self.bytes.saturating_sub(e.len());
            }
        }
        log.last = log.last.min(after);
        log.floor = log.floor.min(after);
    }

    /// The number of the task's last event and the newest number the log no longer holds
    /// (`(0, 0)` for a task without a log).
    pub(crate) fn bounds(&self, task_id: &str) -> (u64, u64) {
        self.logs.get(task_id).map_or((0, 0), |l| (l.last, l.floor))
    }

    /// The epoch of this log's ids.
    pub(crate) fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Marks the log of `task_id` as the most recently changed, creating it if new. A known
    /// task's name moves to its new place in `recent`: no allocation per event.
    fn touch(&mut self, task_id: &str) {
        self.tick += 1;
        let tick = self.tick;
        match self.logs.get_mut(task_id) {
            Some(log) => {
                let old = core::mem::replace(&mut log.tick, tick);
                let name = self.recent.remove(&old).unwrap_or_else(|| String::from(task_id));
                self.recent.insert(tick, name);
            }
            None => {
                self.logs.insert(String::from(task_id), TaskLog { tick, ..TaskLog::default() });
                self.recent.insert(tick, String::from(task_id));
            }
        }
    }

    /// The least recently changed task other than `task_id`, while the log is over its task
    /// or byte bound.
    pub(crate) fn over_bound(&self, task_id: &str) -> Option<String> {
        if self.recent.len() <= self.limits.tasks && self.bytes <= self.limits.bytes {
            return None;
        }
        self.recent.values().find(|t| t.as_str() != task_id).cloned()
    }

    /// Drops the kept events of `task_id`; a task that can have no more events (`finished`)
    /// is forgotten altogether, another keeps its sequence number so its ids never repeat.
    pub(crate) fn evict(&mut self, task_id: &str, finished: bool) {
        let Some(log) = self.logs.get_mut(task_id) else { return };
        let tick = log.tick;
        self.recent.remove(&tick);
        self.bytes = self.bytes.saturating_sub(log.bytes);
        if finished {
            self.logs.remove(task_id);
        } else {
            log.events.clear();
            log.bytes = 0;
            log.floor = log.last;
        }
    }

    /// What a subscriber to `task_id` that last saw `last_seen` (the text of an id) gets.
    pub(crate) fn resume(&self, task_id: &str, last_seen: &str) -> Resume {
        let Some(id) = EventId::parse(last_seen) else { return Resume::Restart };
        if id.epoch != self.epoch {
            return Resume::Restart;
        }
        // No log: a task forgotten after it finished, or one this engine never numbered.
        let Some(log) = self.logs.get(task_id) else { return Resume::Restart };
        if id.seq > log.last || id.seq < log.floor {
            return Resume::Restart;
        }
        let mut events = Vec::new();
        for (n, bytes) in log.events.iter().filter(|(n, _)| *n > id.seq) {
            // The log encoded each event itself, so each decodes; were one not to, the
            // subscriber starts over rather than miss it.
            let Ok(e) = <v1::StreamResponse as prost::Message>::decode(bytes.as_slice()) else { return Resume::Restart };
            events.push((*n, e));
        }
        Resume::Events(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn ev(n: i32) -> v1::StreamResponse {
        v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
                task_id: alloc::format!("{n}"),
                ..Default::default()
            })),
        }
    }

    fn lim(per_task: usize, tasks: usize) -> EventLogLimits {
        EventLogLimits { per_task, tasks, bytes: 1 << 20 }
    }

    fn seqs(r: Resume) -> Option<Vec<u64>> {
        match r {
            Resume::Events(v) => Some(v.into_iter().map(|(n, _)| n).collect()),
            Resume::Restart => None,
        }
    }

    #[test]
    fn ids_round_trip_and_odd_text_is_refused() {
        let id = EventId { epoch: 0xdead_beef, seq: 42 };
        assert_eq!(id.to_string(), "deadbeef-42");
        assert_eq!(EventId::parse("deadbeef-42"), Some(id));
        assert_eq!(EventId::parse(&EventId { epoch: 1, seq: u64::MAX }.to_string()), Some(EventId { epoch: 1, seq: u64::MAX }));
        for bad in [
            "",
            "-",
            "deadbeef",
            "deadbeef-",
            "deadbee-1",
            "deadbeef0-1",
            "deadbeef-01",
            "deadbeef-+1",
            "deadbeef- 1",
            "xyzxyzxy-1",
            "deadbeef-18446744073709551616",
            "deadbeef-1-2",
            "ffffffff-٣",
        ] {
            assert_eq!(EventId::parse(bad), None, "{bad:?}");
        }
        assert_eq!(id.plus(3), EventId { epoch: 0xdead_beef, seq: 45 });
    }

    #[test]
    fn a_subscriber_resumes_after_the_last_event_it_saw() {
        let mut log = EventLog::new(7, lim(8, 4));
        assert_eq!(log.current("t").seq, 0);
        for i in 1..=5 {
            assert_eq!(log.record("t", prost::Message::encode_to_vec(&ev(i))), EventId { epoch: 7, seq: i as u64 });
        }
        assert_eq!(seqs(log.resume("t", "00000007-2")), Some(alloc::vec![3, 4, 5]));
        assert_eq!(seqs(log.resume("t", "00000007-0")), Some(alloc::vec![1, 2, 3, 4, 5]));
        assert_eq!(seqs(log.resume("t", "00000007-5")), Some(alloc::vec![]));
        // Ahead of the sequence, another epoch, or garbage: start over.
        assert_eq!(seqs(log.resume("t", "00000007-6")), None);
        assert_eq!(seqs(log.resume("t", "00000008-2")), None);
        assert_eq!(seqs(log.resume("t", "2")), None);
        // A task opened but without events resumes from 0 with nothing to replay; one never
        // opened (forgotten, or from before this engine) starts over.
        log.open("u");
        assert_eq!(seqs(log.resume("u", "00000007-0")), Some(alloc::vec![]));
        assert_eq!(seqs(log.resume("v", "00000007-0")), None);
    }

    #[test]
    fn a_position_the_log_no_longer_holds_starts_over() {
        let mut log = EventLog::new(1, lim(3, 4));
        for i in 1..=5 {
            log.record("t", prost::Message::encode_to_vec(&ev(i)));
        }
        // Holds 3, 4, 5: resuming after 2 or later works, after 1 would skip event 2.
        assert_eq!(seqs(log.resume("t", "00000001-2")), Some(alloc::vec![3, 4, 5]));
        assert_eq!(seqs(log.resume("t", "00000001-1")), None);
    }

    #[test]
    fn the_least_recently_updated_task_is_named_for_eviction_and_its_numbers_never_repeat() {
        let mut log = EventLog::new(1, lim(3, 2));
        log.record("a", prost::Message::encode_to_vec(&ev(1)));
        assert_eq!(log.over_bound("a"), None);
        log.record("b", prost::Message::encode_to_vec(&ev(1)));
        assert_eq!(log.over_bound("b"), None);
        log.record("a", prost::Message::encode_to_vec(&ev(2)));
        log.record("c", prost::Message::encode_to_vec(&ev(1)));
        assert_eq!(log.over_bound("c").as_deref(), Some("b"));
        // A task still running keeps its numbers; its old positions cannot be resumed.
        log.evict("b", false);
        assert_eq!(seqs(log.resume("b", "00000001-0")), None);
        assert_eq!(seqs(log.resume("b", "00000001-1")), Some(alloc::vec![]));
        assert_eq!(log.record("b", prost::Message::encode_to_vec(&ev(2))).seq, 2);
        // A finished task is forgotten.
        log.evict("a", true);
        assert_eq!(log.current("a").seq, 0);
        assert_eq!(seqs(log.resume("a", "00000001-2")), None);
    }

    #[test]
    fn the_byte_bound_holds_across_tasks_and_within_one() {
        let size = prost::Message::encoded_len(&ev(1));
        let mut log = EventLog::new(1, EventLogLimits { per_task: 10, tasks: 10, bytes: 3 * size });
        for _ in 0..3 {
            log.record("a", prost::Message::encode_to_vec(&ev(1)));
        }
        assert_eq!(log.over_bound("a"), None);
        log.record("b", prost::Message::encode_to_vec(&ev(1)));
        assert_eq!(log.over_bound("b").as_deref(), Some("a"));
        log.evict("a", false);
        assert_eq!(log.over_bound("b"), None);
        // One task over the byte bound trims its own oldest events.
        for _ in 0..4 {
            log.record("b", prost::Message::encode_to_vec(&ev(1)));
        }
        assert_eq!(log.over_bound("b"), None);
        assert_eq!(seqs(log.resume("b", "00000001-2")), Some(alloc::vec![3, 4, 5]));
        assert_eq!(seqs(log.resume("b", "00000001-1")), None);
        // An event bigger than the whole bound is not kept.
        let mut small = EventLog::new(1, EventLogLimits { per_task: 10, tasks: 10, bytes: size - 1 });
        small.record("t", prost::Message::encode_to_vec(&ev(1)));
        assert_eq!(seqs(small.resume("t", "00000001-0")), None);
        assert_eq!(seqs(small.resume("t", "00000001-1")), Some(alloc::vec![]));
    }

    #[test]
    fn with_no_room_to_keep_events_only_the_latest_position_resumes() {
        let mut log = EventLog::new(1, lim(0, 2));
        log.record("t", prost::Message::encode_to_vec(&ev(1)));
        log.record("t", prost::Message::encode_to_vec(&ev(2)));
        assert_eq!(seqs(log.resume("t", "00000001-2")), Some(alloc::vec![]));
        assert_eq!(seqs(log.resume("t", "00000001-1")), None);
    }
}
