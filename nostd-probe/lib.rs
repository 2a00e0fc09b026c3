//! no_std probe: decodes a v1.0 Task and a v0.3 Task through the core with `std` off.
#![no_std]
#![allow(unsafe_code)]

extern crate alloc;

use a2a_wire::{codec, v03, v1};
use core::alloc::{GlobalAlloc, Layout};

extern "C" {
    fn aligned_alloc(align: usize, size: usize) -> *mut u8;
    fn free(ptr: *mut u8);
}

struct LibcAlloc;

// SAFETY: delegates to the C allocator; `aligned_alloc` gets a power-of-two alignment and a
// size rounded up to a multiple of it, as C11 requires.
unsafe impl GlobalAlloc for LibcAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let align = layout.align().max(core::mem::size_of::<usize>());
        let size = layout.size().div_ceil(align) * align;
        aligned_alloc(align, size.max(align))
    }
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        free(ptr)
    }
}

#[global_allocator]
static ALLOC: LibcAlloc = LibcAlloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// Decodes `len` bytes of v1.0 ProtoJSON as a Task and returns its state number, or -1.
#[no_mangle]
pub extern "C" fn probe_v1_task_state(ptr: *const u8, len: usize) -> i32 {
    // SAFETY: the C caller passes a valid buffer of `len` bytes.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    match codec::json::decode::<v1::Task>(bytes) {
        Ok(t) => t.status.map_or(-1, |s| s.state),
        Err(_) => -1,
    }
}

/// Decodes `len` bytes of v0.3 JSON as a Task, translates it to v1.0 and returns the state
/// number, or -1.
#[no_mangle]
pub extern "C" fn probe_v03_task_state(ptr: *const u8, len: usize) -> i32 {
    use v03::ToV1;
    // SAFETY: the C caller passes a valid buffer of `len` bytes.
    let bytes = unsafe { core::slice::from_raw_parts(ptr, len) };
    match v03::decode::<v03::Task>(bytes).ok().and_then(|t| t.to_v1().ok()) {
        Some(c) => c.value.status.map_or(-1, |s| s.state),
        None => -1,
    }
}

/// The precompiled `core`/`alloc` of the host target are built with unwinding and reference
/// this symbol; with `panic = "abort"` it is never called.
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}
