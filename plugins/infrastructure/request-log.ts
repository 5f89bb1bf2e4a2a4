import fp from 'fastify-plugin';
import { rpcSummary } from '../../src/mcp/rpc-summary.js';

/** The path without its query string: the page's search (`/?q=`) is what someone asked, never logged. */
function pathOf (url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?…`;
}

/**
 * One log line per request, written when the reply is done, carrying the request id (pino
 * adds it), the JSON-RPC method and the tool. Headers and arguments are never logged: they
 * may carry session ids, tokens or what a user asked.
 */
export const requestLog = fp(
  async (app) => {
    // Callback hooks, not async ones: every request pays for them, and a promise per hook shows in a profile.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
    app.addHook('onResponse', (request, reply, done) => {
      const rpc = rpcSummary(request.body);
      request.log.info(
        { method: request.method, url: pathOf(request.url), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100, ...rpc },
        'request'
      );
      done();
    });
  },
  { name: 'three-good-sources-request-log' }
);
