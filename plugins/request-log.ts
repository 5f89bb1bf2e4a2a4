import fp from 'fastify-plugin';

/**
 * One log line per request, written when the reply is done, carrying the request id (pino
 * adds it), the JSON-RPC method and the tool. Headers and arguments are never logged: they
 * may carry session ids, tokens or what a user asked.
 */
export const requestLog = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-request-id', request.id);
    });
    app.addHook('onResponse', async (request, reply) => {
      const rpc = rpcSummary(request.body);
      request.log.info(
        { method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100, ...rpc },
        'request',
      );
    });
  },
  { name: 'three-good-sources-request-log' },
);

function rpcSummary(body: unknown): { rpcMethod?: string; tool?: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return {};
  const tool = method === 'tools/call' && typeof params?.name === 'string' ? params.name.slice(0, 64) : undefined;
  return tool === undefined ? { rpcMethod: method.slice(0, 64) } : { rpcMethod: method.slice(0, 64), tool };
}
