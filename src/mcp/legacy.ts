import type { McpHeaders } from './era.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { isRequest, resultResponse, type JsonRpcMessage } from './jsonrpc.js';
import { initialize } from './lifecycle.js';
import { ACCEPTED, type CallContext, type McpDependencies, type McpReply } from './reply.js';
import { isWellFormedSessionId, type SessionState } from '../sessions/store.js';
import { callTool, resultForVersion, toolsListResult } from './tools/toolbox.js';
import { LEGACY_VERSIONS, isLegacyVersion } from './versions.js';

export const SESSION_HEADER = 'mcp-session-id';

export interface LegacyHandler {
  handle(message: JsonRpcMessage, headers: McpHeaders, call?: CallContext): Promise<McpReply>;
  endSession(sessionId: string | undefined): Promise<McpReply>;
}

/** The 2025 era: an `initialize` handshake, then every request inside its session. */
export function createLegacyHandler (deps: McpDependencies): LegacyHandler {
  async function lookup (sessionId: string | undefined): Promise<{ id: string; state: SessionState }> {
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
        404
      );
    }
    return { id: sessionId, state };
  }

  async function start (message: JsonRpcMessage, sessionId: string | undefined): Promise<McpReply> {
    if (!isRequest(message)) {
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid Request: initialize must be a request with an id', 400);
    }
    if (sessionId !== undefined) {
      await lookup(sessionId);
      throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid Request: this session is already initialized', 400);
    }
    const { protocolVersion, result } = initialize(message.params, deps.serverVersion);
    const id = await deps.sessions.create({ protocolVersion, initialized: false });
    return { status: 200, body: resultResponse(message.id, result), headers: { [SESSION_HEADER]: id } };
  }

  return {
    async handle (message, headers, call = {}) {
      const header = headers.protocolVersion;
      // "If the server receives a request with an invalid or unsupported MCP-Protocol-Version,
      // it MUST respond with 400 Bad Request." An absent header means 2025-03-26, and the
      // version negotiated for the session wins over it.
      if (header !== undefined && !isLegacyVersion(header)) {
        throw new ProtocolError(
          ErrorCode.InvalidRequest,
          `Unsupported MCP-Protocol-Version header "${header.slice(0, 40)}": supported versions are ${LEGACY_VERSIONS.join(', ')} (with initialize) and 2026-07-28 (with a _meta envelope)`,
          400
        );
      }
      if (message.method === 'initialize') return start(message, headers.sessionId);
      // "The receiver MUST respond promptly with an empty response", in any state.
      if (message.method === 'ping' && isRequest(message)) return { status: 200, body: resultResponse(message.id, {}) };

      const session = await lookup(headers.sessionId);
      if (!isRequest(message)) {
        if (message.method === 'notifications/initialized') {
          await deps.sessions.update(session.id, { ...session.state, initialized: true });
        }
        // "the server MUST return HTTP status code 202 Accepted with no body."
        return ACCEPTED;
      }
      const version = session.state.protocolVersion;
      switch (message.method) {
        case 'tools/list':
          return { status: 200, body: resultResponse(message.id, toolsListResult(version)) };
        case 'tools/call':
          return {
            status: 200,
            body: resultResponse(message.id, resultForVersion(callTool(message.params, deps.catalog(), deps.onToolResult, deps.federation, call), version)),
          };
        default:
          throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${message.method.slice(0, 100)}`);
      }
    },

    async endSession (sessionId) {
      const session = await lookup(sessionId);
      await deps.sessions.delete(session.id);
      return { status: 200 };
    },
  };
}
