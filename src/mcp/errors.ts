import { errorResponse, type JsonRpcErrorObject, type JsonRpcId, type JsonRpcResponse } from './jsonrpc.js';

/**
 * Every JSON-RPC error code this server sends, and the failures found before a message reaches
 * the protocol, each with its HTTP status. The protocol handler throws ProtocolError with the
 * status its era's spec gives (2026-07-28 and the 2025 era differ for the same code); the HTTP
 * adapter answers the failures below through `failureBody`.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Implementation-defined (legacy range), as the official SDK uses it. */
  SessionNotFound: -32001,
  /** Implementation-defined (legacy range): a request before `initialize`. */
  NotInitialized: -32002,
  /** 2026-07-28: a standard header is missing, malformed or disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the requested protocol version is not one we speak. */
  UnsupportedProtocolVersion: -32022,
  /** Application-defined, outside the JSON-RPC reserved range as the MCP spec asks. */
  RateLimited: -31429,
} as const;

/** A protocol-level failure: a JSON-RPC error code and the HTTP status it travels with. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly data: unknown;

  constructor (code: number, message: string, httpStatus = 200, data?: unknown) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.httpStatus = httpStatus;
    this.data = data;
  }

  toJsonRpc (): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** How long a client is told to wait when the server is overloaded or its session store is away. */
export const RETRY_AFTER_SECONDS = { overloaded: 5, sessionsUnavailable: 2 } as const;

/** A failure answered at the HTTP level: status, JSON-RPC code, message, maybe headers. */
export interface Failure {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const failure = (status: number, code: number, message: string, headers?: Record<string, string>): Failure =>
  headers === undefined ? { status, code, message } : { status, code, message, headers };

/** The failures found before (or instead of) the protocol handler, by name. */
export const Failures = {
  parseError: failure(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON'),
  forbiddenKey: failure(400, ErrorCode.InvalidRequest, 'Invalid Request: the body holds a "__proto__" or "constructor.prototype" key, which is refused'),
  badContentLength: failure(400, ErrorCode.InvalidRequest, 'Invalid Request: Content-Length does not match the body'),
  invalidRequest: failure(400, ErrorCode.InvalidRequest, 'Invalid Request'),
  batch: failure(400, ErrorCode.InvalidRequest, 'Batch requests are not supported: send one JSON-RPC message per POST'),
  notJsonRpc: failure(
    400,
    ErrorCode.InvalidRequest,
    'Invalid Request: expected a JSON-RPC 2.0 request or notification ("jsonrpc": "2.0", a string "method", a string or number "id", object "params")'
  ),
  forbiddenOrigin: failure(403, ErrorCode.InvalidRequest, 'Forbidden: this Origin is not allowed'),
  /** Names the refused Host (JSON-quoted, at most 100 characters) and the setting that admits it. */
  forbiddenHost: (host: string | undefined) =>
    failure(
      403,
      ErrorCode.InvalidRequest,
      `Forbidden: the Host ${host === undefined ? '(none)' : JSON.stringify(host.slice(0, 100))} is not allowed on a server listening on loopback; if it is this server's public name behind a proxy, add it to ALLOWED_HOSTS`
    ),
  notAcceptable: failure(406, ErrorCode.InvalidRequest, 'Not Acceptable: accept application/json or text/event-stream'),
  unsupportedMediaType: failure(415, ErrorCode.InvalidRequest, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json'),
  unsupportedEncoding: failure(415, ErrorCode.InvalidRequest, 'Unsupported Media Type: send the body without Content-Encoding (no compression)'),
  internal: failure(500, ErrorCode.InternalError, 'Internal error'),
  overloaded: failure(503, ErrorCode.InternalError, 'Service unavailable: the server is overloaded; retry shortly', {
    'retry-after': String(RETRY_AFTER_SECONDS.overloaded),
  }),
  sessionsUnavailable: failure(503, ErrorCode.InternalError, 'Service unavailable: sessions cannot be reached right now; retry shortly', {
    'retry-after': String(RETRY_AFTER_SECONDS.sessionsUnavailable),
  }),
  payloadTooLarge: (limitBytes: number) =>
    failure(413, ErrorCode.InvalidRequest, `Payload Too Large: a message may be at most ${formatBytes(limitBytes)}`),
  rateLimited: (message: string) => failure(429, ErrorCode.RateLimited, message),
} as const;

/** The JSON-RPC body of a failure; the id is echoed only when it could be read. */
export function failureBody (f: Failure, id?: JsonRpcId): JsonRpcResponse {
  return errorResponse(id, { code: f.code, message: f.message });
}

function formatBytes (bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}
