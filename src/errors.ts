/**
 * An error the operator must fix before the server can start (configuration, registry, Redis).
 * It carries a stable code, as Fastify's own errors do, so the process entry prints its message
 * as one line without knowing every class, and anything else stays "cannot start".
 */
export class StartupError extends Error {
  readonly code: string;

  constructor (code: string, message: string) {
    super(message);
    this.code = code;
  }
}
