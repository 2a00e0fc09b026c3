#!/usr/bin/env python3
"""Post-processes uniffi's generated Kotlin (ffi-uniffi/gen.sh runs it on a2a_wire.kt).

uniffi's Kotlin allocates a new `UniffiRustCallStatus` JNA structure for every call into
Rust: native memory, a JNA Cleaner registration and reflective field setup each time. A
profile of the Kotlin demo agent under load (JFR, BENCHMARKS.md) spends about 40% of its
Java samples there and another 17% in the Cleaner thread freeing them. The patch makes
`uniffiRustCallWithError` take the status from a small per-thread pool and give it back
(reset) after the call. A call made while another is under way on the same thread (a Rust
call that calls back into Kotlin, which calls Rust again) takes another status from the
pool, so nested calls never share one.

The patch fails loudly when the generated text it replaces is not found (a uniffi upgrade
changed it): gen.sh then stops, and the drift check would fail.
"""
import sys

OLD = """private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U {
    var status = UniffiRustCallStatus()
    val return_value = callback(status)
    uniffiCheckCallStatus(errorHandler, status)
    return return_value
}
"""

NEW = """private inline fun <U, E: kotlin.Exception> uniffiRustCallWithError(errorHandler: UniffiRustCallStatusErrorHandler<E>, callback: (UniffiRustCallStatus) -> U): U {
    // a2a-wire (ffi-uniffi/patch_kotlin.py): the status comes from a per-thread pool.
    val status = UniffiRustCallStatusPool.take()
    try {
        val return_value = callback(status)
        uniffiCheckCallStatus(errorHandler, status)
        return return_value
    } finally {
        UniffiRustCallStatusPool.give(status)
    }
}

// a2a-wire (ffi-uniffi/patch_kotlin.py): call statuses reused per thread instead of one JNA
// structure (native memory and a Cleaner registration) per call. A status is taken for the
// length of one call, so calls nested on one thread each have their own.
internal object UniffiRustCallStatusPool {
    private const val KEEP = 8
    private val free = ThreadLocal.withInitial { ArrayDeque<UniffiRustCallStatus>(KEEP) }

    fun take(): UniffiRustCallStatus {
        val status = free.get().removeLastOrNull() ?: return UniffiRustCallStatus()
        status.code = UNIFFI_CALL_SUCCESS
        status.error_buf.capacity = 0
        status.error_buf.len = 0
        status.error_buf.data = null
        return status
    }

    fun give(status: UniffiRustCallStatus) {
        val pool = free.get()
        if (pool.size < KEEP) pool.addLast(status)
    }
}
"""


def main():
    path = sys.argv[1]
    text = open(path, encoding="utf-8").read()
    if text.count(OLD) != 1:
        sys.exit(f"patch_kotlin.py: {path}: uniffi's uniffiRustCallWithError is not the text this patch replaces (uniffi changed?)")
    open(path, "w", encoding="utf-8").write(text.replace(OLD, NEW))


if __name__ == "__main__":
    main()
