"use strict";
// a2a-wire for Node: the public API (CommonJS; index.mjs is the same for ESM).
//
// - the v1.0 model as plain objects of the exact ProtoJSON shape (types in model.d.ts) and
//   its enums (`TaskState.COMPLETED === "TASK_STATE_COMPLETED"`);
// - decode / encode / canonicalize / validate / transcode: the core's codecs;
// - the error classes (`A2AError` and its subclasses, validation errors, client errors);
// - negotiate / selectInterface / readCard, and `v03`;
// - A2AService (fetch handler, Express middleware, node:http listener; TaskStore for its
//   tasks), serve (the ready
//   server), A2AClient (the ready client);
// - SigningKey and CardKeySet (Agent Card signatures), WebhookReceiver and WebhookEndpoint
//   (the receiving end of push notifications).

const errors = require("./lib/errors.js");
const codec = require("./lib/codec.js");
const protocol = require("./lib/protocol.js");
const model = require("./model.js");
const { RequestContext, Events, AGENT_FAILED } = require("./lib/agent.js");
const { A2AService, CARD_PATH, STREAM_BUFFER } = require("./lib/service.js");
const { TaskStore } = require("./lib/store.js");
const { serve, AgentServer } = require("./lib/server.js");
const { A2AClient, EventStream, OpeningStream } = require("./lib/client.js");
const { ANONYMOUS, AuthRequest } = require("./lib/auth.js");
const { SigningKey, CardKeySet } = require("./lib/signing.js");
const { WebhookReceiver, WebhookEndpoint } = require("./lib/webhook.js");

module.exports = {
  VERSION: errors.CONSTANTS.version,
  ...model,
  decode: codec.decode,
  encode: codec.encode,
  canonicalize: codec.canonicalize,
  validate: codec.validate,
  transcode: codec.transcode,
  typeNames: codec.typeNames,
  negotiate: protocol.negotiate,
  selectInterface: protocol.selectInterface,
  readCard: protocol.readCard,
  v03: protocol.v03,
  SUPPORTED_VERSIONS: protocol.SUPPORTED_VERSIONS,
  BINDINGS: protocol.BINDINGS,
  A2AError: errors.A2AError,
  TaskNotFoundError: errors.TaskNotFoundError,
  TaskNotCancelableError: errors.TaskNotCancelableError,
  PushNotificationNotSupportedError: errors.PushNotificationNotSupportedError,
  UnsupportedOperationError: errors.UnsupportedOperationError,
  ContentTypeNotSupportedError: errors.ContentTypeNotSupportedError,
  InvalidAgentResponseError: errors.InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError: errors.ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError: errors.ExtensionSupportRequiredError,
  VersionNotSupportedError: errors.VersionNotSupportedError,
  JSONParseError: errors.JSONParseError,
  InvalidRequestError: errors.InvalidRequestError,
  MethodNotFoundError: errors.MethodNotFoundError,
  InvalidParamsError: errors.InvalidParamsError,
  InternalError: errors.InternalError,
  UnauthenticatedError: errors.UnauthenticatedError,
  PermissionDeniedError: errors.PermissionDeniedError,
  UnavailableError: errors.UnavailableError,
  ClientError: errors.ClientError,
  NotA2AError: errors.NotA2AError,
  ProtocolError: errors.ProtocolError,
  CannotSendError: errors.CannotSendError,
  TransportError: errors.TransportError,
  TLSError: errors.TLSError,
  CallTimeoutError: errors.CallTimeoutError,
  ClientClosedError: errors.ClientClosedError,
  CardError: errors.CardError,
  CardSignatureError: errors.CardSignatureError,
  ValidationError: errors.ValidationError,
  JsonSyntaxError: errors.JsonSyntaxError,
  InvalidValueError: errors.InvalidValueError,
  MissingFieldError: errors.MissingFieldError,
  ProtobufError: errors.ProtobufError,
  ConversionError: errors.ConversionError,
  EncodeError: errors.EncodeError,
  classifyHttp: errors.classifyHttp,
  classifyGrpc: errors.classifyGrpc,
  classifyJsonRpc: errors.classifyJsonRpc,
  RequestContext,
  Events,
  AGENT_FAILED,
  A2AService,
  TaskStore,
  CARD_PATH,
  STREAM_BUFFER,
  serve,
  AgentServer,
  A2AClient,
  EventStream,
  OpeningStream,
  ANONYMOUS,
  AuthRequest,
  SigningKey,
  CardKeySet,
  WebhookReceiver,
  WebhookEndpoint,
};
