//! The ready server's authentication callback (`a2a_server_config_set_authenticate`): C
//! judges each call from the whole request, on a thread of the blocking pool (never the
//! thread that serves the connections), and the call waits for the verdict.

use crate::{a2a_result, a2a_str, arg, arg_mut, guard, guard_value, invalid, out, str_arg};
use a2a::error::{A2aError, ErrorKind};
use a2a_wire_smol::host::{AuthCall, AuthHook, AuthVerdict};
use core::ffi::{c_char, c_void};

/// What an authentication callback answers.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_auth_verdict {
    /// Let the call in, as the principal set with `a2a_auth_call_set_principal` (none set:
    /// anonymous).
    Allow = 0,
    /// Refuse it: HTTP 401 / gRPC `UNAUTHENTICATED`, with `WWW-Authenticate` naming the
    /// card's schemes.
    Unauthenticated = 1,
    /// Refuse it: HTTP 403 / gRPC `PERMISSION_DENIED`.
    PermissionDenied = 2,
}

/// A call to judge: the HTTP request and what the core read in it. Borrowed for the
/// callback (do not keep it).
pub struct a2a_auth_call {
    call: AuthCall,
    peer: String,
    principal: Option<String>,
}

/// Judges one call (see `a2a_auth_call_*` for what it can read). Returns an
/// `a2a_auth_verdict`; any other value refuses the call with an internal error. Called on a
/// thread of the server's blocking pool, several at once for different calls: it may block
/// (ask a database, a token service), and `userdata` must be usable from any thread. It
/// must return normally: no C++ exception and no `longjmp` may leave it.
pub type a2a_authenticate_callback = Option<unsafe extern "C" fn(userdata: *mut c_void, call: *mut a2a_auth_call) -> u32>;

/// The callback and its pointer, as a server config keeps them.
#[derive(Clone, Copy)]
pub(crate) struct Authenticate {
    callback: unsafe extern "C" fn(userdata: *mut c_void, call: *mut a2a_auth_call) -> u32,
    userdata: *mut c_void,
}

// SAFETY: the callback's contract (`a2a_authenticate_callback`): callable from any thread,
// several at once, with `userdata` usable from any thread.
unsafe impl Send for Authenticate {}
// SAFETY: as above.
unsafe impl Sync for Authenticate {}

impl Authenticate {
    pub(crate) fn new(callback: a2a_authenticate_callback, userdata: *mut c_void) -> Result<Authenticate, crate::a2a_error> {
        let callback = callback.ok_or_else(|| crate::null("callback"))?;
        Ok(Authenticate { callback, userdata })
    }

    /// The transport's hook: each call judged on the blocking pool.
    pub(crate) fn hook(self) -> AuthHook {
        AuthHook::new_async(move |call: AuthCall| {
            let me = self;
            smol::unblock(move || me.judge(call))
        })
    }

    fn judge(self, call: AuthCall) -> AuthVerdict {
        let peer = call.peer.map(|a| a.to_string()).unwrap_or_default();
        let mut c = a2a_auth_call { call, peer, principal: None };
        // SAFETY: the application's callback, with a call that lives until it returns.
        let v = unsafe { (self.callback)(self.userdata, &mut c) };
        match v {
            0 => Ok(c.principal),
            1 => Err(A2aError::new(ErrorKind::Unauthenticated)),
            2 => Err(A2aError::new(ErrorKind::PermissionDenied)),
            _ => Err(A2aError::with_message(ErrorKind::Internal, "authentication failed")),
        }
    }
}

fn call_arg<'a>(call: *const a2a_auth_call) -> Result<&'a a2a_auth_call, crate::a2a_error> {
    arg(call, "call")
}

/// The HTTP method (gRPC: `POST`). Borrowed from `call`.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_method(call: *const a2a_auth_call) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(call_arg(call).map_or(&b""[..], |c| c.call.http_method.as_bytes())))
}

/// The request target: path and query (gRPC: the `:path`). Borrowed from `call`.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_target(call: *const a2a_auth_call) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(call_arg(call).map_or(&b""[..], |c| c.call.target.as_bytes())))
}

/// The peer's address as `IP:PORT` (`[IP]:PORT` for IPv6); empty when unknown. Borrowed from
/// `call`.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_peer(call: *const a2a_auth_call) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(call_arg(call).map_or(&b""[..], |c| c.peer.as_bytes())))
}

/// The A2A operation (an `a2a_method`), 0 for NULL.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_operation(call: *const a2a_auth_call) -> crate::a2a_method_param {
    guard_value(0, || call_arg(call).map_or(0, |c| c.call.call.method.number()))
}

/// The tenant the call names (empty: none). Borrowed from `call`.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_tenant(call: *const a2a_auth_call) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(call_arg(call).map_or(&b""[..], |c| c.call.call.tenant.as_bytes())))
}

/// The first value of header `name` (any case) into `*value_out`, borrowed from `call`;
/// `A2A_RESULT_NONE` when the request has no such header.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_header(
    call: *const a2a_auth_call,
    name: *const c_char,
    name_len: usize,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| {
        let c = call_arg(call)?;
        let n = str_arg(name, name_len, "name")?;
        let o = out(value_out, "value_out")?;
        let v = c.call.header(n).ok_or_else(|| crate::a2a_error::local(a2a_result::None, format!("no header {n:?}")))?;
        *o = a2a_str::of(v.as_bytes());
        Ok(())
    })
}

/// How many headers the request has (gRPC: metadata entries), in the order received.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_header_count(call: *const a2a_auth_call) -> usize {
    guard_value(0, || call_arg(call).map_or(0, |c| c.call.headers.len()))
}

/// Header `index` (from 0): its name and value, borrowed from `call`;
/// `A2A_RESULT_INVALID_ARGUMENT` past the end.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_header_at(
    call: *const a2a_auth_call,
    index: usize,
    name_out: *mut a2a_str,
    value_out: *mut a2a_str,
) -> a2a_result {
    guard(|| {
        let c = call_arg(call)?;
        let (n, v) =
            c.call.headers.get(index).ok_or_else(|| invalid(format!("header {index}: the request has {}", c.call.headers.len())))?;
        let no = out(name_out, "name_out")?;
        let vo = out(value_out, "value_out")?;
        *no = a2a_str::of(n.as_bytes());
        *vo = a2a_str::of(v.as_bytes());
        Ok(())
    })
}

/// Names the caller: with `A2A_AUTH_VERDICT_ALLOW` the call goes on as `principal` (copied),
/// the agent sees it (`a2a_run_principal`) and the principal sees only its own tasks.
/// `A2A_RESULT_INVALID_ARGUMENT` for an empty principal.
/// Threads: the callback's.
#[no_mangle]
pub extern "C" fn a2a_auth_call_set_principal(call: *mut a2a_auth_call, principal: *const c_char, principal_len: usize) -> a2a_result {
    guard(|| {
        let c = arg_mut(call, "call")?;
        let p = str_arg(principal, principal_len, "principal")?;
        if p.is_empty() {
            return Err(invalid("`principal` is empty"));
        }
        c.principal = Some(String::from(p));
        Ok(())
    })
}
