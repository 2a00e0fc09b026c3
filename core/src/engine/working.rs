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
    events: Vec<external::StoredEvent>,
    /// Outputs made before the batch was taken: they leave when it is durable.
    outputs: VecDeque<Output>,
    /// Calls whose answers show a change of the batch.
    calls: BTreeSet<CallId>,
    /// Those of them that are tried again on a task read afresh when another server
    /// changed the task first (a cancel, a push config change), with their attempts so far.
    retry: Vec<(CallId, CallContext, Request, u8)>,
}

/// A read of one task and its events ([`StoreRequest::Events`]).
#[derive(Debug)]
struct Read {
    task: String,
    /// Resuming subscribers waiting for it: (call, the number of the last event each saw).
    resumes: Vec<(CallId, u64)>,
}

#[derive(Debug, Default)]
pub(crate) struct Ext {
    reads: BTreeMap<StoreRequestId, Read>,
    /// The catch-up read in flight per task, and the tasks changed again meanwhile.
    reading: BTreeMap<String, StoreRequestId>,
    reread: BTreeSet<String>,
    /// With leases: this server's name as a lease owner, when leases are next renewed and
    /// claimed, and the requests of that in flight.
    owner: Option<String>,
    /// Calls handled since the last flush that may be tried again after a conflict, and the
    /// attempts of calls being tried again.
    retry: BTreeMap<CallId, (CallContext, Request, u8)>,
    attempts: BTreeMap<CallId, u8>,
    next_lease: Option<Timestamp>,
    renewing: Option<StoreRequestId>,
    claiming: Option<StoreRequestId>,
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

/// How often a cancel or push config change is tried again after another server changed
/// its task first.
const MAX_RETRIES: u8 = 3;

/// How many tasks whose lease ran out one claim takes at most.
pub const CLAIM_BATCH: usize = 100;

fn lease_end(now: Timestamp, lease: core::time::Duration) -> Timestamp {
    from_millis(millis(now).saturating_add(i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)))
}

/// How long unwritten changes wait after a failed write when nothing new happens.
const RETRY_AFTER_MS: i64 = 1000;

fn store_failed(what: &str, e: &StoreError) -> A2aError {
    if e.is_unreachable() {
        return A2aError::with_message(
            ErrorKind::Unavailable,
            format!("the task store could not {what}: it is unreachable; try again later"),
        );
    }
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
            if self.config.lease.is_some() {
                self.ext.owner = Some(self.ids.uuid());
                self.ext.next_lease = Some(now);
            }
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
        let (mut batch, bases) = cache.take_batch(self.now);
        batch.keep_events = self.config.event_log.per_task;
        if let (Some(owner), Some(lease)) = (&self.ext.owner, self.config.lease) {
            batch.lease = Some(external::Lease { owner: owner.clone(), until: lease_end(self.now, lease) });
            for w in &mut batch.tasks {
                w.leased = self.runs.contains_key(&w.task.record.task.id);
            }
        }
        if batch.is_empty() {
            let out = core::mem::take(&mut self.out);
            self.release(out);
            self.unflushed.clear();
            self.ext.retry.clear();
            self.evict();
            return;
        }
        let retry: Vec<(CallId, CallContext, Request, u8)> = core::mem::take(&mut self.ext.retry)
            .into_iter()
            .filter(|(call, _)| self.unflushed.contains(call))
            .map(|(call, (ctx, req, n))| (call, ctx, req, n))
            .collect();
        let id = self.store_request_id();
        self.ext.writing = Some(Writing {
            id,
            bases,
            messages: batch.messages.clone(),
            webhooks_queued: batch.webhooks_queued.clone(),
            webhooks_done: batch.webhooks_done.clone(),
            events: batch.events.clone(),
            outputs: core::mem::take(&mut self.out),
            calls: core::mem::take(&mut self.unflushed),
            retry,
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
        needed.extend(self.ext.reads.values().map(|r| r.task.clone()));
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

    /// With an external store: keeps a cancel or push config change until its write is
    /// done, to try it again should another server have changed the task first.
    pub(super) fn keep_for_retry(&mut self, call: CallId, ctx: &CallContext, request: &Request) {
        if !self.store.is_external()
            || !matches!(request, Request::CancelTask(_) | Request::CreatePushConfig(_) | Request::DeletePushConfig(_))
        {
            return;
        }
        let n = self.ext.attempts.remove(&call).unwrap_or(0);
        self.ext.retry.insert(call, (ctx.clone(), request.clone(), n));
    }

    /// A parked call went away.
    pub(super) fn forget_parked(&mut self, call: CallId) {
        self.ext.retry.remove(&call);
        self.ext.attempts.remove(&call);
        self.ext.parked.retain(|p| p.call != call);
        for r in self.ext.reads.values_mut() {
            r.resumes.retain(|(c, _)| *c != call);
        }
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
                if self.config.lease.is_some() {
                    // Other servers may be running them: a lost run is claimed when its
                    // lease runs out.
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
                self.release(w.outputs);
                Ok(())
            }
            StoreReply::Conflict { id, tasks } => {
                let Some(mut w) = self.ext.writing.take_if(|w| w.id == id) else { return Ok(()) };
                let stale: BTreeSet<String> = tasks.into_iter().collect();
                // A cancel or push config change that met another server's change is tried
                // again on the task as stored now (a few times), instead of failing.
                let (again, _): (Vec<_>, Vec<_>) = core::mem::take(&mut w.retry)
                    .into_iter()
                    .partition(|(_, _, req, n)| *n < MAX_RETRIES && Self::named_tasks(req).iter().any(|t| stale.contains(t)));
                for (call, ..) in &again {
                    w.calls.remove(call);
                }
                w.outputs.retain(|o| !matches!(o, Output::Respond { call, .. } if again.iter().any(|(c, ..)| c == call)));
                // Streams that were shown events of a stale task go on from the store: they
                // get the other server's events (the refused ones were never shown).
                let mut follow: BTreeMap<String, (u64, BTreeSet<CallId>)> = BTreeMap::new();
                for id in &stale {
                    for call in self.task_streams.get(id).into_iter().flatten() {
                        if let Some(n) = self.streams.get(call).and_then(|s| s.shown) {
                            let e = follow.entry(id.clone()).or_insert((n, BTreeSet::new()));
                            e.0 = e.0.min(n);
                            e.1.insert(*call);
                        }
                    }
                }
                let following: BTreeSet<CallId> = follow.values().flat_map(|(_, c)| c.iter().copied()).collect();
                w.calls.retain(|c| !following.contains(c));
                w.outputs.retain(|o| !matches!(o, Output::Stream { call, .. } if following.contains(call)));
                let err = A2aError::with_message(
                    ErrorKind::Internal,
                    "the task was changed by another server since this one read it; the change was not kept, try again",
                );
                self.drop_unwritten_deliveries(&stale, Some(&mut w));
                self.write_refused(w, &stale, err);
                for id in &stale {
                    if let Storage::External(cache) = &mut self.store {
                        cache.remove(id);
                        cache.events.retain(|e| &e.task_id != id);
                    }
                    let calls: BTreeSet<CallId> = self.task_streams.get(id).into_iter().flatten().copied().collect();
                    self.out.retain(|o| !matches!(o, Output::Stream { call, .. } if calls.contains(call)));
                    match follow.get(id) {
                        Some((shown, keep)) => {
                            // Its numbers past what was shown were never written: another
                            // server numbers them; the read brings them.
                            let (shown, keep) = (*shown, keep.clone());
                            self.events.rewind(id, shown);
                            self.drop_stale_but(id, &keep);
                            self.read_events(id, shown, Vec::new());
                        }
                        None => {
                            // The log starts again from the stored task.
                            self.events.evict(id, true);
                            self.drop_stale(id);
                        }
                    }
                }
                for (call, ctx, request, n) in again {
                    self.ext.attempts.insert(call, n + 1);
                    self.handle_call(call, ctx, request, now);
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
            StoreReply::Events { id, task, events } => {
                let Some(read) = self.ext.reads.remove(&id) else { return Ok(()) };
                let task_id = read.task;
                if self.ext.reading.get(&task_id) == Some(&id) {
                    self.ext.reading.remove(&task_id);
                }
                match task {
                    Some(fresh) => self.catch_up(&task_id, fresh, &events, read.resumes),
                    None => {
                        // Deleted meanwhile (retention): nothing of it is left to follow.
                        for (call, _) in read.resumes {
                            self.respond(call, Err(A2aError::task_not_found(&task_id)));
                        }
                        let idle = self.store.get(&task_id).is_some() && !self.changing(&task_id);
                        if idle {
                            self.drop_stale(&task_id);
                            self.forget_task(&task_id);
                        }
                    }
                }
                if self.ext.reread.remove(&task_id) {
                    let after = self.store.get(&task_id).map_or(0, |t| t.last_event).max(self.events.bounds(&task_id).0);
                    self.read_events(&task_id, after, Vec::new());
                }
                Ok(())
            }
            StoreReply::Renewed { id, lost } => {
                if self.ext.renewing.take_if(|r| *r == id).is_none() {
                    return Ok(());
                }
                let lost: BTreeSet<String> = lost.into_iter().filter(|t| self.runs.contains_key(t)).collect();
                // Another server claimed them (this one could not renew in time): their runs,
                // copies, unwritten events and deliveries here are stale.
                self.drop_unwritten_deliveries(&lost, None);
                for t in &lost {
                    if let Storage::External(cache) = &mut self.store {
                        cache.remove(t);
                        cache.events.retain(|e| &e.task_id != t);
                    }
                    self.events.evict(t, true);
                    self.drop_stale(t);
                }
                Ok(())
            }
            StoreReply::Claimed { id, tasks, webhooks: _ } => {
                if self.ext.claiming.take_if(|r| *r == id).is_none() {
                    return Ok(());
                }
                let mut ids = Vec::new();
                for t in tasks {
                    let tid = t.record.task.id.clone();
                    if self.changing(&tid) {
                        continue;
                    }
                    let last = t.last_event;
                    if let Storage::External(cache) = &mut self.store {
                        cache.replace(t);
                    }
                    self.events.sync(&tid, last);
                    ids.push(tid);
                }
                self.resume_runs(ids);
                Ok(())
            }
            StoreReply::Failed { id, error } => {
                if self.ext.open == Some(id) {
                    return Err(error);
                }
                if self.ext.renewing.take_if(|r| *r == id).is_some() || self.ext.claiming.take_if(|r| *r == id).is_some() {
                    return Err(error);
                }
                if let Some(read) = self.ext.reads.remove(&id) {
                    if self.ext.reading.get(&read.task) == Some(&id) {
                        self.ext.reading.remove(&read.task);
                    }
                    self.ext.reread.remove(&read.task);
                    let err = store_failed("read the task's events", &error);
                    for (call, _) in read.resumes {
                        self.respond(call, Err(err.clone()));
                    }
                    // Subscribers here can no longer be sure to see every event.
                    if !self.changing(&read.task) {
                        if let Storage::External(cache) = &mut self.store {
                            cache.remove(&read.task);
                        }
                        self.events.evict(&read.task, true);
                        self.drop_stale(&read.task);
                    }
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

    /// Another server owns `tasks` now, so the events of theirs not written here never will
    /// be: their deliveries go too (none was attempted, attempts wait for the write). Out of
    /// the write `w` (refused), out of the cache, and the webhook outputs the service has not
    /// taken yet (published after the last write was cut, so theirs are among the unwritten
    /// events); those the service queued are discarded there ([`Output::DropWebhooks`]).
    fn drop_unwritten_deliveries(&mut self, tasks: &BTreeSet<String>, w: Option<&mut Writing>) {
        let of = |q: &Queued| q.queue.split('\u{0}').next().is_some_and(|t| tasks.contains(t));
        let mut dropped = Vec::new();
        if let Some(w) = w {
            dropped.extend(w.webhooks_queued.iter().filter(|q| of(q)).map(|q| q.seq));
            w.webhooks_queued.retain(|q| !of(q));
        }
        if let Storage::External(cache) = &mut self.store {
            dropped.extend(cache.webhooks.iter().filter(|(_, q)| q.as_ref().is_some_and(&of)).map(|(seq, _)| *seq));
            cache.webhooks.retain(|_, q| !q.as_ref().is_some_and(&of));
        }
        self.ext.released.retain(|o| !matches!(o, Output::Webhook { config, .. } if tasks.contains(&config.task_id)));
        if !dropped.is_empty() {
            self.ext.released.push_back(Output::DropWebhooks(dropped));
        }
    }

    /// A write was not done: its changes (but those of `stale` tasks) go with the next
    /// batch, and the calls whose answers showed them are answered with `err` instead.
    fn write_refused(&mut self, w: Writing, stale: &BTreeSet<String>, err: A2aError) {
        let Writing { bases, messages, webhooks_queued, webhooks_done, events, outputs, calls, .. } = w;
        if let Storage::External(cache) = &mut self.store {
            cache.unwritten(bases.into_iter().map(|(id, _)| id).collect(), messages, webhooks_queued, webhooks_done, events, stale);
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
        self.drop_stale_but(task_id, &BTreeSet::new());
    }

    /// [`Engine::drop_stale`], but the streams in `keep` stay (they follow the store).
    fn drop_stale_but(&mut self, task_id: &str, keep: &BTreeSet<CallId>) {
        let e = A2aError::with_message(ErrorKind::Unavailable, "the task was changed by another server; subscribe again");
        for w in self.waiters.remove(task_id).unwrap_or_default() {
            self.out.push_back(Output::Respond { call: w.call, result: Err(e.clone()) });
        }
        for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
            if !keep.contains(&call) {
                self.end_stream(call, Some(e.clone()));
            }
        }
        if let Some(run) = self.remove_run(task_id) {
            self.out.push_back(Output::CancelExecution { run: run.id, task_id: String::from(task_id) });
        }
    }

    /// Whether `task_id` has changes not yet written (or being written): a change notice
    /// for it waits for that write, which the store refuses when the notice was another
    /// server's.
    fn changing(&self, task_id: &str) -> bool {
        let Storage::External(cache) = &self.store else { return false };
        cache.dirty.contains(task_id) || self.ext.writing.as_ref().is_some_and(|w| w.bases.iter().any(|(i, _)| i == task_id))
    }

    fn read_events(&mut self, task_id: &str, after: u64, resumes: Vec<(CallId, u64)>) {
        let id = self.store_request_id();
        if resumes.is_empty() {
            self.ext.reading.insert(String::from(task_id), id);
        }
        self.ext.reads.insert(id, Read { task: String::from(task_id), resumes });
        self.ext.requests.push_back(StoreRequest::Events { id, task: String::from(task_id), after });
    }

    /// A subscriber resumes from event `after`, which the log here no longer holds but the
    /// store may: it waits for a read of the task's events.
    pub(super) fn resume_from_store(&mut self, call: CallId, task_id: &str, after: u64) {
        self.read_events(task_id, after, alloc::vec![(call, after)]);
    }

    /// The store says another server wrote version `version` of `task_id` (its change
    /// notices; see [`external`]). A copy here that is older is dropped when idle, and
    /// brought up to date with its new events when it has subscribers, waiters or a run.
    pub fn handle_task_changed(&mut self, task_id: &str, version: u64, now: Timestamp) {
        self.now = now;
        let Storage::External(cache) = &self.store else { return };
        let Some(copy) = cache.get(task_id) else { return };
        if copy.version >= version || self.changing(task_id) {
            return;
        }
        let after = copy.last_event.max(self.events.bounds(task_id).0);
        if self.ext.reading.contains_key(task_id) {
            self.ext.reread.insert(String::from(task_id));
            return;
        }
        let live = self.runs.contains_key(task_id)
            || self.task_streams.contains_key(task_id)
            || self.waiters.contains_key(task_id)
            || self.ext.reads.values().any(|r| r.task == task_id);
        if live {
            self.read_events(task_id, after, Vec::new());
        } else if let Storage::External(cache) = &mut self.store {
            cache.remove(task_id);
        }
    }

    /// Change notices may have been missed (the host's notice connection dropped): every
    /// copy is treated as changed.
    pub fn handle_store_resync(&mut self, now: Timestamp) {
        let Storage::External(cache) = &self.store else { return };
        for id in cache.ids() {
            self.handle_task_changed(&id, u64::MAX, now);
        }
    }

    /// The store's copy of `task_id` and its events after some number: the copy replaces an
    /// older one without local changes; events the log here does not have yet go to the
    /// subscribers here, in order; a task that settled elsewhere answers the waiters here
    /// and stops the run here; resuming subscribers get what they missed.
    fn catch_up(&mut self, task_id: &str, fresh: StoredTask, events: &[(u64, Vec<u8>)], resumes: Vec<(CallId, u64)>) {
        let old_state = self.store.get(task_id).and_then(|t| t.record.state());
        let newer = self.store.get(task_id).is_none_or(|t| fresh.version > t.version);
        let fresh_last = fresh.last_event;
        let state = fresh.record.state();
        let replaced = newer && !self.changing(task_id);
        if replaced {
            if let Storage::External(cache) = &mut self.store {
                cache.replace(fresh);
            }
            // New events, numbered by the server that made them, go on to the subscribers.
            if self.config.streaming && self.task_streams.contains_key(task_id) {
                let (known, _) = self.events.bounds(task_id);
                let mut last = known;
                let mut gap = false;
                for (seq, body) in events.iter().filter(|(n, _)| *n > known) {
                    let event = match <v1::StreamResponse as prost::Message>::decode(body.as_slice()) {
                        Ok(e) if *seq == last + 1 => Arc::new(e),
                        _ => {
                            gap = true;
                            break;
                        }
                    };
                    let id = self.events.record_at(task_id, *seq, body.clone());
                    last = *seq;
                    for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
                        if self.streams.get(&call).is_some_and(|s| s.started) {
                            self.out.push_back(Output::Stream { call, event: event.clone(), id: Some(id) });
                        }
                    }
                }
                if gap || last < fresh_last {
                    // The store no longer holds what they missed: they start over.
                    self.events.sync(task_id, fresh_last);
                    let e = A2aError::with_message(ErrorKind::Unavailable, "events of this task were missed here; subscribe again");
                    for call in self.task_streams.get(task_id).cloned().unwrap_or_default() {
                        self.end_stream(call, Some(e.clone()));
                    }
                }
            }
            self.events.sync(task_id, fresh_last);
            self.trim_event_log(task_id);
            if is_terminal(state) {
                if let Some(run) = self.remove_run(task_id) {
                    self.out.push_back(Output::CancelExecution { run: run.id, task_id: String::from(task_id) });
                }
            }
            if settled(state) && state != old_state {
                self.settle(task_id, is_terminal(state));
            }
        }
        for (call, after) in resumes {
            self.finish_resume(call, task_id, after, events);
        }
    }

    /// A resuming subscriber gets the events after `after`: from the store's (`events`) up
    /// to what the log here holds, then the log's; or the Task, as a new subscriber, when
    /// neither has them all.
    fn finish_resume(&mut self, call: CallId, task_id: &str, after: u64, events: &[(u64, Vec<u8>)]) {
        let Some(task) = self.store.get(task_id) else {
            self.respond(call, Err(A2aError::task_not_found(task_id)));
            return;
        };
        let terminal = is_terminal(task.record.state());
        let (_, floor) = self.events.bounds(task_id);
        let epoch = self.events.epoch();
        let mut missed = Vec::new();
        let mut next = after + 1;
        for (seq, body) in events.iter().filter(|(n, _)| *n > after && *n <= floor) {
            match <v1::StreamResponse as prost::Message>::decode(body.as_slice()) {
                Ok(e) if *seq == next => missed.push((*seq, e)),
                _ => break,
            }
            next += 1;
        }
        let rest = if next > floor {
            match self.events.resume(task_id, &EventId { epoch, seq: next - 1 }.to_string()) {
                events::Resume::Events(rest) => Some(rest),
                events::Resume::Restart => None,
            }
        } else {
            None
        };
        match rest {
            Some(rest) => {
                self.streams.insert(
                    call,
                    Stream { task_id: String::from(task_id), history_length: None, started: true, origin: None, shown: None },
                );
                self.task_streams.entry(String::from(task_id)).or_default().push(call);
                for (seq, event) in missed.into_iter().chain(rest) {
                    self.out.push_back(Output::Stream { call, event: Arc::new(event), id: Some(EventId { epoch, seq }) });
                }
            }
            None => self.attach(call, task_id, true, None, false, None),
        }
        if terminal {
            self.end_stream(call, None);
        }
    }

    /// Outputs leave (their changes are durable): each stream notes the last event it got.
    fn release(&mut self, outputs: VecDeque<Output>) {
        for o in &outputs {
            if let Output::Stream { call, id: Some(id), .. } = o {
                if let Some(s) = self.streams.get_mut(call) {
                    s.shown = Some(s.shown.map_or(id.seq, |n| n.max(id.seq)));
                }
            }
        }
        self.ext.released.extend(outputs);
    }

    /// A deleted task: nothing of it is kept in memory.
    fn forget_task(&mut self, task_id: &str) {
        if let Storage::External(cache) = &mut self.store {
            cache.remove(task_id);
        }
        self.events.evict(task_id, true);
    }

    /// When [`Engine::handle_timeout`] should be called next (retention, leases), if ever.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        [self.ext.next_sweep, self.ext.retry_at, self.ext.next_lease].into_iter().flatten().min_by_key(|t| millis(*t))
    }

    /// Leases are due: this server's are renewed, expired ones claimed.
    fn lease_round(&mut self, now: Timestamp) {
        let (Some(owner), Some(lease)) = (self.ext.owner.clone(), self.config.lease) else { return };
        if self.ext.next_lease.is_none_or(|at| millis(now) < millis(at)) {
            return;
        }
        let until = lease_end(now, lease);
        if self.ext.renewing.is_none() {
            // Only tasks written already hold a lease; a new one takes it with its first write.
            let tasks: Vec<String> = self.runs.keys().filter(|t| self.store.get(t).is_some_and(|c| c.version > 0)).cloned().collect();
            if !tasks.is_empty() {
                let id = self.store_request_id();
                self.ext.renewing = Some(id);
                self.ext.requests.push_back(StoreRequest::Renew { id, owner: owner.clone(), tasks, until });
            }
        }
        if self.ext.claiming.is_none() {
            let id = self.store_request_id();
            self.ext.claiming = Some(id);
            // The service numbers the deliveries it may take over (webhook_seq_from).
            let lease = external::Lease { owner, until };
            self.ext.requests.push_back(StoreRequest::Claim { id, lease, now, limit: CLAIM_BATCH, webhook_seq_from: 0 });
        }
        let every = i64::try_from(lease.as_millis() / 3).unwrap_or(i64::MAX).max(100);
        self.ext.next_lease = Some(from_millis(millis(now).saturating_add(every)));
    }

    /// Time passed: a retention sweep deletes a bounded batch of expired tasks (in memory at
    /// once; an external store is asked with [`StoreRequest::Expire`]).
    pub fn handle_timeout(&mut self, now: Timestamp) {
        self.now = now;
        if self.ext.retry_at.is_some_and(|at| millis(now) >= millis(at)) {
            self.ext.retry_at = None;
        }
        self.lease_round(now);
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
