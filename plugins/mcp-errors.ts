import type { FastifyError } from 'fastify';
import { ErrorCode, errorResponse, type JsonRpcResponse } from '../src/mcp/jsonrpc.js';
import { RATE_LIMITED } from './load-protection.js';

export interface HttpJsonRpcError {
  readonly status: number;
  readonly body: JsonRpcResponse;
}

/**
 * The one place where errors Fastify raises before our handler runs (content type, size,
 * JSON syntax) become JSON-RPC errors. The request id could not be read in any of these
 * cases, so it is left out. Anything unexpected is a -32603 with no detail on the wire.
 */
export function toJsonRpcError(error: FastifyError): HttpJsonRpcError {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return fail(415, ErrorCode.InvalidRequest, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fail(413, ErrorCode.InvalidRequest, 'Payload Too Large: a message may be at most 1 MiB');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return fail(400, ErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    case 'THREEGS_RATE_LIMITED':
      return fail(429, RATE_LIMITED, error.message);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return fail(400, ErrorCode.InvalidRequest, 'Invalid Request: Content-Length does not match the body');
    default:
      return (error.statusCode ?? 500) < 500
        ? fail(error.statusCode ?? 400, ErrorCode.InvalidRequest, 'Invalid Request')
        : fail(500, ErrorCode.InternalError, 'Internal error');
  }
}

function fail(status: number, code: number, message: string): HttpJsonRpcError {
  return { status, body: errorResponse(undefined, { code, message }) };
}
