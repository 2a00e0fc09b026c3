package org.a2awire

import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.io.File

/**
 * The Kotlin client against `a2a-wire serve` (the demo agent, memory store) on 127.0.0.1, on
 * each binding and version the card offers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientTest {
    private lateinit var server: Process
    private lateinit var url: String

    @BeforeAll
    fun start() {
        val cli = System.getProperty("a2a.cli") ?: "../../target/debug/a2a-wire"
        val port = Processes.freePorts()
        server = ProcessBuilder(File(cli).absolutePath, "serve", "--addr", "127.0.0.1:$port", "--store", "memory")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
        url = "http://127.0.0.1:$port"
        Processes.awaitPort("a2a-wire serve", server, port, 20)
    }

    @AfterAll
    fun stop() {
        server.destroy()
        server.waitFor()
    }

    private fun config(binding: String, version: String) = ClientConfig(bindings = listOf(binding), versions = listOf(version))

    private fun text(t: Task): String =
        t.artifacts.flatMap { it.parts }.joinToString("") { (it.content as? PartContent.Text)?.text ?: "" }

    @Test
    fun `every operation shape on all three bindings and both versions`() = runBlocking {
        for (binding in listOf("JSONRPC", "HTTP+JSON", "GRPC")) for (version in listOf("1.0", "0.3")) {
            val where = "$binding $version"
            A2aClient.connect(url, config(binding, version)).use { client ->
                assertEquals(binding, client.`interface`().protocolBinding, where)
                assertEquals(version, client.`interface`().protocolVersion, where)
                assertEquals("a2a-wire echo", client.card().name, where)

                val reply = client.sendMessage(SendMessageRequest(message = textMessage("hello")))
                val task = (reply.payload as SendMessageResponsePayload.Task).task
                assertEquals(TaskState.Completed, task.status?.state, where)
                assertEquals("hello", text(task), where)
                assertEquals(task.id, client.getTask(GetTaskRequest(id = task.id)).id, where)

                val direct = client.sendMessage(SendMessageRequest(message = textMessage("message-only")))
                assertTrue(direct.payload is SendMessageResponsePayload.Message, "$where: $direct")

                val events = client.streamMessage(SendMessageRequest(message = textMessage("slow"))).toList()
                val last = events.last().payload
                assertTrue(last is StreamResponsePayload.StatusUpdate && last.statusUpdate.status?.state == TaskState.Completed, "$where: $last")
                assertTrue(events.count { it.payload is StreamResponsePayload.ArtifactUpdate } == 3, "$where: $events")

                val e = assertThrows<A2aException.TaskNotFound> { client.getTask(GetTaskRequest(id = "no-such-task")) }
                assertEquals(-32001, e.code, where)
                assertEquals("TASK_NOT_FOUND", e.reason, where)
                if (version == "1.0") assertEquals(404, e.status.toInt(), where)
            }
        }
    }

    @Test
    fun `one client serves concurrent calls`() = runBlocking {
        A2aClient.connect(url, ClientConfig()).use { client ->
            val tasks = (1..16).map { i -> async { client.sendMessage(SendMessageRequest(message = textMessage("n$i"))) } }.awaitAll()
            assertEquals((1..16).map { "n$it" }, tasks.map { text((it.payload as SendMessageResponsePayload.Task).task) })
        }
    }

    @Test
    fun `cancelling the coroutine cancels the call, and a flow stopped early closes its stream`() = runBlocking {
        A2aClient.connect(url, ClientConfig()).use { client ->
            val started = System.nanoTime()
            assertThrows<TimeoutCancellationException> {
                runBlocking { withTimeout(300) { client.sendMessage(SendMessageRequest(message = textMessage("slow"))) } }
            }
            val ms = (System.nanoTime() - started) / 1_000_000
            assertTrue(ms < 1500, "the slow call took ${ms} ms to give up (the agent needs about 2 s)")

            val first = client.streamMessage(SendMessageRequest(message = textMessage("slow"))).first()
            assertTrue(first.payload is StreamResponsePayload.Task || first.payload is StreamResponsePayload.StatusUpdate, "$first")
            val two = client.streamMessage(SendMessageRequest(message = textMessage("slow"))).take(2).toList()
            assertEquals(2, two.size)

            val stream = client.sendStreamingMessage(SendMessageRequest(message = textMessage("slow")))
            stream.next()
            stream.cancel()
            assertEquals(null, stream.next(), "a cancelled stream ends")
            stream.close()
        }
    }

    @Test
    fun `connect errors say what failed`() = runBlocking {
        val port = Processes.freePorts()
        assertThrows<A2aException.Transport> { A2aClient.connect("http://127.0.0.1:$port", ClientConfig()) }
        val e = assertThrows<A2aException.InvalidValue> { A2aClient.connect(url, ClientConfig(bindings = listOf("SOAP"))) }
        assertTrue(e.description.contains("SOAP"), e.description)
        Unit
    }
}
