//! Stores a host runs itself for a service with an external store
//! (`a2a_service_config_set_external_store`): the service asks with `A2A_OUTPUT_KIND_STORE`
//! outputs, the host hands each to an `a2a_store` on a thread of its own (store IO blocks)
//! and feeds the reply back with `a2a_service_handle_store`.

use crate::service::{a2a_output, a2a_service};
use crate::{a2a_error, a2a_result, arg_mut, box_out, guard, guard_value, invalid, out, str_arg, timestamp};
use a2a::engine::{StoreInMemory, StoreReply, StoreRequest};
use a2a::service::Output;
use a2a_wire_smol::store::{answer_guarded, ExternalStore};
use core::ffi::c_char;

/// A task store: in memory (`a2a_store_new_memory`) or a SQLite file
/// (`a2a_store_open_sqlite`). Free with `a2a_store_free`. Threads: one at a time per store
/// (it may move between threads); its calls may block on disk IO.
pub struct a2a_store {
    inner: Box<dyn ExternalStore>,
}

/// A store's answer to one STORE output, for `a2a_service_handle_store` (which takes it) or
/// `a2a_store_reply_free`. Threads: any.
pub struct a2a_store_reply {
    inner: StoreReply,
}

/// A store holding every task in this process's memory, for a host that wants the bounded
/// working set without a database, and for tests. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_store_new_memory(store_out: *mut *mut a2a_store) -> a2a_result {
    guard(|| {
        let o = out(store_out, "store_out")?;
        box_out(o, a2a_store { inner: Box::new(StoreInMemory::new()) });
        Ok(())
    })
}

/// Opens (or creates) the SQLite task store at `path`; a store written by an older release
/// is migrated. It is the file the ready server's `a2a_server_config_set_store_file` uses.
/// `A2A_RESULT_IO` when it cannot be opened. Threads: any.
#[no_mangle]
pub extern "C" fn a2a_store_open_sqlite(path: *const c_char, path_len: usize, store_out: *mut *mut a2a_store) -> a2a_result {
    guard(|| {
        let o = out(store_out, "store_out")?;
        let p = str_arg(path, path_len, "path")?;
        if p.is_empty() {
            return Err(invalid("`path` is empty"));
        }
        let s = a2a_wire_smol::sqlite::SqliteStore::open(p).map_err(|e| a2a_error::local(a2a_result::Io, format!("the store {p}: {e}")))?;
        box_out(o, a2a_store { inner: Box::new(s) });
        Ok(())
    })
}

/// Frees a store (a SQLite file is closed); NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_store_free(store: *mut a2a_store) {
    guard_value((), || crate::free_box(store))
}

/// Carries out the request of the STORE output `output` on `store` and puts the reply in
/// `*reply_out`. This takes the request out of `output` (free `output` as usual; a second
/// call on it is `A2A_RESULT_INVALID_ARGUMENT`, as is an output of another kind). A store
/// that fails (a disk error) still answers: the reply says so and the service answers the
/// calls that depended on it with an error. Blocks for the store's IO; call it on a thread
/// of your own, for the requests in the order they came out. Threads: one at a time per
/// store and per output.
#[no_mangle]
pub extern "C" fn a2a_store_answer(store: *mut a2a_store, output: *mut a2a_output, reply_out: *mut *mut a2a_store_reply) -> a2a_result {
    guard(|| {
        let s = arg_mut(store, "store")?;
        let o = arg_mut(output, "output")?;
        let r = out(reply_out, "reply_out")?;
        let Output::Store(req) = &mut o.inner else {
            return Err(invalid("`output` is not a STORE output"));
        };
        if o.store_taken {
            return Err(invalid("this STORE output was answered already"));
        }
        o.store_taken = true;
        // What stays behind in the output: an empty request of the same id.
        let id = req.id();
        let req = core::mem::replace(req, StoreRequest::Load { id, tasks: Vec::new(), messages: Vec::new() });
        box_out(r, a2a_store_reply { inner: answer_guarded(s.inner.as_mut(), req) });
        Ok(())
    })
}

/// Feeds a store's reply to the service and frees the reply (also when this fails). Then
/// drain the outputs: answers that waited for the store come out.
/// Threads: one at a time per service (it may move between threads).
#[no_mangle]
pub extern "C" fn a2a_service_handle_store(service: *mut a2a_service, reply: *mut a2a_store_reply, now_ms: i64) -> a2a_result {
    guard(|| {
        if reply.is_null() {
            return Err(crate::null("reply"));
        }
        // SAFETY: `reply` came from `a2a_store_answer` (Box::into_raw) and is taken once
        // (documented: this call frees it).
        let reply = unsafe { Box::from_raw(reply) };
        let s = arg_mut(service, "service")?;
        s.inner.handle_store(reply.inner, timestamp(now_ms));
        Ok(())
    })
}

/// Frees a reply not fed to a service; NULL does nothing. Threads: any, once.
#[no_mangle]
pub extern "C" fn a2a_store_reply_free(reply: *mut a2a_store_reply) {
    guard_value((), || crate::free_box(reply))
}
