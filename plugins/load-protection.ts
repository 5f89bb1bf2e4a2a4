import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { ErrorCode, errorResponse } from '../src/mcp/jsonrpc.js';

export interface LoadProtectionOptions {
  /** Requests per client per window; 0 turns rate limiting off. */
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  readonly maxEventLoopDelayMs: number;
  readonly maxHeapUsedBytes: number;
}

/** Application-defined, outside the JSON-RPC reserved range as the MCP spec asks. */
export const RATE_LIMITED = -31429;
const SHED_RETRY_AFTER_SECONDS = 5;

/**
 * Per-client rate limiting and load shedding for the routes registered after it in the same
 * plugin (the MCP endpoint): health and metrics stay outside, so they answer even when /mcp says
 * 429 or 503. Both answer in JSON-RPC with a Retry-After header.
 */
export async function protect(app: FastifyInstance, options: LoadProtectionOptions): Promise<void> {
  if (options.maxEventLoopDelayMs > 0 || options.maxHeapUsedBytes > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      maxHeapUsedBytes: options.maxHeapUsedBytes,
      pressureHandler: (_request, reply) => {
        reply
          .code(503)
          .header('retry-after', String(SHED_RETRY_AFTER_SECONDS))
          .send(errorResponse(undefined, { code: ErrorCode.InternalError, message: 'Service unavailable: the server is overloaded; retry shortly' }));
      },
    });
  }
  if (options.rateLimitMax > 0) {
    await app.register(rateLimit, {
      max: options.rateLimitMax,
      timeWindow: options.rateLimitWindowMs,
      // Behind a trusted proxy request.ip is the client's address (TRUST_PROXY), not the proxy's.
      keyGenerator: (request) => request.ip,
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        code: 'THREEGS_RATE_LIMITED',
        message: `Too many requests: at most ${context.max} per ${context.after}; retry after ${Math.ceil(context.ttl / 1000)} s`,
      }),
    });
  }
}
