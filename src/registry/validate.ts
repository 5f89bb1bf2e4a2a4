import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { ZBASE32_KEY_PATTERN, registrySchema } from './schema.js';
import type { Category, Registry, Source } from './types.js';
import { deepFreeze } from '../util/deep-freeze.js';

export type RegistryCheck =
  | { readonly ok: true; readonly registry: Registry }
  | { readonly ok: false; readonly problems: readonly string[] };

const ajv = new Ajv2020({ allErrors: true, strict: true });
const checkSchema = ajv.compile(registrySchema);

/** Validates parsed registry data: the JSON Schema first, then the rules a schema cannot say. */
export function validateRegistry(data: unknown): RegistryCheck {
  if (!checkSchema(data)) {
    return { ok: false, problems: describeSchemaErrors(checkSchema.errors ?? []) };
  }
  const shaped = data as unknown as Registry;
  const problems = checkInvariants(shaped);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, registry: deepFreeze(normalise(shaped)) };
}

function checkInvariants(registry: Registry): string[] {
  const problems: string[] = [];
  for (const [slug, category] of Object.entries(registry.categories)) {
    const where = `categories.${slug}.sources`;
    const ranks = category.sources.map((s) => s.rank).sort();
    if (ranks.join() !== '1,2,3') problems.push(`${where}: ranks must be exactly 1, 2 and 3`);
    const seen = new Set<string>();
    category.sources.forEach((source, i) => {
      const url = httpsUrl(source.url);
      if (url === undefined) {
        problems.push(`${where}.${i}.url: must be an absolute https URL`);
      } else if (seen.has(url)) {
        problems.push(`${where}.${i}.url: must not repeat a URL already in this category`);
      } else {
        seen.add(url);
      }
    });
  }
  const endorsers = new Set<string>();
  registry.endorsements.forEach((e, i) => {
    if (httpsUrl(e.url) === undefined) problems.push(`endorsements.${i}.url: must be an absolute https URL`);
    if (endorsers.has(e.pubkey)) problems.push(`endorsements.${i}.pubkey: must not repeat an endorser already listed`);
    endorsers.add(e.pubkey);
  });
  return problems;
}

/** Returns the normalised href of an absolute https URL, or undefined. */
function httpsUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'https:' && url.hostname !== '' ? url.href : undefined;
}

function normalise(registry: Registry): Registry {
  const categories: Record<string, Category> = {};
  for (const [slug, category] of Object.entries(registry.categories)) {
    const sources: Source[] = [...category.sources].sort((a, b) => a.rank - b.rank);
    categories[slug] = { ...category, sources };
  }
  return { ...registry, categories };
}

/** Turns Ajv errors into `path: rule` lines, e.g. `categories.rust-learning.sources: must have exactly 3 items`. */
export function describeSchemaErrors(errors: readonly ErrorObject[]): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    // Ajv reports a bad key twice (the inner pattern and propertyNames); keep the outer one.
    if (error.propertyName !== undefined) continue;
    const path = dotted(error.instancePath);
    lines.push(`${path}${ruleOf(error)}`);
  }
  return [...new Set(lines)];
}

function ruleOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `: unknown field "${String(p.additionalProperty)}"`;
    case 'required':
      return `: missing required field "${String(p.missingProperty)}"`;
    case 'propertyNames':
      return `.${String(p.propertyName)}: slug must be lowercase words joined by hyphens`;
    case 'minItems':
    case 'maxItems':
      return error.parentSchema?.minItems === error.parentSchema?.maxItems
        ? `: must have exactly ${String(p.limit)} items`
        : `: ${error.message ?? 'has the wrong number of items'}`;
    case 'enum':
      return `: must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return p.pattern === ZBASE32_KEY_PATTERN
        ? ': must be a z-base-32 public key (52 characters)'
        : `: must match ${String(p.pattern)}`;
    default:
      return `: ${error.message ?? error.keyword}`;
  }
}

function dotted(instancePath: string): string {
  if (instancePath === '') return 'registry';
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
