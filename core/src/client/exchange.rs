//! [`Exchange`]: one call as a step function a host drives (see the parent module's docs).

use super::*;

// ---------------------------------------------------------------- the step function

/// What a host does next for an [`Exchange`].
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Send this request (the first one, or a retry the binding's rules call for), then feed
    /// its answer: [`Exchange::handle_head`], [`Exchange::handle_body`],
    /// [`Exchange::handle_end`].
    Send(OutgoingRequest),
    /// Feed more of the answer (body bytes, or its end).
    Read,
    /// A stream event (already applied to [`Exchange::task`]).
    Event(v1::StreamResponse),
    /// The exchange is over: see [`Finished`].
    Done(Finished),
}

/// How an exchange ended.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Finished {
    /// A unary call's answer.
    Answer(Response),
    /// A stream ended normally (its events came as [`Step::Event`]s).
    StreamEnded,
    /// The call failed: the server's error, a protocol violation, or a limit.
    Failed(ClientError),
}

impl Finished {
    /// The unary answer, or the error (a stream's normal end is a protocol error here).
    pub fn into_result(self) -> Result<Response, ClientError> {
        match self {
            Finished::Answer(r) => Ok(r),
            Finished::Failed(e) => Err(e),
            Finished::StreamEnded => Err(ClientError::Protocol(String::from("a stream where an answer was expected"))),
        }
    }
}

#[derive(Debug)]
enum XState {
    /// The request to send next.
    ToSend(OutgoingRequest),
    /// Sent; waiting for the answer's head.
    AwaitHead,
    /// Reading a whole body (a unary answer, or an error answer to a streaming call).
    Body,
    /// Reading a stream.
    Stream(StreamDecoder),
    /// The stream's body ended (with these trailers); remaining events are being taken.
    Draining(StreamDecoder, Vec<(String, String)>),
    /// Over.
    Over(Option<Finished>),
}

/// One operation in flight: a step function (see the module docs).
#[derive(Debug)]
pub struct Exchange {
    // The client makes exchanges and resumes them (`Client::start_with`, `Client::resume`).
    pub(super) call: PreparedCall,
    pub(super) limits: ClientLimits,
    state: XState,
    head: HttpResponse,
    pub(super) tracker: TaskTracker,
    pub(super) direct: Option<v1::Message>,
    /// The id of the last event taken, if the server gives ids.
    pub(super) last_event_id: Option<String>,
}

fn over_limit(what: &str, limit: usize) -> ClientError {
    ClientError::Protocol(alloc::format!("{what} over the limit of {limit} bytes"))
}

impl Exchange {
    pub(super) fn new(call: PreparedCall, limits: ClientLimits) -> Self {
        let req = call.request.clone();
        Exchange {
            call,
            limits,
            state: XState::ToSend(req),
            head: HttpResponse::default(),
            tracker: TaskTracker::empty(),
            direct: None,
            last_event_id: None,
        }
    }

    /// The operation.
    pub fn method(&self) -> Method {
        self.call.method
    }

    /// True when the answer is a stream of events.
    pub fn is_streaming(&self) -> bool {
        self.call.is_streaming()
    }

    /// The prepared call (request, JSON-RPC id).
    pub fn prepared(&self) -> &PreparedCall {
        &self.call
    }

    /// The task as the stream has shown it so far (streams only).
    pub fn task(&self) -> &TaskTracker {
        &self.tracker
    }

    /// The direct reply, when a stream's first event was a Message instead of a task.
    pub fn direct_reply(&self) -> Option<&v1::Message> {
        self.direct.as_ref()
    }

    /// The id of the last stream event taken, when the server gives ids (what
    /// [`Client::resume`] sends as `Last-Event-ID`). It outlives the stream's end.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// True once the answer's head said it is a stream of events: from here on, its bytes
    /// are events (until the end).
    pub fn stream_started(&self) -> bool {
        matches!(self.state, XState::Stream(_) | XState::Draining(..))
    }

    /// True once the exchange is over (its result was returned, or is ready).
    pub fn is_over(&self) -> bool {
        matches!(self.state, XState::Over(_))
    }

    fn finish(&mut self, f: Finished) {
        self.state = XState::Over(Some(f));
    }

    /// The answer's status line and headers (for gRPC: the response headers, which may
    /// already carry the status of a trailers-only answer).
    pub fn handle_head(&mut self, status: u16, headers: &[(String, String)]) {
        if !matches!(self.state, XState::AwaitHead) {
            return;
        }
        self.head = HttpResponse { status, headers: headers.to_vec(), streaming: self.is_streaming(), ..HttpResponse::default() };
        if !self.is_streaming() {
            self.state = XState::Body;
            return;
        }
        let is_grpc = self.call.binding == Binding::Grpc;
        let is_sse = self.head.header("content-type").is_some_and(|c| crate::http::media_type(c) == sse::CONTENT_TYPE);
        if is_grpc || ((200..300).contains(&status) && is_sse) {
            match stream_decoder(&self.call, &self.head, self.limits.max_event) {
                Ok(d) => self.state = XState::Stream(d),
                Err(e) => self.finish(Finished::Failed(e)),
            }
        } else {
            // An error answered before the stream started: read it whole.
            self.state = XState::Body;
        }
    }

    /// Body bytes, as they arrive (de-chunked; for gRPC the DATA frames' bytes).
    pub fn handle_body(&mut self, bytes: &[u8]) {
        match &mut self.state {
            XState::Body => {
                if self.head.body.len().saturating_add(bytes.len()) > self.limits.max_body {
                    self.finish(Finished::Failed(over_limit("the answer is", self.limits.max_body)));
                } else {
                    self.head.body.extend_from_slice(bytes);
                }
            }
            XState::Stream(d) => d.feed(bytes),
            _ => {}
        }
    }

    /// The end of the answer, with its trailers (gRPC status; empty for HTTP/1.1).
    pub fn handle_end(&mut self, trailers: &[(String, String)]) {
        match core::mem::replace(&mut self.state, XState::Over(None)) {
            XState::Body => {
                self.head.trailers = trailers.to_vec();
                if self.is_streaming() {
                    // A subscribe answered with a method error: one retry with the other verb.
                    if let Some(again) = retry_request(&mut self.call, &self.head) {
                        self.head = HttpResponse::default();
                        self.state = XState::ToSend(again);
                        return;
                    }
                    let e = match stream_decoder(&self.call, &self.head, self.limits.max_event) {
                        Err(e) => e,
                        Ok(_) => ClientError::Protocol(String::from("a stream was expected")),
                    };
                    self.finish(Finished::Failed(e));
                } else {
                    let r = parse_answer(&self.call, &self.head);
                    self.finish(match r {
                        Ok(resp) => Finished::Answer(resp),
                        Err(e) => Finished::Failed(e),
                    });
                }
            }
            XState::Stream(d) => {
                // A gRPC answer may carry its status in the head alone (trailers-only).
                let fields = if trailers.is_empty() && self.head.header("grpc-status").is_some() { &self.head.headers } else { trailers };
                self.state = XState::Draining(d, fields.to_vec());
            }
            XState::AwaitHead => self.finish(Finished::Failed(ClientError::Protocol(String::from("the answer ended before its head")))),
            other => self.state = other,
        }
    }

    /// What to do next. `now` dates task changes an event does not date itself.
    pub fn poll(&mut self, now: Timestamp) -> Step {
        loop {
            match &mut self.state {
                XState::ToSend(_) => {
                    let XState::ToSend(req) = core::mem::replace(&mut self.state, XState::AwaitHead) else { continue };
                    return Step::Send(req);
                }
                XState::AwaitHead | XState::Body => return Step::Read,
                XState::Stream(d) | XState::Draining(d, _) => match d.next_event() {
                    Ok(Some(ev)) => {
                        let id = d.last_event_id().filter(|i| self.last_event_id.as_deref() != Some(*i)).map(String::from);
                        match self.track(&ev, now) {
                            Ok(()) => {
                                if id.is_some() {
                                    self.last_event_id = id;
                                }
                                return Step::Event(ev);
                            }
                            Err(e) => self.finish(Finished::Failed(e)),
                        }
                    }
                    Ok(None) => {
                        if let XState::Draining(d, trailers) = &self.state {
                            let end = d.finish(trailers);
                            self.finish(match end {
                                Ok(()) => Finished::StreamEnded,
                                Err(e) => Finished::Failed(e),
                            });
                        } else {
                            return Step::Read;
                        }
                    }
                    Err(e) => self.finish(Finished::Failed(e)),
                },
                XState::Over(f) => {
                    return Step::Done(
                        f.take().unwrap_or_else(|| Finished::Failed(ClientError::Local(String::from("the exchange is over")))),
                    )
                }
            }
        }
    }

    fn track(&mut self, ev: &v1::StreamResponse, now: Timestamp) -> Result<(), ClientError> {
        if ev.payload.is_none() {
            return Err(ClientError::Protocol(String::from(
                "a stream event that carries none of task, message, statusUpdate and artifactUpdate",
            )));
        }
        if let Some(v1::stream_response::Payload::Message(m)) = &ev.payload {
            if self.tracker.task().id.is_empty() {
                self.direct = Some(m.clone());
                return Ok(());
            }
        }
        self.tracker
            .on_event(ev, now)
            .map_err(|r| ClientError::Protocol(alloc::format!("the server sent an event its task cannot take: {r}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::SelectedInterface;
    use crate::op::Request;
    use crate::version::ProtocolVersion;

    fn grpc_iface() -> SelectedInterface {
        SelectedInterface {
            url: String::from("h:1"),
            binding: Binding::Grpc,
            version: ProtocolVersion::V1_0,
            tenant: String::new(),
            index: 0,
        }
    }

    fn grpc_subscribe() -> Exchange {
        let iface = grpc_iface();
        let op = Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: String::from("t"), ..Default::default() }));
        Client::new(iface).start(op).unwrap()
    }

    fn run(x: &mut Exchange, head: &[(&str, &str)], body: &[u8], trailers: &[(&str, &str)]) -> Finished {
        let h = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (String::from(*a), String::from(*b))).collect::<Vec<_>>();
        let now = Timestamp::default();
        assert!(matches!(x.poll(now), Step::Send(_)));
        x.handle_head(200, &h(head));
        x.handle_body(body);
        x.handle_end(&h(trailers));
        loop {
            match x.poll(now) {
                Step::Done(f) => return f,
                Step::Event(_) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_grpc_stream_answered_trailers_only_ends_by_the_status_in_its_head() {
        let ok = run(&mut grpc_subscribe(), &[("content-type", "application/grpc"), ("grpc-status", "0")], b"", &[]);
        assert_eq!(ok, Finished::StreamEnded);
        let no_status = run(&mut grpc_subscribe(), &[("content-type", "application/grpc")], b"", &[]);
        assert!(matches!(no_status, Finished::Failed(_)), "{no_status:?}");
    }

    #[test]
    fn a_grpc_stream_cut_inside_a_message_is_an_error() {
        // A frame header announcing 10 bytes, then 3 of them, then the end.
        let f = run(&mut grpc_subscribe(), &[("content-type", "application/grpc")], &[0, 0, 0, 0, 10, 1, 2, 3], &[("grpc-status", "0")]);
        assert!(matches!(&f, Finished::Failed(ClientError::Protocol(m)) if m.contains("inside a gRPC message")), "{f:?}");
    }

    fn rest_stream() -> (Client, Exchange) {
        let iface = SelectedInterface {
            url: String::from("http://h:1/a2a/rest"),
            binding: Binding::HttpJson,
            version: ProtocolVersion::V1_0,
            tenant: String::from("acme"),
            index: 0,
        };
        let mut client = Client::new(iface);
        let op = Operation::Task(Request::SendStreamingMessage(v1::SendMessageRequest::default()));
        let x = client.start(op).unwrap();
        (client, x)
    }

    fn sse(id: Option<&str>, json: &str) -> Vec<u8> {
        let mut out = Vec::new();
        sse::encode_event_with_id(id, json.as_bytes(), &mut out);
        out
    }

    const TASK: &str = r#"{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#;
    const DONE: &str = r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}"#;

    fn take(x: &mut Exchange) -> usize {
        let mut n = 0;
        while let Step::Event(_) = x.poll(Timestamp::default()) {
            n += 1;
        }
        n
    }

    #[test]
    fn a_broken_stream_resumes_as_a_subscribe_naming_the_last_event_id_and_keeps_its_tracker() {
        let (mut client, mut x) = rest_stream();
        assert!(matches!(x.poll(Timestamp::default()), Step::Send(_)));
        x.handle_head(200, &[(String::from("content-type"), String::from("text/event-stream"))]);
        // The id outlives events without one (SSE's last event id), an overlong or
        // unprintable one is not kept.
        let mut body = sse(Some("00000001-0"), TASK);
        body.extend(sse(None, TASK));
        body.extend(sse(Some(&"7".repeat(MAX_RESUME_ID + 1)), TASK));
        body.extend(sse(Some("bad\u{7}"), TASK));
        x.handle_body(&body);
        assert_eq!(take(&mut x), 4);
        assert_eq!(x.last_event_id(), Some("00000001-0"));
        x.handle_body(&sse(Some("00000001-1"), TASK));
        assert_eq!(take(&mut x), 1);
        // The connection drops here; the exchange is what the host had.
        let mut again = client.resume(&x).unwrap().expect("a working task resumes");
        let Step::Send(req) = again.poll(Timestamp::default()) else { panic!("a request first") };
        assert_eq!((req.method, req.url.as_str()), ("POST", "http://h:1/a2a/rest/acme/tasks/t1:subscribe"));
        assert!(req.headers.iter().any(|(k, v)| k == "Last-Event-ID" && v == "00000001-1"), "{:?}", req.headers);
        assert_eq!(again.task().task().id, "t1", "the tracker goes on");
        assert_eq!(again.last_event_id(), Some("00000001-1"));
        // The POST's GET fallback names it too.
        let fallback = again.call.method_fallback.clone().expect("a GET fallback");
        assert_eq!(fallback.method, "GET");
        assert!(fallback.headers.iter().any(|(k, _)| k == "Last-Event-ID"));
        // A settled task has nothing to resume.
        again.handle_head(200, &[(String::from("content-type"), String::from("text/event-stream"))]);
        again.handle_body(&sse(Some("00000001-2"), DONE));
        assert_eq!(take(&mut again), 1);
        assert!(client.resume(&again).unwrap().is_none());
    }

    #[test]
    fn resume_pauses_double_to_two_seconds_and_only_unavailable_is_resumed() {
        let pauses: Vec<u64> = (1..=8).map(resume_pause_ms).collect();
        assert_eq!(pauses, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
        let remote = |kind| ClientError::Remote(crate::error::Received::A2a(crate::error::A2aError::new(kind)));
        assert!(is_resumable_error(&remote(crate::error::ErrorKind::Unavailable)));
        assert!(!is_resumable_error(&remote(crate::error::ErrorKind::TaskNotFound)));
        assert!(!is_resumable_error(&ClientError::Protocol(String::from("x"))));
    }

    #[test]
    fn a_stream_without_a_task_or_a_unary_call_has_nothing_to_resume() {
        let (mut client, x) = rest_stream();
        assert!(client.resume(&x).unwrap().is_none(), "no task seen yet");
        let unary = client.start(Operation::Task(Request::GetTask(v1::GetTaskRequest::default()))).unwrap();
        assert!(client.resume(&unary).unwrap().is_none());
    }

    #[test]
    fn grpc_messages_are_numbered_from_the_heads_event_id() {
        let mut x = grpc_subscribe();
        assert!(matches!(x.poll(Timestamp::default()), Step::Send(_)));
        x.handle_head(
            200,
            &[(String::from("content-type"), String::from("application/grpc")), (String::from("a2a-event-id"), String::from("0000000a-5"))],
        );
        let task = v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::Task(v1::Task { id: String::from("t"), ..Default::default() })),
        };
        let mut msg = Vec::new();
        crate::codec::protobuf::encode_into(&task, &mut msg);
        let mut body = Vec::new();
        for _ in 0..3 {
            grpc::encode_frame(&msg, &mut body);
        }
        x.handle_body(&body);
        assert_eq!(take(&mut x), 3);
        assert_eq!(x.last_event_id(), Some("0000000a-7"));
        let Some(mut again) = Client::new(grpc_iface()).resume(&x).unwrap() else { panic!("resumable") };
        let Step::Send(req) = again.poll(Timestamp::default()) else { panic!("a request first") };
        assert!(req.headers.iter().any(|(k, v)| k == "last-event-id" && v == "0000000a-7"), "{:?}", req.headers);
    }

    fn rest_subscribe(version: ProtocolVersion) -> Exchange {
        let iface = SelectedInterface {
            url: String::from("http://h:1/a2a/rest"),
            binding: Binding::HttpJson,
            version,
            tenant: String::new(),
            index: 0,
        };
        let op = Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: String::from("t1"), ..Default::default() }));
        Client::new(iface).start(op).unwrap()
    }

    fn sent(x: &mut Exchange) -> (&'static str, String) {
        let Step::Send(req) = x.poll(Timestamp::default()) else { panic!("a request") };
        (req.method, req.url)
    }

    #[test]
    fn an_http_json_subscribe_tries_the_verb_its_version_routes_then_the_other_on_a_method_error() {
        // v1.0: POST first (a2a-go v2.3.1 and @a2a-js/sdk 1.0.0-beta.0 route POST only).
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        assert_eq!(sent(&mut x), ("POST", String::from("http://h:1/a2a/rest/tasks/t1:subscribe")));
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "GET", "a 405 brings the other verb");
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert!(matches!(x.poll(Timestamp::default()), Step::Done(Finished::Failed(_))), "once only");
        // A method error in the body counts too; an A2A error of the task does not.
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        sent(&mut x);
        let unimplemented = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"METHOD_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        x.handle_head(404, &[(String::from("content-type"), String::from("application/json"))]);
        x.handle_body(unimplemented);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "GET");
        let mut x = rest_subscribe(ProtocolVersion::V1_0);
        sent(&mut x);
        let not_found = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        x.handle_head(404, &[(String::from("content-type"), String::from("application/json"))]);
        x.handle_body(not_found);
        x.handle_end(&[]);
        let Step::Done(Finished::Failed(e)) = x.poll(Timestamp::default()) else { panic!("TaskNotFound is the answer") };
        assert!(
            matches!(e, ClientError::Remote(crate::error::Received::A2a(ref a)) if a.kind() == crate::error::ErrorKind::TaskNotFound),
            "{e:?}"
        );
        // v0.3: GET first (a2a-sdk 0.3.24 routes GET only), POST after a 405.
        let mut x = rest_subscribe(ProtocolVersion::V0_3);
        assert_eq!(sent(&mut x), ("GET", String::from("http://h:1/a2a/rest/v1/tasks/t1:subscribe")));
        x.handle_head(405, &[]);
        x.handle_end(&[]);
        assert_eq!(sent(&mut x).0, "POST");
    }

    #[test]
    fn a_subscription_that_opens_with_a_status_update_builds_its_task_from_the_events() {
        let mut t = TaskTracker::empty();
        let ev = |json: &str| crate::codec::json::decode::<v1::StreamResponse>(json.as_bytes()).unwrap();
        t.on_event(
            &ev(r#"{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#),
            Timestamp::default(),
        )
        .unwrap();
        assert_eq!((t.task().id.as_str(), t.task().context_id.as_str(), t.state()), ("t1", "c1", Some(v1::TaskState::Working)));
        t.on_event(&ev(r#"{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"lastChunk":true}}"#), Timestamp::default())
            .unwrap();
        t.on_event(&ev(DONE), Timestamp::default()).unwrap();
        assert!(t.is_terminal() && t.task().artifacts.len() == 1);
        // Another task's events are still refused, before and after.
        let before = t.clone();
        assert!(t
            .on_event(
                &ev(r#"{"statusUpdate":{"taskId":"t2","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}"#),
                Timestamp::default()
            )
            .is_err());
        assert_eq!(t, before);
        let mut empty = TaskTracker::empty();
        let unspecified = v1::StreamResponse {
            payload: Some(v1::stream_response::Payload::StatusUpdate(v1::TaskStatusUpdateEvent {
                task_id: "t1".into(),
                status: Some(v1::TaskStatus::default()),
                ..Default::default()
            })),
        };
        assert!(empty.on_event(&unspecified, Timestamp::default()).is_err());
        assert_eq!(empty, TaskTracker::empty(), "a refused first event changes nothing");
    }
}
