import type { JsonRpcMessage, JsonRpcResponse } from './jsonrpc.js';
import type { SessionStore } from '../sessions/store.js';
import type { Catalog } from '../catalog.js';
import type { FederationView } from '../federation/federation.js';
import type { ToolContext, ToolResult } from './tools/tool.js';
import type { DemandSignal } from '../demand/signal.js';

export interface McpDependencies {
  /** The catalog to answer from; read once per request so a swap never splits one. */
  readonly catalog: () => Catalog;
  readonly sessions: SessionStore;
  /** This server's own version, reported in serverInfo. */
  readonly serverVersion: string;
  /** The endorsed peers as they are now (get_federated_sources, get_endorsements). */
  readonly federation?: FederationView;
  /** Told what each query amounted to, per client: the demand signal (issue 25). */
  readonly demand?: DemandSignal;
  /** Told of every tool result, for metrics. */
  readonly onToolResult?: (tool: string, result: ToolResult) => void;
}

/** What the HTTP layer sends back: a status, maybe a JSON-RPC body, maybe headers. */
export interface McpReply {
  readonly status: number;
  readonly body?: JsonRpcResponse;
  /** Instead of `body`: messages for an SSE stream, the final response last. */
  readonly events?: readonly (JsonRpcMessage | JsonRpcResponse)[];
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What one HTTP request adds to a call: told what a query amounted to, with the client already
 * bound (the demand signal), and who asked, as one client key (what remembered answers are kept
 * apart by).
 */
export interface CallContext {
  readonly asked?: ToolContext['asked'];
  readonly asker?: ToolContext['asker'];
}

export const ACCEPTED: McpReply = { status: 202 };
