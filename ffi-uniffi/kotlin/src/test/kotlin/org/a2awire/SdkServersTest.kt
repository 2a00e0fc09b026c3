package org.a2awire

import com.fasterxml.jackson.databind.ObjectMapper
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.nio.file.Files

/**
 * The Kotlin client against the official SDKs' servers (tests/interop/python/their_server.py:
 * a2a-sdk from PyPI; tests/interop/js/their_server.mjs: @a2a-js/sdk from npm; as `make
 * interop-deps` installs them), against `a2a-wire serve` over TLS and the Python SDK's server
 * over TLS (a CA made for the run by a2a-wire-testca): the nine checks of the interop matrix
 * (tests/interop/CHECKS.md) on every binding in v1.0 and v0.3 (ListTasks in v1.0 only). A
 * failure is allowed only where tests/interop/quirks.json lists a documented SDK quirk.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SdkServersTest {
    private val repo = File(System.getProperty("a2a.vectors.dir") ?: "../../tests/vectors").absoluteFile.parentFile.parentFile
    private val interop = File(repo, "tests/interop")
    private val bin = File(System.getProperty("a2a.cli") ?: "../../target/debug/a2a-wire").absoluteFile.parentFile
    private val python = File(repo, "target/interop-py-venv/bin/python")
    private val tls = Files.createTempDirectory("a2a-kotlin-tls").toFile()
    private val procs = mutableListOf<Process>()
    private val servers = mutableMapOf<String, String>()
    private val quirks = ObjectMapper().readTree(File(interop, "quirks.json"))["quirks"]

    private fun start(name: String, port: Int, cmd: List<String>, dir: File = repo) {
        val log = File(tls, "$name.log")
        val p = ProcessBuilder(cmd).directory(dir).redirectErrorStream(true).redirectOutput(log).start()
        procs += p
        Processes.awaitPort(name, p, port, 60, log)
    }

    @BeforeAll
    fun startServers() {
        assertTrue(python.canExecute(), "$python: run make interop-deps")
        assertEquals(0, ProcessBuilder(File(bin, "a2a-wire-testca").path, tls.path).inheritIO().start().waitFor(), "a2a-wire-testca")
        val (ca, cert, key) = listOf("ca.pem", "server.pem", "server.key").map { File(tls, it).path }
        var port = Processes.freePorts(2)
        start("python", port, listOf(python.path, File(interop, "python/their_server.py").path, "--port", "$port"))
        servers["python"] = "http://127.0.0.1:$port"
        port = Processes.freePorts(2)
        start("js", port, listOf("node", "their_server.mjs", "--port", "$port"), File(interop, "js"))
        servers["js"] = "http://127.0.0.1:$port"
        port = Processes.freePorts(1)
        start("a2a-wire-tls", port, listOf(File(bin, "a2a-wire").path, "serve", "--addr", "127.0.0.1:$port", "--store", "memory",
            "--tls-cert", cert, "--tls-key", key))
        servers["a2a-wire-tls"] = "https://127.0.0.1:$port"
        port = Processes.freePorts(2)
        start("python-tls", port, listOf(python.path, File(interop, "python/their_server.py").path, "--port", "$port",
            "--tls-cert", cert, "--tls-key", key))
        servers["python-tls"] = "https://127.0.0.1:$port"
        this.ca = ca
    }

    private lateinit var ca: String

    @AfterAll
    fun stop() {
        procs.forEach { it.destroy() }
        procs.forEach { it.waitFor() }
        tls.deleteRecursively()
    }

    private fun quirk(server: String, binding: String, version: String, check: String): Boolean = quirks.any { q ->
        fun m(k: String, v: String) = q[k].asText() == "*" || q[k].asText() == v
        m("client", "a2a-wire") && m("server", server.removeSuffix("-tls")) && m("binding", binding) && m("version", version) && m("check", check)
    }

    private fun text(parts: List<Part>) = parts.joinToString("") { (it.content as? PartContent.Text)?.text ?: "" }

    private fun task(r: SendMessageResponse) = (r.payload as? SendMessageResponsePayload.Task)?.task
        ?: throw AssertionError("expected a task, got ${r.payload}")

    /** The nine checks with the Kotlin client; check -> null (passed) or what failed. */
    private suspend fun nineChecks(url: String, binding: String, version: String): Map<String, String?> {
        val config = ClientConfig(bindings = listOf(binding), versions = listOf(version), caFile = if (url.startsWith("https:")) ca else null)
        val results = linkedMapOf<String, String?>()
        A2aClient.connect(url, config).use { c ->
            val done = mutableListOf<String>()
            val checks = linkedMapOf<String, suspend () -> Unit>(
                "card" to { assertEquals(binding to version, c.`interface`().protocolBinding to c.`interface`().protocolVersion) },
                "send" to {
                    val t = task(c.sendMessage(SendMessageRequest(message = textMessage("hello"))))
                    assertEquals(TaskState.Completed, t.status?.state)
                    assertEquals("hello", text(t.artifacts.flatMap { it.parts }))
                    done += t.id
                },
                "get" to {
                    val t = c.getTask(GetTaskRequest(id = done[0]))
                    assertEquals(done[0], t.id)
                    assertEquals(TaskState.Completed, t.status?.state)
                },
                "stream" to {
                    val events = c.streamMessage(SendMessageRequest(message = textMessage("slow"))).toList().map { it.payload }
                    val chunks = events.filterIsInstance<StreamResponsePayload.ArtifactUpdate>().map { it.artifactUpdate }
                    assertEquals(listOf(false, true, true), chunks.map { it.append })
                    assertTrue(chunks.last().lastChunk)
                    assertEquals("one two three", text(chunks.flatMap { it.artifact?.parts ?: listOf() }))
                    val last = events.last() as StreamResponsePayload.StatusUpdate
                    assertEquals(TaskState.Completed, last.statusUpdate.status?.state)
                },
                "input_required" to {
                    val first = task(c.sendMessage(SendMessageRequest(message = textMessage("need-input"))))
                    assertEquals(TaskState.InputRequired, first.status?.state)
                    val second = task(c.sendMessage(SendMessageRequest(message = textMessage("x", taskId = first.id, contextId = first.contextId))))
                    assertEquals(first.id, second.id)
                    assertEquals(TaskState.Completed, second.status?.state)
                },
                "cancel_completed" to { assertThrows<A2aException.TaskNotCancelable> { runBlocking { c.cancelTask(CancelTaskRequest(id = done[0])) } } },
                "get_unknown" to { assertThrows<A2aException.TaskNotFound> { runBlocking { c.getTask(GetTaskRequest(id = "no-such-task-0f3c")) } } },
                "message_only" to {
                    val m = (c.sendMessage(SendMessageRequest(message = textMessage("message-only"))).payload as SendMessageResponsePayload.Message).message
                    assertEquals(Role.Agent, m.role)
                },
            )
            if (version == "1.0") checks["list"] = {
                val r = c.listTasks(ListTasksRequest(status = TaskState.Unspecified))
                assertTrue(r.tasks.any { it.id == done[0] }, "${done[0]} not among ${r.tasks.map { it.id }}")
            }
            for ((name, body) in checks) {
                results[name] = try { body(); null } catch (e: Throwable) { "${e::class.simpleName}: ${e.message}" }
            }
        }
        return results
    }

    @TestFactory
    fun `the nine checks against each server`(): List<DynamicTest> =
        listOf("python", "js", "a2a-wire-tls", "python-tls").flatMap { server ->
            listOf("JSONRPC", "HTTP+JSON", "GRPC").flatMap { binding ->
                listOf("1.0", "0.3").map { version ->
                    DynamicTest.dynamicTest("Kotlin client -> $server $binding $version") {
                        val results = runBlocking { nineChecks(servers.getValue(server), binding, version) }
                        val failed = results.filter { (k, v) -> v != null && !quirk(server, binding, version, k) }
                        println("a2a-wire Kotlin client -> $server $binding $version: ${results.count { it.value == null }} of ${results.size} ok")
                        assertEquals(mapOf<String, String?>(), failed)
                        assertEquals(if (version == "1.0") 9 else 8, results.size)
                    }
                }
            }
        }
}
