import type { MatchCandidate, Matcher, MatchOutcome, PreparedQuery } from '../matcher/matcher.js';

/**
 * What one query amounts to for the demand signal (issue 25): its outcome, and what a curator may
 * learn from: its content words and its question normalised (folded to lower case, punctuation
 * gone, at most MAX_QUESTION_WORDS words: see questionOf), never the query as typed. Computed once
 * per distinct query (get_sources remembers it beside the answer), recorded once per request with
 * the client's bucket (see client-bucket.ts).
 */

/** Every outcome a query can have, as the report counts them. */
export const OUTCOMES = [
  'answered',
  'peer-answered',
  'below-threshold',
  'too-close',
  'too-vague',
  'out-of-scope',
  'no-words',
  'too-long',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The kinds of item counted, and shown only once enough distinct clients asked them: a word, a
 * phrase (two or three words in a row) or the normalised question of a declined query; a word
 * the closest category does not know and the question, for a near-miss; a scope entry that
 * turned a query away; and the question a category answered, so that a curator can see a wrong
 * answer ("formula 1 race schedule" answered by a feeding category) and turn it away.
 */
export type ItemKind = 'term' | 'phrase' | 'query' | 'near-word' | 'near-query' | 'scope' | 'answered-query';

/** The counts anyone may see: how often each outcome happened and each category answered or came close. */
export type TotalKind = 'outcome' | 'answered' | 'near' | 'scope';

/** Parts of an item or total key: a separator no normalised word or slug holds. */
export const SEP = '\u001f';

export interface Asked {
  readonly outcome: Outcome;
  /** Plain counters, keyed `kind SEP value`: the outcome and the category concerned. */
  readonly totals: readonly string[];
  /** Keyed `kind SEP ...parts`: counted per client bucket and shown only at k distinct clients. */
  readonly items: readonly string[];
}

/**
 * The first words of a query are its topic (a long request names it early, and the matcher reads
 * at most 32): eight bound what one request adds, so that no query costs many times another.
 */
export const MAX_WORDS_RECORDED = 8;

/**
 * Longer words are not recorded: a topic's words are shorter (English words rarely pass 20
 * letters), and what is longer (pasted hashes, run-together text) would only make the items a
 * curator never reads cost more memory than the ones they do.
 */
export const MAX_WORD_LENGTH = 24;

/**
 * The words of a normalised question kept for its item: most questions are shorter, so a curator
 * reads them whole and triage can offer them as example questions; a bound on the item's size.
 */
export const MAX_QUESTION_WORDS = 12;
/** Where a longer question was cut: between its head and its tail. */
export const QUESTION_CUT = ' … ';

/**
 * The normalised question of `prepared`, its words none longer than MAX_WORD_LENGTH. A longer one
 * (a request told with its background) keeps its first and last MAX_QUESTION_WORDS / 2 words, as
 * the matcher reads a long request head and tail: what is asked comes last ("... should they
 * defer"). Curators who read only the first twelve words found the question missing.
 */
export function questionOf (prepared: PreparedQuery): string {
  const words = prepared.text.split(' ').filter((w) => w.length > 0 && w.length <= MAX_WORD_LENGTH);
  if (words.length <= MAX_QUESTION_WORDS) return words.join(' ');
  const half = MAX_QUESTION_WORDS / 2;
  return `${words.slice(0, half).join(' ')}${QUESTION_CUT}${words.slice(-half).join(' ')}`;
}

/** The words of a question as recorded, without the mark of a cut. */
export const uncut = (question: string): string => question.replace(QUESTION_CUT, ' ');

const key = (kind: ItemKind | TotalKind, ...parts: string[]) => [kind, ...parts].join(SEP);

/** The outcome of a query that never reached a registry's categories (no words, too long). */
function outcomeOf (outcome: MatchOutcome): Outcome {
  if (outcome.kind === 'match') return 'answered';
  switch (outcome.reason) {
    case 'empty-query':
      return 'no-words';
    case 'below-threshold':
      return outcome.outOfScope === undefined ? 'below-threshold' : 'out-of-scope';
    default:
      return outcome.reason;
  }
}

/** Runs of two and three words in a row. */
function phrases (words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    out.push(`${words[i]} ${words[i + 1]}`);
    if (i + 2 < words.length) out.push(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  }
  return out;
}

/** No other candidate scored as much as `closest`. */
function standsOut (closest: MatchCandidate, candidates: readonly MatchCandidate[]): boolean {
  return candidates.every((c) => c.slug === closest.slug || c.score < closest.score);
}

/**
 * What `outcome` of this registry's `matcher` for the `prepared` query amounts to. `peerAnswered`:
 * an endorsed curator's registry answered what this one did not (get_federated_sources).
 */
export function askedOf (matcher: Matcher, prepared: PreparedQuery, outcome: MatchOutcome, peerAnswered = false): Asked {
  const local = outcomeOf(outcome);
  const result = peerAnswered && local !== 'answered' ? 'peer-answered' : local;
  const totals = [key('outcome', result)];
  if (outcome.kind === 'match') {
    return { outcome: result, totals: [...totals, key('answered', outcome.slug)], items: [key('answered-query', outcome.slug, questionOf(prepared))] };
  }
  if (result === 'peer-answered' || result === 'no-words' || result === 'too-long') return { outcome: result, totals, items: [] };
  // Normalised words (folded, lower case; function words left out of these), never the text as typed.
  const kept = prepared.words.filter((w) => w.length <= MAX_WORD_LENGTH).slice(0, MAX_WORDS_RECORDED);
  const words = [...new Set(kept)];
  const items: string[] = [];
  if (outcome.reason === 'below-threshold' && outcome.outOfScope !== undefined) {
    const { slug, entries } = outcome.outOfScope;
    totals.push(key('scope', slug));
    for (const entry of entries) items.push(key('scope', slug, entry));
    return { outcome: result, totals, items };
  }
  // Close to one category: it scored more than any other (a word several categories share,
  // "home" of a sourdough question, brings none of them nearer than the rest), or it names the
  // one word asked, too vague alone.
  const closest = outcome.closest !== null && (outcome.reason === 'too-vague' || standsOut(outcome.closest, outcome.candidates)) ? outcome.closest : null;
  if (closest === null) {
    // Near no category: what nobody here covers. A too-vague word is covered (it names a category).
    if (outcome.reason !== 'too-vague') {
      for (const w of words) items.push(key('term', w));
      for (const p of phrases(kept)) items.push(key('phrase', p));
      items.push(key('query', questionOf(prepared)));
    }
  } else {
    // Below that category: the question, and the words it does not know.
    totals.push(key('near', closest.slug));
    const unknown = new Set(matcher.unknownWords(prepared, closest.slug));
    for (const w of words) if (unknown.has(w)) items.push(key('near-word', closest.slug, w));
    items.push(key('near-query', closest.slug, questionOf(prepared)));
  }
  return { outcome: result, totals, items: [...new Set(items)] };
}
