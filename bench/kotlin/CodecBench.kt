// sample_task.json round trips per second: the Kotlin API (decodeTaskJson: parse, validate,
// build the data classes; encodeTaskJson: ProtoJSON out) against Jackson's tree parse and
// write of the same bytes (no validation, no model), and against the official a2a-java SDK's
// JSON path (io.a2a.jsonrpc.common.json.JsonUtil: Gson into io.a2a.spec.Task and back), in one JVM, interleaved so the machine's
// drift hits both alike. Prints one JSON line: ns per round trip, median and min of the runs.
//
//   java -cp ... -Djna.library.path=target/release org.a2awire.bench.CodecBenchKt WIRE.json ITERATIONS REPEATS
package org.a2awire.bench

import com.fasterxml.jackson.databind.ObjectMapper
import io.a2a.jsonrpc.common.json.JsonUtil
import org.a2awire.decodeTaskJson
import org.a2awire.encodeTaskJson
import java.io.File

fun main(args: Array<String>) {
    val wire = File(args[0]).readText()
    val iterations = args.getOrElse(1) { "20000" }.toInt()
    val repeats = args.getOrElse(2) { "11" }.toInt()
    val mapper = ObjectMapper()
    // Both paths give equal JSON back (the vector's wire is canonical), checked once.
    check(mapper.readTree(encodeTaskJson(decodeTaskJson(wire))) == mapper.readTree(wire)) { "the Kotlin round trip changed the task" }
    val impls = linkedMapOf<String, () -> Int>(
        "kotlin" to { encodeTaskJson(decodeTaskJson(wire)).length },
        "jackson" to { mapper.writeValueAsString(mapper.readTree(wire)).length },
        "a2a-java" to { JsonUtil.toJson(JsonUtil.fromJson(wire, io.a2a.spec.Task::class.java)).length },
    )
    // What a2a-java keeps of the task: its JSON back, compared as trees (informational).
    val javaBack = JsonUtil.toJson(JsonUtil.fromJson(wire, io.a2a.spec.Task::class.java))
    System.err.println("a2a-java round trip equals the input: ${mapper.readTree(javaBack) == mapper.readTree(wire)}")
    var sink = 0L
    repeat(3) { impls.values.forEach { f -> repeat(iterations / 4) { sink += f() } } } // JIT warm-up
    val runs = impls.keys.associateWith { mutableListOf<Double>() }
    repeat(repeats) {
        for ((name, f) in impls) {
            val t0 = System.nanoTime()
            repeat(iterations) { sink += f() }
            runs.getValue(name) += (System.nanoTime() - t0).toDouble() / iterations
        }
    }
    val out = runs.entries.joinToString(",") { (name, r) ->
        val s = r.sorted()
        "\"$name\":{\"ns_per_op_median\":${s[s.size / 2]},\"ns_per_op_min\":${s.first()},\"runs\":[${r.joinToString(",") { "%.0f".format(it) }}]}"
    }
    println("{\"bytes\":${wire.length},\"iterations\":$iterations,\"repeats\":$repeats,\"sink\":${sink % 7},$out}")
}
