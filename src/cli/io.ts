import type { RegistryRules } from '../registry/validate.js';
import { loadWordVectors, type WordVectors } from '../semantic/word-vectors.js';

/** Where a command writes, so that tests can read what a user would see. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The registry rules the server would apply: FEDERATION_ALLOW_LOOPBACK_HTTP as it reads it. */
export function rulesFromEnv (env: NodeJS.ProcessEnv = process.env): RegistryRules {
  return { allowLoopbackHttp: env.FEDERATION_ALLOW_LOOPBACK_HTTP?.trim() === 'true' };
}

/** The semantic stage's word vectors as the server would load them: none when SEMANTIC_STAGE=off. */
export function meaningFromEnv (env: NodeJS.ProcessEnv = process.env): WordVectors | undefined {
  return env.SEMANTIC_STAGE?.trim() === 'off' ? undefined : loadWordVectors();
}

/** The value after `--name`, and the arguments without that pair. */
export function takeOption (args: readonly string[], name: string): { value: string | undefined; rest: string[] } {
  const i = args.indexOf(`--${name}`);
  if (i === -1) return { value: undefined, rest: [...args] };
  return { value: args[i + 1], rest: [...args.slice(0, i), ...args.slice(i + 2)] };
}
