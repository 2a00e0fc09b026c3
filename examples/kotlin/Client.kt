// A client in Kotlin: sends TEXT to the agent at URL and prints the task's state and its
// artifacts' text (or the direct reply).
//
//   make kotlin-client URL=http://127.0.0.1:7450 TEXT=hello
package org.a2awire.examples

import kotlinx.coroutines.runBlocking
import org.a2awire.*

fun main(args: Array<String>) = runBlocking {
    val (url, text) = args.getOrNull(0) to args.getOrElse(1) { "hello" }
    A2aClient.connect(url ?: "http://127.0.0.1:7450", ClientConfig()).use { client ->
        when (val p = client.sendMessage(SendMessageRequest(message = textMessage(text))).payload) {
            is SendMessageResponsePayload.Task -> {
                println("task ${p.task.id} ${p.task.status?.state?.let { it::class.simpleName }}")
                for (a in p.task.artifacts) println("artifact: " + a.parts.joinToString("") { (it.content as? PartContent.Text)?.text ?: "" })
            }
            is SendMessageResponsePayload.Message -> println("message: " + p.message.parts.joinToString("") { (it.content as? PartContent.Text)?.text ?: "" })
            null -> println("no reply")
        }
    }
}
