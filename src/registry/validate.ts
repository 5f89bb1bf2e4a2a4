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

/** Where the same rules bend: a peer's registry, loopback peers for tests and demos. */
export interface RegistryRules {
  /** Endorsement URLs may also be http://127.0.0.1:<port> or http://localhost:<port> (FEDERATION_ALLOW_LOOPBACK_HTTP). */
  readonly allowLoopbackHttp?: boolean;
  /** Fields this version does not know are dropped, not refused: a peer may run a newer version. */
  readonly ignoreUnknownFields?: boolean;
}

function compiled (removeAdditional: boolean) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, ...(removeAdditional ? { removeAdditional: true as const } : {}) });
  // ajv-formats is CommonJS; under NodeNext its default export arrives as `.default`.
  formats.default(ajv, { formats: ['date'] });
  return ajv.compile(registrySchema);
}
const checkSchema = compiled(false);
const checkDroppingUnknown = compiled(true);

/** Validates parsed registry data: the JSON Schema first, then the rules a schema cannot say. */
export function validateRegistry (input: unknown, rules: RegistryRules = {}): RegistryCheck {
  // Dropping unknown fields changes the data: on a copy, never on what the caller holds.
  const data = rules.ignoreUnknownFields ? structuredClone(input) : input;
  const check = rules.ignoreUnknownFields ? checkDroppingUnknown : checkSchema;
  const shapeOk = check(data);
  // Every problem at once: the rules a schema cannot say are checked on whatever parts have the
  // right shape, even when other parts do not (a bad version must not hide a bad URL).
  const problems = [...(shapeOk ? [] : describeSchemaErrors(check.errors ?? [], data)), ...checkInvariants(data, rules)];
  if (problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  return { ok: true, registry: deepFreeze(normalise(data as unknown as Registry)) };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The rules a schema cannot say, on data that may not have passed the schema: each part is looked at only if it has the shape the rule needs. */
function checkInvariants (data: unknown, rules: RegistryRules): string[] {
  const problems: string[] = [];
  const registry = isObject(data) ? data : {};
  const categories = isObject(registry.categories) ? registry.categories : {};
  for (const [slug, raw] of Object.entries(categories)) {
    if (!isObject(raw) || !Array.isArray(raw.sources) || !raw.sources.every(isObject)) continue;
    const category = raw as unknown as Category;
    const ranks = category.sources.map((s) => s.rank).sort();
    // Three ranks each from 1 to 3 the schema accepts one by one; that they differ, only here.
    const eachValid = ranks.length === RANKS.length && ranks.every((r) => RANKS.includes(r));
    if (eachValid && ranks.join() !== RANKS.join()) problems.push(`${categoryPath(slug, 'sources')}: ${RULES.ranks}`);
    const labels = sourceLabels(category.sources);
    const seen = new Map<string, string>();
    category.sources.forEach((source, i) => {
      if (typeof source.url !== 'string') return;
      const where = categoryPath(slug, labels[i]!, 'url');
      const url = httpsUrl(source.url);
      const earlier = url === undefined ? undefined : seen.get(url);
      if (url === undefined) problems.push(`${where}: ${RULES.httpsUrl}`);
      else if (earlier !== undefined) problems.push(`${where}: repeats the URL of ${earlier} in this category`);
      else seen.set(url, labels[i]!);
    });
  }
  const endorsers = new Map<string, number>();
  const endorsements = Array.isArray(registry.endorsements) ? (registry.endorsements as unknown[]) : [];
  endorsements.forEach((raw, i) => {
    if (!isObject(raw) || typeof raw.url !== 'string' || typeof raw.pubkey !== 'string') return;
    const e = raw as { url: string; pubkey: string };
    if (!peerUrlAllowed(e.url, rules.allowLoopbackHttp === true)) {
      const loopback = !rules.allowLoopbackHttp && peerUrlAllowed(e.url, true);
      problems.push(`${endorsementPath(i, 'url')}: ${rules.allowLoopbackHttp ? RULES.peerUrl : loopback ? RULES.loopbackPeerUrl : RULES.httpsUrl}`);
    }
    const earlier = endorsers.get(e.pubkey);
    if (earlier !== undefined) problems.push(`${endorsementPath(i, 'pubkey')}: repeats the endorser of ${endorsementPath(earlier)}`);
    else endorsers.set(e.pubkey, i);
  });
  return problems;
}

/**
 * A peer's base URL: https, or with `allowLoopbackHttp` http on 127.0.0.1 or localhost with an
 * explicit port (tests and local demos), and nothing else: no credentials, query or fragment.
 */
export function peerUrlAllowed (text: string, allowLoopbackHttp: boolean): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return false;
  if (url.protocol === 'https:') return url.hostname !== '';
  return allowLoopbackHttp && url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && url.port !== '';
}

/** Returns the normalised href of an absolute https URL, or undefined. */
function httpsUrl (text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'https:' && url.hostname !== '' ? url.href : undefined;
}

function normalise (registry: Registry): Registry {
  const categories: Record<string, Category> = {};
  for (const [slug, category] of Object.entries(registry.categories)) {
    const sources: Source[] = [...category.sources].sort((a, b) => a.rank - b.rank);
    categories[slug] = { ...category, sources };
  }
  return { ...registry, categories };
}
