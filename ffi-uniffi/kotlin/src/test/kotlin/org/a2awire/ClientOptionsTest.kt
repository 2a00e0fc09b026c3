package org.a2awire

import com.fasterxml.jackson.databind.ObjectMapper
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.security.KeyPairGenerator
import java.util.Base64
import java.util.concurrent.atomic.AtomicInteger
import java.time.Duration

/**
 * The client's options beyond the config: header providers asked before each request,
 * per-call time limits and headers, and Agent Card signature checks (spec 8.4) against a
 * Kotlin agent whose server signs its card.
 */
class ClientOptionsTest {
    private val agent = object : AgentExecutor {
        override suspend fun execute(ctx: RunContext, events: Events) {
            if (ctx.text() == "slow") delay(3_000)
            events.reply("principal: ${ctx.principal()}")
        }
    }

    private val card = AgentCard(
        name = "kotlin who", description = "says who called", version = "1.0",
        capabilities = AgentCapabilities(streaming = true),
        defaultInputModes = listOf("text/plain"), defaultOutputModes = listOf("text/plain"),
    )

    private suspend fun who(client: A2aClient, text: String = "who"): String {
        val reply = client.sendMessage(SendMessageRequest(message = textMessage(text))).payload
        val m = (reply as SendMessageResponsePayload.Message).message
        return (m.parts.single().content as PartContent.Text).text
    }

    private fun <T> serving(config: ServerConfig, body: suspend (AgentServer) -> T): T = runBlocking {
        val server = AgentServer(agent, card, config)
        try { body(server) } finally { server.stop(); server.close() }
    }

    @Test
    fun `a header provider is asked before each request, so a refreshed token goes out`() =
        serving(ServerConfig(bearerTokens = mapOf("tok-a" to "alice", "tok-b" to "bob"))) { server ->
            A2aClient.connect(server.url(), ClientConfig()).use { plain ->
                assertThrows<A2aException.Unauthenticated> { runBlocking { who(plain) } }

                var token = "tok-a"
                val asked = AtomicInteger()
                val client = plain.withHeaders { asked.incrementAndGet(); mapOf("Authorization" to "Bearer $token") }
                assertEquals("principal: alice", who(client))
                token = "tok-b"
                assertEquals("principal: bob", who(client))
                assertEquals(2, asked.get(), "asked once per request")

                val failing = plain.withHeaders { throw IllegalStateException("the token store is down") }
                val e = assertThrows<A2aException.Transport> { runBlocking { who(failing) } }
                assertTrue(e.description.contains("the token store is down"), e.description)

                // Per-call headers and time limits, on a client sharing the connections.
                val call = plain.withCallOptions(null, mapOf("Authorization" to "Bearer tok-b"))
                assertEquals("principal: bob", who(call))
                val started = System.nanoTime()
                assertThrows<A2aException.Timeout> {
                    runBlocking { who(plain.withCallOptions(Duration.ofMillis(300), mapOf("Authorization" to "Bearer tok-a")), "slow") }
                }
                val ms = (System.nanoTime() - started) / 1_000_000
                assertTrue(ms < 2_000, "a 300 ms limit gave up after $ms ms (the agent takes 3 s)")
            }
        }

    /** The Ed25519 key of RFC 8037 appendix A.1, as tests/vectors/signing gives it. */
    private fun vectorKey(): String {
        val dir = File(System.getProperty("a2a.vectors.dir") ?: "../../tests/vectors", "signing")
        val json = ObjectMapper()
        return json.writeValueAsString(json.readTree(File(dir, "payloads.json"))["signature"]["key"])
    }

    /** A JWKS of a fresh Ed25519 key under the same kid: a signature it cannot verify. */
    private fun otherJwks(): String {
        val raw = KeyPairGenerator.getInstance("Ed25519").generateKeyPair().public.encoded.takeLast(32).toByteArray()
        val x = Base64.getUrlEncoder().withoutPadding().encodeToString(raw)
        return """{"keys":[{"kty":"OKP","crv":"Ed25519","x":"$x","kid":"rfc8037-a1","alg":"EdDSA"}]}"""
    }

    @Test
    fun `the card's signature is checked against the keys given`() =
        serving(ServerConfig(cardSigningKey = vectorKey())) { server ->
            val jwks = server.cardJwks()
            assertNotNull(jwks)
            assertTrue(jwks!!.contains("rfc8037-a1"), jwks)
            assertTrue(server.card().signatures.isNotEmpty(), "the served card is signed")

            A2aClient.connect(server.url(), ClientConfig(cardJwks = jwks, requireSignedCard = true)).use { client ->
                assertEquals("principal: null", who(client))
            }
            val e = assertThrows<A2aException.Signature> {
                runBlocking { A2aClient.connect(server.url(), ClientConfig(cardJwks = otherJwks())) }
            }
            assertTrue(e.description.isNotEmpty())
            val bad = assertThrows<A2aException.Card> { runBlocking { A2aClient.connect(server.url(), ClientConfig(cardJwks = "{\"keys\": 3}")) } }
            assertTrue(bad.description.contains("signing key"), bad.description)
            assertThrows<A2aException.InvalidValue> { runBlocking { A2aClient.connect(server.url(), ClientConfig(requireSignedCard = true)) } }

            // An unsigned card is refused when a signature is required, taken when it is not.
            AgentServer(agent, card, ServerConfig()).use { unsigned ->
                assertEquals(null, unsigned.cardJwks())
                assertThrows<A2aException.Signature> {
                    runBlocking { A2aClient.connect(unsigned.url(), ClientConfig(cardJwks = jwks, requireSignedCard = true)) }
                }
                A2aClient.connect(unsigned.url(), ClientConfig(cardJwks = jwks)).use { assertEquals("principal: null", who(it)) }
                unsigned.stop()
            }
        }
}
