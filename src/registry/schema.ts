import { SOURCE_TYPES } from './types.js';

/** Lowercase words of letters and digits joined by single hyphens. */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** Every category lists this many sources, ranked 1 to SOURCES_PER_CATEGORY. */
export const SOURCES_PER_CATEGORY = 3;

/** The z-base-32 alphabet, in which PKARR writes the 32 bytes of an Ed25519 public key. */
export const ZBASE32_ALPHABET = 'ybndrfg8ejkmcpqxot1uwisza345h769';
/** 32 bytes at 5 bits per character. */
export const PUBLIC_KEY_LENGTH = 52;
/** A PKARR-style public key. */
export const ZBASE32_KEY_PATTERN = `^[${ZBASE32_ALPHABET}]{${PUBLIC_KEY_LENGTH}}$`;

/**
 * Semantic Versioning 2.0.0, the regular expression semver.org itself suggests. Chosen over the
 * semver package's valid(), which also accepts "v1.0.0" and " 1.0.0" and drops build metadata.
 */
export const SEMVER_PATTERN =
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)' +
  '(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][a-zA-Z0-9-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][a-zA-Z0-9-]*))*))?' +
  '(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';

const nonEmptyString = { type: 'string', minLength: 1 } as const;
const stringList = { type: 'array', items: nonEmptyString, uniqueItems: true } as const;
/** A real calendar date written YYYY-MM-DD (ajv-formats checks month lengths and leap years). */
const calendarDate = { type: 'string', format: 'date' } as const;

const source = {
  type: 'object',
  additionalProperties: false,
  required: ['rank', 'name', 'url', 'type', 'why'],
  properties: {
    rank: { type: 'integer', minimum: 1, maximum: SOURCES_PER_CATEGORY },
    name: nonEmptyString,
    url: nonEmptyString,
    type: { enum: SOURCE_TYPES },
    why: nonEmptyString,
  },
} as const;

const category = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'tags', 'keywords', 'queryPatterns', 'sources'],
  properties: {
    name: nonEmptyString,
    description: nonEmptyString,
    tags: { ...stringList, minItems: 1 },
    keywords: stringList,
    queryPatterns: { ...stringList, minItems: 1 },
    notAbout: stringList,
    sources: { type: 'array', items: source, minItems: SOURCES_PER_CATEGORY, maxItems: SOURCES_PER_CATEGORY },
  },
} as const;

const endorsement = {
  type: 'object',
  additionalProperties: false,
  required: ['pubkey', 'url', 'name', 'since'],
  properties: {
    pubkey: { type: 'string', pattern: ZBASE32_KEY_PATTERN },
    url: nonEmptyString,
    name: nonEmptyString,
    since: calendarDate,
  },
} as const;

/**
 * JSON Schema (2020-12) of registry.json. Rules a schema cannot say (ranks 1-3 once each,
 * https URLs, no URL twice in a category) live in validate.ts.
 */
export const registrySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://threegoodsources.dev/schemas/registry.json',
  type: 'object',
  additionalProperties: false,
  required: ['version', 'updated', 'curator', 'endorsements', 'categories'],
  properties: {
    version: { type: 'string', pattern: SEMVER_PATTERN },
    updated: calendarDate,
    curator: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'pubkey'],
      properties: { name: nonEmptyString, pubkey: { type: 'string' } },
    },
    endorsements: { type: 'array', items: endorsement },
    categories: {
      type: 'object',
      propertyNames: { pattern: SLUG_PATTERN },
      additionalProperties: category,
    },
  },
} as const;
