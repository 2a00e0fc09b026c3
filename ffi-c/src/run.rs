//! One agent run as C sees it (`a2a_run`): what the run is about, borrowed from the output
//! (sans-IO service) or the sink (ready server) it came with.

use crate::{a2a_error, a2a_result, a2a_str, arg, guard, guard_value, out};
use a2a::codec::json;
use a2a::engine::RunId;
use a2a::proto::google::protobuf::Struct;
use a2a::v1;

/// One agent run: what the agent needs to know. Borrowed from the output (or sink) it
/// came with.
#[derive(Clone, Debug)]
pub struct a2a_run {
    pub(crate) id: u64,
    pub(crate) task_id: String,
    pub(crate) context_id: String,
    pub(crate) message: v1::Message,
    /// Encoded when first asked for (most agents read only the text).
    message_json: std::sync::OnceLock<Vec<u8>>,
    pub(crate) text: String,
    pub(crate) principal: Option<String>,
    pub(crate) follow_up: bool,
    pub(crate) resumed: bool,
    task: Option<v1::Task>,
    task_json: std::sync::OnceLock<Vec<u8>>,
    tenant: String,
    metadata: Option<Struct>,
    metadata_json: std::sync::OnceLock<Vec<u8>>,
    /// The URIs of the active extensions.
    extensions: Vec<String>,
    configuration: Option<v1::SendMessageConfiguration>,
    configuration_json: std::sync::OnceLock<Vec<u8>>,
}

/// What the host knows of a run besides its ids and message.
pub(crate) struct RunExtra<'a> {
    pub(crate) principal: Option<&'a str>,
    pub(crate) extensions: &'a [String],
    pub(crate) follow_up: bool,
    pub(crate) resumed: bool,
    pub(crate) task: Option<&'a v1::Task>,
    pub(crate) tenant: &'a str,
    pub(crate) metadata: Option<&'a Struct>,
    pub(crate) configuration: Option<&'a v1::SendMessageConfiguration>,
}

pub(crate) use a2a_wire_smol::agent::message_text as text_of;

impl a2a_run {
    pub(crate) fn new(id: RunId, task_id: &str, context_id: &str, message: &v1::Message, x: RunExtra<'_>) -> a2a_run {
        a2a_run {
            id: id.0,
            task_id: String::from(task_id),
            context_id: String::from(context_id),
            message: message.clone(),
            message_json: std::sync::OnceLock::new(),
            text: text_of(message),
            principal: x.principal.map(String::from),
            follow_up: x.follow_up,
            resumed: x.resumed,
            task: x.task.cloned(),
            task_json: std::sync::OnceLock::new(),
            tenant: String::from(x.tenant),
            metadata: x.metadata.cloned(),
            metadata_json: std::sync::OnceLock::new(),
            extensions: x.extensions.to_vec(),
            configuration: x.configuration.cloned(),
            configuration_json: std::sync::OnceLock::new(),
        }
    }

    fn message_json(&self) -> &[u8] {
        self.message_json.get_or_init(|| json::encode(&self.message).unwrap_or_default())
    }

    fn task_json(&self) -> Option<&[u8]> {
        let t = self.task.as_ref()?;
        Some(self.task_json.get_or_init(|| json::encode(t).unwrap_or_default()))
    }
}

/// The run's id (names its events and its end).
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_id(run: *const a2a_run) -> u64 {
    guard_value(0, || arg(run, "run").map_or(0, |r| r.id))
}

/// The id of the task the message belongs to. Borrowed from `run`.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_task_id(run: *const a2a_run) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(run, "run").map_or(&b""[..], |r| r.task_id.as_bytes())))
}

/// The context id. Borrowed from `run`.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_context_id(run: *const a2a_run) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(run, "run").map_or(&b""[..], |r| r.context_id.as_bytes())))
}

/// The user's message as canonical ProtoJSON (`lf.a2a.v1.Message`). Borrowed from `run`.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_message_json(run: *const a2a_run) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(run, "run").map_or(&b""[..], |r| r.message_json())))
}

/// The user's message, typed (borrowed from `run`; NULL for NULL).
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_message(run: *const a2a_run) -> *const crate::typed::a2a_message {
    guard_value(core::ptr::null(), || arg(run, "run").map_or(core::ptr::null(), |r| crate::typed::a2a_message::of(&r.message)))
}

/// The text of the message's text parts, concatenated. Borrowed from `run`.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_text(run: *const a2a_run) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(run, "run").map_or(&b""[..], |r| r.text.as_bytes())))
}

/// The caller's principal (as the authentication step judged it) into `*principal_out`;
/// `A2A_RESULT_NONE` for an anonymous caller.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_principal(run: *const a2a_run, principal_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let r = arg(run, "run")?;
        let o = out(principal_out, "principal_out")?;
        let p = r.principal.as_ref().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("anonymous caller")))?;
        *o = a2a_str::of(p.as_bytes());
        Ok(())
    })
}

/// True when the message continues an existing task.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_is_follow_up(run: *const a2a_run) -> bool {
    guard_value(false, || arg(run, "run").is_ok_and(|r| r.follow_up))
}

/// True when the run resumes a task whose run was lost in a restart.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_is_resumed(run: *const a2a_run) -> bool {
    guard_value(false, || arg(run, "run").is_ok_and(|r| r.resumed))
}

/// The task as stored when the run started (ProtoJSON `lf.a2a.v1.Task`) into
/// `*task_out`; `A2A_RESULT_NONE` for a task the run will create.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_task_json(run: *const a2a_run, task_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let r = arg(run, "run")?;
        let o = out(task_out, "task_out")?;
        let t = r.task_json().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("a new task")))?;
        *o = a2a_str::of(t);
        Ok(())
    })
}

/// The tenant the request named (empty: none). Borrowed from `run`.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_tenant(run: *const a2a_run) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(run, "run").map_or(&b""[..], |r| r.tenant.as_bytes())))
}

/// The request's metadata (`SendMessageRequest.metadata`, a JSON object) into
/// `*metadata_out`, borrowed from `run`; `A2A_RESULT_NONE` when the request sent none (and
/// for a resumed run).
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_metadata_json(run: *const a2a_run, metadata_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let r = arg(run, "run")?;
        let o = out(metadata_out, "metadata_out")?;
        let m = r.metadata.as_ref().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("no metadata")))?;
        *o = a2a_str::of(r.metadata_json.get_or_init(|| json::encode(m).unwrap_or_default()));
        Ok(())
    })
}

/// The request's configuration (ProtoJSON `lf.a2a.v1.SendMessageConfiguration`: accepted
/// output modes, history length, return immediately) into `*configuration_out`, borrowed
/// from `run`; `A2A_RESULT_NONE` when the request sent none (and for a resumed run).
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_configuration_json(run: *const a2a_run, configuration_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let r = arg(run, "run")?;
        let o = out(configuration_out, "configuration_out")?;
        let c = r.configuration.as_ref().ok_or_else(|| a2a_error::local(a2a_result::None, String::from("no configuration")))?;
        *o = a2a_str::of(r.configuration_json.get_or_init(|| json::encode(c).unwrap_or_default()));
        Ok(())
    })
}

/// How many extensions are active for the call (`A2A-Extensions` the card declares).
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_extension_count(run: *const a2a_run) -> usize {
    guard_value(0, || arg(run, "run").map_or(0, |r| r.extensions.len()))
}

/// The URI of active extension `index` (from 0), borrowed from `run`; empty past the end.
/// Threads: any, while the run's output or sink lives.
#[no_mangle]
pub extern "C" fn a2a_run_extension(run: *const a2a_run, index: usize) -> a2a_str {
    guard_value(a2a_str::of(b""), || {
        a2a_str::of(arg(run, "run").ok().and_then(|r| r.extensions.get(index)).map_or(&b""[..], |e| e.as_bytes()))
    })
}

/// The `a2a_task_state` names, by number.
const TASK_STATE_NAMES: [&core::ffi::CStr; 9] = [
    c"TASK_STATE_UNSPECIFIED",
    c"TASK_STATE_SUBMITTED",
    c"TASK_STATE_WORKING",
    c"TASK_STATE_COMPLETED",
    c"TASK_STATE_FAILED",
    c"TASK_STATE_CANCELED",
    c"TASK_STATE_INPUT_REQUIRED",
    c"TASK_STATE_REJECTED",
    c"TASK_STATE_AUTH_REQUIRED",
];

/// The proto name of task state `state` (`"TASK_STATE_COMPLETED"`), NUL-terminated and
/// static; `""` for a value that is not an `a2a_task_state`.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_task_state_name(state: crate::a2a_task_state_param) -> *const core::ffi::c_char {
    guard_value(c"".as_ptr(), || usize::try_from(state).ok().and_then(|i| TASK_STATE_NAMES.get(i)).map_or(c"".as_ptr(), |n| n.as_ptr()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn task_state_names_are_the_protos() {
        for n in 0..9u32 {
            let name = unsafe { core::ffi::CStr::from_ptr(super::a2a_task_state_name(n)) };
            let state = a2a::v1::TaskState::try_from(n as i32).map(|s| s.as_str_name());
            assert_eq!(Ok(name.to_str().unwrap_or("")), state, "{n}");
        }
        let past = unsafe { core::ffi::CStr::from_ptr(super::a2a_task_state_name(9)) };
        assert!(past.is_empty());
    }
}
