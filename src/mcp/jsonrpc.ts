/** JSON-RPC 2.0 as MCP restricts it: ids are strings or numbers, never null. */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification;

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type JsonRpcResponse =
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly result: Record<string, unknown> }
  | { readonly jsonrpc: '2.0'; readonly id?: JsonRpcId; readonly error: JsonRpcErrorObject };

export function isRequest (message: JsonRpcMessage): message is JsonRpcRequest {
  return 'id' in message;
}

export function resultResponse (id: JsonRpcId, result: Record<string, unknown>): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

/**
 * "except in error cases where the ID could not be read" the id is echoed; since 2025-11-25
 * the schema makes it optional, so an unreadable id is left out rather than sent as null.
 */
export function errorResponse (id: JsonRpcId | undefined, error: JsonRpcErrorObject): JsonRpcResponse {
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/** The id of a body that failed validation, if it is one a reply may echo. */
export function readableId (body: unknown): JsonRpcId | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined;
}
