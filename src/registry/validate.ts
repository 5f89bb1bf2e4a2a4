import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { RANKS, RULES, describeSchemaErrors } from './messages.js';
import { categoryPath, endorsementPath, sourceLabels } from './paths.js';
import { registrySchema } from './schema.js';
import type { Category, Registry, Source } from './types.js';
import { deepFreeze } from '../util/deep-freeze.js';

export type RegistryCheck =
  | { readonly ok: true; readonly registry: Registry }
  | { readonly ok: false; readonly problems: readonly string[] };

const ajv = new Ajv2020({ allErrors: true, strict: true });
// ajv-formats is CommonJS; under NodeNext its default export arrives as `.default`.
formats.default(ajv, { formats: ['date'] });
const checkSchema = ajv.compile(registrySchema);

/** Validates parsed registry data: the JSON Schema first, then the rules a schema cannot say. */
export function validateRegistry(data: unknown): RegistryCheck {
  if (!checkSchema(data)) {
    return { ok: false, problems: describeSchemaErrors(checkSchema.errors ?? [], data) };
  }
  const shaped = data as unknown as Registry;
  const problems = checkInvariants(shaped);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, registry: deepFreeze(normalise(shaped)) };
}

function checkInvariants(registry: Registry): string[] {
  const problems: string[] = [];
  for (const [slug, category] of Object.entries(registry.categories)) {
    const ranks = category.sources.map((s) => s.rank).sort();
    if (ranks.join() !== RANKS.join()) problems.push(`${categoryPath(slug, 'sources')}: ${RULES.ranks}`);
    const labels = sourceLabels(category.sources);
    const seen = new Map<string, string>();
    category.sources.forEach((source, i) => {
      const where = categoryPath(slug, labels[i]!, 'url');
      const url = httpsUrl(source.url);
      const earlier = url === undefined ? undefined : seen.get(url);
      if (url === undefined) problems.push(`${where}: ${RULES.httpsUrl}`);
      else if (earlier !== undefined) problems.push(`${where}: repeats the URL of ${earlier} in this category`);
      else seen.set(url, labels[i]!);
    });
  }
  const endorsers = new Map<string, number>();
  registry.endorsements.forEach((e, i) => {
    if (httpsUrl(e.url) === undefined) problems.push(`${endorsementPath(i, 'url')}: ${RULES.httpsUrl}`);
    const earlier = endorsers.get(e.pubkey);
    if (earlier !== undefined) problems.push(`${endorsementPath(i, 'pubkey')}: repeats the endorser of ${endorsementPath(earlier)}`);
    else endorsers.set(e.pubkey, i);
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
