"use strict";
// Authentication on the servers: the request an `authenticate` function judges, and what its
// answer means. Both hosts take the same function, `serve(agent, { card, authenticate })` and
// `new A2AService(agent, card, { authenticate })`:
//
//     async function authenticate(req) {
//       const user = await sessions.lookup(req.headers.get("authorization"));
//       return user ? user.name : null;        // null: 401 with WWW-Authenticate
//     }
//
// It gets every call (the card itself is public) and answers with the principal (a string:
// `ctx.principal`, and each principal sees only its own tasks), `null` (refused: 401 /
// UNAUTHENTICATED, with a `WWW-Authenticate` naming the card's schemes) or `ANONYMOUS` (let
// in without a principal). A rejection whose error has `status: 403` (or a
// PermissionDeniedError) refuses with 403; an A2AError answers with itself; anything else
// is logged and answered as an internal error.

const { A2AError, InternalError, PermissionDeniedError, UnauthenticatedError, translate } = require("./errors.js");

/** What `authenticate` returns to let a call in without a principal. */
const ANONYMOUS = Symbol.for("a2a-wire.anonymous");

/**
 * A call to judge: the HTTP request (`method`, `path`, `query`, `headers` — a `Headers` with
 * every header —, `peer`) and what the A2A core read in it (`operation`, `binding`,
 * `version`, `tenant`). `request` is the host's own request object: the Fetch `Request`
 * under `A2AService#fetch`, node's `IncomingMessage` (Express's `req`) under the listener and
 * the middleware, `null` under `serve`, which has none.
 */
class AuthRequest {
  constructor(fields) {
    /** The HTTP method (gRPC: `POST`). */
    this.method = fields.method;
    /** The path, without the query. */
    this.path = fields.path;
    /** The query string, without `?` (`""`: none). */
    this.query = fields.query;
    /** Every header (a `Headers`: names in any case; gRPC: every metadata entry). */
    this.headers = fields.headers;
    /** The peer: `{address, port}`, or null when unknown. */
    this.peer = fields.peer;
    /** The A2A operation (`"SendMessage"`, `"GetTask"`, ...). */
    this.operation = fields.operation;
    /** `"JSONRPC"`, `"HTTP+JSON"` or `"GRPC"`. */
    this.binding = fields.binding;
    /** The protocol version the call is served with (`"1.0"`, `"0.3"`). */
    this.version = fields.version;
    /** The tenant the call names (`""`: none). */
    this.tenant = fields.tenant;
    /** The host's request object (see the class), or null. */
    this.request = fields.request ?? null;
    Object.freeze(this);
  }
}

// A hook written for the first API read headers as a plain object (`req.headers.authorization`,
// `req.headers["x-api-key"]`): on a Headers that is silently undefined, and the call would be
// refused for no visible reason. Those reads throw instead, naming the replacement: a getter
// (not enumerable, so iteration, spreading and logging are unchanged) for `authorization`,
// `cookie` and every header name the request carries.
const HEADERS_MEMBERS = new Set(Object.getOwnPropertyNames(Headers.prototype));
function guardOldReads(h, names) {
  for (const name of names) {
    if (HEADERS_MEMBERS.has(name) || Object.prototype.hasOwnProperty.call(h, name)) continue;
    Object.defineProperty(h, name, {
      enumerable: false,
      get() {
        throw new TypeError(`req.headers is a Headers: read it with req.headers.get(${JSON.stringify(name)})`);
      },
    });
  }
}

/** `[name, value, name, value, ...]` as a Headers (names may repeat). */
function headersOf(flat) {
  const h = new Headers();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    try {
      h.append(flat[i], flat[i + 1]);
    } catch {
      // A value Headers refuses (it is stricter than HTTP/1.1) is left out.
    }
  }
  guardOldReads(h, ["authorization", "cookie", ...h.keys()]);
  return h;
}

/** `target` split into its path and its query. */
function splitTarget(target) {
  const q = target.indexOf("?");
  return q < 0 ? [target, ""] : [target.slice(0, q), target.slice(q + 1)];
}

function checkAuthenticate(fn) {
  if (fn != null && typeof fn !== "function") throw new TypeError("authenticate: expected a function (req) => principal | null");
}

/**
 * Runs `authenticate(req)`: resolves to `{principal}` (null: anonymous) or `{error}` (the
 * A2AError to answer with). Never rejects.
 */
async function judge(authenticate, req) {
  let result;
  try {
    result = await authenticate(req);
  } catch (e) {
    const err = translate(e);
    if (err instanceof A2AError) return { error: err };
    if (err != null && (err.status === 403 || err.statusCode === 403)) {
      return { error: new PermissionDeniedError(typeof err.message === "string" && err.message ? err.message : undefined) };
    }
    if (err != null && (err.status === 401 || err.statusCode === 401)) {
      return { error: new UnauthenticatedError(typeof err.message === "string" && err.message ? err.message : undefined) };
    }
    console.error("a2a-wire: authenticate failed:", e);
    return { error: new InternalError("authentication failed") };
  }
  if (result === ANONYMOUS) return { principal: null };
  if (result == null) return { error: new UnauthenticatedError() };
  if (typeof result === "string" && result !== "") return { principal: result };
  console.error("a2a-wire: authenticate returned", result, "- expected the principal (a non-empty string), null or ANONYMOUS");
  return { error: new InternalError("authentication failed") };
}

module.exports = { ANONYMOUS, AuthRequest, headersOf, splitTarget, checkAuthenticate, judge };
