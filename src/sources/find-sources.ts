import type { Catalog } from '../catalog.js';
import { askedOf, type Asked } from '../demand/asked.js';
import { MAX_NORMALIZED_LENGTH, prepareQuery, type MatchOutcome } from '../matcher/matcher.js';

/**
 * Finding the three sources for a query, and saying why when there are none: the one service the
 * get_sources tool and the page both use. It returns what was found as typed fields, as the text
 * an agent reads and as the data of the tool's structured content; the tool and the page only
 * present it.
 */

/** Long enough for any real question, short enough that no query can stall the matcher. */
export const MAX_QUERY_LENGTH = 1000;

export interface DeclineCandidate {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly score: number;
  /** How near in meaning, where the semantic stage ran. */
  readonly similarity?: number;
}

export interface FoundAnswer {
  readonly kind: 'answer';
  readonly slug: string;
  readonly score: number;
  /** What an agent reads. */
  readonly text: string;
  /** The same as data (get_sources' structured content). */
  readonly data: Record<string, unknown>;
  /** What the query amounted to, for the demand signal: normalised words and the outcome, never the query as typed. */
  readonly asked: Asked;
}

export interface FoundDecline {
  readonly kind: 'decline';
  readonly reason: Extract<MatchOutcome, { kind: 'no-match' }>['reason'];
  /** At most five, closest first: what the decline names. */
  readonly candidates: readonly DeclineCandidate[];
  readonly text: string;
  readonly data: Record<string, unknown>;
  readonly asked: Asked;
}

export type Found = FoundAnswer | FoundDecline;

/** The sources for `query` from the registry `catalog` serves, or a decline that says why and what is near. */
export function findSources (catalog: Catalog, query: string, threshold?: number, asker?: string): Found {
  const prepared = prepareQuery(query);
  const outcome = catalog.matcher.match(query, threshold, prepared, asker);
  const asked = askedOf(catalog.matcher, prepared, outcome);
  return outcome.kind === 'match' ? describeMatch(outcome, catalog, asked) : describeNoMatch(outcome, query, catalog, asked);
}

/**
 * When the category last changed: from the signed history when there is one; otherwise all that
 * is known is that it has not changed since the registry's own date.
 */
export function lastChanged ({ registry, lastChanged: dates }: Catalog, slug: string): { date: string; from: 'history' | 'registry'; text: string } {
  const date = dates.get(slug);
  return date === undefined
    ? { date: registry.updated, from: 'registry', text: `on or before ${registry.updated} (the registry's date; it has no signed history)` }
    : { date, from: 'history', text: `${date} (signed history)` };
}

function describeMatch (outcome: Extract<MatchOutcome, { kind: 'match' }>, catalog: Catalog, asked: Asked): FoundAnswer {
  const { registry } = catalog;
  const c = outcome.category;
  const changed = lastChanged(catalog, outcome.slug);
  const pubkey = registry.curator.pubkey;
  const lines = [
    `Category: ${c.name}`,
    `Slug: ${outcome.slug}`,
    `Description: ${c.description}`,
    `Match score: ${outcome.score.toFixed(3)}`,
    `Last changed: ${changed.text}`,
    `Registry version: ${registry.version}`,
    catalog.signed.mode === 'ephemeral'
      ? `Curator: ${registry.curator.name} (public key: ${pubkey}; a throwaway development key this server made at start-up: it changes on restart and no curator signed this registry)`
      : `Curator: ${registry.curator.name} (public key: ${pubkey})`,
    '',
    'Sources, best first:',
  ];
  for (const s of c.sources) {
    lines.push('', `${s.rank}. ${s.name}`, `   URL: ${s.url}`, `   Type: ${s.type}`, `   Why: ${s.why}`);
  }
  const data = {
    category: { slug: outcome.slug, name: c.name, description: c.description },
    sources: c.sources.map(({ rank, name, url, type, why }) => ({ rank, name, url, type, why })),
    score: outcome.score,
    runnerUp: outcome.runnerUp,
    registryVersion: registry.version,
    curator: { name: registry.curator.name, pubkey },
    lastChanged: { date: changed.date, from: changed.from },
  };
  return { kind: 'answer', slug: outcome.slug, score: outcome.score, text: lines.join('\n'), data, asked };
}

function describeNoMatch (
  outcome: Extract<MatchOutcome, { kind: 'no-match' }>,
  query: string,
  catalog: Catalog,
  asked: Asked
): FoundDecline {
  const slugs = Object.keys(catalog.registry.categories).sort();
  const available = slugs.length > 0 ? `Available categories: ${slugs.join(', ')}.` : 'The registry has no categories yet.';
  const candidates = outcome.candidates.map(({ slug, score, similarity }) => {
    const c = catalog.registry.categories[slug]!;
    return { slug, name: c.name, description: c.description, score, ...(similarity === undefined ? {} : { similarity }) };
  });
  const refused = outcome.reason === 'below-threshold' ? outcome.outOfScope : undefined;
  const refusedName = refused === undefined ? '' : catalog.registry.categories[refused.slug]!.name;
  const data = {
    declined: {
      reason: outcome.reason,
      threshold: outcome.threshold,
      candidates,
      availableSlugs: slugs,
      ...(refused === undefined ? {} : { outOfScope: { slug: refused.slug, name: refusedName, entries: refused.entries } }),
    },
  };
  const named =
    candidates.length === 0
      ? ''
      : ' Candidates, closest first (if one is what you meant, call get_sources again with its slug as the query):\n' +
        candidates.map((c, i) => `${i + 1}. ${c.name} (slug: ${c.slug}, score ${c.score.toFixed(3)}${c.similarity === undefined ? '' : `, similarity in meaning ${c.similarity.toFixed(3)}`}): ${c.description}`).join('\n') +
        '\n';
  let why: string;
  if (outcome.reason === 'too-long') {
    why =
      `The query is longer than ${MAX_NORMALIZED_LENGTH} characters once normalised (some characters unfold into several letters, ` +
      'such as "ⅷ" into "viii"). Ask about one topic in a sentence or two.';
  } else if (outcome.reason === 'empty-query') {
    why = 'The query has no words to match: it is empty or only common words such as "the" or "how". Describe the topic, for example "learn rust programming".';
  } else if (outcome.reason === 'too-vague') {
    const example = candidateExample(catalog, candidates);
    why =
      `${quoted(query)} is a single common word, too vague to answer with three sources: a category may score 1.000 on a word it names, ` +
      'but one word does not say which of its topics is meant, and other meanings of the word are as likely. ' +
      `Say what you need about it${example === undefined ? ', in a sentence' : `, for example ${JSON.stringify(example)}`}.`;
  } else if (outcome.reason === 'too-close') {
    why =
      `No category matches ${quoted(query)} clearly enough: ${outcome.closest.slug} (score ${outcome.closest.score.toFixed(3)}) and ` +
      `${outcome.contender.slug} (score ${outcome.contender.score.toFixed(3)}) are too close to call, so the query is likely about neither.`;
  } else if (refused !== undefined) {
    why =
      `No category answers ${quoted(query)}: it is nearest to ${refusedName} (${refused.slug}), whose curator marked ` +
      `${refused.entries.map((e) => JSON.stringify(e)).join(', ')} as outside its scope, so its sources would not serve it.`;
  } else {
    why =
      `No category matches ${quoted(query)} well enough` +
      (outcome.closest === null
        ? candidates.length === 0
          ? ': no category comes near it.'
          : ': no category shares enough of its words to answer.'
        : `: the closest is ${outcome.closest.slug} with score ${outcome.closest.score.toFixed(3)}, below the threshold ${outcome.threshold.toFixed(2)}.`);
  }
  const next = candidates.length === 0 ? ' Rephrase with the topic\'s main words, or call list_categories.' : 'Otherwise rephrase with the topic\'s main words, or call list_categories.';
  const text = `${why}${named}${next} ${available}`;
  return { kind: 'decline', reason: outcome.reason, candidates, text, data, asked };
}

/**
 * An example question for a decline to suggest: the first candidate's own (its curator's first
 * example question), so it is about what the query may have meant, not about another topic.
 */
export function candidateExample (catalog: Catalog, candidates: readonly { readonly slug: string }[]): string | undefined {
  const first = candidates[0];
  return first === undefined ? undefined : catalog.registry.categories[first.slug]?.queryPatterns[0];
}

/**
 * The query as the server's sentence quotes it: a JSON string, so a quote, backslash or control
 * character the asker typed cannot end the quotation and pass for the server's own words.
 */
function quoted (query: string): string {
  return JSON.stringify(clip(query));
}

/** Echo enough of the query for the agent to recognise it, never a 1,000-character wall. */
function clip (query: string): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}
