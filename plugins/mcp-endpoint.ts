import accepts from '@fastify/accepts';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ALLOWED_METHODS, SESSION_HEADER, type McpHandler, type McpReply } from '../src/mcp/dispatch.js';
import { envelopeSchema, rejectEnvelope } from '../src/mcp/envelope.js';
import type { McpHeaders } from '../src/mcp/era.js';
import { ErrorCode, errorResponse, type JsonRpcMessage } from '../src/mcp/jsonrpc.js';
import { messageText } from '../src/mcp/stable-json.js';
import { protect, type LoadProtectionOptions } from './load-protection.js';
import { toJsonRpcError } from './mcp-errors.js';

export interface McpEndpointOptions {
  readonly handler: McpHandler;
  readonly protection: LoadProtectionOptions;
}

const JSON_TYPE = 'application/json';
const JSON_REPLY_TYPE = 'application/json; charset=utf-8';
const SSE_TYPE = 'text/event-stream';

/** POST /mcp (and DELETE, and 405s): HTTP in, protocol call, HTTP out. */
export const mcpEndpoint: FastifyPluginAsync<McpEndpointOptions> = async (app, { handler, protection }) => {
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const mapped = toJsonRpcError(error);
    if (mapped.status >= 500) request.log.error({ err: error }, 'mcp endpoint failed');
    return reply.code(mapped.status).send(mapped.body);
  });
  await app.register(accepts);
  await protect(app, protection);

  // Only JSON is a JSON-RPC message: without this, Fastify would parse text/plain and answer 400, not 415.
  app.removeContentTypeParser('text/plain');
  // Some clients send DELETE with Content-Type: application/json and no body; Fastify's own
  // parser rejects that before any handler runs. An empty POST is still a parse error.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && request.method !== 'POST') return done(null, undefined);
    parseJson(request, body as string, done);
  });

  app.post('/mcp', { schema: { body: envelopeSchema }, attachValidation: true }, async (request, reply) => {
    // JSON whenever the client accepts it; a missing Accept or */* counts, so plain curl works.
    const { json, sse } = negotiate(request);
    if (!json && !sse) return notAcceptable(reply);
    if (request.validationError) {
      const rejection = rejectEnvelope(request.body);
      return reply.code(rejection.status).send(rejection.body);
    }
    const result = await handler.handle({ message: request.body as JsonRpcMessage, headers: mcpHeaders(request) });
    return send(reply, result, json, sse);
  });

  app.delete('/mcp', async (request, reply) => send(reply, await handler.endSession(mcpHeaders(request)), true, false));

  // "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET,
  // or else return HTTP 405 Method Not Allowed": we never push server-initiated messages.
  app.route({
    method: ['GET', 'PUT', 'PATCH'],
    url: '/mcp',
    handler: async (_request, reply) => reply.code(405).header('allow', ALLOWED_METHODS).send(),
  });
};

/** Clients send a handful of distinct Accept headers: negotiate each once. Bounded. */
const negotiated = new Map<string, { json: boolean; sse: boolean }>();

function negotiate(request: FastifyRequest): { json: boolean; sse: boolean } {
  const key = request.headers.accept ?? '';
  let answer = negotiated.get(key);
  if (answer === undefined) {
    const accept = request.accepts();
    answer = { json: accept.type(JSON_TYPE) !== false, sse: accept.type(SSE_TYPE) !== false };
    if (negotiated.size >= 256) negotiated.clear();
    negotiated.set(key, answer);
  }
  return answer;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function mcpHeaders(request: FastifyRequest): McpHeaders {
  return {
    sessionId: header(request, SESSION_HEADER),
    protocolVersion: header(request, 'mcp-protocol-version'),
    method: header(request, 'mcp-method'),
    name: header(request, 'mcp-name'),
  };
}

function notAcceptable(reply: FastifyReply): FastifyReply {
  return reply
    .code(406)
    .send(errorResponse(undefined, { code: ErrorCode.InvalidRequest, message: 'Not Acceptable: accept application/json or text/event-stream' }));
}

/** A single JSON body when the client takes JSON; otherwise, or for a stream of messages, SSE. */
function send(reply: FastifyReply, result: McpReply, json: boolean, sse: boolean): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  const events = result.events ?? (result.body !== undefined && !json ? [result.body] : undefined);
  if (events !== undefined) {
    if (!sse) return notAcceptable(reply);
    const stream = events.map((e) => `event: message\ndata: ${messageText(e)}\n\n`).join('');
    // "servers SHOULD include the X-Accel-Buffering: no header" on SSE streams.
    return reply.type(SSE_TYPE).header('cache-control', 'no-cache').header('x-accel-buffering', 'no').send(stream);
  }
  return result.body === undefined ? reply.send() : reply.type(JSON_REPLY_TYPE).send(messageText(result.body));
}
