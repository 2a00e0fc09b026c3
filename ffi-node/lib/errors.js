"use strict";
// The error classes of a2a-wire. Their wire forms (JSON-RPC code, HTTP status, gRPC code,
// ErrorInfo reason) come from the Rust core's one table at load; a kind without a class
// here (or a class without a kind there) fails the load, so the two cannot drift.

const native = require("../native.js");

const CONSTANTS = JSON.parse(native.constants());
const MARKER = CONSTANTS.errorMarker;

/** One offending field: its JSON path (`message.parts[2]`) and what is wrong there. */
function violation(field, description) {
  return Object.freeze({ field: String(field), description: String(description) });
}

function violationsOf(list) {
  if (list == null) return [];
  if (!Array.isArray(list)) throw new TypeError("violations: expected an array of {field, description}");
  return list.map((v) => (Array.isArray(v) ? violation(v[0], v[1]) : violation(v.field, v.description)));
}

function metadataOf(meta) {
  const out = {};
  if (meta == null) return out;
  if (typeof meta !== "object") throw new TypeError("metadata: expected an object of strings");
  for (const [k, v] of Object.entries(meta)) out[k] = String(v);
  return out;
}

/**
 * An A2A error. Each kind is a subclass (`TaskNotFoundError`, ...); `A2AError.fromKind(kind)`
 * finds one by the core's name (`"TaskNotFound"`). `code` is the JSON-RPC code, `reason` the
 * ErrorInfo reason, `httpStatus` / `grpcStatus` the other bindings' statuses. Received
 * errors also carry `binding` and `wireStatus` (the status seen on that binding).
 */
class A2AError extends Error {
  constructor(message, options = {}) {
    const cls = new.target;
    if (cls === A2AError) throw new TypeError("A2AError is abstract: use a subclass (TaskNotFoundError, ...) or A2AError.fromKind()");
    const text = message == null || message === "" ? cls.defaultMessage : String(message);
    super(text, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = cls.name;
    this.metadata = metadataOf(options.metadata);
    this.violations = violationsOf(options.violations);
    this.binding = options.binding ?? null;
    this.wireStatus = options.wireStatus ?? null;
  }
  get kind() { return this.constructor.kind; }
  get number() { return this.constructor.number; }
  get code() { return this.constructor.code; }
  get reason() { return this.constructor.reason; }
  get httpStatus() { return this.constructor.httpStatus; }
  /** The HTTP status this kind answers with (the same as `httpStatus`). */
  get status() { return this.constructor.httpStatus; }
  get grpcStatus() { return this.constructor.grpcStatus; }

  /** What the core reads back (`{number, kind, message, metadata, violations}`). */
  toJSON() {
    return { number: this.number, kind: this.kind, message: this.message, metadata: this.metadata, violations: this.violations };
  }
  /** The JSON-RPC `error` object. */
  toJsonRpc() { return JSON.parse(native.renderError(JSON.stringify(this), "jsonrpc")); }
  /** The HTTP+JSON answer, `{status, body}` (`version` "0.3" for the v0.3 body). */
  toHttp(version = "1.0") { return JSON.parse(native.renderError(JSON.stringify(this), version === "0.3" ? "http-0.3" : "http")); }
  /** The gRPC status, `{code, message, details}`; `details` is the `grpc-status-details-bin` trailer. */
  toGrpc() {
    const g = JSON.parse(native.renderError(JSON.stringify(this), "grpc"));
    g.details = native.renderGrpcDetails(JSON.stringify(this));
    return g;
  }

  /** The subclass of an error kind by its core name (`"TaskNotFound"`). */
  static fromKind(kind) {
    const cls = BY_KIND.get(kind);
    if (cls === undefined) throw new RangeError(`unknown A2A error kind ${JSON.stringify(kind)}`);
    return cls;
  }
}

const KINDS = [
  ["TaskNotFound", "TaskNotFoundError"],
  ["TaskNotCancelable", "TaskNotCancelableError"],
  ["PushNotificationNotSupported", "PushNotificationNotSupportedError"],
  ["UnsupportedOperation", "UnsupportedOperationError"],
  ["ContentTypeNotSupported", "ContentTypeNotSupportedError"],
  ["InvalidAgentResponse", "InvalidAgentResponseError"],
  ["ExtendedAgentCardNotConfigured", "ExtendedAgentCardNotConfiguredError"],
  ["ExtensionSupportRequired", "ExtensionSupportRequiredError"],
  ["VersionNotSupported", "VersionNotSupportedError"],
  ["JsonParse", "JSONParseError"],
  ["InvalidRequest", "InvalidRequestError"],
  ["MethodNotFound", "MethodNotFoundError"],
  ["InvalidParams", "InvalidParamsError"],
  ["Internal", "InternalError"],
  ["Unauthenticated", "UnauthenticatedError"],
  ["PermissionDenied", "PermissionDeniedError"],
  ["Unavailable", "UnavailableError"],
];

const BY_KIND = new Map();
const classes = {};
for (const [kind, name] of KINDS) {
  // A named class per kind, so that stack traces and `err.name` say which.
  const cls = { [name]: class extends A2AError {} }[name];
  cls.kind = kind;
  BY_KIND.set(kind, cls);
  classes[name] = cls;
}
for (const row of JSON.parse(native.errorTable())) {
  const cls = BY_KIND.get(row.kind);
  if (cls === undefined) throw new Error(`a2a-wire: no error class for the core's error kind ${row.kind}`);
  Object.assign(cls, { number: row.number, code: row.jsonrpc, grpcStatus: row.grpc, httpStatus: row.http, reason: row.reason, defaultMessage: row.message });
}
for (const cls of BY_KIND.values()) {
  if (cls.number === undefined) throw new Error(`a2a-wire: the core has no error kind ${cls.kind}`);
}

/** A client-side failure that is not an A2A error from the peer. */
class ClientError extends Error {
  constructor(message, options) { super(message, options); this.name = new.target.name; }
}
/**
 * The peer answered with an error that has no A2A meaning (a proxy's bare 404, a 502). Never
 * read it as TaskNotFound: the request may not have reached an A2A server at all.
 */
class NotA2AError extends ClientError {
  constructor(status, message = "", options = {}) {
    super(`not an A2A error: status ${status} ${message}`.trimEnd());
    this.status = status;
    this.detail = message;
    this.binding = options.binding ?? null;
  }
}
/** The peer's answer does not follow the A2A protocol. */
class ProtocolError extends ClientError {}
/** The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3). */
class CannotSendError extends ClientError {}
/** No answer: the connection failed, was refused, timed out or closed early. */
class TransportError extends ClientError {}
/**
 * TLS failed: the agent's certificate is not trusted or not for the name dialed, the
 * handshake broke off, or a TLS file (certificate, key, CA) is unusable.
 */
class TLSError extends TransportError {}
/** The call took longer than its deadline (`timeoutMs` of `connect` or of the call). */
class CallTimeoutError extends TransportError {}
/** The client was closed (`close()`) before the call. */
class ClientClosedError extends ClientError {}
/** The Agent Card could not be fetched or read, or offers no interface the client speaks. */
class CardError extends ClientError {}
/**
 * An Agent Card signature (spec 8.4) does not verify against the trusted keys, or the card is
 * unsigned and a signature is required (`A2AClient.connect` with `cardKeys` /
 * `requireSignedCard`, `CardKeySet#verifyCard`); also a card a key cannot sign.
 */
class CardSignatureError extends CardError {}

/**
 * Bytes or values that do not make a valid message. `path` is the JSON path of the first
 * offending field (`""` for the message itself or a syntax error), `description` what is
 * wrong there, `violations` every offending field found, `line` / `column` the position in
 * JSON text when known.
 */
class ValidationError extends Error {
  constructor(description, options = {}) {
    const path = options.path ?? "";
    let text = path ? `${path}: ${description}` : String(description);
    if (options.line != null) text += ` at line ${options.line} column ${options.column}`;
    super(text);
    this.name = new.target.name;
    this.path = path;
    this.description = String(description);
    const v = violationsOf(options.violations);
    this.violations = v.length ? v : [violation(path, description)];
    this.line = options.line ?? null;
    this.column = options.column ?? null;
  }
  get kind() { return this.constructor.kind; }
}
/** The bytes are not JSON (or end early, or have trailing data). */
class JsonSyntaxError extends ValidationError {}
JsonSyntaxError.kind = "syntax";
/** Valid JSON whose value does not fit the field (wrong type, unknown enum name, ...). */
class InvalidValueError extends ValidationError {}
InvalidValueError.kind = "invalid_value";
/** A REQUIRED field is missing or empty, or a oneof has no member. */
class MissingFieldError extends ValidationError {}
MissingFieldError.kind = "missing_required";
/** The bytes are not a valid protobuf encoding of the message. */
class ProtobufError extends ValidationError {}
ProtobufError.kind = "protobuf";
/** A v0.3 <-> v1.0 translation that must be refused (the value cannot be carried). */
class ConversionError extends ValidationError {}
ConversionError.kind = "conversion";
/** A value its wire format cannot carry (a timestamp outside years 1-9999, a NaN). */
class EncodeError extends Error {
  constructor(message) { super(message); this.name = "EncodeError"; }
}

const SIMPLE = {
  ProtocolError, CannotSendError, TransportError, TLSError, CallTimeoutError, ClientClosedError, CardError, CardSignatureError, EncodeError,
  TypeError, RangeError,
};
const VALIDATION = { JsonSyntaxError, InvalidValueError, MissingFieldError, ProtobufError, ConversionError };

/** The error a native description (`{class, message, ...}`) names. */
function fromDescription(d) {
  if (d.class === "A2AError") {
    const cls = BY_KIND.get(d.kind);
    if (cls === undefined) return new ProtocolError(`unknown A2A error kind ${d.kind}: ${d.message}`);
    return new cls(d.message, { metadata: d.metadata, violations: d.violations, binding: d.binding, wireStatus: d.wireStatus });
  }
  if (d.class === "NotA2AError") return new NotA2AError(d.status, d.message, { binding: d.binding });
  const v = VALIDATION[d.class];
  if (v !== undefined) return new v(d.message, { path: d.path, violations: d.violations, line: d.line, column: d.column });
  const s = SIMPLE[d.class] ?? Error;
  return new s(d.message);
}

/** `e` as thrown to the user: a native error carrying a description becomes its class. */
function translate(e) {
  if (e instanceof Error && typeof e.message === "string" && e.message.startsWith(MARKER)) {
    return fromDescription(JSON.parse(e.message.slice(MARKER.length)));
  }
  return e;
}

/** Calls `fn(...args)`, throwing native errors as their classes. */
function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (e) {
    const err = translate(e);
    // The stack starts where the package was called, not in this file.
    if (err !== e) Error.captureStackTrace?.(err, call);
    throw err;
  }
}

/** The error an HTTP+JSON error response means (`version`: the interface's protocol version). */
function classifyHttp(status, body, version = "1.0") {
  return fromDescription(JSON.parse(call(native.classifyHttp, status, body ?? "", version)));
}
/** The error a gRPC status means; `details` is the `grpc-status-details-bin` trailer. */
function classifyGrpc(code, message, details = null, version = "1.0") {
  return fromDescription(JSON.parse(call(native.classifyGrpc, code, message ?? "", details ?? undefined, version)));
}
/** The error a JSON-RPC `error` object means (the ErrorInfo reason beats the code). */
function classifyJsonRpc(error) {
  return fromDescription(JSON.parse(call(native.classifyJsonrpc, JSON.stringify(error))));
}

module.exports = {
  A2AError, ...classes,
  ClientError, NotA2AError, ProtocolError, CannotSendError, TransportError, TLSError, CallTimeoutError, ClientClosedError, CardError,
  CardSignatureError,
  ValidationError, JsonSyntaxError, InvalidValueError, MissingFieldError, ProtobufError, ConversionError, EncodeError,
  classifyHttp, classifyGrpc, classifyJsonRpc,
  CONSTANTS, call, translate, fromDescription,
};
