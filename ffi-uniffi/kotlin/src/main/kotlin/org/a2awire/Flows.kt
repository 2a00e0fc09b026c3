package org.a2awire

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

/**
 * The stream's events as a cold [Flow], collected once: each event as it arrives, ending
 * when the server ends the stream. When the collector stops early (an exception, `take(n)`,
 * `first { }`, a cancelled coroutine) the stream is cancelled and its connection closed.
 *
 * ```kotlin
 * client.sendStreamingMessage(request).asFlow().collect { event -> println(event.payload) }
 * ```
 */
fun TaskStream.asFlow(): Flow<StreamResponse> = flow {
    try {
        while (true) {
            val event = next() ?: break
            emit(event)
        }
    } finally {
        cancel()
    }
}

/** `sendStreamingMessage` as a [Flow] (see [asFlow]). */
fun A2aClient.streamMessage(request: SendMessageRequest): Flow<StreamResponse> = flow {
    sendStreamingMessage(request).use { stream -> stream.asFlow().collect { emit(it) } }
}

/** `subscribeToTask` as a [Flow] (see [asFlow]). */
fun A2aClient.subscribe(request: SubscribeToTaskRequest): Flow<StreamResponse> = flow {
    subscribeToTask(request).use { stream -> stream.asFlow().collect { emit(it) } }
}

/** A user message of one text part, with a fresh message id. */
fun textMessage(text: String, taskId: String = "", contextId: String = ""): Message = Message(
    messageId = java.util.UUID.randomUUID().toString(),
    role = Role.User,
    parts = listOf(Part(content = PartContent.Text(text = text))),
    taskId = taskId,
    contextId = contextId,
)

/**
 * This client asking [headers] for headers before each request (a token refreshed before
 * it expires); an exception it throws fails the call before anything is sent.
 *
 * ```kotlin
 * val client = A2aClient.connect(url, ClientConfig()).withHeaders { mapOf("Authorization" to "Bearer ${tokens.current()}") }
 * ```
 */
fun A2aClient.withHeaders(headers: suspend () -> Map<String, String>): A2aClient =
    withHeaderProvider(object : HeaderProvider {
        override suspend fun headers(): Map<String, String> = headers()
    })
