import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Failures, failureBody, type Failure } from '../../src/mcp/errors.js';
import { BODY_LIMIT_BYTES } from '../../src/mcp/envelope.js';

/** The MCP endpoint: its errors are JSON-RPC errors. Every other route answers in Fastify's shape. */
export const MCP_PATH = '/mcp';

/** Codes of the errors our own hooks and parsers raise, mapped below like Fastify's. */
export const OwnErrorCode = {
  RateLimited: 'THREEGS_RATE_LIMITED',
  UnsupportedEncoding: 'THREEGS_UNSUPPORTED_ENCODING',
  ForbiddenKey: 'THREEGS_FORBIDDEN_KEY',
  InvalidJson: 'THREEGS_INVALID_JSON',
} as const;

/** An error a hook or parser raises with one of our codes, for `failureOf` to map. */
export function ownError (code: (typeof OwnErrorCode)[keyof typeof OwnErrorCode], message = code): FastifyError {
  return Object.assign(new Error(message), { code, name: 'ThreeGoodSourcesError' });
}

/**
 * The one place where an error raised before a handler answered (content type, size, JSON
 * syntax, rate limits, malformed URLs, anything unexpected) becomes a status and a message.
 * Anything unexpected is a 500 with no detail on the wire.
 */
export function failureOf (error: FastifyError): Failure {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return Failures.unsupportedMediaType;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return Failures.payloadTooLarge(BODY_LIMIT_BYTES);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case OwnErrorCode.InvalidJson:
      return Failures.parseError;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return Failures.badContentLength;
    case 'FST_ERR_BAD_URL':
      return { ...Failures.invalidRequest, message: 'Bad Request: the URL is malformed' };
    case OwnErrorCode.ForbiddenKey:
      return Failures.forbiddenKey;
    case OwnErrorCode.UnsupportedEncoding:
      return Failures.unsupportedEncoding;
    case OwnErrorCode.RateLimited:
      return Failures.rateLimited(error.message);
    default: {
      const status = error.statusCode ?? 500;
      return status < 500 ? { ...Failures.invalidRequest, status, message: STATUS_CODES[status] ?? 'Bad Request' } : Failures.internal;
    }
  }
}

/**
 * Is this request for the MCP endpoint? Decided by the route the router matched, not the raw
 * URL: `/%6Dcp` reaches the same handler as `/mcp` and must meet the same checks. 404s and
 * malformed URLs match no route, so they answer in the plain shape.
 */
export function isMcpRequest (request: FastifyRequest): boolean {
  return request.routeOptions.url === MCP_PATH;
}

/**
 * Sends a failure in the shape of the route family: a JSON-RPC error (no id: it could not be
 * read) on the MCP endpoint, `{ statusCode, error, message }` on every other route.
 */
export function sendFailure (request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  reply.code(failure.status);
  if (failure.headers !== undefined) reply.headers(failure.headers);
  return reply.send(isMcpRequest(request) ? failureBody(failure) : plainError(failure.status, failure.message));
}

/** Fastify's own error shape, used by every route but the MCP endpoint. */
export function plainError (status: number, message: string): { statusCode: number; error: string; message: string } {
  return { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message };
}

/** The error handler of the whole app: every route, every family, one mapping. */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const failure = failureOf(error);
  if (failure.status >= 500) request.log.error({ err: error }, 'request failed');
  // A client still sending an oversized body would meet a closed socket (EPIPE, ECONNRESET)
  // before it reads the 413: the rest of the body is read and dropped first, up to a bound.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    afterDraining(request, () => sendFailure(request, reply, failure));
    return reply;
  }
  return sendFailure(request, reply, failure);
}

/** How much of an oversized body is read and dropped, and for how long, before the 413 goes out anyway. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
export const DRAIN_LIMIT_MS = 5_000;

/** Calls `send` once the request's body has all arrived, or past the drain bounds, whichever comes first. */
function afterDraining (request: FastifyRequest, send: () => void): void {
  const raw = request.raw;
  if (raw.complete || raw.readableEnded || raw.destroyed) return send();
  let seen = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    raw.off('data', onData);
    raw.off('end', finish);
    raw.off('error', finish);
    raw.off('close', finish);
    send();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT_BYTES) finish();
  };
  const timer = setTimeout(finish, DRAIN_LIMIT_MS);
  raw.on('data', onData);
  raw.on('end', finish);
  raw.on('error', finish);
  raw.on('close', finish);
  raw.resume();
}
