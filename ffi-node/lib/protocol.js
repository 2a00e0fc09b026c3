"use strict";
// Protocol helpers: A2A-Version negotiation, interface selection, cards of either version,
// and the v0.3 model with its translation to and from v1.0. Each is one call into the core.

const native = require("../native.js");
const { call } = require("./errors.js");
const { fullName, dataOf } = require("./codec.js");

/** The protocol versions this package serves and speaks, newest first. */
const SUPPORTED_VERSIONS = Object.freeze(["1.0", "0.3"]);
/** The bindings, as Agent Cards name them. */
const BINDINGS = Object.freeze(["JSONRPC", "HTTP+JSON", "GRPC"]);

/**
 * The version a request is served with: `requested` (the `A2A-Version` header; null, absent
 * or blank means 0.3) when `supported` has it; otherwise throws `VersionNotSupportedError`.
 */
function negotiate(requested, supported = SUPPORTED_VERSIONS) {
  return call(native.negotiate, requested ?? null, [...supported]);
}

/**
 * The interface of `card` (an AgentCard object) a client uses: the first in the card's order
 * whose binding is in `bindings` and version in `versions` (both in preference order).
 * Returns `{url, binding, version, tenant, index}`; throws `CannotSendError` when none fits.
 */
function selectInterface(card, { bindings = BINDINGS, versions = SUPPORTED_VERSIONS } = {}) {
  return JSON.parse(call(native.selectInterface, JSON.stringify(card), [...bindings], [...versions]));
}

/**
 * An Agent Card document of either version (text or bytes): `{card, shape}`, where `card` is
 * the v1.0 AgentCard (v0.3 fields become `supportedInterfaces`) and `shape` is `"1.0"`,
 * `"0.3"` or `"both"`.
 */
function readCard(data) {
  return JSON.parse(call(native.readCard, dataOf(data)));
}

function v03Data(data) {
  return typeof data === "string" || data instanceof Uint8Array || data instanceof ArrayBuffer ? dataOf(data) : JSON.stringify(data);
}

/**
 * The v0.3 model: plain objects in v0.3's JSON shapes (`kind` tags, lowercase states,
 * `file` parts, `final`). Every translation reports what it could not carry as `losses`
 * (`{kind, path}`); an empty list means it is exact.
 */
const v03 = Object.freeze({
  /** The v0.3 type names the translation knows (`Task`, `Message`, `AgentCard`, ...). */
  typeNames: () => native.v03TypeNames(),
  /** Decodes and checks a v0.3 object of `type` (text, bytes or an object): its canonical form. */
  decode(type, data) {
    return JSON.parse(call(native.v03Canonical, type, v03Data(data)));
  },
  /** Canonical v0.3 JSON text of a v0.3 object of `type`. */
  encode(type, value) {
    return call(native.v03Canonical, type, v03Data(value));
  },
  /** Translates a v0.3 object of `type` to v1.0: `{type, value, losses}` (`type`: the v1.0 message name). */
  toV1(type, data) {
    const t = JSON.parse(call(native.v03ToV1, type, v03Data(data)));
    return { type: t.type.replace(/^lf\.a2a\.v1\./, ""), value: t.v1, losses: t.losses };
  },
  /** Translates the v1.0 message `value` of `type` to v0.3: `{type, value, losses}`. */
  fromV1(type, value) {
    const t = JSON.parse(call(native.v03FromV1, fullName(type), JSON.stringify(value)));
    return { type: t.type, value: t.v03, losses: t.losses };
  },
});

module.exports = { negotiate, selectInterface, readCard, v03, SUPPORTED_VERSIONS, BINDINGS };
