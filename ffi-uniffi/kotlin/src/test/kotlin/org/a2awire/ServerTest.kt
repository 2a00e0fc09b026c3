package org.a2awire

import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.concurrent.atomic.AtomicBoolean

/** A Kotlin agent on the ready server, called by the Kotlin client on every binding. */
class ServerTest {
    private val cancelled = AtomicBoolean(false)

    private val agent = object : AgentExecutor {
        override suspend fun execute(ctx: RunContext, events: Events) {
            when (val text = ctx.text()) {
                "need-input" -> events.requireInput("what next?")
                "boom" -> throw IllegalStateException("the agent broke")
                "wait-cancel" -> {
                    events.working(null)
                    ctx.cancelled()
                    cancelled.set(true)
                }
                "message-only" -> events.reply("direct: $text")
                else -> {
                    events.working(null)
                    events.textArtifact(if (ctx.isFollowUp()) "again: $text" else text)
                    events.textArtifact("second")
                    events.complete(null)
                }
            }
        }
    }

    private val card = AgentCard(
        name = "kotlin echo", description = "echoes", version = "1.0",
        capabilities = AgentCapabilities(streaming = true),
        defaultInputModes = listOf("text/plain"), defaultOutputModes = listOf("text/plain"),
    )

    private fun texts(t: Task) = t.artifacts.map { a -> a.parts.joinToString("") { (it.content as? PartContent.Text)?.text ?: "" } }

    @Test
    fun `a Kotlin agent serves every binding and both versions`() = runBlocking {
        val server = AgentServer(agent, card, ServerConfig())
        try {
            assertTrue(server.url().startsWith("http://127.0.0.1:"), server.url())
            assertEquals(6, server.card().supportedInterfaces.size, "the standard six interfaces")
            for (binding in listOf("JSONRPC", "HTTP+JSON", "GRPC")) for (version in listOf("1.0", "0.3")) {
                val where = "$binding $version"
                A2aClient.connect(server.url(), ClientConfig(bindings = listOf(binding), versions = listOf(version))).use { client ->
                    val task = (client.sendMessage(SendMessageRequest(message = textMessage("hi"))).payload as SendMessageResponsePayload.Task).task
                    assertEquals(TaskState.Completed, task.status?.state, where)
                    assertEquals(listOf("hi", "second"), texts(task), "$where: two artifacts without ids stay two")

                    val q = (client.sendMessage(SendMessageRequest(message = textMessage("need-input"))).payload as SendMessageResponsePayload.Task).task
                    assertEquals(TaskState.InputRequired, q.status?.state, where)
                    val done = (client.sendMessage(SendMessageRequest(message = textMessage("more", taskId = q.id, contextId = q.contextId))).payload as SendMessageResponsePayload.Task).task
                    assertEquals("again: more", texts(done).first(), where)

                    // A throwing agent fails its run: the waiting caller gets an internal error
                    // naming what was thrown.
                    val e = assertThrows<A2aException.Internal> { client.sendMessage(SendMessageRequest(message = textMessage("boom"))) }
                    assertTrue(e.description.contains("the agent broke"), "$where: ${e.description}")

                    val direct = client.sendMessage(SendMessageRequest(message = textMessage("message-only"))).payload
                    assertTrue(direct is SendMessageResponsePayload.Message, "$where: $direct")

                    val events = client.streamMessage(SendMessageRequest(message = textMessage("streamed"))).toList()
                    assertEquals(2, events.count { it.payload is StreamResponsePayload.ArtifactUpdate }, "$where: $events")
                }
            }
        } finally {
            server.stop()
        }
    }

    @Test
    fun `cancel reaches the agent through ctx cancelled`() = runBlocking {
        val server = AgentServer(agent, card, ServerConfig())
        try {
            A2aClient.connect(server.url(), ClientConfig()).use { client ->
                val reply = client.sendMessage(SendMessageRequest(message = textMessage("wait-cancel"), configuration = SendMessageConfiguration(returnImmediately = true)))
                val task = (reply.payload as SendMessageResponsePayload.Task).task
                var canceled: Task? = null
                for (i in 1..50) {
                    try { canceled = client.cancelTask(CancelTaskRequest(id = task.id)); break } catch (e: A2aException.TaskNotCancelable) { throw e } catch (e: A2aException) { delay(20) }
                }
                assertEquals(TaskState.Canceled, canceled?.status?.state)
                for (i in 1..100) { if (cancelled.get()) break; delay(20) }
                assertTrue(cancelled.get(), "the agent's ctx.cancelled() returned")
            }
        } finally {
            server.stop()
        }
    }
}
