import type { JsonRpcErrorObject } from './jsonrpc.js';

/** A protocol-level failure: a JSON-RPC error code and the HTTP status it travels with. */
export class ProtocolError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly data: unknown;

  constructor(code: number, message: string, httpStatus = 200, data?: unknown) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.httpStatus = httpStatus;
    this.data = data;
  }

  toJsonRpc(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
