import type { JsonRpcMessage } from './jsonrpc.js';
import { isModernVersion } from './versions.js';

/** Reserved `_meta` keys of the 2026-07-28 per-request envelope. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The MCP request headers the protocol reads (names lower-case, as Node gives them). */
export interface McpHeaders {
  readonly sessionId?: string | undefined;
  readonly protocolVersion?: string | undefined;
  readonly method?: string | undefined;
  readonly name?: string | undefined;
}

export type Era = 'modern' | 'legacy';

export function requestMeta (message: JsonRpcMessage): Record<string, unknown> | undefined {
  const meta = message.params?._meta;
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/**
 * "A request carrying modern per-request `_meta` is served statelessly according to this
 * revision. An `initialize` request selects legacy semantics" (versioning, dual-era server).
 * A request that names a modern version in its header but forgot the envelope is modern too,
 * so that its client hears what is missing instead of a legacy session error.
 */
export function eraOf (message: JsonRpcMessage, headers: McpHeaders): Era {
  const meta = requestMeta(message);
  if (meta !== undefined && (META.protocolVersion in meta || META.clientCapabilities in meta)) return 'modern';
  if (message.method !== 'initialize' && headers.protocolVersion !== undefined && isModernVersion(headers.protocolVersion)) {
    return 'modern';
  }
  return 'legacy';
}
