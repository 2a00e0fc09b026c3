// The demo agent in Kotlin (the same four behaviours as `a2a-wire serve`'s): echo, `need-input`
// (asks a question; the follow-up completes the task), `slow` (three chunks of one artifact
// about 0.7 s apart), `message-only` (a direct message). On the ready server: JSON-RPC,
// HTTP+JSON and gRPC, v1.0 and v0.3, the card at /.well-known/agent-card.json.
//
//   make kotlin-agent ADDR=127.0.0.1:7450      (foreground, until killed)
package org.a2awire.examples

import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.a2awire.*

private val SLOW = listOf("one ", "two ", "three")

object Demo : AgentExecutor {
    override suspend fun execute(ctx: RunContext, events: Events) {
        val text = ctx.text()
        when {
            ctx.isFollowUp() -> {
                events.textArtifact(text)
                events.complete(null)
            }
            text == "need-input" -> events.requireInput("What should I echo?")
            text == "message-only" -> events.reply(text)
            text == "slow" -> {
                events.working(null)
                SLOW.forEachIndexed { i, piece ->
                    if (i > 0) delay(700)
                    val part = Part(content = PartContent.Text(text = piece))
                    events.artifact(Artifact(artifactId = "slow", parts = listOf(part)), i > 0, i == SLOW.size - 1, null)
                }
                events.complete(null)
            }
            else -> {
                events.textArtifact(text)
                events.complete(null)
            }
        }
    }
}

fun main(args: Array<String>) {
    val addr = args.firstOrNull() ?: "127.0.0.1:7450"
    val host = addr.substringBeforeLast(':')
    val port = addr.substringAfterLast(':').toInt()
    val card = AgentCard(
        name = "a2a-wire kotlin echo",
        description = "Echoes text back: need-input asks a question, slow streams three chunks, message-only replies with a message.",
        version = "1.0",
        capabilities = AgentCapabilities(streaming = true),
        defaultInputModes = listOf("text/plain"),
        defaultOutputModes = listOf("text/plain"),
        skills = listOf(AgentSkill(id = "echo", name = "echo", description = "Echoes text", tags = listOf("echo"))),
    )
    val server = AgentServer(Demo, card, ServerConfig(host = host, port = port.toUShort()))
    println("serving ${server.url()}")
    System.out.flush()
    // SIGTERM: stop serving (open streams end, runs are canceled), then exit with status 0.
    Runtime.getRuntime().addShutdownHook(Thread { runBlocking { server.stop() }; Runtime.getRuntime().halt(0) })
    Thread.currentThread().join()
}
