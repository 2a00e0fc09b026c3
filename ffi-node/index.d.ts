// a2a-wire for Node: the public API's types. The model's types (model.d.ts) are generated
// from the proto; this file is written by hand and checked against the examples and tests
// by `tsc --strict` (make node-test).

import type {
  AgentCard, Message, Task, Artifact, TaskState, Model, MessageName, SendMessageRequest, SendMessageResponse,
  StreamResponse, GetTaskRequest, ListTasksRequest, ListTasksResponse, CancelTaskRequest, SubscribeToTaskRequest,
  TaskPushNotificationConfig, GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
  JsonValue, SendMessageConfiguration,
} from "./model.js";

export * from "./model.js";

/** The package version (the Rust crates' version). */
export declare const VERSION: string;

// ---------------------------------------------------------------- codecs

/** A full proto name (`"google.protobuf.Struct"`, `"lf.a2a.v1.Task"`): any message the codecs know. */
export type FullName = `${string}.${string}`;
/** ProtoJSON text, or bytes (UTF-8 JSON, or protobuf with `format: "protobuf"`). */
export type Data = string | Uint8Array | ArrayBuffer;
/** A wire format. */
export type Format = "json" | "protobuf";

export interface DecodeOptions {
  /** The format of the input (default "json"). */
  format?: Format;
  /** Check REQUIRED fields and oneofs (default true). */
  validate?: boolean;
}
export interface EncodeOptions {
  /** "json" (default): canonical ProtoJSON text; "protobuf": a Buffer. */
  format?: Format;
  /** Check REQUIRED fields and oneofs first (default true). */
  validate?: boolean;
}

/**
 * Decodes `data` as the message `type` of the v1.0 model (checked) into a plain object of
 * the canonical ProtoJSON shape. Throws a `ValidationError` subclass naming the JSON path.
 */
export declare function decode<K extends MessageName>(type: K, data: Data, options?: DecodeOptions): Model[K];
/** Decodes any message the codecs know by full proto name (`google.rpc.Status`, ...). */
export declare function decode(type: FullName, data: Data, options?: DecodeOptions): unknown;

/** Encodes the plain object `value` as the message `type`: canonical ProtoJSON text. */
export declare function encode<K extends MessageName>(type: K, value: Model[K], options?: EncodeOptions & { format?: "json" }): string;
/** Encodes the plain object `value` as the message `type`: protobuf bytes. */
export declare function encode<K extends MessageName>(type: K, value: Model[K], options: EncodeOptions & { format: "protobuf" }): Buffer;
export declare function encode(type: FullName, value: unknown, options?: EncodeOptions): string | Buffer;

/** The fast text path: ProtoJSON in, checked, canonical ProtoJSON text out (no JS objects built). */
export declare function canonicalize(type: MessageName | FullName, data: string | Uint8Array): string;
/** Checks the plain object `value` as the message `type`; throws what `encode` would. */
export declare function validate<K extends MessageName>(type: K, value: Model[K]): void;
export declare function validate(type: FullName, value: unknown): void;

export interface TranscodeOptions {
  from?: Format;
  to?: Format;
  validate?: boolean;
}
/** `data` from one wire format to the other: JSON as a string, protobuf as a Buffer. */
export declare function transcode(type: MessageName | FullName, data: Data, options: TranscodeOptions & { to: "protobuf" }): Buffer;
export declare function transcode(type: MessageName | FullName, data: Data, options?: TranscodeOptions & { to?: "json" }): string;
/** Every message name the codecs know (full proto names). */
export declare function typeNames(): string[];

// ---------------------------------------------------------------- protocol helpers

export type ProtocolVersion = "1.0" | "0.3" | (string & {});
export type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC";
/** The versions served and spoken, newest first. */
export declare const SUPPORTED_VERSIONS: readonly ["1.0", "0.3"];
/** The bindings, as Agent Cards name them. */
export declare const BINDINGS: readonly ["JSONRPC", "HTTP+JSON", "GRPC"];

/** The version a request is served with (`requested`: the A2A-Version header; absent means 0.3); throws VersionNotSupportedError. */
export declare function negotiate(requested: string | null | undefined, supported?: readonly string[]): string;

/** The interface a client uses. */
export interface SelectedInterface {
  url: string;
  binding: BindingName;
  version: string;
  /** The tenant copied into every request ("" = none). */
  tenant: string;
  /** Its index in the card's `supportedInterfaces`. */
  index: number;
}
/** The first interface of `card` that speaks one of `bindings` and `versions`; throws CannotSendError. */
export declare function selectInterface(
  card: AgentCard,
  options?: { bindings?: readonly BindingName[]; versions?: readonly string[] },
): SelectedInterface;
/** An Agent Card document of either version: the v1.0 card and the shape it came in. */
export declare function readCard(data: Data): { card: AgentCard; shape: "1.0" | "0.3" | "both" };

/** Something a translation could not carry: its kind and the JSON path in the source. */
export interface Loss {
  kind: string;
  path: string;
}

/** The v0.3 wire model (JSON shapes of A2A v0.3.0). */
export declare namespace V03 {
  type TaskState = "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed" | "rejected" | "auth-required" | "unknown";
  type Role = "user" | "agent";
  interface TextPart { kind: "text"; text: string; metadata?: { [key: string]: JsonValue } }
  interface FileWithBytes { bytes: string; name?: string; mimeType?: string }
  interface FileWithUri { uri: string; name?: string; mimeType?: string }
  interface FilePart { kind: "file"; file: FileWithBytes | FileWithUri; metadata?: { [key: string]: JsonValue } }
  interface DataPart { kind: "data"; data: { [key: string]: JsonValue }; metadata?: { [key: string]: JsonValue } }
  type Part = TextPart | FilePart | DataPart;
  interface Message {
    kind: "message";
    messageId: string;
    role: Role;
    parts: Part[];
    contextId?: string;
    taskId?: string;
    referenceTaskIds?: string[];
    extensions?: string[];
    metadata?: { [key: string]: JsonValue };
  }
  interface TaskStatus { state: TaskState; message?: Message; timestamp?: string }
  interface Artifact {
    artifactId: string;
    parts: Part[];
    name?: string;
    description?: string;
    extensions?: string[];
    metadata?: { [key: string]: JsonValue };
  }
  interface Task {
    kind: "task";
    id: string;
    contextId: string;
    status: TaskStatus;
    artifacts?: Artifact[];
    history?: Message[];
    metadata?: { [key: string]: JsonValue };
  }
  interface TaskStatusUpdateEvent {
    kind: "status-update";
    taskId: string;
    contextId: string;
    status: TaskStatus;
    final: boolean;
    metadata?: { [key: string]: JsonValue };
  }
  interface TaskArtifactUpdateEvent {
    kind: "artifact-update";
    taskId: string;
    contextId: string;
    artifact: Artifact;
    append?: boolean;
    lastChunk?: boolean;
    metadata?: { [key: string]: JsonValue };
  }
  /** Any other v0.3 object (cards, params, push configs) as JSON. */
  type Object = { [key: string]: JsonValue };
}

/** The v0.3 model: decode/encode its JSON, translate to and from v1.0 with the losses. */
export declare const v03: {
  /** The v0.3 type names the translation knows. */
  typeNames(): string[];
  /** Decodes and checks a v0.3 object of `type`: its canonical form. */
  decode(type: string, data: Data | object): V03.Object;
  /** Canonical v0.3 JSON text of a v0.3 object of `type`. */
  encode(type: string, value: Data | object): string;
  /** Translates a v0.3 object to v1.0 (`type`: the v1.0 message name). */
  toV1(type: string, data: Data | object): { type: string; value: unknown; losses: Loss[] };
  /** Translates a v1.0 message to v0.3. */
  fromV1<K extends MessageName>(type: K, value: Model[K]): { type: string; value: V03.Object; losses: Loss[] };
};

// ---------------------------------------------------------------- errors

/** One offending field: its JSON path and what is wrong there. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

export interface A2AErrorOptions {
  metadata?: { [key: string]: string };
  violations?: ReadonlyArray<FieldViolation | readonly [string, string]>;
  cause?: unknown;
}

/** An A2A error; each kind is a subclass. */
export declare abstract class A2AError extends Error {
  constructor(message?: string, options?: A2AErrorOptions);
  /** The core's kind name ("TaskNotFound"). */
  static readonly kind: string;
  static readonly number: number;
  /** The JSON-RPC code. */
  static readonly code: number;
  static readonly reason: string;
  static readonly httpStatus: number;
  static readonly grpcStatus: number;
  static readonly defaultMessage: string;
  readonly kind: string;
  readonly number: number;
  /** The JSON-RPC code. */
  readonly code: number;
  /** The ErrorInfo reason ("TASK_NOT_FOUND"; "" for the JSON-RPC protocol errors). */
  readonly reason: string;
  readonly httpStatus: number;
  /** The HTTP status this kind answers with (the same as `httpStatus`). */
  readonly status: number;
  readonly grpcStatus: number;
  /** ErrorInfo metadata. */
  readonly metadata: { [key: string]: string };
  readonly violations: readonly FieldViolation[];
  /** How it was received ("JSONRPC", "HTTP+JSON", "GRPC"), or null when made here. */
  readonly binding: string | null;
  /** The status seen on that binding (JSON-RPC code, HTTP status, gRPC code), when known. */
  readonly wireStatus: number | null;
  toJSON(): { number: number; kind: string; message: string; metadata: { [key: string]: string }; violations: readonly FieldViolation[] };
  /** The JSON-RPC `error` object. */
  toJsonRpc(): { code: number; message: string; data?: unknown };
  /** The HTTP+JSON answer. */
  toHttp(version?: "1.0" | "0.3"): { status: number; body: unknown };
  /** The gRPC status and its `grpc-status-details-bin` trailer. */
  toGrpc(): { code: number; message: string; details: Buffer };
  /** The subclass of a kind. */
  static fromKind(kind: string): new (message?: string, options?: A2AErrorOptions) => A2AError;
}
export declare class TaskNotFoundError extends A2AError {}
export declare class TaskNotCancelableError extends A2AError {}
export declare class PushNotificationNotSupportedError extends A2AError {}
export declare class UnsupportedOperationError extends A2AError {}
export declare class ContentTypeNotSupportedError extends A2AError {}
export declare class InvalidAgentResponseError extends A2AError {}
export declare class ExtendedAgentCardNotConfiguredError extends A2AError {}
export declare class ExtensionSupportRequiredError extends A2AError {}
export declare class VersionNotSupportedError extends A2AError {}
export declare class JSONParseError extends A2AError {}
export declare class InvalidRequestError extends A2AError {}
export declare class MethodNotFoundError extends A2AError {}
export declare class InvalidParamsError extends A2AError {}
export declare class InternalError extends A2AError {}
export declare class UnauthenticatedError extends A2AError {}
export declare class PermissionDeniedError extends A2AError {}
export declare class UnavailableError extends A2AError {}

/** A client-side failure that is not an A2A error from the peer. */
export declare class ClientError extends Error {}
/** The peer answered with an error that has no A2A meaning (a proxy's bare 404): never read it as TaskNotFound. */
export declare class NotA2AError extends ClientError {
  constructor(status: number, message?: string, options?: { binding?: string | null });
  readonly status: number;
  readonly detail: string;
  readonly binding: string | null;
}
/** The peer's answer does not follow the A2A protocol. */
export declare class ProtocolError extends ClientError {}
/** The request cannot be expressed on the selected interface (e.g. ListTasks in v0.3). */
export declare class CannotSendError extends ClientError {}
/** No answer: the connection failed, was refused, timed out or closed early. */
export declare class TransportError extends ClientError {}
/** TLS failed: an untrusted or misnamed certificate, a broken handshake, an unusable TLS file. */
export declare class TLSError extends TransportError {}
/** The call took longer than its deadline (`timeoutMs` of `connect` or of the call). */
export declare class CallTimeoutError extends TransportError {}
/** The client was closed before the call. */
export declare class ClientClosedError extends ClientError {}
/** The Agent Card could not be fetched or read, or offers no interface the client speaks. */
export declare class CardError extends ClientError {}
/**
 * An Agent Card signature (spec 8.4) does not verify against the trusted keys, or the card is
 * unsigned and a signature is required (`A2AClient.connect` with `cardKeys` /
 * `requireSignedCard`, `CardKeySet#verifyCard`); also a card a key cannot sign.
 */
export declare class CardSignatureError extends CardError {}

/** Bytes or values that do not make a valid message. */
export declare class ValidationError extends Error {
  constructor(description: string, options?: { path?: string; violations?: ReadonlyArray<FieldViolation>; line?: number; column?: number });
  /** "syntax", "invalid_value", "missing_required", "protobuf" or "conversion". */
  readonly kind: string;
  /** The JSON path of the first offending field ("" for the message itself or a syntax error). */
  readonly path: string;
  readonly description: string;
  readonly violations: readonly FieldViolation[];
  readonly line: number | null;
  readonly column: number | null;
}
export declare class JsonSyntaxError extends ValidationError {}
export declare class InvalidValueError extends ValidationError {}
export declare class MissingFieldError extends ValidationError {}
export declare class ProtobufError extends ValidationError {}
export declare class ConversionError extends ValidationError {}
/** A value its wire format cannot carry (a timestamp outside years 1-9999, a NaN). */
export declare class EncodeError extends Error {}

/** The error an HTTP+JSON error response means. */
export declare function classifyHttp(status: number, body: string | Uint8Array, version?: string): A2AError | NotA2AError;
/** The error a gRPC status means; `details` is the grpc-status-details-bin trailer. */
export declare function classifyGrpc(code: number, message: string, details?: Uint8Array | null, version?: string): A2AError | NotA2AError;
/** The error a JSON-RPC `error` object means. */
export declare function classifyJsonRpc(error: { code?: number; message?: string; data?: unknown }): A2AError | NotA2AError;

// ---------------------------------------------------------------- agents

/** The status text of a task whose agent threw. */
export declare const AGENT_FAILED: string;

/** What one run of the agent is about. */
export declare class RequestContext {
  private constructor();
  readonly taskId: string;
  readonly contextId: string;
  /** The user's message, with taskId and contextId filled in. */
  readonly message: Message;
  readonly messageId: string;
  /** The text of the message's text parts, concatenated. */
  readonly text: string;
  /** True when the message continues an existing task. */
  readonly followUp: boolean;
  /** True when this run resumes a task whose run was lost in a restart. */
  readonly resumed: boolean;
  /** The task as stored when the run started (null for a new task). */
  readonly task: Task | null;
  /** Who sent it (null: anonymous). */
  readonly principal: string | null;
  readonly extensions: string[];
  /** The tenant the request named ("": none). */
  readonly tenant: string;
  /** The request's metadata (null: none sent, or a resumed run). */
  readonly metadata: { [key: string]: JsonValue } | null;
  /** The request's configuration as sent (null: none sent, or a resumed run). */
  readonly configuration: SendMessageConfiguration | null;
  /** The media types the client accepts (empty: any). */
  readonly acceptedOutputModes: string[];
  /** True once the task was canceled or the server is stopping. */
  readonly cancelled: boolean;
  /** Aborts when the task is canceled or the server is stopping. */
  readonly signal: AbortSignal;
  readonly runId: number;
}

/** An event's metadata (a JSON object). */
export interface EventOptions {
  metadata?: { [key: string]: JsonValue };
}

export interface ArtifactOptions extends EventOptions {
  /** The artifact's id (default: a fresh UUID v4, so that two artifacts stay two). */
  artifactId?: string;
  name?: string;
  /** Add its parts to the artifact with the same id. */
  append?: boolean;
  /** The artifact is complete. */
  lastChunk?: boolean;
}

/** Where a run publishes; a refused publish throws the A2AError that says why. */
export declare class Events {
  private constructor();
  /** An agent message of one text part, with a fresh id (a UUID v4). */
  agentMessage(text: string, options?: EventOptions): Message;
  /** Sets the task's status, with an optional agent message (a string: one text part); `metadata` goes on the event. */
  status(state: TaskState, message?: Message | string, options?: EventOptions): void;
  /** Publishes an artifact, or a chunk of one; a string becomes one text part. */
  artifact(artifact: Artifact | string, options?: ArtifactOptions): void;
  /** Replies with a message: first event a direct reply (no task is kept); `metadata` is a string message's own. */
  message(message: Message | string, options?: EventOptions): void;
  /** `status(TaskState.COMPLETED, message, options)`. */
  complete(message?: Message | string, options?: EventOptions): void;
  /** Resolves once the server applied every event sent so far; rejects with its refusal. */
  flush(): Promise<void>;
  readonly cancelled: boolean;
}

/** An agent: an async function, or an object with an `execute` method of that shape. */
export type AgentFunction = (ctx: RequestContext, events: Events) => Promise<void> | void;
/**
 * An agent: an async function, or an object with an `execute` method of that shape and,
 * optionally, `cancelTask` (the official SDK's name) or `cancel`, called when the task is
 * canceled.
 */
export type Agent = AgentFunction | { execute: AgentFunction; cancelTask?: AgentFunction; cancel?: AgentFunction };
/** Gets what an agent threw (the task is failed with AGENT_FAILED; the client never sees the error). */
export type AgentErrorHandler = (err: unknown, ctx: RequestContext) => void;

// ---------------------------------------------------------------- the service in your app

/** What `authenticate` returns to let a call in without a principal. */
export declare const ANONYMOUS: unique symbol;

/** A call to judge: the HTTP request and what the A2A core read in it. */
export declare class AuthRequest {
  private constructor();
  /** The HTTP method (gRPC: POST). */
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /** The query string, without "?" ("": none). */
  readonly query: string;
  /** Every header (gRPC: every metadata entry). */
  readonly headers: Headers;
  /** The peer, when known. */
  readonly peer: { address: string; port: number } | null;
  /** The A2A operation ("SendMessage", ...). */
  readonly operation: string;
  readonly binding: BindingName;
  readonly version: string;
  readonly tenant: string;
  /** The host's request: the Fetch Request (`fetch`), node's / Express's req (listener, middleware), null under `serve`. */
  readonly request: Request | IncomingMessage | null;
}
/**
 * Returns the principal, `null` to refuse with 401 and `WWW-Authenticate`, or `ANONYMOUS`;
 * a rejection whose error has `status: 403` refuses with 403, an A2AError answers with itself.
 */
export type Authenticator = (req: AuthRequest) => string | null | undefined | typeof ANONYMOUS | Promise<string | null | undefined | typeof ANONYMOUS>;

export interface ServiceOptions {
  /** Served to every authenticated caller without a card of its own in `extendedCards`. */
  extendedCard?: AgentCard;
  /** Extended cards per principal (the name `authenticate` returns). */
  extendedCards?: Readonly<Record<string, AgentCard>>;
  authenticate?: Authenticator;
  /** Bytes (default 8 MiB). */
  maxBody?: number;
  /** Serve the card and the extended cards signed by this key (spec 8.4). */
  signingKey?: SigningKey;
  /** The `jku` put in each signature's header (where verifiers find the key set). */
  cardJku?: string;
  /** Webhook receivers the SSRF guard lets through although not public (hosts, addresses, CIDR networks: local development). */
  allowWebhooks?: readonly string[];
  /** Push notifications to every loopback and private address (tests). */
  allowPrivateWebhooks?: boolean;
  /** PEM file of the CAs `https://` webhook receivers are verified against (default: the platform's roots). */
  webhookCaFile?: string;
  /**
   * Keep the tasks in a store (a SQLite file path, opened now and closed by `close()`, or a
   * `TaskStore`, left open) instead of in the service's memory, which then holds the tasks in
   * use plus about `cacheMb` MiB of others.
   */
  store?: string | TaskStore | null;
  /** With `store`: MiB of idle tasks cached in memory (default 64). */
  cacheMb?: number;
  /** Delete completed, canceled, failed and rejected tasks whose last change is older: milliseconds, or `"90s"`, `"12h"`, `"30d"` (default: keep every task). */
  retain?: number | string;
  onError?: AgentErrorHandler;
}

/** A task store for `A2AService`; it carries requests out on a thread of its own, in order. */
export declare class TaskStore {
  private constructor();
  /** Every task in this process's memory (the service's working set stays bounded). */
  static memory(): TaskStore;
  /** Opens (or creates) the SQLite store at `path` (the file `serve({store})` uses); throws when it cannot. */
  static openSqlite(path: string): TaskStore;
  /** Closes the store once the requests given are answered (idempotent). */
  close(): void;
}

/** Where the Agent Card is served. */
export declare const CARD_PATH: "/.well-known/agent-card.json";
/** Bytes of a stream a slow client may leave unsent before it is cut off. */
export declare const STREAM_BUFFER: number;

import type { IncomingMessage, ServerResponse } from "node:http";

/** The A2A service (JSON-RPC and HTTP+JSON, v1.0 and v0.3, SSE; the card) inside your own HTTP server. */
export declare class A2AService {
  constructor(agent: Agent, card: AgentCard, options?: ServiceOptions);
  readonly card: AgentCard;
  /** The web-standard handler: every path answered (404 for those not served). */
  fetch(request: Request): Promise<Response>;
  /** True when the request (or a path and its Content-Type) is the service's to answer. */
  matches(request: Request | string, contentType?: string): boolean;
  /** Serves one node:http request. */
  handleNode(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A node:http request listener. */
  listener(): (req: IncomingMessage, res: ServerResponse) => void;
  /** An Express / connect middleware; other requests go to `next()`. Mount it before body parsers. */
  middleware(): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  /** A Hono middleware: `app.use(service.hono())`. */
  hono(): (c: { req: { raw: Request } }, next: () => Promise<void>) => Promise<Response | void>;
  /** Stops; resolves once nothing is in flight (or after `timeoutMs`). */
  close(timeoutMs?: number): Promise<void>;
}

// ---------------------------------------------------------------- the ready server

export interface ServeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** The card to publish (required): without interfaces it gets the server's six; interfaces it lists are kept. */
  card: AgentCard | Omit<AgentCard, "supportedInterfaces">;
  /** Judges every call (give this or `bearerTokens`). */
  authenticate?: Authenticator;
  /**
   * Token to principal: every call then needs `Authorization: Bearer TOKEN` for one of the
   * tokens, and each principal sees only its own tasks and push configs.
   */
  bearerTokens?: Readonly<Record<string, string>> | null;
  /** Serve HTTPS only, with this certificate and key (PEM files); the card lists `https://` URLs. */
  tls?: TlsFiles | null;
  /** Served to every authenticated caller (a principal of `bearerTokens`) without a card of its own; interfaces filled in as for `card`. */
  extendedCard?: AgentCard | Omit<AgentCard, "supportedInterfaces"> | null;
  /** Extended cards per principal (the principals of `bearerTokens`). */
  extendedCards?: Readonly<Record<string, AgentCard | Omit<AgentCard, "supportedInterfaces">>> | null;
  /** Sign the card and the extended cards with this key (spec 8.4), after every other change. */
  signingKey?: SigningKey | null;
  /** The `jku` put in each signature's header (where verifiers find the key set). */
  cardJku?: string;
  /** Webhook receivers the SSRF guard lets through although not public (hosts, addresses, CIDR networks: local development). */
  allowWebhooks?: readonly string[];
  /** Push notifications to every loopback and private address (tests). */
  allowPrivateWebhooks?: boolean;
  /** PEM file of the CAs `https://` webhook receivers are verified against (default: the platform's roots). */
  webhookCaFile?: string;
  /** Keep the tasks in this SQLite file (created if missing), or in the PostgreSQL database of a `postgres://USER[:PASS]@HOST:PORT/DB` URL, instead of in memory. */
  store?: string;
  /** The origin the card's interfaces name instead of the listening address (a load balancer's: `https://HOST[:PORT]`); `url` stays where the server listens. */
  publicUrl?: string;
  /** With `store`: MiB of idle tasks cached in memory (default 64). */
  cacheMb?: number;
  /** Delete completed, canceled, failed and rejected tasks whose last change is older: milliseconds, or `"90s"`, `"12h"`, `"30d"` (default: keep every task). */
  retain?: number | string;
  onError?: AgentErrorHandler;
}
/** A running server. */
export declare class AgentServer {
  private constructor();
  /** http://HOST:PORT */
  readonly url: string;
  readonly card: AgentCard;
  /** Stops; resolves once stopped. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
/** Serves `agent` on the Rust transport (JSON-RPC, HTTP+JSON and gRPC; v1.0 and v0.3) off the JS thread. */
export declare function serve(agent: Agent, options: ServeOptions): Promise<AgentServer>;

// ---------------------------------------------------------------- the ready client

export interface ConnectOptions {
  bindings?: readonly BindingName[];
  versions?: readonly string[];
  /** Each call's deadline (default 30000). */
  timeoutMs?: number;
  /** Sent with every request. */
  headers?: { [name: string]: string };
  /** Extension URIs to activate. */
  extensions?: readonly string[];
  /** PEM file of the CAs `https://` agents are verified against (default: the platform's roots). */
  caFile?: string;
  /** A client certificate and key (PEM files), presented when the agent asks for one. */
  clientCert?: TlsFiles;
  /** The keys card signatures are checked against: a signed card must have a signature they verify (else CardSignatureError). */
  cardKeys?: CardKeySet;
  /** Refuse an unsigned card too (CardSignatureError; without `cardKeys`, every card). */
  requireSignedCard?: boolean;
  /** How many times in a row a broken stream is resumed with Last-Event-ID (default 5; 0: never). */
  streamResumes?: number;
  /** Asked before every call for headers of its own (a refreshed token). */
  headerProvider?: () => HeaderFields | Promise<HeaderFields>;
}

/** Headers as an object (name to value) or a `Headers`. */
export type HeaderFields = Readonly<Record<string, string>> | Headers;

/** One call's options. */
export interface CallOptions {
  /** Stops the call (and closes a stream); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The call's deadline instead of the client's (CallTimeoutError past it). */
  timeoutMs?: number;
  /** Sent with this call only, after the client's headers. */
  headers?: HeaderFields;
}

/** A certificate chain (leaf first) and its private key, as PEM file paths. */
export interface TlsFiles {
  cert: string;
  key: string;
}

/** An open stream; `for await` it, `break` closes it. */
export declare class EventStream implements AsyncIterableIterator<StreamResponse> {
  private constructor();
  next(): Promise<IteratorResult<StreamResponse, undefined>>;
  return(): Promise<IteratorResult<StreamResponse, undefined>>;
  close(): void;
  [Symbol.asyncIterator](): EventStream;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A stream about to open: iterate it at once, or await it for the EventStream. */
export declare class OpeningStream implements AsyncIterableIterator<StreamResponse>, PromiseLike<EventStream> {
  private constructor();
  then<R1 = EventStream, R2 = never>(
    onfulfilled?: ((value: EventStream) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2>;
  next(): Promise<IteratorResult<StreamResponse, undefined>>;
  return(): Promise<IteratorResult<StreamResponse, undefined>>;
  close(): void;
  [Symbol.asyncIterator](): OpeningStream;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A client of one agent. Every operation takes a last `CallOptions` argument. */
export declare class A2AClient {
  private constructor();
  static connect(url: string, options?: ConnectOptions): Promise<A2AClient>;
  readonly card: AgentCard;
  readonly interface: SelectedInterface;
  /** A user message of one text part, with a fresh id (a UUID v4). */
  userMessage(text: string, extra?: Partial<Message>): Message;
  sendMessage(request: SendMessageRequest | string, options?: CallOptions): Promise<SendMessageResponse>;
  sendStreamingMessage(request: SendMessageRequest | string, options?: CallOptions): OpeningStream;
  getTask(request: GetTaskRequest | string, options?: CallOptions): Promise<Task>;
  listTasks(request?: ListTasksRequest, options?: CallOptions): Promise<ListTasksResponse>;
  cancelTask(request: CancelTaskRequest | string, options?: CallOptions): Promise<Task>;
  subscribeToTask(request: SubscribeToTaskRequest | string, options?: CallOptions): OpeningStream;
  createTaskPushNotificationConfig(config: TaskPushNotificationConfig, options?: CallOptions): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(request: GetTaskPushNotificationConfigRequest, options?: CallOptions): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    request: ListTaskPushNotificationConfigsRequest,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(request: DeleteTaskPushNotificationConfigRequest, options?: CallOptions): Promise<void>;
  getExtendedAgentCard(request?: GetExtendedAgentCardRequest, options?: CallOptions): Promise<AgentCard>;
  close(): void;
  [Symbol.dispose](): void;
}

// ---------------------------------------------------------------- Agent Card signatures

/** A JSON Web Key (RFC 7517) as an object: EC P-256 or OKP Ed25519, named by `kid`. */
export interface Jwk {
  kty?: string;
  crv?: string;
  kid?: string;
  alg?: string;
  use?: string;
  x?: string;
  y?: string;
  /** The private part (only in a private JWK). */
  d?: string;
  [member: string]: unknown;
}

/** The signature of a card that verified. */
export interface VerifiedSignature {
  /** Its position in the card's `signatures`. */
  index: number;
  kid: string;
  alg: "ES256" | "EdDSA" | (string & {});
  /** The `jku` its header named. */
  jku: string | null;
  /** "spec": over the payload of spec 8.4.1; "sdk": over the official SDKs' form (empty values removed). */
  form: "spec" | "sdk";
}

/**
 * A private key that signs Agent Cards (ES256 or EdDSA). The private half stays in the
 * native module: nothing shows it. Bad key material throws TypeError.
 */
export declare class SigningKey {
  private constructor();
  /** A private JWK (text or object) with a `kid`. */
  static fromJwk(jwk: string | Jwk): SigningKey;
  /** A PKCS#8 private key in PEM, named `kid`. */
  static fromPem(pem: string | Uint8Array, kid: string): SigningKey;
  /** A private JWK file (`kid` replaces its own), or a PKCS#8 PEM file (then `kid` is needed). */
  static fromFile(path: string, kid?: string): SigningKey;
  readonly kid: string;
  readonly alg: "ES256" | "EdDSA";
  /** The public half as a JWK (`kid`, `alg`, `use: "sig"`). */
  publicJwk(): Jwk;
  /** `card` with one more signature by this key; `jku` goes into the signature's header. */
  signCard(card: AgentCard, options?: { jku?: string }): AgentCard;
}

/** The public keys a verifier trusts, by `kid`. */
export declare class CardKeySet {
  /** SigningKeys (their public halves) and public JWKs. */
  constructor(keys?: Iterable<SigningKey | Jwk>);
  /** A JWKS document (`{"keys": [...]}`) or one JWK, as text or an object. */
  static fromJwks(jwks: string | { keys: Jwk[] } | Jwk): CardKeySet;
  /** The JWKS file at `path`. */
  static fromFile(path: string): CardKeySet;
  /** Adds a key (a key of the same kid is replaced); returns the set. */
  add(key: SigningKey | Jwk): this;
  /** The first signature these keys verify; throws CardSignatureError when none does. */
  verifyCard(card: AgentCard, options?: { specFormOnly?: boolean }): VerifiedSignature;
}

// ---------------------------------------------------------------- push notifications, received

export interface WebhookReceiverOptions {
  /** The push config's `token` (sent in A2A-Notification-Token). */
  token?: string;
  /** The whole `Authorization` value the push config's `authentication` makes ("Bearer s3cret"). */
  authorization?: string;
  /** Recent events remembered per task to recognize redeliveries (default 256). */
  window?: number;
}

/** A webhook's HTTP request, as `WebhookReceiver#handle` takes it. */
export interface WebhookRequest {
  /** Default "POST". */
  method?: string;
  headers?: Headers | Iterable<readonly [string, string]> | { readonly [name: string]: string | readonly string[] | undefined };
  body?: string | Uint8Array | null;
}

interface DeliveryAnswer {
  /** The HTTP answer to send back. */
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}
/** A new event for an expected task: hand it to the application. */
export interface EventDelivery extends DeliveryAnswer {
  kind: "event";
  taskId: string;
  /** In v1.0 form, whatever version the sender used. */
  event: StreamResponse;
  error: null;
}
/** An event already handed over, delivered again: answer it, do not hand it over. */
export interface DuplicateDelivery extends DeliveryAnswer {
  kind: "duplicate";
  taskId: string;
  event: null;
  error: null;
}
/** Not accepted: wrong credentials (401), a task not expected (404), not an event (400). */
export interface RefusedDelivery extends DeliveryAnswer {
  kind: "refused";
  taskId: null;
  event: null;
  error: A2AError;
}
/** What one delivery was, with the answer to send back. */
export type Delivery = EventDelivery | DuplicateDelivery | RefusedDelivery;

/** The receiving end of one webhook (sans-IO): credentials checked, only expected tasks, each event handed over once. */
export declare class WebhookReceiver {
  /** At least one of `token` and `authorization` (TypeError otherwise). */
  constructor(options: WebhookReceiverOptions);
  expectTask(taskId: string): void;
  forgetTask(taskId: string): void;
  expects(taskId: string): boolean;
  handle(request: WebhookRequest): Delivery;
  /** The application could not take it: the same delivery answered 503 (the sender delivers it again, and it is handed over again). */
  retryLater<D extends EventDelivery | DuplicateDelivery>(delivery: D): D;
}

/** Gets each new event; a throw or a rejection answers 503 and the event comes again. */
export type WebhookEventHandler = (taskId: string, event: StreamResponse) => void | Promise<void>;

export interface WebhookEndpointOptions {
  /** Bytes (default 8 MiB); a larger delivery is answered 413. */
  maxBody?: number;
  /** Gets what `onEvent` threw (the event was answered 503 and comes again); default console.error. */
  onError?: (err: unknown, taskId: string, event: StreamResponse) => void;
}

/** A WebhookReceiver in your HTTP server, handing each new event to `onEvent`. */
export declare class WebhookEndpoint {
  constructor(receiver: WebhookReceiver, onEvent: WebhookEventHandler, options?: WebhookEndpointOptions);
  readonly receiver: WebhookReceiver;
  /** The web-standard handler. */
  fetch(request: Request): Promise<Response>;
  /** Serves one node:http request. */
  handleNode(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** A node:http request listener. */
  listener(): (req: IncomingMessage, res: ServerResponse) => void;
  /** An Express / connect middleware answering every request routed to it. */
  middleware(): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
}

declare const a2a: typeof import("./index.js");
export default a2a;
