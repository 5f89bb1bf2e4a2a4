import { META, requestMeta, type McpHeaders } from './era.js';
import { decodeHeaderValue } from './header-values.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { isRequest, resultResponse, type JsonRpcMessage, type JsonRpcRequest } from './jsonrpc.js';
import { ACCEPTED, type CallContext, type McpDependencies, type McpReply } from './reply.js';
import { INSTRUCTIONS, serverInfo } from './server-info.js';
import { derived, stable } from './stable-json.js';
import { callTool, listTools, viewForVersion } from './tools/toolbox.js';
import { MODERN_VERSION, SUPPORTED_VERSIONS, isModernVersion } from './versions.js';

/** How long clients may cache tools/list and server/discover: the tool list only changes with a new release. */
export const LIST_TTL_MS = 600_000;

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri`. A Map, not an object
 * literal: a method named `toString` or `__proto__` must find nothing here, not Object's own.
 */
const NAMED: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

/** The 2026-07-28 era: every request stands alone, described by its `_meta` envelope and headers. */
export function createModernHandler (deps: McpDependencies): (message: JsonRpcMessage, headers: McpHeaders, call?: CallContext) => Promise<McpReply> {
  const info = serverInfo(MODERN_VERSION, deps.serverVersion);
  const complete = (result: Record<string, unknown>) => stable({ ...result, resultType: 'complete', _meta: { [META.serverInfo]: info } });
  const discovery = complete({
    supportedVersions: SUPPORTED_VERSIONS,
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    ttlMs: LIST_TTL_MS,
    cacheScope: 'public',
  });
  const toolList = complete({ tools: listTools(MODERN_VERSION), ttlMs: LIST_TTL_MS, cacheScope: 'public' });
  const completeView = `complete ${deps.serverVersion}`;

  function dispatch (request: JsonRpcRequest, call: CallContext): McpReply {
    switch (request.method) {
      case 'server/discover':
        return ok(request, discovery);
      case 'tools/list':
        return ok(request, toolList);
      case 'tools/call': {
        const result = callTool(request.params, deps.catalog(), deps.onToolResult, deps.federation, call);
        return ok(request, derived(result, completeView, () => complete(viewForVersion(result, MODERN_VERSION))));
      }
      case 'subscriptions/listen':
        return listen(request);
      default:
        // "If the server does not implement the requested RPC method, it MUST respond with
        // 404 Not Found and a JSON-RPC error with code -32601."
        throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${request.method.slice(0, 100)}`, 404);
    }
  }

  /**
   * Our tool list never changes while the server runs, so we honour no notification type:
   * the acknowledgement lists none, and the stream ends at once with the graceful-end result
   * instead of holding a connection open for notifications that will never come.
   */
  function listen (request: JsonRpcRequest): McpReply {
    const subscription = { [META.subscriptionId]: request.id };
    return {
      status: 200,
      events: [
        { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: subscription, notifications: {} } },
        resultResponse(request.id, { resultType: 'complete', _meta: { ...subscription, [META.serverInfo]: info } }),
      ],
    };
  }

  return async (message, headers, call = {}) => {
    // Notifications carry no standard headers requirement in this revision; nothing to answer.
    if (!isRequest(message)) return ACCEPTED;
    checkEnvelope(message, headers);
    return dispatch(message, call);
  };
}

/** The per-request rules of 2026-07-28, in the order a client can best act on. */
function checkEnvelope (request: JsonRpcRequest, headers: McpHeaders): void {
  const meta = requestMeta(request) ?? {};
  const version = meta[META.protocolVersion];
  // A required _meta field missing: -32602 with HTTP 400 (basic, per-request protocol fields).
  if (typeof version !== 'string' || version === '') {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: _meta["${META.protocolVersion}"] is required`, 400);
  }
  const capabilities = meta[META.clientCapabilities];
  if (capabilities === null || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: _meta["${META.clientCapabilities}"] is required (an object, {} for none)`, 400);
  }
  // "The header value MUST match the io.modelcontextprotocol/protocolVersion field carried in the request body's _meta."
  if (headers.protocolVersion !== version) {
    throw mismatch(headers.protocolVersion === undefined ? 'MCP-Protocol-Version header is missing' : `MCP-Protocol-Version header "${clip(headers.protocolVersion)}" does not match _meta version "${clip(version)}"`);
  }
  // "If the server does not implement the requested protocol version ... it MUST respond with
  // 400 Bad Request and an UnsupportedProtocolVersionError listing its supported versions."
  if (!isModernVersion(version)) {
    throw new ProtocolError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', 400, { supported: SUPPORTED_VERSIONS, requested: version });
  }
  if (headers.method === undefined) throw mismatch('Mcp-Method header is missing');
  if (headers.method !== request.method) {
    throw mismatch(`Mcp-Method header "${clip(headers.method)}" does not match body method "${clip(request.method)}"`);
  }
  const field = NAMED.get(request.method);
  if (field !== undefined) {
    const bodyValue = request.params?.[field];
    if (headers.name === undefined) throw mismatch('Mcp-Name header is missing');
    const decoded = decodeHeaderValue(headers.name);
    if (decoded === undefined) throw mismatch('Mcp-Name header is malformed');
    if (decoded !== bodyValue) throw mismatch(`Mcp-Name header "${clip(decoded)}" does not match body ${field}`);
  }
}

function mismatch (detail: string): ProtocolError {
  return new ProtocolError(ErrorCode.HeaderMismatch, `Header mismatch: ${detail}`, 400);
}

function clip (text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function ok (request: JsonRpcRequest, result: Record<string, unknown>): McpReply {
  return { status: 200, body: resultResponse(request.id, result) };
}
