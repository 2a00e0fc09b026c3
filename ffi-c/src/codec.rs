//! Codecs (ProtoJSON ⇄ protobuf for any message by name), v0.3 ⇄ v1.0 translation with its
//! losses, version negotiation and interface selection from a card. All of these are pure
//! functions: any thread, no handle shared.

use crate::{a2a_bytes, a2a_error, a2a_result, a2a_str, arg, box_out, bytes_arg, bytes_out, guard, guard_value, invalid, out, str_arg};
use a2a::card::{Binding, ClientSupport, SelectedInterface};
use a2a::codec::by_name::{self, ByNameError, Format};
use a2a::v03::by_name::{self as v03, V03Error};
use a2a::version::ProtocolVersion;
use core::ffi::c_char;

/// Wire formats of a message.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum a2a_format {
    /// ProtoJSON (canonical on output).
    Json = 1,
    /// Protobuf binary.
    Protobuf = 2,
}

fn format(f: u32) -> Result<Format, a2a_error> {
    match f {
        1 => Ok(Format::Json),
        2 => Ok(Format::Protobuf),
        _ => Err(invalid(format!("{f} is not an a2a_format"))),
    }
}

pub(crate) fn by_name_error(e: ByNameError) -> a2a_error {
    match e {
        ByNameError::UnknownType(n) => a2a_error::local(a2a_result::UnknownType, format!("unknown message type {n:?}")),
        ByNameError::Decode(d) => a2a_error::decode(&d),
        ByNameError::Encode(e) => a2a_error::local(a2a_result::Encode, e.to_string()),
        other => a2a_error::local(a2a_result::Decode, other.to_string()),
    }
}

/// Largest scratch buffer a thread keeps between `a2a_transcode_into` calls.
const SCRATCH_KEEP: usize = 1 << 20;

thread_local! {
    static SCRATCH: core::cell::Cell<Vec<u8>> = const { core::cell::Cell::new(Vec::new()) };
}

/// Transcodes into this thread's scratch buffer (its capacity survives the call: no
/// allocation per call once it has grown), then hands the bytes to `take`.
fn transcode<R>(
    type_name: *const c_char,
    type_name_len: usize,
    from: u32,
    to: u32,
    input: *const u8,
    input_len: usize,
    take: impl FnOnce(&[u8]) -> Result<R, a2a_error>,
) -> Result<R, a2a_error> {
    let t = str_arg(type_name, type_name_len, "type_name")?;
    let (from, to) = (format(from)?, format(to)?);
    let b = bytes_arg(input, input_len, "input")?;
    let mut bytes = SCRATCH.try_with(|s| s.take()).unwrap_or_default();
    bytes.clear();
    let r = by_name::transcode_into(t, b, from, to, &mut bytes).map_err(by_name_error).and_then(|()| take(&bytes));
    // A buffer grown for one huge message is not kept.
    if bytes.capacity() <= SCRATCH_KEEP {
        let _ = SCRATCH.try_with(|s| s.set(bytes));
    }
    r
}

/// Decodes `input` (`from`: an `a2a_format`) as the message `type_name` (its full proto
/// name: `lf.a2a.v1.Task`, `lf.a2a.v1.SendMessageRequest`, ...), validates it (REQUIRED
/// fields, oneofs), and encodes it in `to` format into a new buffer `*out_bytes` (free it
/// with `a2a_bytes_free`). JSON output is canonical ProtoJSON. On `A2A_RESULT_DECODE`,
/// `a2a_error_last()` names the JSON path of the first offending field
/// (`a2a_error_path`) and the kind of problem (`a2a_error_decode_kind`). Any thread.
#[no_mangle]
pub extern "C" fn a2a_transcode(
    type_name: *const c_char,
    type_name_len: usize,
    from: u32,
    to: u32,
    input: *const u8,
    input_len: usize,
    out_bytes: *mut *mut a2a_bytes,
) -> a2a_result {
    guard(|| {
        let o = out(out_bytes, "out_bytes")?;
        let bytes = transcode(type_name, type_name_len, from, to, input, input_len, |b| Ok(crate::bytes_copy(b)))?;
        bytes_out(o, bytes);
        Ok(())
    })
}

/// As `a2a_transcode`, writing into the caller's buffer `buf` of `buf_len` bytes: on
/// success `*out_len` is the number written; `A2A_RESULT_INSUFFICIENT_SIZE` (nothing
/// written) when it does not fit. Any thread.
#[no_mangle]
pub extern "C" fn a2a_transcode_into(
    type_name: *const c_char,
    type_name_len: usize,
    from: u32,
    to: u32,
    input: *const u8,
    input_len: usize,
    buf: *mut u8,
    buf_len: usize,
    out_len: *mut usize,
) -> a2a_result {
    guard(|| {
        let n = out(out_len, "out_len")?;
        if buf.is_null() && buf_len > 0 {
            return Err(crate::null("buf"));
        }
        transcode(type_name, type_name_len, from, to, input, input_len, |bytes| {
            if bytes.len() > buf_len {
                return Err(a2a_error::local(
                    a2a_result::InsufficientSize,
                    format!("the output needs {} bytes, the buffer has {buf_len}", bytes.len()),
                ));
            }
            if !bytes.is_empty() {
                // SAFETY: `buf` has `buf_len` >= bytes.len() writable bytes (the caller's
                // contract) and is not NULL (checked above; bytes is not empty).
                unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len()) };
            }
            *n = bytes.len();
            Ok(())
        })
    })
}

// ---------------------------------------------------------------- v0.3 translation

/// A v0.3 ⇄ v1.0 translation: the translated message (type and JSON), the source
/// re-encoded, and every loss (`kind@path`). Free it with `a2a_translation_free`.
pub struct a2a_translation {
    ty: &'static str,
    json: Vec<u8>,
    source_json: Vec<u8>,
    losses: Vec<String>,
}

fn v03_error(e: V03Error) -> a2a_error {
    match e {
        V03Error::UnknownType(n) => a2a_error::local(a2a_result::UnknownType, format!("unknown type {n:?}")),
        V03Error::Decode(d) => a2a_error::decode(&d),
        V03Error::Convert(c) => {
            let mut x = a2a_error::local(a2a_result::Conversion, c.to_string());
            x.path = String::from(c.path());
            x.decode = crate::error::a2a_decode_kind::Conversion;
            x
        }
        other => a2a_error::local(a2a_result::Decode, other.to_string()),
    }
}

/// Decodes `input` (v0.3 JSON) as the v0.3 type `type_name` (`Task`, `Message`,
/// `MessageSendParams`, ... as listed in `tests/vectors/README.md`) and translates it to
/// v1.0: `*out_translation` holds the v1.0 message (canonical ProtoJSON) and the losses.
/// `A2A_RESULT_CONVERSION` when the translation is refused. Any thread.
#[no_mangle]
pub extern "C" fn a2a_v03_to_v1(
    type_name: *const c_char,
    type_name_len: usize,
    input: *const u8,
    input_len: usize,
    out_translation: *mut *mut a2a_translation,
) -> a2a_result {
    guard(|| {
        let o = out(out_translation, "out_translation")?;
        let t = str_arg(type_name, type_name_len, "type_name")?;
        let b = bytes_arg(input, input_len, "input")?;
        let tr = v03::translate_to_v1(t, b).map_err(v03_error)?;
        box_out(o, a2a_translation { ty: tr.v1_type, json: tr.v1_json, source_json: tr.v03_json, losses: tr.losses });
        Ok(())
    })
}

/// Decodes `input` (ProtoJSON) as the v1.0 message `type_name` (full proto name) and
/// translates it to v0.3 JSON, with the losses. Any thread.
#[no_mangle]
pub extern "C" fn a2a_v1_to_v03(
    type_name: *const c_char,
    type_name_len: usize,
    input: *const u8,
    input_len: usize,
    out_translation: *mut *mut a2a_translation,
) -> a2a_result {
    guard(|| {
        let o = out(out_translation, "out_translation")?;
        let t = str_arg(type_name, type_name_len, "type_name")?;
        let b = bytes_arg(input, input_len, "input")?;
        let tr = v03::translate_to_v03(t, b).map_err(v03_error)?;
        let source = by_name::canonical_json(t, b).unwrap_or_default();
        box_out(o, a2a_translation { ty: tr.v03_type, json: tr.v03_json, source_json: source, losses: tr.losses });
        Ok(())
    })
}

/// The translated message's type name (v1.0: the full proto name; v0.3: the type name).
/// The result is borrowed from the handle passed in: valid while it lives, never freed.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_type(t: *const a2a_translation) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(t, "t").map_or(&b""[..], |t| t.ty.as_bytes())))
}

/// The translated message's JSON. Borrowed from `t`.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_json(t: *const a2a_translation) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(t, "t").map_or(&b""[..], |t| t.json.as_slice())))
}

/// The source message re-encoded in its own version's canonical form. Borrowed from `t`.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_source_json(t: *const a2a_translation) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(t, "t").map_or(&b""[..], |t| t.source_json.as_slice())))
}

/// The number of losses.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_loss_count(t: *const a2a_translation) -> usize {
    guard_value(0, || arg(t, "t").map_or(0, |t| t.losses.len()))
}

/// Loss `index` as `kind@path` (`dropped@metadata`), in order; `A2A_RESULT_NONE` past the end.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_loss(t: *const a2a_translation, index: usize, loss_out: *mut a2a_str) -> a2a_result {
    guard(|| {
        let t = arg(t, "t")?;
        let o = out(loss_out, "loss_out")?;
        let l = t.losses.get(index).ok_or_else(|| a2a_error::local(a2a_result::None, format!("no loss {index}")))?;
        *o = a2a_str::of(l.as_bytes());
        Ok(())
    })
}

/// Frees a translation; NULL does nothing.
/// Threads: any (a translation is plain data).
#[no_mangle]
pub extern "C" fn a2a_translation_free(t: *mut a2a_translation) {
    guard_value((), || crate::free_box(t))
}

// ---------------------------------------------------------------- versions and interfaces

fn version_arg(p: *const c_char, len: usize, name: &str) -> Result<ProtocolVersion, a2a_error> {
    let v = str_arg(p, len, name)?;
    ProtocolVersion::parse(v).ok_or_else(|| invalid(format!("`{name}` is not a protocol version: {v:?}")))
}

/// Decides the protocol version a request is served with, from the raw value of its
/// `A2A-Version` header (`requested`; NULL when the header is absent, which means 0.3) and
/// the versions an interface serves (`supported`, `supported_len` strings such as "1.0").
/// On success `*index_out` is the index of the chosen entry of `supported`; otherwise
/// `A2A_RESULT_A2A_ERROR` with a VersionNotSupported error naming the supported list.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_negotiate_version(
    requested: *const c_char,
    requested_len: usize,
    supported: *const a2a_str,
    supported_len: usize,
    index_out: *mut usize,
) -> a2a_result {
    guard(|| {
        let o = out(index_out, "index_out")?;
        let raw = crate::opt_str_arg(requested, requested_len, "requested")?;
        if supported.is_null() && supported_len > 0 {
            return Err(crate::null("supported"));
        }
        let list: &[a2a_str] = if supported_len == 0 {
            &[]
        } else {
            // SAFETY: `supported` points at `supported_len` a2a_str values (the caller's contract).
            unsafe { core::slice::from_raw_parts(supported, supported_len) }
        };
        let versions: Vec<ProtocolVersion> =
            list.iter().enumerate().map(|(i, s)| version_arg(s.data, s.len, &format!("supported[{i}]"))).collect::<Result<_, _>>()?;
        let chosen = a2a::version::negotiate(a2a::version::requested(raw), &versions).map_err(a2a_error::a2a)?;
        // `negotiate` returns one of `versions`.
        *o = versions.iter().position(|v| *v == chosen).unwrap_or(0);
        Ok(())
    })
}

/// An interface chosen from a card: URL, binding, version and tenant. Free it with
/// `a2a_interface_free`.
pub struct a2a_interface {
    pub(crate) inner: SelectedInterface,
    binding: String,
    version: String,
}

impl a2a_interface {
    pub(crate) fn new(inner: SelectedInterface) -> a2a_interface {
        a2a_interface { binding: String::from(inner.binding.as_str()), version: inner.version.to_string(), inner }
    }
}

pub(crate) fn support(bindings: Option<&str>, versions: Option<&str>) -> Result<ClientSupport, a2a_error> {
    let mut s = ClientSupport::default();
    if let Some(b) = bindings {
        s.bindings = b
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| match Binding::parse(x) {
                Binding::Custom(o) => Err(invalid(format!("not a binding: {o:?} (JSONRPC, HTTP+JSON, GRPC)"))),
                b => Ok(b),
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(v) = versions {
        s.versions = v
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| ProtocolVersion::parse(x).ok_or_else(|| invalid(format!("not a protocol version: {x:?}"))))
            .collect::<Result<_, _>>()?;
    }
    Ok(s)
}

pub(crate) fn read_card(card_json: &[u8]) -> Result<a2a::v1::AgentCard, a2a_error> {
    a2a::card::read_card(card_json).map(|v| v.card).map_err(|e| a2a_error::local(a2a_result::Card, e.to_string()))
}

/// The interface `a2a_select_interface` chooses (shared with `a2a_client_core_new`).
pub(crate) fn select(
    card_json: *const u8,
    card_json_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
) -> Result<SelectedInterface, a2a_error> {
    let card = read_card(bytes_arg(card_json, card_json_len, "card_json")?)?;
    let s = support(crate::opt_str_arg(bindings, bindings_len, "bindings")?, crate::opt_str_arg(versions, versions_len, "versions")?)?;
    a2a::card::select_interface(&card, &s).map_err(|e| a2a_error::local(a2a_result::Card, e.to_string()))
}

/// Chooses the interface a client uses from an Agent Card (its JSON bytes, v1.0 or v0.3
/// shape). `bindings` and `versions` say what the client speaks, as comma-separated lists
/// (`"JSONRPC,HTTP+JSON,GRPC"`, `"1.0,0.3"`); NULL means all three bindings and "1.0,0.3".
/// The card's order decides the binding (its first entry the client speaks); among that
/// binding's entries the client's order of `versions` decides. `A2A_RESULT_CARD` when the
/// card is invalid or no interface fits.
/// Threads: any.
#[no_mangle]
pub extern "C" fn a2a_select_interface(
    card_json: *const u8,
    card_json_len: usize,
    bindings: *const c_char,
    bindings_len: usize,
    versions: *const c_char,
    versions_len: usize,
    interface_out: *mut *mut a2a_interface,
) -> a2a_result {
    guard(|| {
        let o = out(interface_out, "interface_out")?;
        let sel = select(card_json, card_json_len, bindings, bindings_len, versions, versions_len)?;
        box_out(o, a2a_interface::new(sel));
        Ok(())
    })
}

/// The interface's URL (gRPC: `host:port`). Borrowed from `i`.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_url(i: *const a2a_interface) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(i, "i").map_or(&b""[..], |i| i.inner.url.as_bytes())))
}

/// The interface's binding: `JSONRPC`, `HTTP+JSON` or `GRPC`. Borrowed from `i`.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_binding(i: *const a2a_interface) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(i, "i").map_or(&b""[..], |i| i.binding.as_bytes())))
}

/// The interface's protocol version (`1.0`, `0.3`). Borrowed from `i`.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_version(i: *const a2a_interface) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(i, "i").map_or(&b""[..], |i| i.version.as_bytes())))
}

/// The interface's tenant (empty when none). Borrowed from `i`.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_tenant(i: *const a2a_interface) -> a2a_str {
    guard_value(a2a_str::of(b""), || a2a_str::of(arg(i, "i").map_or(&b""[..], |i| i.inner.tenant.as_bytes())))
}

/// The interface's index in the card's `supportedInterfaces`.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_index(i: *const a2a_interface) -> usize {
    guard_value(0, || arg(i, "i").map_or(0, |i| i.inner.index))
}

/// Frees an interface; NULL does nothing.
/// Threads: any (an interface is plain data).
#[no_mangle]
pub extern "C" fn a2a_interface_free(i: *mut a2a_interface) {
    guard_value((), || crate::free_box(i))
}
