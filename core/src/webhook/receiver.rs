//! The receiving end of push notifications, sans-IO: what a client that hosts a webhook
//! does with each delivery, so that the application sees each event once and only from the
//! agent it registered with.
//!
//! A [`Receiver`] is told the credentials it handed the agent in the push config (its
//! `token`, an `Authorization` value, or both) and the tasks it expects events for. Each
//! delivery's HTTP request goes to [`Receiver::handle`], which answers with what to do and
//! the HTTP response to send back:
//!
//! - credentials are compared in constant time (a wrong token costs the same as a right one
//!   of the same length); a missing or wrong one is `401`;
//! - the body is decoded as the sender wrote it: the v1.0 `StreamResponse`
//!   (`application/a2a+json`) or the v0.3 event of a config created over v0.3, translated to
//!   v1.0; a body that is neither is `400`;
//! - an event for a task the receiver does not expect is `404` (a sender stops retrying on
//!   it: 4xx other than 408 and 429 are final);
//! - a redelivery (the same event again, after the sender missed the receiver's answer) is
//!   answered `204` like the first delivery but reported as [`Delivery::Duplicate`]: the
//!   event is recognized by a digest of its canonical ProtoJSON, so a sender that encodes
//!   it differently the second time is still recognized.
//!
//! The receiver keeps the digests of the last [`Receiver::window`] events per task (256 by
//! default): a redelivery older than that is handed over again.

use crate::auth::ct_eq;
use crate::error::{A2aError, ErrorKind};
use crate::http::{HttpRequest, HttpResponse};
use crate::v1;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};

/// What a delivery was.
// The event is moved out once per delivery; boxing it would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    /// A new event for an expected task: hand it to the application.
    Event {
        /// The task it is about.
        task_id: String,
        /// The event, in v1.0 form whatever version the sender used.
        event: v1::StreamResponse,
    },
    /// An event already handed over, delivered again: answered, not handed over.
    Duplicate {
        /// The task it is about.
        task_id: String,
    },
}

/// The receiving end of one webhook (see the module documentation).
#[derive(Clone, Debug)]
pub struct Receiver {
    token: Option<String>,
    authorization: Option<String>,
    tasks: BTreeMap<String, VecDeque<u64>>,
    window: usize,
}

impl Receiver {
    /// A receiver expecting the push config's `token` in the token header
    /// (`A2A-Notification-Token` or `X-A2A-Notification-Token`).
    pub fn with_token(token: impl Into<String>) -> Self {
        Receiver { token: Some(token.into()), authorization: None, tasks: BTreeMap::new(), window: 256 }
    }

    /// A receiver expecting this whole `Authorization` value (`Bearer abc...`), as the push
    /// config's `authentication` makes it.
    pub fn with_authorization(value: impl Into<String>) -> Self {
        Receiver { token: None, authorization: Some(value.into()), tasks: BTreeMap::new(), window: 256 }
    }

    /// A receiver for the credentials handed to the agent in the push config: its `token`, a
    /// whole `Authorization` value, or both (each then required). `Err` says what is wrong:
    /// neither is given, or one is empty (no delivery could be told apart by it).
    pub fn with_credentials(token: Option<&str>, authorization: Option<&str>) -> Result<Self, String> {
        for (value, what) in [(token, "token"), (authorization, "authorization")] {
            if value == Some("") {
                return Err(format!("the {what} is empty: give the credential the push config carries"));
            }
        }
        match (token, authorization) {
            (Some(t), Some(a)) => Ok(Receiver::with_token(t).and_authorization(a)),
            (Some(t), None) => Ok(Receiver::with_token(t)),
            (None, Some(a)) => Ok(Receiver::with_authorization(a)),
            (None, None) => Err(String::from("a webhook receiver needs a token or an authorization value (or both)")),
        }
    }

    /// Also requires this `Authorization` value (a receiver may require both).
    pub fn and_authorization(mut self, value: impl Into<String>) -> Self {
        self.authorization = Some(value.into());
        self
    }

    /// Also requires this token (a receiver may require both).
    pub fn and_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// How many recent events per task are remembered to recognize redeliveries (at least 1).
    pub fn window(mut self, events: usize) -> Self {
        self.window = events.max(1);
        self
    }

    /// Accept events for `task_id` from now on.
    pub fn expect_task(&mut self, task_id: &str) {
        self.tasks.entry(task_id.to_string()).or_default();
    }

    /// Stop accepting events for `task_id` (and forget what was seen of it).
    pub fn forget_task(&mut self, task_id: &str) {
        self.tasks.remove(task_id);
    }

    /// True when events for `task_id` are accepted.
    pub fn expects(&self, task_id: &str) -> bool {
        self.tasks.contains_key(task_id)
    }

    /// Judges one delivery: what it was (or why it is refused, as an A2A error), and the
    /// HTTP response to send back in either case.
    pub fn handle(&mut self, req: &HttpRequest<'_>) -> (Result<Delivery, A2aError>, HttpResponse) {
        let r = self.judge(req);
        let response = match &r {
            Ok(_) => HttpResponse { status: 204, ..HttpResponse::default() },
            Err(e) => {
                let status = e.http_status();
                let body = serde_json::to_vec(&e.to_http_body()).unwrap_or_default();
                let headers = alloc::vec![(String::from("Content-Type"), String::from("application/json"))];
                HttpResponse { status, headers, body, ..HttpResponse::default() }
            }
        };
        (r, response)
    }

    /// The application could not take `delivery` (its database was down, say): the event
    /// is forgotten, so that the sender's redelivery is handed over again, and the answer is
    /// `503` (the sender retries it). A duplicate is left as it is.
    pub fn retry_later(&mut self, delivery: &Delivery) -> HttpResponse {
        if let Delivery::Event { task_id, event } = delivery {
            if let (Some(seen), Ok(d)) = (self.tasks.get_mut(task_id), digest(event)) {
                if let Some(i) = seen.iter().rposition(|x| *x == d) {
                    seen.remove(i);
                }
            }
        }
        HttpResponse { status: 503, headers: alloc::vec![(String::from("Retry-After"), String::from("1"))], ..HttpResponse::default() }
    }

    fn judge(&mut self, req: &HttpRequest<'_>) -> Result<Delivery, A2aError> {
        if !req.method.eq_ignore_ascii_case("POST") {
            return Err(A2aError::with_message(ErrorKind::MethodNotFound, "a webhook takes POST only"));
        }
        if !self.credentials_match(req) {
            return Err(A2aError::with_message(ErrorKind::Unauthenticated, "missing or wrong webhook credentials"));
        }
        let event = decode(req)?;
        let task_id = task_of(&event);
        let Some(seen) = self.tasks.get_mut(task_id) else {
            return Err(A2aError::task_not_found(task_id));
        };
        let task_id = task_id.to_string();
        let digest = digest(&event)?;
        // The window may have shrunk since the task's first events.
        while seen.len() > self.window {
            seen.pop_front();
        }
        if seen.contains(&digest) {
            return Ok(Delivery::Duplicate { task_id });
        }
        if seen.len() == self.window {
            seen.pop_front();
        }
        seen.push_back(digest);
        Ok(Delivery::Event { task_id, event })
    }

    /// Every credential the receiver requires is present and equal, compared in constant time.
    /// An empty credential matches nothing (an empty header would otherwise pass).
    fn credentials_match(&self, req: &HttpRequest<'_>) -> bool {
        let mut ok = self.token.is_some() || self.authorization.is_some();
        if let Some(token) = &self.token {
            let given = req.header("A2A-Notification-Token").or_else(|| req.header("X-A2A-Notification-Token"));
            ok &= !token.is_empty() && given.is_some_and(|g| ct_eq(g.as_bytes(), token.as_bytes()));
        }
        if let Some(auth) = &self.authorization {
            ok &= !auth.is_empty() && req.header("Authorization").is_some_and(|g| ct_eq(g.as_bytes(), auth.as_bytes()));
        }
        ok
    }
}

/// The delivery's event, from the v1.0 body or from the v0.3 one.
fn decode(req: &HttpRequest<'_>) -> Result<v1::StreamResponse, A2aError> {
    let media = req.header("Content-Type").map(crate::http::media_type).unwrap_or_default();
    let v1_error = match crate::codec::json::decode::<v1::StreamResponse>(req.body) {
        Ok(e) if e.payload.is_some() => return Ok(e),
        Ok(_) => String::from("the event is empty"),
        Err(e) => e.to_string(),
    };
    if media != crate::binding::rest::CONTENT_TYPE {
        use crate::v03::ToV1;
        if let Ok(e) = crate::v03::decode::<crate::v03::StreamEvent>(req.body) {
            return e
                .to_v1()
                .map(|c| c.value)
                .map_err(|e| A2aError::with_message(ErrorKind::InvalidParams, format!("the v0.3 event: {e}")));
        }
    }
    Err(A2aError::with_message(ErrorKind::InvalidParams, format!("not a push notification: {v1_error}")))
}

fn task_of(event: &v1::StreamResponse) -> &str {
    use v1::stream_response::Payload;
    match &event.payload {
        Some(Payload::Task(t)) => &t.id,
        Some(Payload::Message(m)) => &m.task_id,
        Some(Payload::StatusUpdate(u)) => &u.task_id,
        Some(Payload::ArtifactUpdate(u)) => &u.task_id,
        None => "",
    }
}

/// FNV-1a over the event's canonical ProtoJSON: the same event gives the same digest however
/// the sender spelled it.
fn digest(event: &v1::StreamResponse) -> Result<u64, A2aError> {
    let bytes = crate::codec::json::encode(event).map_err(|e| A2aError::with_message(ErrorKind::InvalidParams, e.to_string()))?;
    Ok(super::fnv1a(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion;
    use alloc::vec::Vec;

    fn config(token: &str) -> v1::TaskPushNotificationConfig {
        v1::TaskPushNotificationConfig {
            task_id: String::from("t-1"),
            url: String::from("https://client.example/hook"),
            token: String::from(token),
            authentication: Some(v1::AuthenticationInfo { scheme: String::from("Bearer"), credentials: String::from("s3cret") }),
            ..Default::default()
        }
    }

    fn event(state: v1::TaskState) -> v1::StreamResponse {
        let status = v1::TaskStatus { state: state as i32, ..Default::default() };
        let task = v1::Task { id: String::from("t-1"), context_id: String::from("c-1"), status: Some(status), ..Default::default() };
        v1::StreamResponse { payload: Some(v1::stream_response::Payload::Task(task)) }
    }

    /// What the sender posts for `state` of the test task. `request` cannot fail here: the
    /// task is valid ProtoJSON and has a v0.3 form (a plain status, no parts to lose).
    fn sent(token: &str, version: ProtocolVersion, state: v1::TaskState) -> crate::http::OutgoingRequest {
        super::super::request(&config(token), version, &event(state)).expect("the test task encodes in both versions")
    }

    fn deliver(rx: &mut Receiver, out: &crate::http::OutgoingRequest) -> (Result<Delivery, A2aError>, HttpResponse) {
        let headers: Vec<(&str, &str)> = out.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        rx.handle(&HttpRequest { method: out.method, target: "/hook", headers: &headers, body: &out.body })
    }

    #[test]
    fn each_event_is_handed_over_once_from_either_version() {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let mut rx = Receiver::with_token("tok").and_authorization("Bearer s3cret");
            rx.expect_task("t-1");
            let working = sent("tok", version, v1::TaskState::Working);
            let done = sent("tok", version, v1::TaskState::Completed);
            let (first, resp) = deliver(&mut rx, &working);
            assert!(matches!(&first, Ok(Delivery::Event { task_id, .. }) if task_id == "t-1"), "{version}: {first:?}");
            assert_eq!(resp.status, 204);
            let (again, resp) = deliver(&mut rx, &working);
            assert_eq!(again, Ok(Delivery::Duplicate { task_id: String::from("t-1") }), "{version}: a redelivery");
            assert_eq!(resp.status, 204, "answered as delivered, so the sender stops");
            let (next, _) = deliver(&mut rx, &done);
            let Ok(Delivery::Event { event, .. }) = next else { panic!("{version}: {next:?}") };
            let Some(v1::stream_response::Payload::Task(t)) = event.payload else { panic!("{version}: not a task") };
            assert_eq!((t.id.as_str(), t.status.map(|s| s.state)), ("t-1", Some(v1::TaskState::Completed as i32)), "{version}");
        }
    }

    #[test]
    fn an_event_the_application_could_not_take_is_handed_over_again_when_redelivered() {
        let mut rx = Receiver::with_token("tok");
        rx.expect_task("t-1");
        let working = sent("tok", ProtocolVersion::V1_0, v1::TaskState::Working);
        let (first, _) = deliver(&mut rx, &working);
        let first = first.expect("a new event");
        let resp = rx.retry_later(&first);
        assert_eq!(resp.status, 503, "the sender retries a 503");
        let (again, resp) = deliver(&mut rx, &working);
        assert_eq!(again, Ok(first.clone()), "the redelivery is handed over, not taken for a duplicate");
        assert_eq!(resp.status, 204);
        let (third, _) = deliver(&mut rx, &working);
        assert_eq!(third, Ok(Delivery::Duplicate { task_id: String::from("t-1") }));
    }

    #[test]
    fn wrong_or_missing_credentials_unknown_tasks_and_bad_bodies_are_refused() {
        let mut rx = Receiver::with_token("tok");
        rx.expect_task("t-1");
        let good = sent("tok", ProtocolVersion::V1_0, v1::TaskState::Working);
        let wrong = sent("tox", ProtocolVersion::V1_0, v1::TaskState::Working);
        let (r, resp) = deliver(&mut rx, &wrong);
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::Unauthenticated));
        assert_eq!(resp.status, 401);
        let mut none = good.clone();
        none.headers.retain(|(n, _)| !n.ends_with("Notification-Token"));
        assert_eq!(deliver(&mut rx, &none).1.status, 401, "no token at all");
        // Either spelling of the header is enough.
        let mut one = good.clone();
        one.headers.retain(|(n, _)| n != "X-A2A-Notification-Token");
        assert_eq!(deliver(&mut rx, &one).1.status, 204);

        let mut other = Receiver::with_token("tok");
        other.expect_task("t-2");
        let (r, resp) = deliver(&mut other, &good);
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::TaskNotFound));
        assert_eq!(resp.status, 404);
        assert!(!crate::webhook::Outcome::Status(resp.status).is_retryable(), "the sender gives up on an unknown task");

        let garbage = crate::http::OutgoingRequest { body: b"{\"nope\":1}".to_vec(), ..good.clone() };
        assert_eq!(deliver(&mut rx, &garbage).1.status, 400);
        let get = crate::http::OutgoingRequest { method: "GET", ..good.clone() };
        assert_ne!(deliver(&mut rx, &get).1.status, 204);

        let mut both = Receiver::with_token("tok").and_authorization("Bearer s3cret");
        both.expect_task("t-1");
        let mut no_auth = good.clone();
        no_auth.headers.retain(|(n, _)| n != "Authorization");
        assert_eq!(deliver(&mut both, &no_auth).1.status, 401, "both required, one given");
    }

    #[test]
    fn credentials_must_be_given_and_an_empty_one_matches_nothing() {
        assert!(Receiver::with_credentials(None, None).is_err());
        assert!(Receiver::with_credentials(Some(""), Some("Bearer s3cret")).unwrap_err().contains("token is empty"));
        assert!(Receiver::with_credentials(Some("tok"), Some("")).unwrap_err().contains("authorization is empty"));
        let good = sent("tok", ProtocolVersion::V1_0, v1::TaskState::Working);
        for (token, auth, status) in
            [(Some("tok"), None, 204), (None, Some("Bearer s3cret"), 204), (Some("tok"), Some("Bearer s3cret"), 204)]
        {
            let Ok(mut rx) = Receiver::with_credentials(token, auth) else { panic!("{token:?} {auth:?}") };
            rx.expect_task("t-1");
            assert_eq!(deliver(&mut rx, &good).1.status, status, "{token:?} {auth:?}");
        }
        // Built without the check, an empty token still lets no empty header through.
        let mut rx = Receiver::with_token("");
        rx.expect_task("t-1");
        let mut empty = good.clone();
        for (n, v) in empty.headers.iter_mut() {
            if n.ends_with("Notification-Token") {
                v.clear();
            }
        }
        assert_eq!(deliver(&mut rx, &empty).1.status, 401);
    }

    #[test]
    fn the_window_bounds_what_is_remembered() {
        let mut rx = Receiver::with_token("tok").window(1);
        rx.expect_task("t-1");
        let a = sent("tok", ProtocolVersion::V1_0, v1::TaskState::Working);
        let b = sent("tok", ProtocolVersion::V1_0, v1::TaskState::InputRequired);
        assert!(matches!(deliver(&mut rx, &a).0, Ok(Delivery::Event { .. })));
        assert!(matches!(deliver(&mut rx, &b).0, Ok(Delivery::Event { .. })));
        assert!(matches!(deliver(&mut rx, &a).0, Ok(Delivery::Event { .. })), "older than the window: handed over again");
        rx.forget_task("t-1");
        assert_eq!(deliver(&mut rx, &a).1.status, 404);
    }
}
