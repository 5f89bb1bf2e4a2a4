import cors from '@fastify/cors';
import fp from 'fastify-plugin';
import { ErrorCode, errorResponse } from '../src/mcp/jsonrpc.js';

export interface OriginPolicyOptions {
  /** Exact origins allowed besides localhost ones. */
  readonly allowedOrigins: readonly string[];
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Localhost origins on any port, plus the configured ones. */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (!/^https?:$/.test(url.protocol)) return false;
  return LOCAL_HOSTNAMES.has(url.hostname) || allowed.includes(url.origin);
}

/**
 * One allow-list for two jobs. @fastify/cors only decides which response headers a browser
 * sees; it blocks nothing. The 403 is ours: "If the Origin header is present and invalid,
 * servers MUST respond with HTTP 403 Forbidden" (transports, 2025-11-25).
 */
export const originPolicy = fp<OriginPolicyOptions>(
  async (app, { allowedOrigins }) => {
    app.addHook('onRequest', async (request, reply) => {
      const origin = request.headers.origin;
      if (origin !== undefined && !originAllowed(origin, allowedOrigins)) {
        return reply
          .code(403)
          .send(errorResponse(undefined, { code: ErrorCode.InvalidRequest, message: 'Forbidden: this Origin is not allowed' }));
      }
    });
    await app.register(cors, {
      origin: (origin, cb) => cb(null, origin !== undefined && originAllowed(origin, allowedOrigins)),
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
      exposedHeaders: ['Mcp-Session-Id'],
      maxAge: 600,
    });
  },
  { name: 'three-good-sources-origin-policy' },
);
