import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import { clientKey } from '../../src/clients/client-key.js';
import type { Config } from '../../src/config.js';
import { Failures } from '../../src/mcp/errors.js';
import { OwnErrorCode, sendFailure } from './http-errors.js';

export type LoadProtectionOptions = Pick<Config, 'rateLimitMax' | 'rateLimitWindowMs' | 'rateLimitIpv6Prefix' | 'maxEventLoopDelayMs' | 'maxHeapUsedBytes'>;

/**
 * Per-client rate limiting and load shedding for the routes registered after it in the same
 * plugin (the MCP endpoint): health and metrics stay outside, so they answer even when /mcp says
 * 429 or 503. Both answer in JSON-RPC with a Retry-After header.
 */
export async function protect (app: FastifyInstance, options: LoadProtectionOptions): Promise<void> {
  if (options.maxEventLoopDelayMs > 0 || options.maxHeapUsedBytes > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      maxHeapUsedBytes: options.maxHeapUsedBytes,
      pressureHandler: (request, reply) => {
        sendFailure(request, reply, Failures.overloaded);
      },
    });
  }
  if (options.rateLimitMax > 0) {
    await app.register(rateLimit, {
      max: options.rateLimitMax,
      timeWindow: options.rateLimitWindowMs,
      // Behind a trusted proxy request.ip is the client's address (TRUST_PROXY), not the proxy's;
      // an IPv6 client is its network of RATE_LIMIT_IPV6_PREFIX bits (/64 unless set).
      keyGenerator: (request) => clientKey(request.ip, options.rateLimitIpv6Prefix),
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        code: OwnErrorCode.RateLimited,
        message: `Too many requests: at most ${context.max} per ${context.after}; retry after ${Math.ceil(context.ttl / 1000)} s`,
      }),
    });
  }
}
