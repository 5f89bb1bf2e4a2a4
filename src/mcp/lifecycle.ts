import { Ajv2020 } from 'ajv/dist/2020.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { INSTRUCTIONS, serverInfo } from './server-info.js';
import { stable } from './stable-json.js';
import { negotiateVersion } from './versions.js';

const initializeParams = {
  type: 'object',
  required: ['protocolVersion', 'capabilities', 'clientInfo'],
  properties: {
    protocolVersion: { type: 'string', minLength: 1 },
    capabilities: { type: 'object' },
    clientInfo: {
      type: 'object',
      required: ['name', 'version'],
      properties: { name: { type: 'string' }, version: { type: 'string' } },
    },
  },
} as const;

const checkInitializeParams = new Ajv2020({ strict: true }).compile<{ protocolVersion: string }>(initializeParams);

export interface Initialized {
  readonly protocolVersion: string;
  readonly result: Record<string, unknown>;
}

/** Checks `initialize` params and builds the InitializeResult for the version agreed on. */
export function initialize (params: unknown, serverVersion: string): Initialized {
  if (!checkInitializeParams(params)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      'Invalid params: initialize needs protocolVersion (string), capabilities (object) and clientInfo {name, version}'
    );
  }
  const protocolVersion = negotiateVersion(params.protocolVersion);
  const key = `${protocolVersion} ${serverVersion}`;
  let result = results.get(key);
  if (result === undefined) {
    result = stable({
      protocolVersion,
      capabilities: { tools: {} },
      serverInfo: serverInfo(protocolVersion, serverVersion),
      instructions: INSTRUCTIONS,
    });
    results.set(key, result);
  }
  return { protocolVersion, result };
}

/** One InitializeResult per negotiated version: a handful at most. */
const results = new Map<string, Record<string, unknown>>();
