import { ErrorCode } from './errors.js';
import { errorResponse, readableId, type JsonRpcResponse } from './jsonrpc.js';

/** The largest message we read: a tool call with its arguments is a few kilobytes at most. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * JSON Schema of one JSON-RPC request or notification, as the HTTP layer validates it.
 * `params` stays open: MCP adds `_meta` and new fields in every revision.
 */
export const envelopeSchema = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { const: '2.0' },
    method: { type: 'string', minLength: 1 },
    // "Unlike base JSON-RPC, the ID MUST NOT be null" (MCP basic/index).
    id: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    params: { type: 'object' },
  },
} as const;

export interface EnvelopeRejection {
  readonly status: 400;
  readonly body: JsonRpcResponse;
}

/** The reply to a body that is valid JSON but not a single JSON-RPC request or notification. */
export function rejectEnvelope(body: unknown): EnvelopeRejection {
  if (Array.isArray(body)) {
    return {
      status: 400,
      body: errorResponse(undefined, { code: ErrorCode.InvalidRequest, message: 'Batch requests are not supported: send one JSON-RPC message per POST' }),
    };
  }
  return {
    status: 400,
    body: errorResponse(readableId(body), {
      code: ErrorCode.InvalidRequest,
      message: 'Invalid Request: expected a JSON-RPC 2.0 request or notification ("jsonrpc": "2.0", a string "method", a string or number "id", object "params")',
    }),
  };
}
