//! The task operations: what each call does to the store and who is answered when.

use super::*;
use crate::proto::google::protobuf::Timestamp;
use crate::task::TaskEvent;

impl Engine {
    /// An incoming call. Drain [`Engine::poll_output`] (and with an external store
    /// [`Engine::poll_store`]) afterwards. A call that needs a task the working set does not
    /// hold is parked until the store's reply.
    pub fn handle_call(&mut self, call: CallId, ctx: CallContext, request: Request, now: Timestamp) {
        self.now = now;
        let (ctx, request) = if self.store.is_external() && !matches!(request, Request::ListTasks(_)) {
            match self.park_if_missing(call, ctx, request) {
                Some(c) => c,
                None => return,
            }
        } else {
            (ctx, request)
        };
        self.dispatch(call, ctx, request, now);
    }

    pub(super) fn dispatch(&mut self, call: CallId, ctx: CallContext, request: Request, now: Timestamp) {
        self.keep_for_retry(call, &ctx, &request);
        let result = match request {
            Request::SendMessage(r) => self.send_message(call, ctx, r, false, now),
            Request::SendStreamingMessage(r) => self.send_message(call, ctx, r, true, now),
            Request::GetTask(r) => self.get_task(call, &ctx, &r),
            Request::ListTasks(r) => self.list_tasks(call, &ctx, &r),
            Request::CancelTask(r) => self.cancel_task(call, &ctx, r, now),
            Request::SubscribeToTask(r) => self.subscribe(call, &ctx, &r),
            Request::CreatePushConfig(r) => self.create_push_config(call, &ctx, r),
            Request::GetPushConfig(r) => self.get_push_config(call, &ctx, &r),
            Request::ListPushConfigs(r) => self.list_push_configs(call, &ctx, &r),
            Request::DeletePushConfig(r) => self.delete_push_config(call, &ctx, &r),
        };
        if let Err(e) = result {
            self.respond(call, Err(e));
        }
    }

    fn send_message(
        &mut self,
        call: CallId,
        ctx: CallContext,
        req: v1::SendMessageRequest,
        streaming: bool,
        now: Timestamp,
    ) -> Result<(), A2aError> {
        let Some(mut message) = req.message else {
            return Err(A2aError::invalid_field("message", "required field is missing"));
        };
        if streaming && !self.config.streaming {
            return Err(A2aError::unsupported("Streaming is not supported by this agent (capabilities.streaming)"));
        }
        let configuration = req.configuration;
        let cfg = configuration.clone().unwrap_or_default();
        if let Some(h) = cfg.history_length {
            if h < 0 {
                return Err(A2aError::invalid_field(&history_field("configuration"), "must be 0 or more"));
            }
        }
        if cfg.task_push_notification_config.is_some() && !self.config.push_notifications {
            return Err(A2aError::new(ErrorKind::PushNotificationNotSupported));
        }
        let tenant = req.tenant;
        let sent_task_id = message.task_id.clone();
        let sent_context_id = message.context_id.clone();
        let key = if self.config.dedup_message_ids {
            let key = Self::message_key(&tenant, ctx.principal.as_deref(), &message.message_id);
            // A retry: the same id, sent with the same taskId and contextId as the first time.
            // Anything else with a known id is a new message, never answered with another task.
            let retry = self
                .store
                .message(&key)
                .filter(|r| r.sent_task_id == sent_task_id && r.sent_context_id == sent_context_id)
                .map(|r| r.task_id.clone());
            if let Some(task_id) = retry {
                if self.store.get(&task_id).is_some() || self.runs.contains_key(&task_id) {
                    return self.replay(call, &ctx, &tenant, &task_id, streaming, cfg.history_length, cfg.return_immediately);
                }
                // The first send never created its task (its run was lost in a restart before
                // the agent's first event): this one is the message, not a retry of it.
                self.store.forget_message(&key);
            }
            key
        } else {
            String::new()
        };
        let remember = |engine: &mut Self, task_id: &str| {
            if !key.is_empty() {
                let record = MessageRecord {
                    task_id: String::from(task_id),
                    sent_task_id: sent_task_id.clone(),
                    sent_context_id: sent_context_id.clone(),
                };
                engine.store.remember_message(key.clone(), record);
            }
        };

        let follow_up = !message.task_id.is_empty();
        let (task_id, context_id, push_config) = if follow_up {
            // A follow-up on an existing task.
            let task_id = message.task_id.clone();
            let stored = self.require_task(&tenant, &task_id, &ctx)?;
            let task_context = stored.record.task.context_id.clone();
            if !message.context_id.is_empty() && message.context_id != task_context {
                return Err(A2aError::invalid_field("message.contextId", format!("task {task_id} belongs to another context")));
            }
            message.context_id = task_context.clone();
            let push = cfg.task_push_notification_config.map(|c| self.push_config(c, &task_id, &tenant, ctx.version));
            let stored = self.store.get_mut(&task_id).ok_or_else(|| A2aError::task_not_found(&task_id))?;
            stored.record.apply(TaskEvent::Message(message.clone()), now).map_err(|r| r.to_error(&task_id))?;
            if let Some(p) = push {
                upsert_config(&mut stored.push_configs, p);
            }
            self.wrote(&task_id, Some(call));
            (task_id, task_context, None)
        } else {
            // A new task (created when the agent's first task event arrives).
            let task_id = self.ids.uuid();
            if message.context_id.is_empty() {
                message.context_id = self.ids.uuid();
            }
            message.task_id = task_id.clone();
            self.unflushed.insert(call);
            (task_id, message.context_id.clone(), cfg.task_push_notification_config)
        };
        remember(self, &task_id);
        let run = self.new_run_id();
        let entry = Run {
            id: run,
            message: message.clone(),
            tenant: tenant.clone(),
            owner: ctx.principal.clone(),
            message_key: key.clone(),
            push_config,
            version: ctx.version,
        };
        self.insert_run(&task_id, entry);
        self.attach(call, &task_id, streaming, cfg.history_length, cfg.return_immediately, Some(run));
        self.out.push_back(Output::Execute(Execution {
            id: run,
            task_id,
            context_id,
            message,
            follow_up,
            context: ctx,
            metadata: req.metadata,
            tenant,
            configuration,
            resumed: false,
        }));
        Ok(())
    }

    /// Registers `call` as waiting on (or streaming) `task_id`; if the task exists, a stream
    /// gets its first event at once and `returnImmediately` is answered.
    pub(super) fn attach(
        &mut self,
        call: CallId,
        task_id: &str,
        streaming: bool,
        history_length: Option<i32>,
        immediate: bool,
        run: Option<RunId>,
    ) {
        let exists = self.store.get(task_id).is_some();
        if streaming {
            self.streams.insert(call, Stream { task_id: String::from(task_id), history_length, started: false, origin: run, shown: None });
            self.task_streams.entry(String::from(task_id)).or_default().push(call);
            if exists {
                self.start_stream(call);
            }
        } else if immediate && exists {
            let snap = self.store.get(task_id).map(|t| self.snapshot(&t.record.task, history_length));
            if let Some(t) = snap {
                self.respond(call, Ok(Response::SendMessage(send_response_task(t))));
            }
        } else {
            self.waiters.entry(String::from(task_id)).or_default().push(Waiter { call, run, immediate, history_length });
        }
    }

    pub(super) fn start_stream(&mut self, call: CallId) {
        let Some(s) = self.streams.get(&call) else { return };
        if s.started {
            return;
        }
        let task_id = s.task_id.clone();
        let Some(t) = self.store.get(&task_id).map(|t| self.snapshot(&t.record.task, s.history_length)) else { return };
        if let Some(s) = self.streams.get_mut(&call) {
            s.started = true;
        }
        let id = self.snapshot_id(&task_id);
        self.out.push_back(Output::Stream {
            call,
            event: Arc::new(v1::StreamResponse { payload: Some(v1::stream_response::Payload::Task(t)) }),
            id,
        });
    }

    /// The id of a Task snapshot of `task_id`: the id of the last event it holds. A task
    /// that can still change and that this engine has not numbered yet (it was stored by an
    /// earlier process) starts its sequence here, so a resume from the snapshot misses nothing.
    fn snapshot_id(&mut self, task_id: &str) -> Option<EventId> {
        if !self.config.streaming {
            return None;
        }
        let (last, terminal) = self.store.get(task_id).map_or((0, false), |t| (t.last_event, is_terminal(t.record.state())));
        if !terminal {
            self.events.open(task_id);
            self.events.sync(task_id, last);
            self.trim_event_log(task_id);
        }
        let current = self.events.current(task_id);
        Some(EventId { epoch: current.epoch, seq: current.seq.max(last) })
    }

    fn replay(
        &mut self,
        call: CallId,
        ctx: &CallContext,
        tenant: &str,
        task_id: &str,
        streaming: bool,
        history_length: Option<i32>,
        immediate: bool,
    ) -> Result<(), A2aError> {
        let exists = self.store.get(task_id).is_some();
        if exists {
            let stored = self.require_task(tenant, task_id, ctx)?;
            let done = settled(stored.record.state());
            let snap = self.snapshot(&stored.record.task, history_length);
            if streaming {
                self.attach(call, task_id, true, history_length, false, None);
                if done {
                    self.end_stream(call, None);
                }
            } else if done || immediate {
                self.respond(call, Ok(Response::SendMessage(send_response_task(snap))));
            } else {
                self.attach(call, task_id, false, history_length, false, None);
            }
            Ok(())
        } else {
            // The first send is still waiting for the agent's first event (the caller made
            // sure the task or its run exists): wait with it.
            let run = self.runs.get(task_id).map(|r| r.id);
            self.attach(call, task_id, streaming, history_length, immediate, run);
            Ok(())
        }
    }

    fn get_task(&mut self, call: CallId, ctx: &CallContext, req: &v1::GetTaskRequest) -> Result<(), A2aError> {
        if let Some(h) = req.history_length {
            if h < 0 {
                return Err(A2aError::invalid_field("historyLength", "must be 0 or more"));
            }
        }
        let stored = self.require_task(&req.tenant, &req.id, ctx)?;
        let t = self.snapshot(&stored.record.task, req.history_length);
        self.respond(call, Ok(Response::Task(t)));
        Ok(())
    }

    fn list_tasks(&mut self, call: CallId, ctx: &CallContext, req: &v1::ListTasksRequest) -> Result<(), A2aError> {
        let page_size = req.page_size.unwrap_or(50);
        if !(1..=100).contains(&page_size) {
            return Err(A2aError::invalid_field("pageSize", "must be between 1 and 100 inclusive"));
        }
        if let Some(h) = req.history_length {
            if h < 0 {
                return Err(A2aError::invalid_field("historyLength", "must be 0 or more"));
            }
        }
        let after: Option<(i64, i32, String)> = if req.page_token.is_empty() {
            None
        } else {
            let parsed = token_decode(&req.page_token).and_then(|t| {
                let rest = t.strip_prefix("L1:")?;
                let mut it = rest.splitn(3, ':');
                let s = it.next()?.parse().ok()?;
                let n = it.next()?.parse().ok()?;
                Some((s, n, String::from(it.next()?)))
            });
            Some(parsed.ok_or_else(|| A2aError::invalid_field("pageToken", "not a page token of this server"))?)
        };
        let state = (req.status != 0).then(|| TaskState::try_from(req.status).ok()).flatten();
        if req.status != 0 && state.is_none() {
            return Err(A2aError::invalid_field("status", "not a task state"));
        }
        let size = usize::try_from(page_size).unwrap_or(50);
        let query = ListQuery {
            tenant: req.tenant.clone(),
            scope: self.config.visibility.list_scope(ctx.principal.as_deref()),
            context_id: req.context_id.clone(),
            state,
            status_after: req.status_timestamp_after.as_ref().map(|t| (t.seconds, t.nanos)),
            after: after.map(|(seconds, nanos, id)| ListCursor { seconds, nanos, id }),
            // One more than the page: whether another page follows.
            limit: size + 1,
        };
        if self.store.is_external() {
            self.list_in_store(call, query, req.clone());
            return Ok(());
        }
        let Storage::Memory(m) = &self.store else { return Ok(()) };
        let mut matches: Vec<&StoredTask> =
            m.iter().filter(|t| query.matches(t) && self.config.visibility.may_see(t.owner.as_deref(), ctx.principal.as_deref())).collect();
        // Newest status first; ties by id, so the order (and the cursor) is total.
        matches.sort_by(|a, b| external::list_key(b).cmp(&external::list_key(a)).then_with(|| a.record.task.id.cmp(&b.record.task.id)));
        let total = matches.len();
        let page: Vec<&StoredTask> = matches.into_iter().filter(|t| query.after_cursor(t)).take(query.limit).collect();
        let (tasks, resp) = self.list_page(req, &page, total);
        let _ = tasks;
        self.respond(call, Ok(Response::ListTasks(resp)));
        Ok(())
    }

    /// The answer to a list from a page of at most `pageSize + 1` tasks in list order.
    fn list_page(&self, req: &v1::ListTasksRequest, page: &[&StoredTask], total: usize) -> (usize, v1::ListTasksResponse) {
        let page_size = req.page_size.unwrap_or(50);
        let size = usize::try_from(page_size).unwrap_or(50);
        let shown = &page[..page.len().min(size)];
        let next_page_token = match shown.last() {
            Some(last) if page.len() > size => {
                let (s, n) = external::list_key(last);
                token_encode(&format!("L1:{s}:{n}:{}", last.record.task.id))
            }
            _ => String::new(),
        };
        let include_artifacts = req.include_artifacts.unwrap_or(false);
        let tasks = shown
            .iter()
            .map(|t| {
                let mut snap = self.snapshot(&t.record.task, req.history_length);
                if !include_artifacts {
                    snap.artifacts.clear();
                }
                snap
            })
            .collect();
        (shown.len(), v1::ListTasksResponse { tasks, next_page_token, page_size, total_size: i32::try_from(total).unwrap_or(i32::MAX) })
    }

    /// The store's page of a list: the answer.
    pub(super) fn answer_list(&mut self, call: CallId, req: &v1::ListTasksRequest, page: &[&StoredTask], total: usize) {
        let (_, resp) = self.list_page(req, page, total);
        self.respond(call, Ok(Response::ListTasks(resp)));
    }

    fn cancel_task(&mut self, call: CallId, ctx: &CallContext, req: v1::CancelTaskRequest, now: Timestamp) -> Result<(), A2aError> {
        let stored = self.require_task(&req.tenant, &req.id, ctx)?;
        if let Some(state) = stored.record.state().filter(|s| task::class(*s) == StateClass::Terminal) {
            return Err(A2aError::task_not_cancelable(&req.id, state.as_str_name()));
        }
        let run = self.current_run(&req.id);
        let status = v1::TaskStatus { state: TaskState::Canceled as i32, message: None, timestamp: Some(now) };
        self.apply_event(&req.id, TaskEvent::Status { status, metadata: req.metadata }, now).map_err(|r| r.to_error(&req.id))?;
        self.wrote(&req.id, Some(call));
        // The terminal state ended the run's hold on the task; the agent is told to stop.
        self.remove_run(&req.id);
        if let Some(run) = run {
            self.out.push_back(Output::CancelExecution { run, task_id: req.id.clone() });
        }
        let snap = self.store.get(&req.id).map(|t| self.snapshot(&t.record.task, None));
        if let Some(t) = snap {
            self.respond(call, Ok(Response::Task(t)));
        }
        Ok(())
    }

    fn subscribe(&mut self, call: CallId, ctx: &CallContext, req: &v1::SubscribeToTaskRequest) -> Result<(), A2aError> {
        if !self.config.streaming {
            return Err(A2aError::unsupported("Streaming is not supported by this agent (capabilities.streaming)"));
        }
        let stored = self.require_task(&req.tenant, &req.id, ctx)?;
        let terminal = stored.record.state().filter(|s| task::class(*s) == StateClass::Terminal);
        let last = stored.last_event;
        if let Some(last_seen) = ctx.last_event_id.as_deref() {
            // A resuming subscriber: the events it missed, then live (or the end, when the
            // task is over); the Task first, as for a new subscriber, when neither the log
            // nor the store can say what it missed.
            self.events.sync(&req.id, last);
            self.trim_event_log(&req.id);
            let missed = match self.events.resume(&req.id, last_seen) {
                events::Resume::Events(missed) => Some(missed),
                events::Resume::Restart => None,
            };
            if missed.is_none() && self.store.is_external() && self.config.event_epoch.is_some() {
                let (_, floor) = self.events.bounds(&req.id);
                if let Some(id) = EventId::parse(last_seen).filter(|id| id.epoch == self.events.epoch() && id.seq < floor) {
                    self.resume_from_store(call, &req.id, id.seq);
                    return Ok(());
                }
            }
            let epoch = self.events.current(&req.id).epoch;
            match missed {
                Some(missed) => {
                    self.streams
                        .insert(call, Stream { task_id: req.id.clone(), history_length: None, started: true, origin: None, shown: None });
                    self.task_streams.entry(req.id.clone()).or_default().push(call);
                    for (seq, event) in missed {
                        self.out.push_back(Output::Stream { call, event: Arc::new(event), id: Some(EventId { epoch, seq }) });
                    }
                }
                None => self.attach(call, &req.id, true, None, false, None),
            }
            if terminal.is_some() {
                self.end_stream(call, None);
            }
            return Ok(());
        }
        if let Some(state) = terminal {
            return Err(A2aError::unsupported(format!("Task is {} and has no more events to stream; use GetTask", state.as_str_name()))
                .meta("taskId", req.id.as_str()));
        }
        self.attach(call, &req.id, true, None, false, None);
        Ok(())
    }

    fn push_enabled(&self) -> Result<(), A2aError> {
        if self.config.push_notifications {
            Ok(())
        } else {
            Err(A2aError::new(ErrorKind::PushNotificationNotSupported))
        }
    }

    fn create_push_config(&mut self, call: CallId, ctx: &CallContext, cfg: v1::TaskPushNotificationConfig) -> Result<(), A2aError> {
        self.push_enabled()?;
        self.require_task(&cfg.tenant, &cfg.task_id, ctx)?;
        if cfg.url.is_empty() {
            return Err(A2aError::invalid_field("url", "required field is missing"));
        }
        let task_id = cfg.task_id.clone();
        let tenant = cfg.tenant.clone();
        let p = self.push_config(cfg, &task_id, &tenant, ctx.version);
        let answer = p.config.clone();
        if let Some(stored) = self.store.get_mut(&task_id) {
            upsert_config(&mut stored.push_configs, p);
            self.wrote(&task_id, Some(call));
        }
        self.respond(call, Ok(Response::PushConfig(answer)));
        Ok(())
    }

    fn get_push_config(&mut self, call: CallId, ctx: &CallContext, req: &v1::GetTaskPushNotificationConfigRequest) -> Result<(), A2aError> {
        self.push_enabled()?;
        let stored = self.require_task(&req.tenant, &req.task_id, ctx)?;
        let cfg = stored.push_configs.iter().find(|c| c.config.id == req.id).map(|c| c.config.clone());
        match cfg {
            Some(c) => self.respond(call, Ok(Response::PushConfig(c))),
            None => {
                // §3.1.8: a missing config is also TaskNotFoundError.
                return Err(A2aError::with_message(ErrorKind::TaskNotFound, "Push notification config not found")
                    .meta("taskId", req.task_id.as_str())
                    .meta("configId", req.id.as_str()));
            }
        }
        Ok(())
    }

    fn list_push_configs(
        &mut self,
        call: CallId,
        ctx: &CallContext,
        req: &v1::ListTaskPushNotificationConfigsRequest,
    ) -> Result<(), A2aError> {
        self.push_enabled()?;
        if req.page_size < 0 {
            return Err(A2aError::invalid_field("pageSize", "must be 0 (no limit) or more"));
        }
        let stored = self.require_task(&req.tenant, &req.task_id, ctx)?;
        let start = if req.page_token.is_empty() {
            0
        } else {
            token_decode(&req.page_token)
                .and_then(|t| t.strip_prefix("P1:").and_then(|n| n.parse::<usize>().ok()))
                .ok_or_else(|| A2aError::invalid_field("pageToken", "not a page token of this server"))?
        };
        let all = &stored.push_configs;
        let size = if req.page_size == 0 { all.len() } else { usize::try_from(req.page_size).unwrap_or(all.len()) };
        let configs: Vec<_> = all.iter().skip(start).take(size).map(|c| c.config.clone()).collect();
        let end = start.saturating_add(configs.len());
        let next_page_token = if end < all.len() { token_encode(&format!("P1:{end}")) } else { String::new() };
        self.respond(call, Ok(Response::PushConfigs(v1::ListTaskPushNotificationConfigsResponse { configs, next_page_token })));
        Ok(())
    }

    fn delete_push_config(
        &mut self,
        call: CallId,
        ctx: &CallContext,
        req: &v1::DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2aError> {
        self.push_enabled()?;
        self.require_task(&req.tenant, &req.task_id, ctx)?;
        if let Some(stored) = self.store.get_mut(&req.task_id) {
            let before = stored.push_configs.len();
            stored.push_configs.retain(|c| c.config.id != req.id);
            if stored.push_configs.len() != before {
                self.wrote(&req.task_id, Some(call));
            }
        }
        self.respond(call, Ok(Response::Deleted));
        Ok(())
    }
}
