import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { envelopeSchema, rejectEnvelope } from '../src/mcp/envelope.js';
import { SESSION_HEADER, type McpHandler, type McpReply } from '../src/mcp/dispatch.js';
import type { JsonRpcMessage } from '../src/mcp/jsonrpc.js';
import { toJsonRpcError } from './mcp-errors.js';

export interface McpEndpointOptions {
  readonly handler: McpHandler;
}

const ALLOW = 'POST, DELETE';

/** POST /mcp (and DELETE, and 405s): HTTP in, protocol call, HTTP out. */
export const mcpEndpoint: FastifyPluginAsync<McpEndpointOptions> = async (app, { handler }) => {
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const mapped = toJsonRpcError(error);
    if (mapped.status >= 500) request.log.error({ err: error }, 'mcp endpoint failed');
    return reply.code(mapped.status).send(mapped.body);
  });

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
    if (request.validationError) {
      const rejection = rejectEnvelope(request.body);
      return reply.code(rejection.status).send(rejection.body);
    }
    const result = await handler.handle({
      message: request.body as JsonRpcMessage,
      sessionId: header(request, SESSION_HEADER),
      protocolVersionHeader: header(request, 'mcp-protocol-version'),
    });
    return send(reply, result);
  });

  app.delete('/mcp', async (request, reply) => send(reply, await handler.endSession(header(request, SESSION_HEADER))));

  // "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET,
  // or else return HTTP 405 Method Not Allowed": we never push server-initiated messages.
  app.route({
    method: ['GET', 'PUT', 'PATCH'],
    url: '/mcp',
    handler: async (_request, reply) => reply.code(405).header('allow', ALLOW).send(),
  });
};

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function send(reply: FastifyReply, result: McpReply): FastifyReply {
  reply.code(result.status);
  if (result.headers) reply.headers(result.headers);
  return result.body === undefined ? reply.send() : reply.send(result.body);
}
