package org.a2awire

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.util.Base64

/**
 * Every v1.0 vector of tests/vectors/v1 whose type is an lf.a2a.v1 message, through the
 * Kotlin model: a valid one decodes into the data classes, encodes back to its canonical
 * JSON, and survives JSON -> protobuf -> JSON; an invalid one throws the A2aException
 * subclass of its kind, naming the vector's JSON path.
 */
class VectorsTest {
    private val json = ObjectMapper()
    private val dir = File(System.getProperty("a2a.vectors.dir") ?: "../../tests/vectors", "v1")

    private fun vectors(): List<Pair<File, JsonNode>> =
        dir.walkTopDown().filter { it.isFile && it.name.endsWith(".json") }.sortedBy { it.path }
            .map { it to json.readTree(it) }
            .filter { (_, v) -> v.path("type").asText().startsWith("lf.a2a.v1.") }
            .toList()

    @Test
    fun `the vectors are there`() {
        val n = vectors().size
        assertTrue(n >= 100, "expected the v1 vectors under $dir, found $n")
    }

    @TestFactory
    fun `every v1 vector through the Kotlin model`(): List<DynamicTest> = vectors().map { (file, v) ->
        DynamicTest.dynamicTest(file.relativeTo(dir).path) {
            val type = v["type"].asText()
            val decoded: () -> AnyMessage = when {
                v.has("wire_base64") -> { { decodeProtobuf(type, Base64.getDecoder().decode(v["wire_base64"].asText())) } }
                v.has("wire_text") -> { { decodeJson(type, v["wire_text"].asText()) } }
                else -> { { decodeJson(type, json.writeValueAsString(v["wire"])) } }
            }
            if (v["expect"].asText() == "valid") {
                val message = decoded()
                assertEquals(type, typeName(message))
                val want = v["canonical"] ?: v["wire"] ?: json.readTree(encodeJson(message))
                assertEquals(want, json.readTree(encodeJson(message)), "JSON of the decoded message")
                // (Data classes compare a ByteArray by reference: the round trip is compared
                // as JSON, which holds the bytes as base64.)
                val again = decodeProtobuf(type, encodeProtobuf(message))
                assertEquals(want, json.readTree(encodeJson(again)), "JSON after the protobuf round trip")
            } else {
                val err = v["error"]
                val e = assertThrows<A2aException> { decoded() }
                val (field, description) = when (e) {
                    is A2aException.Syntax -> { assertEquals("syntax", err["kind"].asText(), e.toString()); e.field to e.description }
                    is A2aException.InvalidValue -> { assertEquals("invalid_value", err["kind"].asText(), e.toString()); e.field to e.description }
                    is A2aException.MissingRequired -> { assertEquals("missing_required", err["kind"].asText(), e.toString()); e.field to e.description }
                    is A2aException.Protobuf -> { assertEquals("protobuf", err["kind"].asText(), e.toString()); e.field to e.description }
                    else -> throw AssertionError("unexpected exception $e")
                }
                if (err.has("field")) assertEquals(err["field"].asText(), field, "the JSON path")
                if (err.has("contains")) assertTrue(description.contains(err["contains"].asText()), "\"$description\" should contain \"${err["contains"].asText()}\"")
            }
        }
    }

    @Test
    fun `typed codec functions and data classes`() {
        val m = Message(messageId = "m-1", role = Role.User, parts = listOf(Part(content = PartContent.Text(text = "hi"))))
        val text = encodeMessageJson(m)
        assertEquals(json.readTree("""{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hi"}]}"""), json.readTree(text))
        assertEquals(m, decodeMessageJson(text))
        assertEquals(m, decodeMessageProtobuf(encodeMessageProtobuf(m)))
        assertEquals(m.copy(contextId = "c"), decodeMessageJson(encodeMessageJson(m.copy(contextId = "c"))))
    }

    @Test
    fun `JSON texts of Struct fields are checked on the way back`() {
        val bad = Message(messageId = "m", role = Role.User, parts = listOf(Part(content = PartContent.Text(text = "x"))), metadata = "[1]")
        val e = assertThrows<A2aException.InvalidValue> { encodeMessageJson(bad) }
        assertEquals("metadata", e.field)
        val ok = bad.copy(metadata = """{"k":[1,"two",null]}""")
        assertEquals(json.readTree("""{"k":[1,"two",null]}"""), json.readTree(decodeMessageJson(encodeMessageJson(ok)).metadata))
    }

    @Test
    fun `an enum number this version does not name survives`() {
        val s = decodeTaskStatusJson("""{"state":42}""")
        assertEquals(TaskState.Unrecognized(42), s.state)
        assertEquals(json.readTree("""{"state":42}"""), json.readTree(encodeTaskStatusJson(s)))
        assertEquals(TaskState.Completed, decodeTaskStatusJson("""{"state":"TASK_STATE_COMPLETED"}""").state)
    }

    @Test
    fun `an unknown type name is refused by name`() {
        val e = assertThrows<A2aException.InvalidValue> { decodeJson("lf.a2a.v1.Nope", "{}") }
        assertTrue(e.description.contains("lf.a2a.v1.Nope"), e.description)
    }

    @Test
    fun `a failed call leaves no error behind for the next call on the thread, on any thread`() {
        // The call statuses are reused per thread (ffi-uniffi/patch_kotlin.py): an error a call
        // returned must not show in the next call, and threads must not share one.
        val good = """{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}"""
        val bad = """{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_NOPE"}}"""
        val failures = java.util.concurrent.atomic.AtomicInteger()
        val threads = (1..4).map {
            Thread {
                repeat(2_000) { i ->
                    if (i % 2 == 0) {
                        if (decodeTaskJson(good).id != "t1") failures.incrementAndGet()
                    } else {
                        try { decodeTaskJson(bad); failures.incrementAndGet() } catch (e: A2aException) {
                            if (!e.toString().contains("status.state")) failures.incrementAndGet()
                        }
                    }
                }
            }
        }
        threads.forEach { it.start() }
        threads.forEach { it.join() }
        assertEquals(0, failures.get())
    }
}
