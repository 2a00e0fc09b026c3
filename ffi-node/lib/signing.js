"use strict";
// Agent Card signatures (spec 8.4): a SigningKey signs cards (ES256 or EdDSA), a CardKeySet
// of public keys verifies them. The cryptography is the Rust transport's (ring) and every
// rule (the payload, the header, which signature counts) the core's; the private key stays
// in Rust and is never shown.
//
// Bad key material (a text that is not a usable JWK, JWKS or PKCS#8 PEM key, a key without
// a kid) is the caller's mistake: TypeError, as for every other argument of the wrong shape
// in this package. Files are read with node:fs, whose errors (ENOENT, ...) come as they are.

const fs = require("node:fs");
const { inspect } = require("node:util");
const native = require("../native.js");
const { call } = require("./errors.js");

/** JSON text of a JWK / JWKS given as text or as an object. */
function jsonText(value, what) {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  throw new TypeError(`${what}: expected JSON text or an object, got ${value === null ? "null" : typeof value}`);
}

function cardText(card) {
  if (card === null || typeof card !== "object") throw new TypeError(`card: expected an AgentCard object, got ${card === null ? "null" : typeof card}`);
  return JSON.stringify(card);
}

/** A private key that signs Agent Cards. Make one with `fromJwk`, `fromPem` or `fromFile`. */
class SigningKey {
  #native;
  /** @internal */
  constructor(n) {
    if (!(n instanceof native.NativeSigningKey)) {
      throw new TypeError("SigningKey: use SigningKey.fromJwk(), SigningKey.fromPem() or SigningKey.fromFile()");
    }
    this.#native = n;
  }
  /** A private JWK (text or object): EC P-256 (ES256) or OKP Ed25519 (EdDSA), with a `kid`. */
  static fromJwk(jwk) {
    return new SigningKey(call(() => native.NativeSigningKey.fromJwk(jsonText(jwk, "jwk"))));
  }
  /** A PKCS#8 private key in PEM (text or bytes), named `kid`. */
  static fromPem(pem, kid) {
    let text = pem;
    if (pem instanceof Uint8Array) text = Buffer.from(pem.buffer, pem.byteOffset, pem.byteLength).toString("utf8");
    if (typeof text !== "string") throw new TypeError(`pem: expected a string or a Uint8Array, got ${pem === null ? "null" : typeof pem}`);
    if (typeof kid !== "string") throw new TypeError("kid: expected a string (the key id signatures name)");
    return new SigningKey(call(() => native.NativeSigningKey.fromPem(text, kid)));
  }
  /**
   * A key from a file: a private JWK (JSON; `kid`, when given, replaces its own) or a PKCS#8
   * PEM key (then `kid` is needed).
   */
  static fromFile(path, kid) {
    if (kid != null && typeof kid !== "string") throw new TypeError("kid: expected a string");
    const text = fs.readFileSync(path, "utf8");
    try {
      return new SigningKey(call(() => native.NativeSigningKey.fromText(text, kid ?? undefined)));
    } catch (e) {
      if (e instanceof TypeError) throw new TypeError(`${path}: ${e.message}`);
      throw e;
    }
  }
  /** The key id its signatures name. */
  get kid() { return this.#native.kid; }
  /** `"ES256"` or `"EdDSA"`. */
  get alg() { return this.#native.alg; }
  /** The public half as a JWK (`kid`, `alg`, `use: "sig"`): what verifiers put in their key set. */
  publicJwk() { return JSON.parse(this.#native.publicJwk()); }
  /**
   * `card` with one more signature by this key (over the spec's payload; `jku`, when given,
   * goes into the signature's header). Sign last: a change to the card breaks it.
   */
  signCard(card, { jku } = {}) {
    if (jku != null && typeof jku !== "string") throw new TypeError("jku: expected a URL string");
    return JSON.parse(call(() => this.#native.signCard(cardText(card), jku ?? undefined)));
  }
  /** @internal The native key (for serve and A2AService). */
  static _native(key, what = "signingKey") {
    if (key == null) return null;
    if (!(key instanceof SigningKey)) throw new TypeError(`${what}: expected a SigningKey`);
    return key.#native;
  }
  [inspect.custom]() {
    return `SigningKey { alg: ${inspect(this.alg)}, kid: ${inspect(this.kid)} }`;
  }
  toString() {
    return `[SigningKey ${this.alg} ${this.kid}]`;
  }
}

/** The public keys a verifier trusts, by `kid`. */
class CardKeySet {
  #native;
  /** A key set of `keys`: SigningKeys (their public halves) and public JWK objects. */
  constructor(keys = []) {
    this.#native = new native.NativeCardKeySet();
    if (keys instanceof native.NativeCardKeySet) {
      this.#native = keys;
      return;
    }
    if (keys == null || typeof keys[Symbol.iterator] !== "function" || typeof keys === "string") {
      throw new TypeError("keys: expected an iterable of SigningKeys and public JWK objects");
    }
    for (const k of keys) this.add(k);
  }
  /** A JWKS document (`{"keys": [...]}`) or one JWK, as text or an object; private members are ignored. */
  static fromJwks(jwks) {
    return new CardKeySet(call(() => native.NativeCardKeySet.fromJwks(jsonText(jwks, "jwks"))));
  }
  /** The JWKS file at `path`. */
  static fromFile(path) {
    const text = fs.readFileSync(path, "utf8");
    try {
      return CardKeySet.fromJwks(text);
    } catch (e) {
      if (e instanceof TypeError) throw new TypeError(`${path}: ${e.message}`);
      throw e;
    }
  }
  /** Adds a key (a SigningKey's public half, or a public JWK object); one of the same kid is replaced. Returns the set. */
  add(key) {
    if (key instanceof SigningKey) this.#native.insertKey(SigningKey._native(key));
    else if (key !== null && typeof key === "object") call(() => this.#native.insert(JSON.stringify(key)));
    else throw new TypeError(`key: expected a SigningKey or a public JWK object, got ${key === null ? "null" : typeof key}`);
    return this;
  }
  /**
   * The first signature of `card` these keys verify: `{index, kid, alg, jku, form}`. Throws
   * CardSignatureError when none does (each signature's reason in the message) or the card
   * is unsigned. `specFormOnly`: refuse signatures over the official SDKs' payload form.
   */
  verifyCard(card, { specFormOnly = false } = {}) {
    const v = call(() => this.#native.verifyCard(cardText(card), Boolean(specFormOnly)));
    return { index: v.index, kid: v.kid, alg: v.alg, jku: v.jku ?? null, form: v.form };
  }
  /** @internal The native key set (for connect). */
  static _native(keys) {
    if (keys == null) return null;
    if (!(keys instanceof CardKeySet)) throw new TypeError("cardKeys: expected a CardKeySet");
    return keys.#native;
  }
}

module.exports = { SigningKey, CardKeySet };
