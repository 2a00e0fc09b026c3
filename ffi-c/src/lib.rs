//! The C ABI of a2a-wire (`liba2a_wire`, header `a2a_wire.h`), in the manner of rustls-ffi.
//!
//! Nothing here decides protocol: every function maps C types to the core
//! (`a2a_wire::service`, `a2a_wire::client`, the codecs) or to the smol transport's host of
//! non-future agents, and back.
//!
//! Conventions, for every exported function:
//! - opaque handle types with `_new`/`_free` pairs (a `_free` takes NULL and does nothing);
//! - inputs before outputs; every buffer is followed by its length; strings are UTF-8 with an
//!   explicit length (invalid UTF-8 is `A2A_RESULT_INVALID_UTF8`), never NUL-terminated
//!   unless the name says `_cstr`;
//! - every pointer is NULL-checked (`A2A_RESULT_NULL_PARAMETER`); a NULL data pointer is
//!   accepted only with a length of 0;
//! - outputs are written only when the call returns `A2A_RESULT_OK`;
//! - a panic inside becomes `A2A_RESULT_PANIC` (never an abort, never unwinding into C);
//! - after any failed call, `a2a_error_last()` describes the failure on the calling thread
//!   (the A2A error kind, its JSON-RPC code, HTTP status, gRPC status, reason, message and
//!   metadata; for a decode failure the JSON path).

#![allow(non_camel_case_types)]
// The exported functions take C pointers and say in the header what they must point at; as
// in rustls-ffi they are not `unsafe fn` (C has no such notion), and every one is checked.
#![allow(clippy::missing_safety_doc, clippy::not_unsafe_ptr_arg_deref)]
// `a2a_error` travels only on the failure path, once per failed call.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

pub mod auth;
pub mod client;
pub mod codec;
pub mod core_client;
pub mod error;
pub mod receiver;
pub mod run;
pub mod server;
pub mod service;
pub mod signing;
pub mod store;
pub mod typed;
mod workers;

pub use error::a2a_error;

use a2a::proto::google::protobuf::Timestamp;
use core::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The result of every fallible call. The values are stable and never reused.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_result {
    /// Success; the outputs were written.
    Ok = 0,
    /// A required pointer was NULL (or a data pointer was NULL with a length above 0).
    NullParameter = 1,
    /// A string was not UTF-8.
    InvalidUtf8 = 2,
    /// The library panicked (a bug); the call had no effect that can be relied on.
    Panic = 3,
    /// An A2A error: `a2a_error_last()` has its kind, codes, reason, message and metadata.
    A2aError = 4,
    /// The bytes did not decode as the message (`a2a_error_last()` names the JSON path).
    Decode = 5,
    /// No message type of that name.
    UnknownType = 6,
    /// An argument is out of range (an enum value, an address, a size).
    InvalidArgument = 7,
    /// The run was already ended (`a2a_sink_finish` / `a2a_sink_fail` called before).
    AlreadyEnded = 8,
    /// Nothing to return: no output waiting, no timer set, the stream is over. An answer, not
    /// a failure: it leaves `a2a_error_last()` as it was.
    None = 9,
    /// The connection failed (connect, read, write).
    Transport = 10,
    /// A time limit passed.
    Timeout = 11,
    /// The peer's answer breaks the protocol.
    Protocol = 12,
    /// The peer answered with an error that has no A2A meaning (a proxy's bare 404); never
    /// to be read as TaskNotFound. `a2a_error_last()` has the status.
    NotA2a = 13,
    /// The system refused (binding a port, starting a thread).
    Io = 14,
    /// A v0.3 ⇄ v1.0 translation was refused (`a2a_error_last()` names the path).
    Conversion = 15,
    /// The output buffer is too small; nothing was written.
    InsufficientSize = 16,
    /// The call does not fit the handle's state (an accessor of another output kind, an
    /// exchange fed out of order).
    WrongState = 17,
    /// The Agent Card is invalid, or none of its interfaces is usable.
    Card = 18,
    /// The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3).
    Local = 19,
    /// The message cannot be written in that format (a value ProtoJSON cannot hold, such
    /// as a timestamp outside years 1 to 9999 that came in protobuf).
    Encode = 20,
    /// TLS failed: the peer's certificate is not trusted or not for the name dialed, the
    /// handshake broke off, or a TLS file (certificate, key, CA) is unusable.
    Tls = 21,
    /// An Agent Card signature (spec 8.4) does not verify against the trusted keys, or the
    /// card is unsigned and a signature is required; also a signing key that cannot sign.
    Signature = 22,
    /// The stream was canceled (`a2a_stream_cancel`).
    Canceled = 23,
}

// Enum parameters. The header names each by its enum's typedef (`a2a_task_state`, ...;
// cbindgen.toml renames these aliases and does not emit them), while Rust reads a plain
// `u32`: a C caller may pass any number, and a value outside the enum is refused, never
// undefined behaviour.

/// An `a2a_task_state` as a parameter.
pub type a2a_task_state_param = u32;
/// An `a2a_method` as a parameter.
pub type a2a_method_param = u32;
/// An `a2a_format` as a parameter.
pub type a2a_format_param = u32;
/// An `a2a_error_kind` as a parameter.
pub type a2a_error_kind_param = u32;
/// An `a2a_result` as a parameter.
pub type a2a_result_param = u32;

/// A borrowed UTF-8 string (or byte string): `data` is not NUL-terminated. Valid as long as
/// the handle it was read from, unless the function says otherwise.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct a2a_str {
    /// The bytes (never NULL; an empty string points at a static empty buffer).
    pub data: *const c_char,
    /// Their number.
    pub len: usize,
}

impl a2a_str {
    pub(crate) fn of(s: &[u8]) -> a2a_str {
        if s.is_empty() {
            return a2a_str { data: c"".as_ptr(), len: 0 };
        }
        a2a_str { data: s.as_ptr().cast(), len: s.len() }
    }
}

/// A header field given to the library: name and value with their lengths.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct a2a_header {
    /// Field name (UTF-8).
    pub name: *const c_char,
    /// Its length.
    pub name_len: usize,
    /// Field value (UTF-8).
    pub value: *const c_char,
    /// Its length.
    pub value_len: usize,
}

/// An owned byte buffer the library returns (encoded messages, JSON). Free it with
/// `a2a_bytes_free`; read it with `a2a_bytes_data` / `a2a_bytes_len`.
pub struct a2a_bytes {
    pub(crate) bytes: Vec<u8>,
}

pub(crate) fn bytes_out(out: &mut *mut a2a_bytes, bytes: Vec<u8>) {
    *out = Box::into_raw(Box::new(a2a_bytes { bytes }));
}

/// Largest buffer a thread keeps for reuse after `a2a_bytes_free`.
const SPARE_KEEP: usize = 1 << 20;

thread_local! {
    /// One freed buffer per thread, reused by the next `bytes_copy` on that thread: a loop of
    /// encode / free then allocates nothing for its output (glibc's large-chunk path, with
    /// its consolidation of freed small chunks, is most of the cost otherwise).
    static SPARE: core::cell::Cell<Vec<u8>> = const { core::cell::Cell::new(Vec::new()) };
}

/// A copy of `b` in a buffer that is usually recycled.
pub(crate) fn bytes_copy(b: &[u8]) -> Vec<u8> {
    let mut v = SPARE.try_with(|s| s.take()).unwrap_or_default();
    // A spare much larger than the output stays for a larger one (a small output must not
    // hold on to a big buffer for as long as the caller keeps it).
    if v.capacity() > 2 * b.len() + 4096 {
        let _ = SPARE.try_with(|s| s.set(core::mem::take(&mut v)));
    }
    v.clear();
    v.extend_from_slice(b);
    v
}

fn recycle(v: Vec<u8>) {
    if v.capacity() > 0 && v.capacity() <= SPARE_KEEP {
        let _ = SPARE.try_with(|s| {
            let old = s.take();
            // Keep the larger of the two.
            s.set(if old.capacity() >= v.capacity() { old } else { v });
        });
    }
}

/// The bytes of `b` (NULL when `b` is NULL). Valid until `a2a_bytes_free(b)`. Any thread.
#[no_mangle]
pub extern "C" fn a2a_bytes_data(b: *const a2a_bytes) -> *const u8 {
    guard_value(core::ptr::null(), || match unsafe { b.as_ref() } {
        Some(b) if !b.bytes.is_empty() => b.bytes.as_ptr(),
        Some(_) => c"".as_ptr().cast(),
        None => core::ptr::null(),
    })
}

/// The number of bytes in `b` (0 when `b` is NULL). Any thread.
#[no_mangle]
pub extern "C" fn a2a_bytes_len(b: *const a2a_bytes) -> usize {
    guard_value(0, || unsafe { b.as_ref() }.map_or(0, |b| b.bytes.len()))
}

/// Frees a buffer the library returned; NULL does nothing. Any thread, once.
#[no_mangle]
pub extern "C" fn a2a_bytes_free(b: *mut a2a_bytes) {
    guard_value((), || {
        if !b.is_null() {
            // SAFETY: `b` came from `bytes_out` (Box::into_raw) and is freed once, as documented.
            let b = unsafe { Box::from_raw(b) };
            recycle(b.bytes);
        }
    })
}

/// The library's version, `MAJOR.MINOR.PATCH`, as a NUL-terminated static string (equal to
/// the header's `A2A_WIRE_VERSION`). Any thread.
#[no_mangle]
pub extern "C" fn a2a_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A short description of `result`, as a NUL-terminated static string ("unknown result" for
/// a value this library does not define). Any thread.
#[no_mangle]
pub extern "C" fn a2a_result_message(result: a2a_result_param) -> *const c_char {
    guard_value(c"unknown result".as_ptr(), || result_text(result).as_ptr())
}

fn result_text(result: u32) -> &'static core::ffi::CStr {
    match result {
        0 => c"success",
        1 => c"a required pointer was NULL",
        2 => c"a string is not valid UTF-8",
        3 => c"a2a-wire panicked (a bug); please report it",
        4 => c"an A2A error (see a2a_error_last)",
        5 => c"the bytes do not decode as the message",
        6 => c"no message type of that name",
        7 => c"an argument is out of range",
        8 => c"the run already ended",
        9 => c"nothing to return",
        10 => c"the connection failed",
        11 => c"a time limit passed",
        12 => c"the peer's answer breaks the A2A protocol",
        13 => c"the peer answered with an error that has no A2A meaning",
        14 => c"the system refused the operation",
        15 => c"the v0.3 / v1.0 translation was refused",
        16 => c"the output buffer is too small",
        17 => c"the call does not fit the handle's state",
        18 => c"the Agent Card is invalid or has no usable interface",
        19 => c"the request cannot be expressed on the selected interface",
        20 => c"the message cannot be written in that format",
        21 => c"TLS failed (an untrusted or misnamed certificate, a broken handshake, an unusable TLS file)",
        22 => c"the Agent Card signature does not verify, or a required signature is missing",
        23 => c"the stream was canceled",
        _ => c"unknown result",
    }
}

// ---------------------------------------------------------------- the panic boundary

/// Runs `f` behind the panic boundary: its failure (or a panic) becomes the thread's last
/// error and the returned result.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), a2a_error>) -> a2a_result {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => a2a_result::Ok,
        Ok(Err(e)) => {
            let r = e.result;
            // NONE is an answer ("nothing there"), not a failure: the last failure, which the
            // caller may be reading right now, stays as it was.
            if r != a2a_result::None {
                error::set_last(e);
            }
            r
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| String::from(*s))
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            error::set_last(a2a_error::local(a2a_result::Panic, format!("a2a-wire panicked: {what}")));
            a2a_result::Panic
        }
    }
}

/// Runs an infallible `f` behind the panic boundary; `fallback` if it panics.
pub(crate) fn guard_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

// ---------------------------------------------------------------- argument checks

pub(crate) fn null(name: &str) -> a2a_error {
    a2a_error::local(a2a_result::NullParameter, format!("`{name}` is NULL"))
}

pub(crate) fn invalid(message: impl Into<String>) -> a2a_error {
    a2a_error::local(a2a_result::InvalidArgument, message.into())
}

/// A handle argument.
pub(crate) fn arg<'a, T>(p: *const T, name: &str) -> Result<&'a T, a2a_error> {
    // SAFETY: the caller passes NULL or a pointer to a live `T` (the header's contract).
    unsafe { p.as_ref() }.ok_or_else(|| null(name))
}

/// A handle argument the call changes.
pub(crate) fn arg_mut<'a, T>(p: *mut T, name: &str) -> Result<&'a mut T, a2a_error> {
    // SAFETY: as `arg`; the header says the handle must not be used by two threads at once.
    unsafe { p.as_mut() }.ok_or_else(|| null(name))
}

/// An output pointer.
pub(crate) fn out<'a, T>(p: *mut T, name: &str) -> Result<&'a mut T, a2a_error> {
    // SAFETY: the caller passes NULL or a pointer to writable storage for a `T`.
    unsafe { p.as_mut() }.ok_or_else(|| null(name))
}

/// A buffer argument (NULL only with length 0).
pub(crate) fn bytes_arg<'a>(p: *const u8, len: usize, name: &str) -> Result<&'a [u8], a2a_error> {
    if p.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(name)) };
    }
    if len > isize::MAX as usize {
        return Err(invalid(format!("`{name}_len` is larger than any buffer")));
    }
    // SAFETY: the caller passes `len` readable bytes at `p` (the header's contract).
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

/// A UTF-8 string argument.
pub(crate) fn str_arg<'a>(p: *const c_char, len: usize, name: &str) -> Result<&'a str, a2a_error> {
    let b = bytes_arg(p.cast(), len, name)?;
    core::str::from_utf8(b).map_err(|e| a2a_error::local(a2a_result::InvalidUtf8, format!("`{name}` is not UTF-8: {e}")))
}

/// An optional UTF-8 string argument (NULL = absent).
pub(crate) fn opt_str_arg<'a>(p: *const c_char, len: usize, name: &str) -> Result<Option<&'a str>, a2a_error> {
    if p.is_null() {
        return Ok(None);
    }
    str_arg(p, len, name).map(Some)
}

/// An array of header fields received from a peer: names must be UTF-8 (they are ASCII
/// tokens on the wire), values that are not UTF-8 are read with U+FFFD in place of the
/// invalid bytes (such bytes are legal in HTTP; no A2A header value contains them, so the
/// service judges the request as if they were any other unknown value).
pub(crate) fn wire_headers_arg(p: *const a2a_header, n: usize, name: &str) -> Result<Vec<(String, String)>, a2a_error> {
    if p.is_null() {
        return if n == 0 { Ok(Vec::new()) } else { Err(null(name)) };
    }
    if n > isize::MAX as usize / core::mem::size_of::<a2a_header>() {
        return Err(invalid(format!("`{name}_len` is larger than any array")));
    }
    // SAFETY: the caller passes `n` header structs at `p`.
    let hs = unsafe { core::slice::from_raw_parts(p, n) };
    hs.iter()
        .enumerate()
        .map(|(i, h)| {
            let k = str_arg(h.name, h.name_len, &format!("{name}[{i}].name"))?;
            let v = bytes_arg(h.value.cast(), h.value_len, &format!("{name}[{i}].value"))?;
            Ok((String::from(k), String::from_utf8_lossy(v).into_owned()))
        })
        .collect()
}

/// Unix milliseconds as a protobuf timestamp.
pub(crate) fn timestamp(ms: i64) -> Timestamp {
    // rem_euclid(1000) is in 0..1000, so the nanos fit an i32.
    Timestamp { seconds: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) * 1_000_000) as i32 }
}

/// A protobuf timestamp as Unix milliseconds (saturating).
pub(crate) fn millis(t: &Timestamp) -> i64 {
    t.seconds.saturating_mul(1000).saturating_add(i64::from(t.nanos) / 1_000_000)
}

/// Frees a boxed handle; NULL does nothing.
pub(crate) fn free_box<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: `p` came from Box::into_raw in this library and is freed once (documented).
        drop(unsafe { Box::from_raw(p) });
    }
}

/// Writes a boxed handle to an output pointer.
pub(crate) fn box_out<T>(out: &mut *mut T, v: T) {
    *out = Box::into_raw(Box::new(v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_result_and_the_last_error_says_so() {
        let r = guard(|| panic!("deliberate"));
        assert_eq!(r, a2a_result::Panic);
        let e = error::a2a_error_last();
        assert!(!e.is_null());
        // SAFETY: a2a_error_last returned a live pointer to this thread's last error.
        let e = unsafe { &*e };
        assert_eq!(e.result, a2a_result::Panic);
        assert!(e.message.contains("deliberate"), "{}", e.message);
        assert_eq!(guard_value(7, || -> i32 { panic!("again") }), 7);
    }

    /// Every exported function's body is behind the panic boundary: its first statement is
    /// `guard(` or `guard_value(`, or it only returns a static string.
    #[test]
    fn every_export_is_behind_the_panic_boundary() -> std::io::Result<()> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut exports = 0;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let text = std::fs::read_to_string(&path)?;
            let mut lines = text.lines().peekable();
            while let Some(line) = lines.next() {
                if !line.contains("pub extern \"C\" fn ") {
                    continue;
                }
                exports += 1;
                // The signature may span lines: find the line that ends it with `{`.
                let mut sig = String::from(line);
                while !sig.trim_end().ends_with('{') {
                    sig.push_str(lines.next().unwrap_or(""));
                }
                // Skip `use` lines: the first statement that does something must be the guard.
                let mut body = lines.next().unwrap_or("").trim();
                while body.starts_with("use ") {
                    body = lines.next().unwrap_or("").trim();
                }
                let name = sig.split("fn ").nth(1).and_then(|s| s.split('(').next()).unwrap_or("?");
                let ok = body.starts_with("guard(")
                    || body.starts_with("guard_value(")
                    || body.starts_with("agent_event(")
                    || (name == "a2a_version" && body.starts_with("concat!("));
                assert!(ok, "{}: {name} does not start behind the panic boundary: {body}", path.display());
            }
        }
        assert!(exports > 100, "found only {exports} exports");
        Ok(())
    }
}
