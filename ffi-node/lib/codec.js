"use strict";
// The codecs: plain objects in the exact ProtoJSON shape, JSON text and protobuf bytes. All
// checking is the core's (decode, REQUIRED fields, oneofs, enum names, timestamps); objects
// are made by V8's JSON.parse from the core's canonical text and read by JSON.stringify.

const native = require("../native.js");
const { call } = require("./errors.js");

const PACKAGE = "lf.a2a.v1.";

/** The full proto name of a message: `"Task"` is `lf.a2a.v1.Task`; a dotted name is taken as given. */
function fullName(type) {
  if (typeof type !== "string" || type === "") throw new TypeError("type: expected a message name such as \"Task\"");
  return type.includes(".") ? type : PACKAGE + type;
}

function formatOf(options, key, fallback) {
  const f = options?.[key] ?? fallback;
  if (f !== "json" && f !== "protobuf") throw new RangeError(`${key}: expected "json" or "protobuf", got ${JSON.stringify(f)}`);
  return f;
}

// Strings cross to the native side as UTF-8 bytes made here: Node's own encoder (simdutf) is
// several times faster on long text than napi's string read (measured on an 8 KB Task: about
// 4.5 µs against 11 µs), and lone surrogates become U+FFFD in both.
function dataOf(data, what = "data") {
  if (typeof data === "string") return Buffer.from(data, "utf8");
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError(`${what}: expected a string, a Buffer or a Uint8Array, got ${data === null ? "null" : typeof data}`);
}

/**
 * Decodes `data` (ProtoJSON text, or protobuf bytes with `{format: "protobuf"}`) as the
 * message `type`, checked (`{validate: false}` skips the REQUIRED-field check), into a plain
 * object of the canonical ProtoJSON shape.
 */
function decode(type, data, options) {
  const from = formatOf(options, "format", "json");
  return JSON.parse(call(native.toJson, fullName(type), dataOf(data), from, options?.validate ?? true));
}

/**
 * Encodes the plain object `value` as the message `type`: canonical ProtoJSON text, or
 * protobuf bytes (a Buffer) with `{format: "protobuf"}`. The object is checked first, with
 * errors naming the JSON path of the offending field.
 */
function encode(type, value, options) {
  const to = formatOf(options, "format", "json");
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`value: ${typeof value} is not a message`);
  const validate = options?.validate ?? true;
  const name = fullName(type);
  const bytes = Buffer.from(text, "utf8");
  return to === "json" ? call(native.toJson, name, bytes, "json", validate) : call(native.toProtobuf, name, bytes, "json", validate);
}

/**
 * The fast text path: ProtoJSON text (a string or UTF-8 bytes) in, checked, canonical
 * ProtoJSON text out, with no JavaScript object built on the way.
 */
function canonicalize(type, data) {
  return call(native.canonicalize, fullName(type), dataOf(data));
}

/** Checks the plain object `value` as the message `type`; throws what `encode` would. */
function validate(type, value) {
  encode(type, value);
}

/**
 * `data` from one wire format to the other (`{from, to}`: `"json"` or `"protobuf"`), for any
 * message the codecs know (the model, the well-known types, `google.rpc`). JSON comes out
 * canonical, as a string; protobuf as a Buffer.
 */
function transcode(type, data, options) {
  const from = formatOf(options, "from", "json");
  const to = formatOf(options, "to", "json");
  const validate = options?.validate ?? true;
  const name = fullName(type);
  return to === "json" ? call(native.toJson, name, dataOf(data), from, validate) : call(native.toProtobuf, name, dataOf(data), from, validate);
}

/** Every message name the codecs know (full proto names). */
function typeNames() {
  return native.typeNames();
}

module.exports = { decode, encode, canonicalize, validate, transcode, typeNames, fullName, dataOf };
