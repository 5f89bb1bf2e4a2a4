import accepts from '@fastify/accepts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { ALLOWED_METHODS, SESSION_HEADER, type McpHandler, type McpReply } from '../../src/mcp/dispatch.js';
import { envelopeSchema, rejectEnvelope } from '../../src/mcp/envelope.js';
import type { McpHeaders } from '../../src/mcp/era.js';
import { Failures } from '../../src/mcp/errors.js';
import type { JsonRpcMessage } from '../../src/mcp/jsonrpc.js';
import { messageText } from '../../src/mcp/stable-json.js';
import { BoundedMemo } from '../../src/util/bounded-memo.js';
import { OwnErrorCode, ownError, sendFailure } from '../support/http-errors.js';

export interface McpEndpointOptions {
  readonly handler: McpHandler;
}

const JSON_TYPE = 'application/json';
const JSON_REPLY_TYPE = 'application/json; charset=utf-8';
const SSE_TYPE = 'text/event-stream';

/** POST /mcp (and DELETE, and 405s): HTTP in, protocol call, HTTP out. */
export const mcpEndpoint: FastifyPluginAsync<McpEndpointOptions> = async (app, { handler }) => {
  await app.register(accepts);

  // Only JSON is a JSON-RPC message: without this, Fastify would parse text/plain and answer 400, not 415.
  app.removeContentTypeParser('text/plain');
  // Some clients send DELETE with Content-Type: application/json and no body; Fastify's own
  // parser rejects that before any handler runs. An empty POST is still a parse error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // We do not decode compressed bodies: say so, rather than call the bytes invalid JSON.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return done(ownError(OwnErrorCode.UnsupportedEncoding), undefined);
    if (body === '' && request.method !== 'POST') return done(null, undefined);
    const parsed = parseMessage(body as string);
    if (parsed instanceof Error) done(parsed, undefined);
    else done(null, parsed);
  });

  app.post('/mcp', { schema: { body: envelopeSchema }, attachValidation: true }, async (request, reply) => {
    // JSON whenever the client accepts it; a missing Accept or */* counts, so plain curl works.
    const { json, sse } = negotiate(request);
    if (!json && !sse) return sendFailure(request, reply, Failures.notAcceptable);
    if (request.validationError) {
      const rejection = rejectEnvelope(request.body);
      return reply.code(rejection.status).send(rejection.body);
    }
    // request.ip: the client as TRUST_PROXY allows it to be known; only ever hashed into a bucket by the demand signal.
    const result = await handler.handle({ message: request.body as JsonRpcMessage, headers: mcpHeaders(request), client: request.ip });
    return send(request, reply, result, json, sse);
  });

  app.delete('/mcp', async (request, reply) => send(request, reply, await handler.endSession(mcpHeaders(request)), true, false));

  // "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET,
  // or else return HTTP 405 Method Not Allowed": we never push server-initiated messages.
  app.route({
    method: ['GET', 'PUT', 'PATCH'],
    url: '/mcp',
    handler: async (_request, reply) => reply.code(405).header('allow', ALLOWED_METHODS).send(),
  });
};

/** Clients send a handful of distinct Accept headers: negotiate each once. */
const negotiated = new BoundedMemo<string, { json: boolean; sse: boolean }>(256);

function negotiate (request: FastifyRequest): { json: boolean; sse: boolean } {
  return negotiated.get(request.headers.accept ?? '', () => {
    const accept = request.accepts();
    return { json: accept.type(JSON_TYPE) !== false, sse: accept.type(SSE_TYPE) !== false };
  });
}

/**
 * JSON.parse, refusing `__proto__` and `constructor.prototype` keys (secure-json-parse, as
 * Fastify's own parser does) but saying which of the two went wrong: Fastify's parser calls both
 * "invalid JSON".
 */
function parseMessage (text: string): unknown {
  try {
    return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) as unknown;
  } catch {
    // Only on the failure path: was it the JSON, or a key we refuse?
    try {
      JSON.parse(text);
    } catch {
      return ownError(OwnErrorCode.InvalidJson);
    }
    return ownError(OwnErrorCode.ForbiddenKey);
  }
}

function header (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function mcpHeaders (request: FastifyRequest): McpHeaders {
  return {
    sessionId: header(request, SESSION_HEADER),
    protocolVersion: header(request, 'mcp-protocol-version'),
    method: header(request, 'mcp-method'),
    name: header(request, 'mcp-name'),
  };
}

/** A single JSON body when the client takes JSON; otherwise, or for a stream of messages, SSE. */
function send (request: FastifyRequest, reply: FastifyReply, result: McpReply, json: boolean, sse: boolean): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  const events = result.events ?? (result.body !== undefined && !json ? [result.body] : undefined);
  if (events !== undefined) {
    if (!sse) return sendFailure(request, reply, Failures.notAcceptable);
    const stream = events.map((e) => `event: message\ndata: ${messageText(e)}\n\n`).join('');
    // "servers SHOULD include the X-Accel-Buffering: no header" on SSE streams.
    return reply.type(SSE_TYPE).header('cache-control', 'no-cache').header('x-accel-buffering', 'no').send(stream);
  }
  return result.body === undefined ? reply.send() : reply.type(JSON_REPLY_TYPE).send(messageText(result.body));
}
