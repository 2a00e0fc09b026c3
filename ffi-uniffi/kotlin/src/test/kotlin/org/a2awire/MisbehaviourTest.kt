package org.a2awire

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.time.Duration
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference

/**
 * Kotlin agents that misbehave (one that never returns, one that publishes after the end,
 * one that blocks its thread) are handled cleanly: the task ends as it should, the server
 * goes on serving, nothing crashes. And a leak check: 100,000 codec calls and 10,000 served
 * requests leave the resident memory flat (the second half grows it no more than a bound).
 */
class MisbehaviourTest {
    private val hangEnded = AtomicBoolean(false)
    private val lateError = AtomicReference<Throwable?>(null)

    private val agent = object : AgentExecutor {
        override suspend fun execute(ctx: RunContext, events: Events) {
            when (ctx.text()) {
                "hang" -> {
                    events.working(null)
                    try { awaitCancellation() } finally { hangEnded.set(true) }
                }
                "late" -> {
                    events.complete(null)
                    // Events go out without waiting: the refusal shows at the flush (or the next publish).
                    try { events.textArtifact("after the end"); events.flush() } catch (e: A2aException) { lateError.set(e) }
                }
                "block" -> {
                    @Suppress("BlockingMethodInNonBlockingContext")
                    Thread.sleep(1_500)
                    events.reply("unblocked")
                }
                else -> events.reply(ctx.text())
            }
        }
    }

    private val card = AgentCard(
        name = "kotlin misbehaving", description = "misbehaves", version = "1.0",
        capabilities = AgentCapabilities(streaming = true),
        defaultInputModes = listOf("text/plain"), defaultOutputModes = listOf("text/plain"),
    )

    private suspend fun reply(client: A2aClient, text: String): SendMessageResponsePayload? =
        client.sendMessage(SendMessageRequest(message = textMessage(text))).payload

    private fun replyText(p: SendMessageResponsePayload?) =
        ((p as SendMessageResponsePayload.Message).message.parts.single().content as PartContent.Text).text

    @Test
    fun `misbehaving agents end cleanly and the server goes on`() = runBlocking {
        AgentServer(agent, card, ServerConfig(cancelGrace = Duration.ofMillis(300))).use { server ->
            A2aClient.connect(server.url(), ClientConfig()).use { client ->
                // Never returns: canceled, then its coroutine is cancelled after the grace.
                val started = client.sendMessage(SendMessageRequest(message = textMessage("hang"), configuration = SendMessageConfiguration(returnImmediately = true)))
                val id = (started.payload as SendMessageResponsePayload.Task).task.id
                var canceled: Task? = null
                for (i in 1..100) {
                    try { canceled = client.cancelTask(CancelTaskRequest(id = id)); break } catch (e: A2aException.TaskNotCancelable) { throw e } catch (e: A2aException) { delay(20) }
                }
                assertEquals(TaskState.Canceled, canceled?.status?.state)
                for (i in 1..150) { if (hangEnded.get()) break; delay(20) }
                assertTrue(hangEnded.get(), "the run that never returned was cancelled after the grace")
                assertEquals(TaskState.Canceled, client.getTask(GetTaskRequest(id = id)).status?.state)

                // Publishes after the end: refused with an exception, the task stays as it ended.
                val late = (reply(client, "late") as SendMessageResponsePayload.Task).task
                assertEquals(TaskState.Completed, late.status?.state)
                for (i in 1..100) { if (lateError.get() != null) break; delay(20) }
                assertTrue(lateError.get() is A2aException, "publishing after the end threw: ${lateError.get()}")
                val stored = client.getTask(GetTaskRequest(id = late.id))
                assertEquals(TaskState.Completed, stored.status?.state)
                assertEquals(0, stored.artifacts.size, "nothing published after the end was stored")

                // Blocks its thread: the other requests are still served meanwhile.
                val blocked = async { replyText(reply(client, "block")) }
                delay(100)
                val t0 = System.nanoTime()
                assertEquals("quick", replyText(reply(client, "quick")))
                val ms = (System.nanoTime() - t0) / 1_000_000
                assertTrue(ms < 1_000, "a request waited $ms ms behind a blocked agent")
                assertEquals("unblocked", blocked.await())
            }
            server.stop()
        }
    }

    private fun rssKb(): Long = File("/proc/self/status").readLines().first { it.startsWith("VmRSS:") }
        .removePrefix("VmRSS:").trim().removeSuffix("kB").trim().toLong()

    @Test
    fun `100,000 codec calls and 10,000 served requests leave resident memory flat`() = runBlocking {
        val vectors = File(System.getProperty("a2a.vectors.dir") ?: "../../tests/vectors")
        val json = com.fasterxml.jackson.databind.ObjectMapper().let { it.writeValueAsString(it.readTree(File(vectors, "v1/Message/all-part-kinds.json"))["wire"]) }
        AgentServer(agent, card, ServerConfig()).use { server ->
            A2aClient.connect(server.url(), ClientConfig()).use { client ->
                suspend fun half() {
                    val t0 = System.nanoTime()
                    // 25,000 decodes and 25,000 encodes: 100,000 codec calls in the two halves.
                    repeat(25_000) { val m = decodeMessageJson(json); check(encodeMessageJson(m).length > 100) }
                    val t1 = System.nanoTime()
                    repeat(625) { (1..8).map { i -> async { reply(client, "n$i") } }.awaitAll() }
                    println("leak check: 25,000 codec round trips in ${(t1 - t0) / 1_000_000} ms, 5,000 requests in ${(System.nanoTime() - t1) / 1_000_000} ms")
                }
                half()
                System.gc()
                val before = rssKb()
                half()
                System.gc()
                val after = rssKb()
                println("leak check: resident ${before / 1024} MiB after the first half, ${after / 1024} MiB after the second")
                assertTrue(after - before < 48 * 1024, "resident memory grew ${(after - before) / 1024} MiB in the second half")
            }
            server.stop()
        }
    }
}
