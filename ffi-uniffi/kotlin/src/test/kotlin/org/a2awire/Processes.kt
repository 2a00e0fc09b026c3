package org.a2awire

import java.io.File
import java.net.ServerSocket
import java.net.Socket

/** Helpers the tests share for the servers they start as child processes. */
internal object Processes {
    /** The first of `n` consecutive free ports on 127.0.0.1 (an SDK server takes P and P+1). */
    fun freePorts(n: Int = 1): Int {
        while (true) {
            val p = ServerSocket(0).use { it.localPort }
            if (p + n < 65536 && (1 until n).all { runCatching { ServerSocket(p + it).close() }.isSuccess }) return p
        }
    }

    /**
     * Waits until `process` accepts connections on 127.0.0.1:`port`; fails naming `name` (and the
     * tail of `log`, when given) if it exits first or `seconds` pass.
     */
    fun awaitPort(name: String, process: Process, port: Int, seconds: Long, log: File? = null) {
        val deadline = System.nanoTime() + seconds * 1_000_000_000L
        while (true) {
            try {
                Socket("127.0.0.1", port).close()
                return
            } catch (e: java.io.IOException) {
                if (System.nanoTime() > deadline || !process.isAlive) {
                    val tail = log?.takeIf { it.exists() }?.readText()?.takeLast(2000)?.let { ":\n$it" } ?: ""
                    throw AssertionError("$name did not start on $port$tail")
                }
                Thread.sleep(50)
            }
        }
    }
}
