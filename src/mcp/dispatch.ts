import { ErrorCode, errorResponse, isRequest, resultResponse, type JsonRpcMessage, type JsonRpcResponse } from './jsonrpc.js';
import { initialize } from './lifecycle.js';
import { ProtocolError } from './protocol-error.js';
import { isWellFormedSessionId, type SessionState, type SessionStore } from './sessions.js';
import { callTool, listTools } from './tools/toolbox.js';
import type { Catalog } from './tools/tool.js';
import { LEGACY_VERSIONS, isLegacyVersion } from './versions.js';

export const SESSION_HEADER = 'mcp-session-id';

export interface McpDependencies {
  /** The catalog to answer from; read once per request so a swap never splits one. */
  readonly catalog: () => Catalog;
  readonly sessions: SessionStore;
  /** This server's own version, reported in serverInfo. */
  readonly serverVersion: string;
}

/** One POST body, already known to be a single JSON-RPC request or notification. */
export interface McpCall {
  readonly message: JsonRpcMessage;
  readonly sessionId: string | undefined;
  readonly protocolVersionHeader: string | undefined;
}

/** What the HTTP layer sends back: a status, maybe a JSON-RPC body, maybe headers. */
export interface McpReply {
  readonly status: number;
  readonly body?: JsonRpcResponse;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface McpHandler {
  handle(call: McpCall): Promise<McpReply>;
  /** DELETE: ends a session. */
  endSession(sessionId: string | undefined): Promise<McpReply>;
}

const ACCEPTED: McpReply = { status: 202 };

export function createMcpHandler(deps: McpDependencies): McpHandler {
  async function lookup(sessionId: string | undefined): Promise<{ id: string; state: SessionState }> {
    // "Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id
    // header (other than initialization) with HTTP 400 Bad Request."
    if (sessionId === undefined) {
      throw new ProtocolError(ErrorCode.NotInitialized, 'Server not initialized: call initialize first', 400);
    }
    const state = isWellFormedSessionId(sessionId) ? await deps.sessions.get(sessionId) : undefined;
    // "The server MUST respond to requests containing that session ID with HTTP 404 Not Found."
    if (state === undefined) {
      throw new ProtocolError(
        ErrorCode.SessionNotFound,
        'Session not found: it expired or was ended; call initialize again without Mcp-Session-Id',
        404,
      );
    }
    return { id: sessionId, state };
  }

  async function start(call: McpCall): Promise<McpReply> {
    const { message } = call;
    if (!isRequest(message)) {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid Request: initialize must be a request with an id', 400);
    }
    if (call.sessionId !== undefined) {
      await lookup(call.sessionId);
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid Request: this session is already initialized', 400);
    }
    const { protocolVersion, result } = initialize(message.params, deps.serverVersion);
    const id = await deps.sessions.create({ protocolVersion, initialized: false });
    return { status: 200, body: resultResponse(message.id, result), headers: { [SESSION_HEADER]: id } };
  }

  async function route(call: McpCall): Promise<McpReply> {
    const { message } = call;
    const header = call.protocolVersionHeader;
    // "If the server receives a request with an invalid or unsupported MCP-Protocol-Version,
    // it MUST respond with 400 Bad Request." An absent header means 2025-03-26, and the
    // version negotiated for the session wins over it.
    if (header !== undefined && !isLegacyVersion(header)) {
      throw new ProtocolError(
        ErrorCode.InvalidRequest,
        `Unsupported MCP-Protocol-Version header "${header.slice(0, 40)}": supported versions are ${LEGACY_VERSIONS.join(', ')}`,
        400,
      );
    }
    if (message.method === 'initialize') return start(call);
    // "The receiver MUST respond promptly with an empty response", in any state.
    if (message.method === 'ping' && isRequest(message)) return { status: 200, body: resultResponse(message.id, {}) };

    const session = await lookup(call.sessionId);
    if (!isRequest(message)) {
      if (message.method === 'notifications/initialized') {
        await deps.sessions.update(session.id, { ...session.state, initialized: true });
      }
      // "the server MUST return HTTP status code 202 Accepted with no body."
      return ACCEPTED;
    }
    const catalog = deps.catalog();
    switch (message.method) {
      case 'tools/list':
        return ok(message.id, { tools: listTools(session.state.protocolVersion) });
      case 'tools/call':
        return ok(message.id, { ...callTool(message.params, catalog) });
      default:
        throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${message.method.slice(0, 100)}`);
    }
  }

  return {
    async handle(call) {
      try {
        return await route(call);
      } catch (err) {
        if (!(err instanceof ProtocolError)) throw err;
        const id = isRequest(call.message) ? call.message.id : undefined;
        return { status: err.httpStatus, body: errorResponse(id, err.toJsonRpc()) };
      }
    },

    async endSession(sessionId) {
      try {
        const session = await lookup(sessionId);
        await deps.sessions.delete(session.id);
        return { status: 200 };
      } catch (err) {
        if (!(err instanceof ProtocolError)) throw err;
        return { status: err.httpStatus, body: errorResponse(undefined, err.toJsonRpc()) };
      }
    },
  };
}

function ok(id: string | number, result: Record<string, unknown>): McpReply {
  return { status: 200, body: resultResponse(id, result) };
}
