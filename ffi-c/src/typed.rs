//! Typed views of the messages a C program reads most: `a2a_task`, `a2a_message`,
//! `a2a_artifact`, `a2a_part`, `a2a_event` (a stream event) and `a2a_reply` (what
//! SendMessage answers). Decode one from ProtoJSON or protobuf (validated), read it with
//! accessors, encode it back. Views into a message (`a2a_task_artifact`, ...) are borrowed
//! from the handle they came from and need no free; only decoded handles are freed.
//! Handles are plain data: any thread, one at a time for a free.

use crate::error::a2a_error;
use crate::service::a2a_task_state;
use crate::{a2a_bytes, a2a_result, a2a_str, bytes_arg, bytes_out, guard, guard_value, invalid, out};
use a2a::codec::{json, protobuf, Message};
use a2a::v1;

// The handles are opaque, zero-sized types (as in rustls-ffi): a pointer to one is a pointer
// to the proto message itself, cast. A message inside another (a task's artifact) is handed
// out as a borrowed view without a copy; a decoded one is a Box of the message.

/// A Task (`lf.a2a.v1.Task`).
pub struct a2a_task {
    _private: [u8; 0],
}

/// A Message (`lf.a2a.v1.Message`).
pub struct a2a_message {
    _private: [u8; 0],
}

/// An Artifact (`lf.a2a.v1.Artifact`).
pub struct a2a_artifact {
    _private: [u8; 0],
}

/// A Part of a message or an artifact (`lf.a2a.v1.Part`): text, raw bytes, a URL or data.
pub struct a2a_part {
    _private: [u8; 0],
}

/// A stream event (`lf.a2a.v1.StreamResponse`): a task, a message, a status update or an
/// artifact update.
pub struct a2a_event {
    _private: [u8; 0],
}

/// The answer to SendMessage (`lf.a2a.v1.SendMessageResponse`): a task or a message.
pub struct a2a_reply {
    _private: [u8; 0],
}

macro_rules! castable {
    ($($name:ident => $ty:ty),* $(,)?) => {
        $(impl $name {
            /// A borrowed view of `v` (valid as long as `v`).
            pub(crate) fn of(v: &$ty) -> *const $name {
                (v as *const $ty).cast()
            }
            /// The message behind a handle or view.
            fn get<'a>(p: *const $name, name: &str) -> Result<&'a $ty, a2a_error> {
                // SAFETY: every pointer of this type the library hands out points at a `$ty`
                // (made by `of` or `boxed`); the caller passes one of those, or NULL.
                unsafe { p.cast::<$ty>().as_ref() }.ok_or_else(|| crate::null(name))
            }
            /// An owned handle (views of parts and artifacts are never owned).
            #[allow(dead_code)]
            fn boxed(v: $ty) -> *mut $name {
                Box::into_raw(Box::new(v)).cast()
            }
            /// Frees an owned handle (NULL does nothing).
            #[allow(dead_code)]
            fn free(p: *mut $name) {
                if !p.is_null() {
                    // SAFETY: `p` came from `boxed` (documented: never a borrowed view), once.
                    drop(unsafe { Box::from_raw(p.cast::<$ty>()) });
                }
            }
        })*
    };
}

castable!(
    a2a_task => v1::Task,
    a2a_message => v1::Message,
    a2a_artifact => v1::Artifact,
    a2a_part => v1::Part,
    a2a_event => v1::StreamResponse,
    a2a_reply => v1::SendMessageResponse,
);

fn decode<T: Message>(format: crate::a2a_format_param, input: *const u8, input_len: usize) -> Result<T, a2a_error> {
    let b = bytes_arg(input, input_len, "input")?;
    match format {
        1 => json::decode(b),
        2 => protobuf::decode(b),
        f => return Err(invalid(format!("{f} is not an a2a_format"))),
    }
    .map_err(|e| a2a_error::decode(&e))
}

fn encode<T: Message>(v: &T, format: crate::a2a_format_param) -> Result<Vec<u8>, a2a_error> {
    match format {
        1 => json::encode(v).map_err(|e| a2a_error::local(a2a_result::Encode, e.to_string())),
        2 => Ok(protobuf::encode(v)),
        f => Err(invalid(format!("{f} is not an a2a_format"))),
    }
}

fn s(v: &str) -> a2a_str {
    a2a_str::of(v.as_bytes())
}

fn empty() -> a2a_str {
    a2a_str::of(b"")
}

fn state_of(status: Option<&v1::TaskStatus>) -> a2a_task_state {
    use a2a_task_state as S;
    match status.map(|s| v1::TaskState::try_from(s.state).unwrap_or(v1::TaskState::Unspecified)) {
        Some(v1::TaskState::Submitted) => S::Submitted,
        Some(v1::TaskState::Working) => S::Working,
        Some(v1::TaskState::Completed) => S::Completed,
        Some(v1::TaskState::Failed) => S::Failed,
        Some(v1::TaskState::Canceled) => S::Canceled,
        Some(v1::TaskState::InputRequired) => S::InputRequired,
        Some(v1::TaskState::Rejected) => S::Rejected,
        Some(v1::TaskState::AuthRequired) => S::AuthRequired,
        _ => S::Unspecified,
    }
}

// ---------------------------------------------------------------- task

/// Decodes (and validates) a Task from `input` in `format` (an `a2a_format`) into
/// `*task_out`; free it with `a2a_task_free`.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_decode(
    format: crate::a2a_format_param,
    input: *const u8,
    input_len: usize,
    task_out: *mut *mut a2a_task,
) -> a2a_result {
    guard(|| {
        let o = out(task_out, "task_out")?;
        *o = a2a_task::boxed(decode(format, input, input_len)?);
        Ok(())
    })
}

/// Encodes a task in `format` into `*bytes_out` (ProtoJSON is canonical).
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_encode(task: *const a2a_task, format: crate::a2a_format_param, bytes_out: *mut *mut a2a_bytes) -> a2a_result {
    guard(|| {
        let t = a2a_task::get(task, "task")?;
        let o = out(bytes_out, "bytes_out")?;
        crate::bytes_out(o, encode(t, format)?);
        Ok(())
    })
}

/// The task's id.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_id(task: *const a2a_task) -> a2a_str {
    guard_value(empty(), || a2a_task::get(task, "task").map_or(empty(), |t| s(&t.id)))
}

/// The task's context id.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_context_id(task: *const a2a_task) -> a2a_str {
    guard_value(empty(), || a2a_task::get(task, "task").map_or(empty(), |t| s(&t.context_id)))
}

/// The task's state (`A2A_TASK_STATE_UNSPECIFIED` when it has no status, or for NULL).
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_get_state(task: *const a2a_task) -> a2a_task_state {
    guard_value(a2a_task_state::Unspecified, || {
        a2a_task::get(task, "task").map_or(a2a_task_state::Unspecified, |t| state_of(t.status.as_ref()))
    })
}

/// The message of the task's status (an agent's question, say); NULL when none.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_status_message(task: *const a2a_task) -> *const a2a_message {
    guard_value(core::ptr::null(), || {
        a2a_task::get(task, "task").ok().and_then(|t| t.status.as_ref()?.message.as_ref()).map_or(core::ptr::null(), a2a_message::of)
    })
}

/// The number of artifacts.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_artifact_count(task: *const a2a_task) -> usize {
    guard_value(0, || a2a_task::get(task, "task").map_or(0, |t| t.artifacts.len()))
}

/// Artifact `index`, borrowed from `task`; NULL past the end.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_artifact(task: *const a2a_task, index: usize) -> *const a2a_artifact {
    guard_value(core::ptr::null(), || {
        a2a_task::get(task, "task").ok().and_then(|t| t.artifacts.get(index)).map_or(core::ptr::null(), a2a_artifact::of)
    })
}

/// The number of messages in the task's history.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_history_count(task: *const a2a_task) -> usize {
    guard_value(0, || a2a_task::get(task, "task").map_or(0, |t| t.history.len()))
}

/// History message `index`, borrowed from `task`; NULL past the end.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_history(task: *const a2a_task, index: usize) -> *const a2a_message {
    guard_value(core::ptr::null(), || {
        a2a_task::get(task, "task").ok().and_then(|t| t.history.get(index)).map_or(core::ptr::null(), a2a_message::of)
    })
}

/// Frees a decoded task; NULL does nothing. Never pass a borrowed view.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_task_free(task: *mut a2a_task) {
    guard_value((), || a2a_task::free(task))
}

// ---------------------------------------------------------------- message

/// Decodes (and validates) a Message into `*message_out`; free it with `a2a_message_free`.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_decode(
    format: crate::a2a_format_param,
    input: *const u8,
    input_len: usize,
    message_out: *mut *mut a2a_message,
) -> a2a_result {
    guard(|| {
        let o = out(message_out, "message_out")?;
        *o = a2a_message::boxed(decode(format, input, input_len)?);
        Ok(())
    })
}

/// Encodes a message in `format` into `*bytes_out`.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_encode(
    message: *const a2a_message,
    format: crate::a2a_format_param,
    bytes_out: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let m = a2a_message::get(message, "message")?;
        let o = out(bytes_out, "bytes_out")?;
        crate::bytes_out(o, encode(m, format)?);
        Ok(())
    })
}

/// The message's id.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_id(message: *const a2a_message) -> a2a_str {
    guard_value(empty(), || a2a_message::get(message, "message").map_or(empty(), |m| s(&m.message_id)))
}

/// The id of the task the message belongs to (empty when none).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_task_id(message: *const a2a_message) -> a2a_str {
    guard_value(empty(), || a2a_message::get(message, "message").map_or(empty(), |m| s(&m.task_id)))
}

/// The message's context id (empty when none).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_context_id(message: *const a2a_message) -> a2a_str {
    guard_value(empty(), || a2a_message::get(message, "message").map_or(empty(), |m| s(&m.context_id)))
}

/// True when the agent sent the message (false for the user's, and for NULL).
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_is_agent(message: *const a2a_message) -> bool {
    guard_value(false, || a2a_message::get(message, "message").is_ok_and(|m| m.role == v1::Role::Agent as i32))
}

/// The number of parts.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_part_count(message: *const a2a_message) -> usize {
    guard_value(0, || a2a_message::get(message, "message").map_or(0, |m| m.parts.len()))
}

/// Part `index`, borrowed from `message`; NULL past the end.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_part(message: *const a2a_message, index: usize) -> *const a2a_part {
    guard_value(core::ptr::null(), || {
        a2a_message::get(message, "message").ok().and_then(|m| m.parts.get(index)).map_or(core::ptr::null(), a2a_part::of)
    })
}

/// Frees a decoded message; NULL does nothing. Never pass a borrowed view.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_message_free(message: *mut a2a_message) {
    guard_value((), || a2a_message::free(message))
}

// ---------------------------------------------------------------- artifact and part

/// The artifact's id.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_artifact_id(artifact: *const a2a_artifact) -> a2a_str {
    guard_value(empty(), || a2a_artifact::get(artifact, "artifact").map_or(empty(), |a| s(&a.artifact_id)))
}

/// The artifact's name (empty when none).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_artifact_name(artifact: *const a2a_artifact) -> a2a_str {
    guard_value(empty(), || a2a_artifact::get(artifact, "artifact").map_or(empty(), |a| s(&a.name)))
}

/// The number of parts.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_artifact_part_count(artifact: *const a2a_artifact) -> usize {
    guard_value(0, || a2a_artifact::get(artifact, "artifact").map_or(0, |a| a.parts.len()))
}

/// Part `index`, borrowed from `artifact`; NULL past the end.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_artifact_part(artifact: *const a2a_artifact, index: usize) -> *const a2a_part {
    guard_value(core::ptr::null(), || {
        a2a_artifact::get(artifact, "artifact").ok().and_then(|a| a.parts.get(index)).map_or(core::ptr::null(), a2a_part::of)
    })
}

/// What a part holds (`a2a_part_get_kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_part_kind {
    /// Nothing (an invalid part, or NULL).
    None = 0,
    /// Text (`a2a_part_text`).
    Text = 1,
    /// Raw bytes (`a2a_part_raw`).
    Raw = 2,
    /// A URL to the content (`a2a_part_url`).
    Url = 3,
    /// Structured data (`a2a_part_data_json`).
    Data = 4,
}

/// The part's kind (an `a2a_part_kind`).
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_get_kind(part: *const a2a_part) -> u32 {
    use v1::part::Content as C;
    guard_value(0, || {
        (match a2a_part::get(part, "part").ok().and_then(|p| p.content.as_ref()) {
            Some(C::Text(_)) => a2a_part_kind::Text,
            Some(C::Raw(_)) => a2a_part_kind::Raw,
            Some(C::Url(_)) => a2a_part_kind::Url,
            Some(C::Data(_)) => a2a_part_kind::Data,
            None => a2a_part_kind::None,
        }) as u32
    })
}

/// A text part's text; empty for other kinds.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_text(part: *const a2a_part) -> a2a_str {
    guard_value(empty(), || match a2a_part::get(part, "part").ok().and_then(|p| p.content.as_ref()) {
        Some(v1::part::Content::Text(t)) => s(t),
        _ => empty(),
    })
}

/// A raw part's bytes; empty for other kinds.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_raw(part: *const a2a_part) -> a2a_str {
    guard_value(empty(), || match a2a_part::get(part, "part").ok().and_then(|p| p.content.as_ref()) {
        Some(v1::part::Content::Raw(b)) => a2a_str::of(b),
        _ => empty(),
    })
}

/// A URL part's URL; empty for other kinds.
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_url(part: *const a2a_part) -> a2a_str {
    guard_value(empty(), || match a2a_part::get(part, "part").ok().and_then(|p| p.content.as_ref()) {
        Some(v1::part::Content::Url(u)) => s(u),
        _ => empty(),
    })
}

/// A data part's value as JSON into `*json_out` (free it with `a2a_bytes_free`);
/// `A2A_RESULT_NONE` for other kinds.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_data_json(part: *const a2a_part, json_out: *mut *mut a2a_bytes) -> a2a_result {
    guard(|| {
        let p = a2a_part::get(part, "part")?;
        let o = out(json_out, "json_out")?;
        match &p.content {
            Some(v1::part::Content::Data(v)) => {
                bytes_out(o, json::encode(v).map_err(|e| a2a_error::local(a2a_result::Decode, e.to_string()))?);
                Ok(())
            }
            _ => Err(a2a_error::local(a2a_result::None, String::from("not a data part"))),
        }
    })
}

/// The part's media type (empty when none).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_media_type(part: *const a2a_part) -> a2a_str {
    guard_value(empty(), || a2a_part::get(part, "part").map_or(empty(), |p| s(&p.media_type)))
}

/// The part's file name (empty when none).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any, while the handle the view came from lives.
#[no_mangle]
pub extern "C" fn a2a_part_filename(part: *const a2a_part) -> a2a_str {
    guard_value(empty(), || a2a_part::get(part, "part").map_or(empty(), |p| s(&p.filename)))
}

// ---------------------------------------------------------------- events and replies

/// What a stream event is (`a2a_event_get_kind`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_event_kind {
    /// Nothing (an invalid event, or NULL).
    None = 0,
    /// The whole task (`a2a_event_task`).
    Task = 1,
    /// A message (`a2a_event_message`).
    Message = 2,
    /// The task's status changed (`a2a_event_state`, `a2a_event_status_message`).
    StatusUpdate = 3,
    /// An artifact, or a chunk of one (`a2a_event_artifact`, `a2a_event_is_append`,
    /// `a2a_event_is_last_chunk`).
    ArtifactUpdate = 4,
}

/// Decodes (and validates) a stream event into `*event_out`; free it with `a2a_event_free`.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_decode(
    format: crate::a2a_format_param,
    input: *const u8,
    input_len: usize,
    event_out: *mut *mut a2a_event,
) -> a2a_result {
    guard(|| {
        let o = out(event_out, "event_out")?;
        *o = a2a_event::boxed(decode(format, input, input_len)?);
        Ok(())
    })
}

/// The event's payload; the views made from it are valid as long as `ev` (the header says so).
fn payload<'a>(ev: *const a2a_event) -> Option<&'a v1::stream_response::Payload> {
    a2a_event::get(ev, "event").ok().and_then(|e| e.payload.as_ref())
}

/// The event's kind (an `a2a_event_kind`).
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_get_kind(event: *const a2a_event) -> u32 {
    use v1::stream_response::Payload as P;
    guard_value(0, || {
        (match payload(event) {
            Some(P::Task(_)) => a2a_event_kind::Task,
            Some(P::Message(_)) => a2a_event_kind::Message,
            Some(P::StatusUpdate(_)) => a2a_event_kind::StatusUpdate,
            Some(P::ArtifactUpdate(_)) => a2a_event_kind::ArtifactUpdate,
            None => a2a_event_kind::None,
        }) as u32
    })
}

/// The id of the task the event is about (for a message, its task id).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_task_id(event: *const a2a_event) -> a2a_str {
    use v1::stream_response::Payload as P;
    guard_value(empty(), || match payload(event) {
        Some(P::Task(t)) => s(&t.id),
        Some(P::Message(m)) => s(&m.task_id),
        Some(P::StatusUpdate(u)) => s(&u.task_id),
        Some(P::ArtifactUpdate(u)) => s(&u.task_id),
        None => empty(),
    })
}

/// A TASK event's task, borrowed from `event`; NULL otherwise.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_task(event: *const a2a_event) -> *const a2a_task {
    guard_value(core::ptr::null(), || match payload(event) {
        Some(v1::stream_response::Payload::Task(t)) => a2a_task::of(t),
        _ => core::ptr::null(),
    })
}

/// A MESSAGE event's message, borrowed from `event`; NULL otherwise.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_message(event: *const a2a_event) -> *const a2a_message {
    guard_value(core::ptr::null(), || match payload(event) {
        Some(v1::stream_response::Payload::Message(m)) => a2a_message::of(m),
        _ => core::ptr::null(),
    })
}

/// The task state a TASK or STATUS_UPDATE event carries; UNSPECIFIED otherwise.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_state(event: *const a2a_event) -> a2a_task_state {
    use v1::stream_response::Payload as P;
    guard_value(a2a_task_state::Unspecified, || match payload(event) {
        Some(P::Task(t)) => state_of(t.status.as_ref()),
        Some(P::StatusUpdate(u)) => state_of(u.status.as_ref()),
        _ => a2a_task_state::Unspecified,
    })
}

/// The status message of a STATUS_UPDATE event, borrowed from `event`; NULL otherwise.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_status_message(event: *const a2a_event) -> *const a2a_message {
    guard_value(core::ptr::null(), || match payload(event) {
        Some(v1::stream_response::Payload::StatusUpdate(u)) => {
            u.status.as_ref().and_then(|s| s.message.as_ref()).map_or(core::ptr::null(), a2a_message::of)
        }
        _ => core::ptr::null(),
    })
}

/// The artifact of an ARTIFACT_UPDATE event, borrowed from `event`; NULL otherwise.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_artifact(event: *const a2a_event) -> *const a2a_artifact {
    guard_value(core::ptr::null(), || match payload(event) {
        Some(v1::stream_response::Payload::ArtifactUpdate(u)) => u.artifact.as_ref().map_or(core::ptr::null(), a2a_artifact::of),
        _ => core::ptr::null(),
    })
}

/// True for an ARTIFACT_UPDATE that appends to an artifact sent before.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_is_append(event: *const a2a_event) -> bool {
    guard_value(false, || matches!(payload(event), Some(v1::stream_response::Payload::ArtifactUpdate(u)) if u.append))
}

/// True for an ARTIFACT_UPDATE whose artifact is now complete.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_is_last_chunk(event: *const a2a_event) -> bool {
    guard_value(false, || matches!(payload(event), Some(v1::stream_response::Payload::ArtifactUpdate(u)) if u.last_chunk))
}

/// Frees a decoded event; NULL does nothing.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_event_free(event: *mut a2a_event) {
    guard_value((), || a2a_event::free(event))
}

/// Decodes (and validates) a SendMessage answer into `*reply_out`; free it with
/// `a2a_reply_free`.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_reply_decode(
    format: crate::a2a_format_param,
    input: *const u8,
    input_len: usize,
    reply_out: *mut *mut a2a_reply,
) -> a2a_result {
    guard(|| {
        let o = out(reply_out, "reply_out")?;
        *o = a2a_reply::boxed(decode(format, input, input_len)?);
        Ok(())
    })
}

/// The reply's task, borrowed from `reply`; NULL when the agent answered with a message.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_reply_task(reply: *const a2a_reply) -> *const a2a_task {
    guard_value(core::ptr::null(), || match a2a_reply::get(reply, "reply").ok().and_then(|r| r.payload.as_ref()) {
        Some(v1::send_message_response::Payload::Task(t)) => a2a_task::of(t),
        _ => core::ptr::null(),
    })
}

/// The reply's message, borrowed from `reply`; NULL when the agent answered with a task.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_reply_message(reply: *const a2a_reply) -> *const a2a_message {
    guard_value(core::ptr::null(), || match a2a_reply::get(reply, "reply").ok().and_then(|r| r.payload.as_ref()) {
        Some(v1::send_message_response::Payload::Message(m)) => a2a_message::of(m),
        _ => core::ptr::null(),
    })
}

/// Frees a decoded reply; NULL does nothing.
/// Threads: any (plain data); views are valid while their handle lives.
#[no_mangle]
pub extern "C" fn a2a_reply_free(reply: *mut a2a_reply) {
    guard_value((), || a2a_reply::free(reply))
}
