//! The receiving end of push notifications (`NativeWebhookReceiver`), sans-IO: the core's
//! `webhook::receiver::Receiver` (credentials compared in constant time, only expected
//! tasks, each event handed over once, v0.3 bodies translated) behind one class. The
//! package's `WebhookReceiver` and `WebhookEndpoint` (`lib/webhook.js`) wrap it; the
//! endpoint reads the HTTP requests and writes the answers.

use crate::codec::Bytes;
use crate::errors;
use a2a::http::{HttpRequest, HttpResponse};
use a2a::v1;
use a2a::webhook::receiver::{Delivery, Receiver};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// What one delivery was, and the HTTP answer to send back. `kind`: `"event"` (with
/// `taskId` and `event`, the ProtoJSON of its v1.0 StreamResponse), `"duplicate"` (with
/// `taskId`), or `"refused"` (with `error`, the description of the A2A error). Headers are
/// flat `[name, value, ...]`.
#[napi(object, object_from_js = false)]
pub struct ReceivedDelivery {
    pub kind: String,
    pub task_id: Option<String>,
    pub event: Option<String>,
    pub error: Option<String>,
    pub status: u32,
    pub headers: Vec<String>,
    #[napi(ts_type = "Buffer")]
    pub body: Bytes,
}

/// An HTTP answer (status, flat headers, body).
#[napi(object, object_from_js = false)]
pub struct WebhookAnswer {
    pub status: u32,
    pub headers: Vec<String>,
    #[napi(ts_type = "Buffer")]
    pub body: Bytes,
}

fn flat(headers: Vec<(String, String)>) -> Vec<String> {
    headers.into_iter().flat_map(|(n, v)| [n, v]).collect()
}

/// The receiving end of one webhook.
#[napi]
pub struct NativeWebhookReceiver {
    receiver: Receiver,
}

#[napi]
impl NativeWebhookReceiver {
    /// A receiver requiring the push config's `token` (in `A2A-Notification-Token` or
    /// `X-A2A-Notification-Token`), the whole `Authorization` value, or both; `window`
    /// recent events per task are remembered to recognize redeliveries (default 256).
    #[napi(constructor, catch_unwind)]
    pub fn new(token: Option<String>, authorization: Option<String>, window: Option<u32>) -> Result<Self> {
        let receiver = Receiver::with_credentials(token.as_deref(), authorization.as_deref()).map_err(errors::type_error)?;
        let receiver = match window {
            Some(0) => return Err(errors::range_error("window must be at least 1 event")),
            Some(n) => receiver.window(n as usize),
            None => receiver,
        };
        Ok(NativeWebhookReceiver { receiver })
    }

    /// Accept events for `taskId` from now on.
    #[napi(catch_unwind)]
    pub fn expect_task(&mut self, task_id: String) {
        self.receiver.expect_task(&task_id);
    }

    /// Stop accepting events for `taskId` (and forget what was seen of it).
    #[napi(catch_unwind)]
    pub fn forget_task(&mut self, task_id: String) {
        self.receiver.forget_task(&task_id);
    }

    /// True when events for `taskId` are accepted.
    #[napi(catch_unwind)]
    pub fn expects(&self, task_id: String) -> bool {
        self.receiver.expects(&task_id)
    }

    /// Judges one delivery: `method`, `headers` (flat `[name, value, ...]`), `body`.
    #[napi(catch_unwind)]
    pub fn handle(&mut self, method: String, headers: Vec<String>, body: Uint8Array) -> Result<ReceivedDelivery> {
        let refs: Vec<(&str, &str)> = headers.chunks_exact(2).map(|p| (p[0].as_str(), p[1].as_str())).collect();
        let req = HttpRequest { method: &method, target: "/", headers: &refs, body: &body };
        let (verdict, response) = self.receiver.handle(&req);
        let HttpResponse { status, headers, body, .. } = response;
        let (kind, task_id, event, error) = match verdict {
            Ok(Delivery::Event { task_id, event }) => ("event", Some(task_id), Some(crate::run::json(&event)?), None),
            Ok(Delivery::Duplicate { task_id }) => ("duplicate", Some(task_id), None, None),
            Err(e) => ("refused", None, None, Some(errors::a2a_desc(&e, None, None).to_string())),
        };
        Ok(ReceivedDelivery {
            kind: kind.into(),
            task_id,
            event,
            error,
            status: u32::from(status),
            headers: flat(headers),
            body: Bytes(body),
        })
    }

    /// The application could not take the event `event` (ProtoJSON of a StreamResponse) of
    /// `taskId`: it is forgotten, so that the sender's redelivery is handed over again, and
    /// the answer is 503 with `Retry-After`. Without `event` (a duplicate), nothing is
    /// forgotten.
    #[napi(catch_unwind)]
    pub fn retry_later(&mut self, task_id: String, event: Option<String>) -> Result<WebhookAnswer> {
        let delivery = match event {
            Some(text) => {
                let event: v1::StreamResponse = crate::run::decode(&text)?;
                Delivery::Event { task_id, event }
            }
            None => Delivery::Duplicate { task_id },
        };
        let HttpResponse { status, headers, body, .. } = self.receiver.retry_later(&delivery);
        Ok(WebhookAnswer { status: u32::from(status), headers: flat(headers), body: Bytes(body) })
    }
}
