import { Failures, failureBody } from './errors.js';
import { readableId, type JsonRpcResponse } from './jsonrpc.js';

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
  readonly status: number;
  readonly body: JsonRpcResponse;
}

/** The reply to a body that is valid JSON but not a single JSON-RPC request or notification. */
export function rejectEnvelope (body: unknown): EnvelopeRejection {
  const failure = Array.isArray(body) ? Failures.batch : Failures.notJsonRpc;
  return { status: failure.status, body: failureBody(failure, readableId(body)) };
}
