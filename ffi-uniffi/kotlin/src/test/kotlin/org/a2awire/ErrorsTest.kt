package org.a2awire

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.ByteArrayOutputStream
import java.io.File

/**
 * The exception classes against tests/vectors/errors: every received-* vector (a peer's
 * HTTP+JSON, gRPC or JSON-RPC error) classifies to its `A2aException` subclass with its
 * metadata and violations, or to `NotA2a` with its status; every render-* vector's JSON-RPC
 * and HTTP+JSON forms read back as the subclass of its kind with the code, status, reason
 * and metadata of the core's error table.
 */
class ErrorsTest {
    private val json = ObjectMapper()
    private val dir = File(System.getProperty("a2a.vectors.dir") ?: "../../tests/vectors", "errors")

    /** `google.rpc.Status` bytes (code 1, message 2, details 3 as `Any` of an `ErrorInfo`). */
    private fun grpcDetails(code: Int, message: String, details: JsonNode): ByteArray {
        fun varint(out: ByteArrayOutputStream, v: Long) { var x = v; while (x >= 0x80) { out.write(((x and 0x7f) or 0x80).toInt()); x = x ushr 7 }; out.write(x.toInt()) }
        fun bytes(out: ByteArrayOutputStream, field: Int, b: ByteArray) { varint(out, (field shl 3 or 2).toLong()); varint(out, b.size.toLong()); out.write(b) }
        fun str(out: ByteArrayOutputStream, field: Int, s: String) { if (s.isNotEmpty()) bytes(out, field, s.toByteArray()) }
        val status = ByteArrayOutputStream()
        if (code != 0) { varint(status, 1 shl 3); varint(status, code.toLong()) }
        str(status, 2, message)
        for (d in details) {
            val info = ByteArrayOutputStream()
            str(info, 1, d.path("reason").asText())
            str(info, 2, d.path("domain").asText())
            d.path("metadata").fields().forEach { (k, v) ->
                val entry = ByteArrayOutputStream(); str(entry, 1, k); str(entry, 2, v.asText()); bytes(info, 3, entry.toByteArray())
            }
            val any = ByteArrayOutputStream()
            str(any, 1, d.path("type_url").asText())
            bytes(any, 2, info.toByteArray())
            bytes(status, 3, any.toByteArray())
        }
        return status.toByteArray()
    }

    private fun checkA2a(got: A2aException, kind: String, where: String): A2aException {
        assertEquals(kind, got::class.simpleName, "$where: ${got.message}")
        return got
    }

    /** The A2A fields every A2A variant carries (read alike, whatever the subclass). */
    private fun fields(e: A2aException): Map<String, Any?> =
        listOf("code", "status", "reason", "metadata", "violations").associateWith { name ->
            // A UShort getter has a mangled JVM name (getStatus-...): match the prefix.
            val getter = e.javaClass.methods.first { it.parameterCount == 0 && (it.name == "get${name.replaceFirstChar(Char::uppercase)}" || it.name.startsWith("get${name.replaceFirstChar(Char::uppercase)}-")) }
            when (val x = getter.invoke(e)) { is Short -> x.toInt() and 0xffff; else -> x }
        }

    @TestFactory
    fun `every error vector through the exception classes`(): List<DynamicTest> {
        val files = dir.listFiles { f -> f.name.endsWith(".json") }!!.sortedBy { it.name }
        assertTrue(files.size >= 20, "expected the error vectors under $dir, found ${files.size}")
        return files.map { file ->
            DynamicTest.dynamicTest(file.name) {
                val v = json.readTree(file)
                val version = v.path("version").asText("1.0")
                if (v["type"].asText() == "error") {
                    val e = v["error"]
                    val kind = e["kind"].asText()
                    val fromJsonRpc = checkA2a(classifyJsonrpc(json.writeValueAsString(v["jsonrpc"])), kind, "JSON-RPC form")
                    val fromHttp = checkA2a(classifyHttp(v["http"]["status"].asInt().toUShort(), json.writeValueAsBytes(v["http"]["body"]), version), kind, "HTTP form")
                    for ((form, got) in listOf("JSON-RPC" to fromJsonRpc, "HTTP" to fromHttp)) {
                        val f = fields(got)
                        assertEquals(v["jsonrpc"]["code"].asInt(), f["code"], "$form: code")
                        assertEquals(v["http"]["status"].asInt(), f["status"], "$form: status")
                        val wantMeta = e.path("metadata").fields().asSequence().associate { it.key to it.value.asText() }
                        assertEquals(wantMeta, f["metadata"], "$form: metadata")
                        val wantViolations = e.path("violations").map { it["field"].asText() }
                        @Suppress("UNCHECKED_CAST")
                        assertEquals(wantViolations, (f["violations"] as List<FieldViolation>).map { it.field }, "$form: violations")
                        val reason = v["jsonrpc"].path("data").firstOrNull { it.path("@type").asText().endsWith("ErrorInfo") }?.path("reason")?.asText() ?: ""
                        assertEquals(reason, f["reason"], "$form: reason")
                    }
                    return@dynamicTest
                }
                assertEquals("received-error", v["type"].asText())
                val r = v["received"]
                val want = v["classified"]
                val (got, binding) = when {
                    r.has("http") -> classifyHttp(r["http"]["status"].asInt().toUShort(), r["http"].path("body_text").asText().toByteArray(), version) to "HTTP+JSON"
                    r.has("grpc") -> {
                        val g = r["grpc"]
                        val details = if (g.has("details")) grpcDetails(g["code"].asInt(), g.path("message").asText(), g["details"]) else null
                        classifyGrpc(g["code"].asInt(), g.path("message").asText(), details, version) to "GRPC"
                    }
                    else -> classifyJsonrpc(json.writeValueAsString(r["jsonrpc"])) to "JSONRPC"
                }
                if (want.path("not_a2a").asBoolean()) {
                    assertTrue(got is A2aException.NotA2a, "$binding: classified as ${got::class.simpleName}: ${got.message}")
                    assertEquals(want["status"].asInt(), (got as A2aException.NotA2a).status)
                    return@dynamicTest
                }
                checkA2a(got, want["kind"].asText(), binding)
                val f = fields(got)
                @Suppress("UNCHECKED_CAST")
                val meta = f["metadata"] as Map<String, String>
                want.path("metadata").fields().forEach { (k, x) -> assertEquals(x.asText(), meta[k], "metadata $k") }
                if (want.has("violations")) {
                    @Suppress("UNCHECKED_CAST")
                    assertEquals(want["violations"].map { it.asText() }, (f["violations"] as List<FieldViolation>).map { it.field })
                }
            }
        }
    }
}
