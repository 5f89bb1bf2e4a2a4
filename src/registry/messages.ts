import type { ErrorObject } from 'ajv';
import { entryLabel, pathOfPointer } from './paths.js';
import { PUBLIC_KEY_LENGTH, SEMVER_PATTERN, SOURCES_PER_CATEGORY, ZBASE32_KEY_PATTERN } from './schema.js';

/** "1, 2 and 3" */
export function inWords (items: readonly (string | number)[], last: 'and' | 'or'): string {
  const words = items.map(String);
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)!}`;
}

export const RANKS: readonly number[] = Array.from({ length: SOURCES_PER_CATEGORY }, (_, i) => i + 1);

/** Rules worded once, for the schema's messages and the checks written in code alike. */
export const RULES = {
  publicKey: `must be a z-base-32 Ed25519 public key (${PUBLIC_KEY_LENGTH} characters)`,
  httpsUrl: 'must be an absolute https URL',
  peerUrl: 'must be an absolute https URL, or http://127.0.0.1:<port> or http://localhost:<port> (FEDERATION_ALLOW_LOOPBACK_HTTP)',
  /** A loopback http endorsement without the variable that allows it: say which one does. */
  loopbackPeerUrl: 'must be an absolute https URL; http://127.0.0.1:<port> and http://localhost:<port> are allowed only with FEDERATION_ALLOW_LOOPBACK_HTTP=true (tests and local demos)',
  ranks: `ranks must be exactly ${inWords(RANKS, 'and')}, each once`,
} as const;

const TYPE_NAMES: Readonly<Record<string, string>> = {
  object: 'an object ({ ... })',
  array: 'a list ([ ... ])',
  string: 'text in double quotes',
  integer: 'a whole number',
  number: 'a number',
};

/**
 * Turns Ajv errors into `path: rule` lines in plain English, e.g.
 * `categories.rust-learning.source rank 3.url: must not be empty`. Values from the file are
 * never quoted (only field names are), so a secret file named by mistake stays secret.
 */
export function describeSchemaErrors (errors: readonly ErrorObject[], data: unknown): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    // Ajv reports a bad key twice (the inner pattern and propertyNames); keep the outer one.
    if (error.propertyName !== undefined) continue;
    lines.push(describe(error, data));
  }
  return [...new Set(lines)];
}

function describe (error: ErrorObject, data: unknown): string {
  const p = error.params as Record<string, unknown>;
  const at = (pointer = error.instancePath) => pathOfPointer(pointer, data);
  switch (error.keyword) {
    case 'additionalProperties':
      return `${at()}: unknown field "${String(p.additionalProperty)}"`;
    case 'required':
      return `${at()}: missing required field "${String(p.missingProperty)}"`;
    case 'propertyNames':
      return `${at(`${error.instancePath}/${String(p.propertyName)}`)}: slug must be lowercase words of letters and digits joined by single hyphens, like rust-learning`;
    case 'type':
      return `${at()}: must be ${TYPE_NAMES[String(p.type)] ?? 'another kind of value'}`;
    case 'minLength':
      return `${at()}: must not be empty`;
    case 'minItems':
    case 'maxItems': {
      const list = error.instancePath.split('/').at(-1) ?? '';
      if (list === 'sources') {
        return `${at()}: must have exactly ${SOURCES_PER_CATEGORY} items, one source for each rank ${inWords(RANKS, 'and')}`;
      }
      const noun = entryLabel(list, 0).replace(/ 1$/, '');
      return error.keyword === 'minItems'
        ? `${at()}: must list at least ${String(p.limit)} ${noun}${p.limit === 1 ? '' : 's'}`
        : `${at()}: must list at most ${String(p.limit)} ${noun}${p.limit === 1 ? '' : 's'}`;
    }
    case 'uniqueItems': {
      // Which of i and j is the later one depends on how Ajv compiled the check: name the later one.
      const list = error.instancePath.split('/').at(-1) ?? '';
      const [earlier, later] = [Number(p.i), Number(p.j)].sort((a, b) => a - b);
      return `${at(`${error.instancePath}/${later!}`)}: repeats ${entryLabel(list, earlier!)}`;
    }
    case 'enum':
      return `${at()}: must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'minimum':
    case 'maximum':
      return `${at()}: must be ${inWords(RANKS, 'or')}`;
    case 'format':
      return `${at()}: must be a real calendar date written YYYY-MM-DD`;
    case 'pattern':
      if (p.pattern === ZBASE32_KEY_PATTERN) return `${at()}: ${RULES.publicKey}`;
      if (p.pattern === SEMVER_PATTERN) return `${at()}: must be a semantic version such as 1.0.0 or 1.1.0-beta.1`;
      return `${at()}: is not written the way this field must be`;
    default:
      return `${at()}: does not follow the registry format`;
  }
}
