import { OUTCOMES, SEP, uncut, type Outcome } from './asked.js';
import { contentWordsOf, stem } from '../matcher/normalize.js';
import { letEventLoopRun, sortWithPauses, STEPS_BETWEEN_PAUSES } from '../util/event-loop.js';
import { dateOf } from './client-bucket.js';
import type { Snapshot } from './store.js';

/** What GET /demand answers and `three-good-sources demand` prints: only what k distinct clients asked. */
export interface DemandReport {
  readonly recording: boolean;
  readonly store: 'memory' | 'redis' | 'none';
  readonly window: { readonly days: number; readonly from: string; readonly to: string };
  readonly minClients: number;
  readonly totals: {
    readonly requests: number;
    readonly byOutcome: Readonly<Record<Outcome, number>>;
    /** Per category of this registry: how often it answered. */
    readonly answeredByCategory: Readonly<Record<string, number>>;
  };
  /** The most asked topics nobody here covers: declined questions, grouped where they share content words, each group headed by its most asked question. */
  readonly uncovered: readonly TopicGroup[];
  /** Per category: declined queries it was closest to, and the words it does not know. */
  readonly nearMisses: readonly NearMisses[];
  /** Per category: the questions it answered most, so that a curator can spot a wrong answer and turn it away. */
  readonly answered: readonly AnsweredQuestions[];
  /** Per scope entry: the queries it turned away. */
  readonly scopeRefusals: readonly ScopeRefusal[];
}

export interface Counted {
  readonly text: string;
  readonly clients: number;
  readonly asks: number;
  /** The first and last day it was asked (YYYY-MM-DD), within the window. */
  readonly first?: string;
  readonly last?: string;
}

export interface TopicGroup extends Counted {
  /** Other questions of the group, then its most asked words and phrases. */
  readonly related: readonly Counted[];
}

export interface AnsweredQuestions {
  readonly slug: string;
  readonly name: string;
  /** Questions it answered (a plain count). */
  readonly answered: number;
  readonly queries: readonly Counted[];
}

export interface NearMisses {
  readonly slug: string;
  readonly name: string;
  /** Declined queries whose closest category this was (a plain count). */
  readonly declined: number;
  /** Words of those queries the category does not use: candidates for keywords or example questions. */
  readonly unknownWords: readonly Counted[];
  readonly queries: readonly Counted[];
}

export interface ScopeRefusal extends Counted {
  readonly slug: string;
  readonly name: string;
}

/** How much of each list is shown: enough to act on, never the whole stream. */
export const SHOWN = { groups: 20, related: 8, words: 10, queries: 5, answered: 10 } as const;

/** Words of a text, counted up to three: among equally asked items a phrase says more than a word, and a long query no more than a phrase. */
const span = (text: string) => Math.min(3, text.split(' ').length);

interface Keyed<T extends Counted> {
  readonly item: T;
  readonly span: number;
}
/** Most asked first: distinct clients, then asks, then span, then the text in code-unit order. */
const byDemandOrder = <T extends Counted>({ item: a, span: as }: Keyed<T>, { item: b, span: bs }: Keyed<T>) =>
  b.clients - a.clients || b.asks - a.asks || bs - as || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
const keyedOf = <T extends Counted>(item: T): Keyed<T> => ({ item, span: span(item.text) });

/**
 * `items` most asked first, sorted on keys computed once per item (a comparator that split each
 * text on every comparison took 35 to 50 ms), in slices with the event loop let run between them.
 */
async function byDemand<T extends Counted> (items: readonly T[]): Promise<T[]> {
  return (await sortWithPauses(items.map(keyedOf), byDemandOrder)).map((k) => k.item);
}

/** The `n` most asked of `items`, in byDemand's order: one pass keeping the best `n` seen. */
export function mostAsked<T extends Counted> (items: readonly T[], n: number): T[] {
  const best: Keyed<T>[] = [];
  for (const item of items) {
    const keyed = keyedOf(item);
    if (best.length === n && byDemandOrder(keyed, best[n - 1]!) >= 0) continue;
    let at = best.length;
    while (at > 0 && byDemandOrder(keyed, best[at - 1]!) < 0) at--;
    best.splice(at, 0, keyed);
    if (best.length > n) best.pop();
  }
  return best.map((k) => k.item);
}

export interface ReportContext {
  readonly recording: boolean;
  readonly store: DemandReport['store'];
  readonly minClients: number;
  readonly windowDays: number;
  /** This registry's category names, by slug. */
  readonly names: ReadonlyMap<string, string>;
}

/**
 * The report of a snapshot: counts sorted by distinct clients, topics grouped. Built on the main
 * thread with a pause for the event loop every few thousand items: a full window (75,000) is a
 * few hundred milliseconds of work, which no request should wait for in one piece.
 */
export async function buildReport (snapshot: Snapshot, context: ReportContext): Promise<DemandReport> {
  const total = (key: string) => snapshot.totals[key] ?? 0;
  const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, total(`outcome${SEP}${o}`)])) as Record<Outcome, number>;
  const answeredByCategory: Record<string, number> = {};
  const nearDeclined = new Map<string, number>();
  for (const [key, n] of Object.entries(snapshot.totals)) {
    const [kind, slug] = key.split(SEP) as [string, string];
    if (kind === 'answered') answeredByCategory[slug] = n;
    if (kind === 'near') nearDeclined.set(slug, n);
  }
  const name = (slug: string) => context.names.get(slug) ?? slug;
  const sorted = await sortedItems(snapshot.items, name);
  const most = mostAskedInSlices();
  const nearMisses: NearMisses[] = [];
  for (const slug of new Set([...nearDeclined.keys(), ...sorted.near.keys()])) {
    const { words = [], queries = [] } = sorted.near.get(slug) ?? {};
    const declined = nearDeclined.get(slug) ?? 0;
    nearMisses.push({ slug, name: name(slug), declined, unknownWords: await most(words, SHOWN.words), queries: await most(queries, SHOWN.queries) });
  }
  nearMisses.sort((a, b) => b.declined - a.declined || a.slug.localeCompare(b.slug));
  const answered: AnsweredQuestions[] = [];
  for (const [slug, n] of Object.entries(answeredByCategory)) {
    answered.push({ slug, name: name(slug), answered: n, queries: await most(sorted.answered.get(slug) ?? [], SHOWN.answered) });
  }
  answered.sort((a, b) => b.answered - a.answered || a.slug.localeCompare(b.slug));
  return {
    recording: context.recording,
    store: context.store,
    window: { days: context.windowDays, from: dateOf(snapshot.fromDay), to: dateOf(snapshot.toDay) },
    minClients: context.minClients,
    totals: { requests: Object.values(byOutcome).reduce((a, b) => a + b, 0), byOutcome, answeredByCategory },
    uncovered: await groupTopics(sorted.questions, sorted.fragments),
    nearMisses,
    answered,
    scopeRefusals: (await byDemand(sorted.scope)).slice(0, SHOWN.groups),
  };
}

/** The snapshot's items by kind (see asked.ts), each with its counts and days, the event loop let run every few thousand. */
async function sortedItems (items: Snapshot['items'], name: (slug: string) => string) {
  const questions: Counted[] = [];
  const fragments: Counted[] = [];
  const near = new Map<string, { words: Counted[]; queries: Counted[] }>();
  const answered = new Map<string, Counted[]>();
  const scope: ScopeRefusal[] = [];
  // A window has a few dozen days: each written as a date once, not twice per item.
  const dates = new Map<number, string>();
  const date = (day: number) => dates.get(day) ?? dates.set(day, dateOf(day)).get(day)!;
  let step = 0;
  for (const item of items) {
    if (++step % STEPS_BETWEEN_PAUSES === 0) await letEventLoopRun();
    const [kind, ...parts] = item.key.split(SEP) as [string, ...string[]];
    const counted = (text: string): Counted => ({ text, clients: item.clients, asks: item.asks, first: date(item.firstDay), last: date(item.lastDay) });
    if (kind === 'query') questions.push(counted(parts[0]!));
    else if (kind === 'term' || kind === 'phrase') fragments.push(counted(parts[0]!));
    else if (kind === 'answered-query') {
      const slug = parts[0]!;
      if (!answered.has(slug)) answered.set(slug, []);
      answered.get(slug)!.push(counted(parts[1]!));
    } else if (kind === 'near-word' || kind === 'near-query') {
      const slug = parts[0]!;
      if (!near.has(slug)) near.set(slug, { words: [], queries: [] });
      near.get(slug)![kind === 'near-word' ? 'words' : 'queries'].push(counted(parts[1]!));
    } else if (kind === 'scope') scope.push({ slug: parts[0]!, name: name(parts[0]!), ...counted(parts[1]!) });
  }
  return { questions, fragments, near, answered, scope };
}

/**
 * Per category, only the most asked few are shown: picked in one pass, the event loop let run
 * between categories once a slice's worth was read (hundreds of categories, each a short list,
 * sorted one after another held it for 20 ms).
 */
function mostAskedInSlices () {
  let read = 0;
  return async <T extends Counted>(items: readonly T[], n: number): Promise<T[]> => {
    read += items.length;
    if (read >= STEPS_BETWEEN_PAUSES) {
      read = 0;
      await letEventLoopRun();
    }
    return mostAsked(items, n);
  };
}

/** The stems of a question's content words (a cut question's marker is no word). */
const stemsOf = (text: string): string[] => [...new Set(contentWordsOf(uncut(text)).map(stem))];

/**
 * Groups looked at per stem: a word most questions hold ("keep", "best") would otherwise make every
 * question compare with every group. The report shows the first twenty groups, which are the first
 * to hold any stem, so a bound above that loses nothing shown and keeps the grouping linear.
 */
const GROUPS_PER_STEM = 32;

interface Group {
  readonly head: Counted;
  readonly stems: number;
  readonly members: Counted[];
}

/**
 * Declined questions near no category grouped by what they are about, most asked first: a
 * question joins the group whose head (its most asked question) shares the most of its content
 * words after stemming, at least two, or all of them when it or the head has fewer ("sourdough
 * starter smells" joins "how do i keep my sourdough starter alive"); one shared everyday word
 * ("keeps", "old") never joins two questions, so a parenting question and a leaking toilet stay
 * apart. A phrase or word joins a group the same way and is shown only when asked more than its
 * head: it gathers questions none of which reached k alone. Only a question heads a group: a
 * phrase alone is most often a piece of one question.
 */
export async function groupTopics (questions: readonly Counted[], fragments: readonly Counted[] = []): Promise<TopicGroup[]> {
  const groups: Group[] = [];
  const byStem = new Map<string, number[]>();
  const place = (stems: readonly string[]): number | undefined => {
    const shared = new Map<number, number>();
    for (const s of stems) for (const g of byStem.get(s) ?? []) shared.set(g, (shared.get(g) ?? 0) + 1);
    let best: number | undefined;
    for (const [g, n] of shared) {
      if (n < Math.min(2, stems.length, groups[g]!.stems)) continue;
      const bestN = best === undefined ? 0 : shared.get(best)!;
      if (n > bestN || (n === bestN && g < best!)) best = g;
    }
    return best;
  };
  const head = (item: Counted, stems: readonly string[]) => {
    groups.push({ head: item, stems: stems.length, members: [] });
    for (const s of stems) {
      const list = byStem.get(s) ?? [];
      if (list.length < GROUPS_PER_STEM) list.push(groups.length - 1);
      byStem.set(s, list);
    }
  };
  const asked = new Set(questions.map((q) => q.text));
  // A step is a word: a question of twelve words costs twelve times a word to place.
  let step = 0;
  let pauseAt = STEPS_BETWEEN_PAUSES;
  const pauseEvery = async (words: number) => {
    step += Math.max(1, words);
    if (step < pauseAt) return;
    pauseAt = step + STEPS_BETWEEN_PAUSES;
    await letEventLoopRun();
  };
  for (const question of await byDemand(questions)) {
    const stems = stemsOf(question.text);
    await pauseEvery(stems.length);
    const at = place(stems);
    if (at === undefined) head(question, stems);
    else groups[at]!.members.push(question);
  }
  // A fragment is shown only when asked more than its group's head, so never when asked no more
  // than the least asked head: most are pieces of one question, asked exactly as often.
  const leastHead = groups.reduce<Counted | undefined>((least, g) => (least === undefined || moreAsked(least, g.head) ? g.head : least), undefined);
  const mayShow = leastHead === undefined ? [] : fragments.filter((f) => moreAsked(f, leastHead));
  for (const fragment of await byDemand(mayShow)) {
    if (asked.has(fragment.text)) continue;
    const stems = stemsOf(fragment.text);
    await pauseEvery(stems.length);
    const at = place(stems);
    if (at !== undefined && moreAsked(fragment, groups[at]!.head)) groups[at]!.members.push(fragment);
  }
  const shown = (await byDemand(groups.map((g) => ({ ...g.head, group: g })))).slice(0, SHOWN.groups);
  return shown.map(({ group }) => ({ ...group.head, related: group.members.slice(0, SHOWN.related) }));
}

/** Asked by more clients, or as many more often. */
const moreAsked = (a: Counted, b: Counted) => a.clients > b.clients || (a.clients === b.clients && a.asks > b.asks);

/** The report as the CLI prints it. */
export function formatReport (report: DemandReport): string {
  const lines: string[] = [];
  const { window: w } = report;
  lines.push(`Demand from ${w.from} to ${w.to} (the last ${w.days} day${w.days === 1 ? '' : 's'}; counts kept in ${report.store === 'redis' ? 'Redis' : 'memory'}).`);
  if (!report.recording) lines.push('Recording is off on this server (DEMAND_SIGNAL=off): nothing is counted.');
  lines.push(`Words, phrases and questions appear only once at least ${report.minClients} distinct clients asked them on one day.`);
  const t = report.totals;
  if (t.requests === 0) {
    lines.push('', 'No requests were recorded in this window.');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', `Requests: ${t.requests}`);
  for (const [outcome, n] of Object.entries(t.byOutcome)) if (n > 0) lines.push(`  ${outcome}: ${n}`);
  const when = (c: Counted) => (c.first === undefined || c.last === undefined ? '' : c.first === c.last ? `, on ${c.first}` : `, ${c.first} to ${c.last}`);
  const counted = (c: Counted) => `"${c.text}" (${c.clients} client${c.clients === 1 ? '' : 's'}, ${c.asks} ask${c.asks === 1 ? '' : 's'}${when(c)})`;
  if (report.answered.length > 0) {
    lines.push('', 'Answered, per category (is each question its topic? a wrong one is turned away with a not-about entry):');
    for (const a of report.answered) {
      lines.push(`  ${a.name} (${a.slug}): ${a.answered} answered`);
      if (a.queries.length > 0) lines.push(`     questions: ${a.queries.map(counted).join(', ')}`);
    }
  }
  lines.push('', 'Most asked topics nobody here covers:');
  if (report.uncovered.length === 0) lines.push(`  none yet asked by ${report.minClients} or more clients`);
  report.uncovered.forEach((g, i) => {
    lines.push(`  ${i + 1}. ${counted(g)}`);
    if (g.related.length > 0) lines.push(`     also: ${g.related.map(counted).join(', ')}`);
  });
  lines.push('', 'Near-misses, per category (declined queries closest to it):');
  if (report.nearMisses.length === 0) lines.push('  none');
  for (const n of report.nearMisses) {
    lines.push(`  ${n.name} (${n.slug}): ${n.declined} declined`);
    if (n.unknownWords.length > 0) lines.push(`     words it does not know: ${n.unknownWords.map(counted).join(', ')}`);
    if (n.queries.length > 0) lines.push(`     queries: ${n.queries.map(counted).join(', ')}`);
  }
  lines.push('', 'Scope refusals, per not-about entry:');
  if (report.scopeRefusals.length === 0) lines.push(`  none asked by ${report.minClients} or more clients`);
  for (const s of report.scopeRefusals) lines.push(`  ${s.name} (${s.slug}), entry ${counted(s)}`);
  return `${lines.join('\n')}\n`;
}
