//! What an application implements: the agent. Two shapes, one contract.
//!
//! - [`AgentExecutor`]: a Rust future per run (the idiomatic shape for async Rust).
//! - [`Agent`]: a synchronous `start(run, events)` that returns at once, plus `cancel(run)`
//!   — the shape of a C callback, a Python coroutine handed to an event loop, or a JS
//!   function. The run goes on wherever the agent likes (another thread, another runtime)
//!   and publishes through its [`EventSink`], which any thread may use.
//!
//! Either way the agent receives a [`RequestContext`] and an [`EventSink`]; it publishes
//! status, artifact and message events, and the run ends when the agent says so
//! ([`EventSink::finish`], [`EventSink::fail`]), when its future returns, or when the last
//! clone of its sink is dropped. A panic fails the run's task; the server keeps serving.
//! An event the server refuses (the run is over: its task finished, was canceled, or was
//! continued by a newer run; or the event breaks the task's state machine) is reported back:
//! [`EventSink::flushed`] / [`EventSink::wait_flushed`] give the refusal, and every later
//! publish fails at once with it.

use a2a_wire::engine::{AgentEvent, CallContext, RunEnd, RunId};
use a2a_wire::error::A2aError;
use a2a_wire::proto::google::protobuf::Struct;
use a2a_wire::v1;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The agent as a future per run.
///
/// Any `Fn(RequestContext, EventSink) -> impl Future<Output = ()>` is one (an async closure
/// too; [`agent_fn`] names the type for inference):
///
/// ```
/// use a2a_wire_smol::agent::{agent_fn, agent_text, new_id};
/// let echo = agent_fn(|ctx, events| async move {
///     let _ = events.message(agent_text(new_id(), &ctx.text()));
/// });
/// # let _: std::sync::Arc<dyn a2a_wire_smol::agent::AgentExecutor> = std::sync::Arc::new(echo);
/// ```
pub trait AgentExecutor: Send + Sync + 'static {
    /// Handles one message. Publish through `events`; return when the turn is over (the
    /// server then answers whoever still waits on this turn). When the task is canceled,
    /// `ctx.cancel` is set ([`CancelToken::cancelled`] wakes), [`AgentExecutor::cancel`] is
    /// called, and a future still running after the server's cancel grace
    /// ([`crate::ServerConfig::cancel_grace`]) is dropped.
    fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

    /// The run's task was canceled, or the server is shutting down (the run's
    /// [`CancelToken`] is set too). Called on the server's own thread: it must not block.
    fn cancel(&self, run: RunId) {
        let _ = run;
    }
}

/// An agent from a function or closure returning a future (see [`AgentExecutor`]).
pub fn agent_fn<F, Fut>(f: F) -> FnAgent<F>
where
    F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    FnAgent(f)
}

/// The agent [`agent_fn`] makes.
#[derive(Clone, Copy, Debug)]
pub struct FnAgent<F>(F);

impl<F, Fut> AgentExecutor for FnAgent<F>
where
    F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn execute(&self, ctx: RequestContext, events: EventSink) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        Box::pin((self.0)(ctx, events))
    }
}

/// A fresh UUID v4 from the operating system's CSPRNG: the id of a message or an artifact
/// an agent makes (every binding's helpers draw theirs the same way).
pub fn new_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness (it does not fail on the platforms we build for): fall back to a
        // keyed hash of the time and a counter, still unique within the process.
        use std::hash::{BuildHasher, Hasher};
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
        let a = h.finish();
        h.write_u64(a);
        b[..8].copy_from_slice(&a.to_le_bytes());
        b[8..].copy_from_slice(&h.finish().to_le_bytes());
    }
    b[6] = (b[6] & 0x0F) | 0x40;
    b[8] = (b[8] & 0x3F) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// The agent as a callback that is not a Rust future (see the module docs).
pub trait Agent: Send + Sync + 'static {
    /// Starts a run and returns at once. The run publishes through `events` from any thread
    /// and ends with [`EventSink::finish`] (or [`EventSink::fail`], or when the last clone of
    /// `events` is dropped). It is called on the server's own thread: it must not block.
    fn start(&self, ctx: RequestContext, events: EventSink);
    /// The run's task was canceled, or the server is shutting down: stop publishing (the
    /// context's [`CancelToken`] is set too). Events sent after this are refused.
    fn cancel(&self, run: RunId) {
        let _ = run;
    }
}

/// Everything an agent needs to know about one run.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// This run.
    pub run: RunId,
    /// The task the message belongs to (allocated by the server even when the agent replies
    /// with a direct message).
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The message, with `taskId` and `contextId` filled in.
    pub message: v1::Message,
    /// True when the message continues an existing task.
    pub follow_up: bool,
    /// True when this run resumes a task whose run was lost in a restart; `message` is the
    /// task's last user message and `task` shows how far the old run got.
    pub resumed: bool,
    /// The task as stored when the run starts (`None` for a new task).
    pub task: Option<v1::Task>,
    /// Who sent it (the principal the authentication hook returned), and the active
    /// extensions.
    pub call: CallContext,
    /// The tenant the request named ("" = none).
    pub tenant: String,
    /// The request's metadata (`SendMessageRequest.metadata`; `None` for a resumed run).
    pub metadata: Option<Struct>,
    /// The request's configuration as sent (accepted output modes, history length, return
    /// immediately); `None` when it sent none, and for a resumed run.
    pub configuration: Option<v1::SendMessageConfiguration>,
    /// Set when the task is canceled.
    pub cancel: CancelToken,
}

impl RequestContext {
    /// The text of the message's text parts, concatenated.
    pub fn text(&self) -> String {
        message_text(&self.message)
    }

    /// The principal the authentication hook returned (`None`: anonymous).
    pub fn principal(&self) -> Option<&str> {
        self.call.principal.as_deref()
    }

    /// The extensions active for this call (`A2A-Extensions`, the ones the card declares).
    pub fn extensions(&self) -> &[String] {
        &self.call.extensions
    }

    /// The output modes the client accepts (empty: any).
    pub fn accepted_output_modes(&self) -> &[String] {
        self.configuration.as_ref().map_or(&[], |c| c.accepted_output_modes.as_slice())
    }

    /// Resolves when the task is canceled (at once if it already was): await it, or race
    /// it against the work in `select!` / `or`.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }
}

/// The text of `message`'s text parts, concatenated (what an agent usually reads).
pub fn message_text(message: &v1::Message) -> String {
    message.parts.iter().filter_map(|p| if let Some(v1::part::Content::Text(t)) = &p.content { Some(t.as_str()) } else { None }).collect()
}

/// Set when a task is canceled; cheap to clone, to poll ([`CancelToken::is_canceled`]) and
/// to await ([`CancelToken::cancelled`]).
#[derive(Clone, Debug)]
pub struct CancelToken(Arc<CancelInner>);

#[derive(Debug)]
struct CancelInner {
    set: AtomicBool,
    /// Closed on cancel: every waiter's `recv` then returns.
    wake: async_channel::Sender<()>,
    wait: async_channel::Receiver<()>,
}

impl Default for CancelToken {
    fn default() -> Self {
        let (wake, wait) = async_channel::bounded(1);
        CancelToken(Arc::new(CancelInner { set: AtomicBool::new(false), wake, wait }))
    }
}

impl CancelToken {
    /// True once the task was canceled.
    pub fn is_canceled(&self) -> bool {
        self.0.set.load(Ordering::Acquire)
    }

    /// Resolves once the task is canceled (at once if it already was).
    pub async fn cancelled(&self) {
        if !self.is_canceled() {
            // Nothing is ever sent: `recv` returns (an error) when `cancel` closes the channel.
            let _ = self.0.wait.recv().await;
        }
    }

    pub(crate) fn cancel(&self) {
        self.0.set.store(true, Ordering::Release);
        self.0.wake.close();
    }
}

/// Why an event was not taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused(pub A2aError);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the server refused the agent's event: {}", self.0)
    }
}

impl std::error::Error for Refused {}

/// What a run sends to the server that hosts it.
#[derive(Debug)]
pub(crate) enum RunMessage {
    /// An event, in order.
    Event { run: RunId, event: AgentEvent, sink: Arc<SinkState> },
    /// Everything sent before has been applied: answer with the sink's state.
    Barrier { sink: Arc<SinkState>, done: async_channel::Sender<Result<(), Refused>> },
    /// The run is over.
    End { run: RunId, end: RunEnd },
}

/// Where run messages go (the host's queue).
pub(crate) type RunQueue = async_channel::Sender<RunMessage>;

/// Shared between a run's sink clones and the host: whether the run still takes events.
#[derive(Debug, Default)]
pub(crate) struct SinkState {
    refused: Mutex<Option<A2aError>>,
}

impl SinkState {
    /// The run no longer takes events, for this reason (the first reason is kept).
    pub(crate) fn close(&self, why: A2aError) {
        let mut r = self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if r.is_none() {
            *r = Some(why);
        }
    }
    pub(crate) fn refusal(&self) -> Option<A2aError> {
        self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

#[derive(Debug)]
struct SinkInner {
    run: RunId,
    queue: RunQueue,
    state: Arc<SinkState>,
    ended: AtomicBool,
}

impl Drop for SinkInner {
    fn drop(&mut self) {
        // The last clone went away without saying: the run's turn is over.
        if !self.ended.swap(true, Ordering::AcqRel) {
            let _ = self.queue.try_send(RunMessage::End { run: self.run, end: RunEnd::Finished });
        }
    }
}

/// Where a run publishes its events; cheap to clone, usable from any thread. Events reach
/// the server in the order they are sent (from one thread; across threads, in the order the
/// sends happen).
#[derive(Clone, Debug)]
pub struct EventSink {
    inner: Arc<SinkInner>,
}

impl EventSink {
    pub(crate) fn new(run: RunId, queue: RunQueue) -> EventSink {
        let inner = SinkInner { run, queue, state: Arc::new(SinkState::default()), ended: AtomicBool::new(false) };
        EventSink { inner: Arc::new(inner) }
    }

    /// The run.
    pub fn run(&self) -> RunId {
        self.inner.run
    }

    fn send(&self, event: AgentEvent) -> Result<(), Refused> {
        if let Some(why) = self.inner.state.refusal() {
            return Err(Refused(why));
        }
        if self.inner.ended.load(Ordering::Acquire) {
            return Err(Refused(A2aError::with_message(a2a_wire::error::ErrorKind::InvalidAgentResponse, "the run already ended")));
        }
        let msg = RunMessage::Event { run: self.inner.run, event, sink: self.inner.state.clone() };
        self.inner
            .queue
            .try_send(msg)
            .map_err(|_| Refused(A2aError::with_message(a2a_wire::error::ErrorKind::Unavailable, "the server stopped")))
    }

    /// Sets the task's status (with an optional agent message, e.g. a question). `Err` when
    /// the server already refused an event of this run (see the module docs).
    pub fn status(&self, state: v1::TaskState, message: Option<v1::Message>) -> Result<(), Refused> {
        self.status_with_metadata(state, message, None)
    }

    /// [`EventSink::status`] with the status update event's metadata.
    pub fn status_with_metadata(
        &self,
        state: v1::TaskState,
        message: Option<v1::Message>,
        metadata: Option<Struct>,
    ) -> Result<(), Refused> {
        let status = v1::TaskStatus { state: state as i32, message, timestamp: None };
        self.send(AgentEvent::Status { status, metadata })
    }

    /// Publishes an artifact, or a chunk of one (`append`: add parts to the artifact with the
    /// same id; `last_chunk`: the artifact is complete). An artifact without an id gets a
    /// fresh one ([`new_id`]), so that two artifacts never replace each other by accident.
    pub fn artifact(&self, artifact: v1::Artifact, append: bool, last_chunk: bool) -> Result<(), Refused> {
        self.artifact_with_metadata(artifact, append, last_chunk, None)
    }

    /// [`EventSink::artifact`] with the artifact update event's metadata.
    pub fn artifact_with_metadata(
        &self,
        mut artifact: v1::Artifact,
        append: bool,
        last_chunk: bool,
        metadata: Option<Struct>,
    ) -> Result<(), Refused> {
        if artifact.artifact_id.is_empty() {
            artifact.artifact_id = new_id();
        }
        self.send(AgentEvent::Artifact { artifact, append, last_chunk, metadata })
    }

    /// Replies with a message: as the first event, a direct reply (no task is kept); later, a
    /// message in the task's conversation.
    pub fn message(&self, message: v1::Message) -> Result<(), Refused> {
        self.send(AgentEvent::Message(message))
    }

    /// Publishes any agent event.
    pub fn event(&self, event: AgentEvent) -> Result<(), Refused> {
        self.send(event)
    }

    /// Why the server no longer takes this run's events, if it said so already.
    pub fn refusal(&self) -> Option<Refused> {
        self.inner.state.refusal().map(Refused)
    }

    /// Waits until the server applied every event sent so far; the refusal if it refused one.
    pub async fn flushed(&self) -> Result<(), Refused> {
        let (done, wait) = async_channel::bounded(1);
        let msg = RunMessage::Barrier { sink: self.inner.state.clone(), done };
        if self.inner.queue.try_send(msg).is_err() {
            return Err(Refused(A2aError::with_message(a2a_wire::error::ErrorKind::Unavailable, "the server stopped")));
        }
        wait.recv()
            .await
            .unwrap_or_else(|_| Err(Refused(A2aError::with_message(a2a_wire::error::ErrorKind::Unavailable, "the server stopped"))))
    }

    /// [`EventSink::flushed`] for a thread that may block (never the server's own thread).
    pub fn wait_flushed(&self) -> Result<(), Refused> {
        smol::block_on(self.flushed())
    }

    fn end(&self, end: RunEnd) {
        if !self.inner.ended.swap(true, Ordering::AcqRel) {
            let _ = self.inner.queue.try_send(RunMessage::End { run: self.inner.run, end });
        }
    }

    /// The run's turn is over (the server answers whoever still waits on it).
    pub fn finish(&self) {
        self.end(RunEnd::Finished);
    }

    /// The run failed: its task moves to `FAILED` with `reason` as the agent's message.
    pub fn fail(&self, reason: &str) {
        self.end(RunEnd::Failed(String::from(reason)));
    }
}

/// A text part.
pub fn text_part(text: &str) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Text(text.into())), ..Default::default() }
}

/// An agent message with one text part.
pub fn agent_text(message_id: String, text: &str) -> v1::Message {
    v1::Message { message_id, role: v1::Role::Agent as i32, parts: vec![text_part(text)], ..Default::default() }
}
