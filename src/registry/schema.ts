import { SOURCE_TYPES } from './types.js';

/** Lowercase words of letters and digits joined by single hyphens. */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

const nonEmptyString = { type: 'string', minLength: 1 } as const;
const stringList = { type: 'array', items: nonEmptyString, uniqueItems: true } as const;

const source = {
  type: 'object',
  additionalProperties: false,
  required: ['rank', 'name', 'url', 'type', 'why'],
  properties: {
    rank: { type: 'integer' },
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
    sources: { type: 'array', items: source, minItems: 3, maxItems: 3 },
  },
} as const;

/** A PKARR-style public key: 52 characters of the z-base-32 alphabet. */
export const ZBASE32_KEY_PATTERN = '^[ybndrfg8ejkmcpqxot1uwisza345h769]{52}$';

const endorsement = {
  type: 'object',
  additionalProperties: false,
  required: ['pubkey', 'url', 'name', 'since'],
  properties: {
    pubkey: { type: 'string', pattern: ZBASE32_KEY_PATTERN },
    url: nonEmptyString,
    name: nonEmptyString,
    since: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  },
} as const;

/**
 * JSON Schema (2020-12) of registry.json. Rules a schema cannot say (ranks 1-3,
 * https URLs, no URL twice in a category) live in validate.ts.
 */
export const registrySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://threegoodsources.dev/schemas/registry.json',
  type: 'object',
  additionalProperties: false,
  required: ['version', 'updated', 'curator', 'endorsements', 'categories'],
  properties: {
    version: nonEmptyString,
    updated: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
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
