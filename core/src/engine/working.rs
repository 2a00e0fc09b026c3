//! The engine's side of an external store ([`Storage::External`]): calls parked until the
//! tasks they name are loaded, the write in flight and the outputs that wait for it, list
//! queries, retention sweeps; and the output queue every host drains.
//!
//! Answers leave only after the batch that holds their changes is durable: outputs made
//! while a write is in flight wait for it, and for the write of their own changes after it
//! (one write in flight at a time; the changes made meanwhile form the next batch, which is
//! how writes group under load).

use super::*;
use crate::proto::google::protobuf::Timestamp;
use crate::webhook::Queued;
use external::{StoreReply, StoreRequest, StoreRequestId};

/// How many tasks one retention sweep deletes at most.
pub const SWEEP_BATCH: usize = 500;

/// Milliseconds since the epoch.
pub(crate) fn millis(t: Timestamp) -> i64 {
    t.seconds.saturating_mul(1000).saturating_add(i64::from(t.nanos / 1_000_000))
}

pub(crate) fn from_millis(ms: i64) -> Timestamp {
    // rem_euclid(1000) is in 0..1000, so the nanos fit an i32.
    Timestamp { seconds: ms.div_euclid(1000), nanos: i32::try_from(ms.rem_euclid(1000) * 1_000_000).unwrap_or(0) }
}

/// How often retention looks for expired tasks: a quarter of the retention, between 250 ms
/// and a minute.
fn sweep_every(retention: core::time::Duration) -> i64 {
    i64::try_from(retention.as_millis() / 4).unwrap_or(i64::MAX).clamp(250, 60_000)
}

#[derive(Debug)]
struct Parked {
    call: CallId,
    ctx: CallContext,
    request: Request,
}

#[derive(Debug)]
struct Writing {
    id: StoreRequestId,
    bases: Vec<(String, u64)>,
    messages: Vec<(String, Option<MessageRecord>)>,
    webhooks_queued: Vec<Queued>,
    webhooks_done: Vec<u64>,
    /// Outputs made before the batch was taken: they leave when it is durable.
    outputs: VecDeque<Output>,
    /// Calls whose answers show a change of the batch.
    calls: BTreeSet<CallId>,
}

#[derive(Debug, Default)]
pub(crate) struct Ext {
    requests: VecDeque<StoreRequest>,
    next: u64,
    parked: Vec<Parked>,
    loading: BTreeSet<String>,
    loading_messages: BTreeSet<String>,
    loads: BTreeMap<StoreRequestId, (Vec<String>, Vec<String>)>,
    lists: BTreeMap<StoreRequestId, (CallId, v1::ListTasksRequest)>,
    writing: Option<Writing>,
    pub(crate) released: VecDeque<Output>,
    open: Option<StoreRequestId>,
    expiring: Option<StoreRequestId>,
    next_sweep: Option<Timestamp>,
    /// After a failed write, unwritten changes wait for new outputs or this time (so a
    /// full disk is not retried in a tight loop).
    retry_at: Option<Timestamp>,
}

/// How long unwritten changes wait after a failed write when nothing new happens.
const RETRY_AFTER_MS: i64 = 1000;

fn store_failed(what: &str, e: &StoreError) -> A2aError {
    A2aError::with_message(ErrorKind::Internal, format!("the task store could not {what}: {}", e.0))
}

impl Engine {
    fn store_request_id(&mut self) -> StoreRequestId {
        self.ext.next += 1;
        StoreRequestId(self.ext.next)
    }

    /// Starts the engine at `now`: an external store is asked for the tasks whose runs were
    /// lost and the webhook deliveries it kept ([`StoreRequest::Open`]), and retention is
    /// scheduled. [`crate::service::Service::new`] calls it.
    pub fn start(&mut self, now: Timestamp) {
        self.now = now;
        if self.store.is_external() && self.ext.open.is_none() {
            let id = self.store_request_id();
            self.ext.open = Some(id);
            self.ext.requests.push_back(StoreRequest::Open { id });
        }
        self.schedule_sweep(now);
    }

    fn schedule_sweep(&mut self, now: Timestamp) {
        self.ext.next_sweep = self.config.retention.map(|r| from_millis(millis(now).saturating_add(sweep_every(r))));
    }

    /// The next request for the external store, or `None`. Carry them out in this order and
    /// answer each with [`Engine::handle_store`].
    pub fn poll_store(&mut self) -> Option<StoreRequest> {
        self.ext.requests.pop_front()
    }

    /// The next output, or `None` when there is nothing to do (with an external store, also
    /// while the outputs wait for a write: poll the store first).
    pub fn poll_output(&mut self) -> Option<Output> {
        if let Some(o) = self.ext.released.pop_front() {
            return Some(o);
        }
        if !self.store.is_external() {
            self.unflushed.clear();
            return self.out.pop_front();
        }
        if self.ext.writing.is_some() {
            return None;
        }
        if self.ext.retry_at.is_some() && self.out.is_empty() {
            return None;
        }
        self.ext.retry_at = None;
        self.flush();
        self.ext.released.pop_front()
    }

    /// Whether the webhook delivery `seq` is kept by the store (memory: at once).
    pub fn webhook_durable(&self, seq: u64) -> bool {
        match &self.store {
            Storage::Memory(_) => true,
            Storage::External(c) => {
                !c.webhooks.contains_key(&seq) && !self.ext.writing.as_ref().is_some_and(|w| w.webhooks_queued.iter().any(|q| q.seq == seq))
            }
        }
    }

    /// A webhook delivery was queued or is over: an external store keeps the queued ones
    /// (with the next batch; attempts wait for it, see [`Engine::webhook_durable`]).
    pub fn webhook_changed(&mut self, change: crate::webhook::Change) {
        if let Storage::External(c) = &mut self.store {
            c.webhook_changed(change);
        }
    }

    /// Takes the changes made so far into a write, with the outputs that depend on them.
    fn flush(&mut self) {
        let Storage::External(cache) = &mut self.store else { return };
        let (batch, bases) = cache.take_batch(self.now);
        if batch.is_empty() {
            self.ext.released.extend(self.out.drain(..));
            self.unflushed.clear();
            self.evict();
            return;
        }
        let id = self.store_request_id();
        self.ext.writing = Some(Writing {
            id,
            bases,
            messages: batch.messages.clone(),
            webhooks_queued: batch.webhooks_queued.clone(),
            webhooks_done: batch.webhooks_done.clone(),
            outputs: core::mem::take(&mut self.out),
            calls: core::mem::take(&mut self.unflushed),
        });
        self.ext.requests.push_back(StoreRequest::Write { id, batch });
        self.evict();
    }

    /// Brings the cache within its bound; tasks with live calls, runs or streams, tasks a
    /// parked call needs and tasks with unwritten changes stay.
    fn evict(&mut self) {
        let writing: BTreeSet<String> =
            self.ext.writing.as_ref().map(|w| w.bases.iter().map(|(i, _)| i.clone()).collect()).unwrap_or_default();
        let mut needed = BTreeSet::new();
        for p in &self.ext.parked {
            needed.extend(Self::named_tasks(&p.request));
        }
        let Storage::External(cache) = &mut self.store else { return };
        let (runs, streams, waiters) = (&self.runs, &self.task_streams, &self.waiters);
        cache.evict(|id| runs.contains_key(id) || streams.contains_key(id) || waiters.contains_key(id) || needed.contains(id), &writing);
    }

    /// The task ids a call names directly.
    fn named_tasks(request: &Request) -> Vec<String> {
        let id = match request {
            Request::SendMessage(r) | Request::SendStreamingMessage(r) => r.message.as_ref().map(|m| m.task_id.as_str()).unwrap_or(""),
            Request::GetTask(r) => &r.id,
            Request::CancelTask(r) => &r.id,
            Request::SubscribeToTask(r) => &r.id,
            Request::CreatePushConfig(r) => &r.task_id,
            Request::GetPushConfig(r) => &r.task_id,
            Request::ListPushConfigs(r) => &r.task_id,
            Request::DeletePushConfig(r) => &r.task_id,
            Request::ListTasks(_) => "",
        };
        if id.is_empty() {
            Vec::new()
        } else {
            alloc::vec![String::from(id)]
        }
    }

    /// What a call needs from the external store before it can run: tasks and message keys
    /// not in memory and not known to be absent.
    fn missing(&self, ctx: &CallContext, request: &Request) -> (Vec<String>, Vec<String>) {
        let Storage::External(cache) = &self.store else { return (Vec::new(), Vec::new()) };
        let mut tasks: Vec<String> = Self::named_tasks(request).into_iter().filter(|id| !cache.knows(id)).collect();
        let mut keys = Vec::new();
        if let (true, Request::SendMessage(r) | Request::SendStreamingMessage(r)) = (self.config.dedup_message_ids, request) {
            if let Some(m) = &r.message {
                let key = Self::message_key(&r.tenant, ctx.principal.as_deref(), &m.message_id);
                if !cache.knows_message(&key) {
                    keys.push(key);
                } else if let Some(rec) = cache.message(&key) {
                    if !cache.knows(&rec.task_id) && !tasks.contains(&rec.task_id) {
                        tasks.push(rec.task_id.clone());
                    }
                }
            }
        }
        (tasks, keys)
    }

    /// Parks the call when it needs something from the store (and asks for it); gives the
    /// call back when it can run now.
    pub(super) fn park_if_missing(&mut self, call: CallId, ctx: CallContext, request: Request) -> Option<(CallContext, Request)> {
        let (tasks, keys) = self.missing(&ctx, &request);
        if tasks.is_empty() && keys.is_empty() {
            if let Storage::External(cache) = &mut self.store {
                for id in Self::named_tasks(&request) {
                    cache.touch(&id, false);
                }
            }
            return Some((ctx, request));
        }
        self.request_loads(tasks, keys);
        self.ext.parked.push(Parked { call, ctx, request });
        None
    }

    fn request_loads(&mut self, tasks: Vec<String>, keys: Vec<String>) {
        let tasks: Vec<String> = tasks.into_iter().filter(|t| !self.ext.loading.contains(t)).collect();
        let keys: Vec<String> = keys.into_iter().filter(|k| !self.ext.loading_messages.contains(k)).collect();
        if tasks.is_empty() && keys.is_empty() {
            return;
        }
        self.ext.loading.extend(tasks.iter().cloned());
        self.ext.loading_messages.extend(keys.iter().cloned());
        let id = self.store_request_id();
        self.ext.loads.insert(id, (tasks.clone(), keys.clone()));
        self.ext.requests.push_back(StoreRequest::Load { id, tasks, messages: keys });
    }

    /// Runs the parked calls that have what they need.
    fn replay_parked(&mut self) {
        for p in core::mem::take(&mut self.ext.parked) {
            let Parked { call, ctx, request } = p;
            if let Some((ctx, request)) = self.park_if_missing(call, ctx, request) {
                let now = self.now;
                self.dispatch(call, ctx, request, now);
            }
        }
        if self.ext.parked.is_empty() {
            if let Storage::External(cache) = &mut self.store {
                cache.absent.clear();
                cache.absent_messages.clear();
            }
        }
    }

    /// A ListTasks query goes to the external store; its answer comes with the reply.
    pub(super) fn list_in_store(&mut self, call: CallId, query: ListQuery, req: v1::ListTasksRequest) {
        let id = self.store_request_id();
        self.ext.lists.insert(id, (call, req));
        self.ext.requests.push_back(StoreRequest::List { id, query });
    }

    /// A parked call went away.
    pub(super) fn forget_parked(&mut self, call: CallId) {
        self.ext.parked.retain(|p| p.call != call);
        self.ext.lists.retain(|_, (c, _)| *c != call);
    }

    /// The external store's answer to one of its requests. Returns the error of a failed
    /// request, for the host's log (the engine already answered whom it concerned).
    pub fn handle_store(&mut self, reply: StoreReply, now: Timestamp) -> Result<(), StoreError> {
        self.now = now;
        match reply {
            StoreReply::Opened { id, unfinished, webhooks: _ } => {
                if self.ext.open != Some(id) {
                    return Ok(());
                }
                let mut ids = Vec::new();
                if let Storage::External(cache) = &mut self.store {
                    for t in unfinished {
                        ids.push(t.record.task.id.clone());
                        cache.insert(t);
                    }
                }
                self.resume_runs(ids);
                Ok(())
            }
            StoreReply::Loaded { id, tasks, messages } => {
                let Some((asked, asked_keys)) = self.ext.loads.remove(&id) else { return Ok(()) };
                if let Storage::External(cache) = &mut self.store {
                    for t in tasks {
                        if asked.contains(&t.record.task.id) {
                            cache.insert(t);
                        }
                    }
                    for id in &asked {
                        if cache.get(id).is_none() {
                            cache.absent.insert(id.clone());
                        }
                    }
                    for (k, r) in messages {
                        if asked_keys.contains(&k) && !cache.dirty_messages.contains_key(&k) {
                            cache.cache_message(k, r);
                        }
                    }
                    for k in &asked_keys {
                        if !cache.knows_message(k) {
                            cache.absent_messages.insert(k.clone());
                        }
                    }
                }
                for id in &asked {
                    self.ext.loading.remove(id);
                }
                for k in &asked_keys {
                    self.ext.loading_messages.remove(k);
                }
                self.replay_parked();
                Ok(())
            }
            StoreReply::Listed { id, tasks, total } => {
                if let Some((call, req)) = self.ext.lists.remove(&id) {
                    let refs: Vec<&StoredTask> = tasks.iter().collect();
                    self.answer_list(call, &req, &refs, total);
                }
                Ok(())
            }
            StoreReply::Written { id } => {
                let Some(w) = self.ext.writing.take_if(|w| w.id == id) else { return Ok(()) };
                if let Storage::External(cache) = &mut self.store {
                    cache.written(&w.bases);
                }
                self.ext.released.extend(w.outputs);
                Ok(())
            }
            StoreReply::Conflict { id, tasks } => {
                let Some(w) = self.ext.writing.take_if(|w| w.id == id) else { return Ok(()) };
                let stale: BTreeSet<String> = tasks.into_iter().collect();
                let err = A2aError::with_message(
                    ErrorKind::Internal,
                    "the task was changed by another server since this one read it; the change was not kept, try again",
                );
                self.write_refused(w, &stale, err);
                for id in &stale {
                    if let Storage::External(cache) = &mut self.store {
                        cache.remove(id);
                    }
                    self.drop_stale(id);
                }
                Ok(())
            }
            StoreReply::Expired { id, tasks } => {
                if self.ext.expiring != Some(id) {
                    return Ok(());
                }
                self.ext.expiring = None;
                let full = tasks.len() >= SWEEP_BATCH;
                for t in &tasks {
                    self.forget_task(t);
                }
                if full {
                    self.ext.next_sweep = Some(now);
                } else {
                    self.schedule_sweep(now);
                }
                Ok(())
            }
            StoreReply::Failed { id, error } => {
                if self.ext.open == Some(id) {
                    return Err(error);
                }
                if let Some((asked, keys)) = self.ext.loads.remove(&id) {
                    for t in &asked {
                        self.ext.loading.remove(t);
                    }
                    for k in &keys {
                        self.ext.loading_messages.remove(k);
                    }
                    let err = store_failed("read the task", &error);
                    let (failed, keep): (Vec<Parked>, Vec<Parked>) = core::mem::take(&mut self.ext.parked).into_iter().partition(|p| {
                        let (t, m) = self.missing(&p.ctx, &p.request);
                        t.iter().any(|x| asked.contains(x)) || m.iter().any(|x| keys.contains(x))
                    });
                    self.ext.parked = keep;
                    for p in failed {
                        self.respond(p.call, Err(err.clone()));
                    }
                    self.replay_parked();
                } else if let Some((call, _)) = self.ext.lists.remove(&id) {
                    self.respond(call, Err(store_failed("list the tasks", &error)));
                } else if let Some(w) = self.ext.writing.take_if(|w| w.id == id) {
                    let err = store_failed("keep this change", &error);
                    self.write_refused(w, &BTreeSet::new(), err);
                    self.ext.retry_at = Some(from_millis(millis(now).saturating_add(RETRY_AFTER_MS)));
                } else if self.ext.expiring == Some(id) {
                    self.ext.expiring = None;
                    self.schedule_sweep(now);
                }
                Err(error)
            }
        }
    }

    /// A write was not done: its changes (but those of `stale` tasks) go with the next
    /// batch, and the calls whose answers showed them are answered with `err` instead.
    fn write_refused(&mut self, w: Writing, stale: &BTreeSet<String>, err: A2aError) {
        let Writing { bases, messages, webhooks_queued, webhooks_done, outputs, calls, .. } = w;
        if let Storage::External(cache) = &mut self.store {
            cache.unwritten(bases.into_iter().map(|(id, _)| id).collect(), messages, webhooks_queued, webhooks_done, stale);
        }
        let mut answered = BTreeSet::new();
        for o in outputs {
            match o {
                Output::Respond { call, .. } if calls.contains(&call) => {
                    answered.insert(call);
                    self.ext.released.push_back(Output::Respond { call, result: Err(err.clone()) });
                }
                Output::Stream { call, .. } if calls.contains(&call) => {}
                Output::StreamEnd { call, .. } if calls.contains(&call) => {
                    answered.insert(call);
                    self.ext.released.push_back(Output::StreamEnd { call, error: Some(err.clone()) });
                }
                other => self.ext.released.push_back(other),
            }
        }
        for call in calls.into_iter().filter(|c| !answered.contains(c)) {
            // A stream (or a waiting call) still open: it ends now, with the error.
            let streaming = self.streams.contains_key(&call);
            self.handle_call_closed(call);
            if streaming {
                self.ext.released.push_back(Output::StreamEnd { call, error: Some(err.clone()) });
            } else {
                self.ext.released.push_back(Output::Respond { call, result: Err(err.clone()) });
            }
        }
    }

    /// Another writer owns `task_id` now: its streams and waiting calls end (clients
    /// resubscribe and read the stored task), its run stops.
    fn drop_stale(&mut self, task_id: &str) {
        let e = A2aError::with_message(ErrorKind::Unavailable, "the task was changed by another server; subscribe again");
        for w in self.waiters.remove(task_id).unwrap_or_default() {
            self.out.push_back(Output::Respond { call: w.call, result: Err(e.clone()) });
        }
        for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
            self.end_stream(call, Some(e.clone()));
        }
        if let Some(run) = self.remove_run(task_id) {
            self.out.push_back(Output::CancelExecution { run: run.id, task_id: String::from(task_id) });
        }
    }

    /// A deleted task: nothing of it is kept in memory.
    fn forget_task(&mut self, task_id: &str) {
        if let Storage::External(cache) = &mut self.store {
            cache.remove(task_id);
        }
        self.events.evict(task_id, true);
    }

    /// When [`Engine::handle_timeout`] should be called next (retention), if ever.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        match (self.ext.next_sweep, self.ext.retry_at) {
            (Some(a), Some(b)) => Some(if millis(a) <= millis(b) { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// Time passed: a retention sweep deletes a bounded batch of expired tasks (in memory at
    /// once; an external store is asked with [`StoreRequest::Expire`]).
    pub fn handle_timeout(&mut self, now: Timestamp) {
        self.now = now;
        if self.ext.retry_at.is_some_and(|at| millis(now) >= millis(at)) {
            self.ext.retry_at = None;
        }
        let (Some(retention), Some(at)) = (self.config.retention, self.ext.next_sweep) else { return };
        if millis(now) < millis(at) {
            return;
        }
        let before = millis(now).saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX));
        match &mut self.store {
            Storage::Memory(m) => {
                let gone = m.expire(before, SWEEP_BATCH);
                for t in &gone {
                    self.events.evict(t, true);
                }
                if gone.len() >= SWEEP_BATCH {
                    self.ext.next_sweep = Some(now);
                } else {
                    self.schedule_sweep(now);
                }
            }
            Storage::External(_) => {
                if self.ext.expiring.is_none() {
                    let id = self.store_request_id();
                    self.ext.expiring = Some(id);
                    self.ext.requests.push_back(StoreRequest::Expire { id, before: from_millis(before), limit: SWEEP_BATCH });
                }
                self.ext.next_sweep = None;
            }
        }
    }

    /// Requests to the external store not yet answered, and calls parked on them.
    pub fn store_pending(&self) -> (usize, usize) {
        (self.ext.loads.len() + self.ext.lists.len() + usize::from(self.ext.writing.is_some()), self.ext.parked.len())
    }
}
