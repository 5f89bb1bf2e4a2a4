import { eraOf, type McpHeaders } from './era.js';
import { Failures, ProtocolError, failureBody } from './errors.js';
import { errorResponse, isRequest, type JsonRpcMessage } from './jsonrpc.js';
import { createLegacyHandler } from './legacy.js';
import { createModernHandler } from './modern.js';
import type { McpDependencies, McpReply } from './reply.js';
import { SessionStoreUnavailable } from '../sessions/store.js';
import { isModernVersion } from './versions.js';
import { clientKey } from '../clients/client-key.js';
import type { Asked } from '../demand/asked.js';

export { SESSION_HEADER } from './legacy.js';
export type { McpDependencies, McpReply } from './reply.js';

/** One POST body, already known to be a single JSON-RPC request or notification. */
export interface McpCall {
  readonly message: JsonRpcMessage;
  readonly headers: McpHeaders;
  /** Who asked, as the HTTP layer sees them (an address): only ever hashed into a bucket by the demand signal, never kept. */
  readonly client?: string;
}

export interface McpHandler {
  handle(call: McpCall): Promise<McpReply>;
  /** DELETE on the endpoint. */
  endSession(headers: McpHeaders): Promise<McpReply>;
}

/** The methods /mcp accepts, for the Allow header of every 405. */
export const ALLOWED_METHODS = 'POST, DELETE';

const METHOD_NOT_ALLOWED: McpReply = { status: 405, headers: { allow: ALLOWED_METHODS } };

/** The dual-era protocol handler: each message goes to the era it belongs to. */
export function createMcpHandler (deps: McpDependencies): McpHandler {
  const legacy = createLegacyHandler(deps);
  const modern = createModernHandler(deps);

  async function guarded (id: JsonRpcMessage | undefined, work: () => Promise<McpReply>): Promise<McpReply> {
    try {
      return await work();
    } catch (err) {
      const replyId = id !== undefined && isRequest(id) ? id.id : undefined;
      if (err instanceof SessionStoreUnavailable) {
        const unavailable = Failures.sessionsUnavailable;
        return { status: unavailable.status, body: failureBody(unavailable, replyId), headers: unavailable.headers };
      }
      if (!(err instanceof ProtocolError)) throw err;
      return { status: err.httpStatus, body: errorResponse(replyId, err.toJsonRpc()) };
    }
  }

  return {
    handle ({ message, headers, client }) {
      const { demand } = deps;
      const asker = client === undefined ? undefined : clientKey(client);
      const call = demand?.recording === true && client !== undefined ? { asked: (asked: Asked) => demand.record(asked, client), asker } : { asker };
      // A modern request ignores Mcp-Session-Id: "do not mint or echo session IDs".
      return guarded(message, () =>
        eraOf(message, headers) === 'modern' ? modern(message, headers, call) : legacy.handle(message, headers, call)
      );
    },

    endSession (headers) {
      // Sessions do not exist in 2026-07-28: "HTTP GET or DELETE to the MCP endpoint: respond with 405".
      if (headers.protocolVersion !== undefined && isModernVersion(headers.protocolVersion)) {
        return Promise.resolve(METHOD_NOT_ALLOWED);
      }
      return guarded(undefined, () => legacy.endSession(headers.sessionId));
    },
  };
}
