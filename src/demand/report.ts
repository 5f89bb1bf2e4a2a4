import { OUTCOMES, SEP, type Outcome } from './asked.js';
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
  /** The most asked topics nobody here covers: words and phrases of declined queries, grouped where they share words. */
  readonly uncovered: readonly TopicGroup[];
  /** Per category: declined queries it was closest to, and the words it does not know. */
  readonly nearMisses: readonly NearMisses[];
  /** Per scope entry: the queries it turned away. */
  readonly scopeRefusals: readonly ScopeRefusal[];
}

export interface Counted {
  readonly text: string;
  readonly clients: number;
  readonly asks: number;
}

export interface TopicGroup extends Counted {
  /** Other words, phrases and queries of the group (sharing a word with it or with each other). */
  readonly related: readonly Counted[];
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
export const SHOWN = { groups: 20, related: 8, words: 10, queries: 5 } as const;

/** Words of a text, counted up to three: among equally asked items a phrase says more than a word, and a long query no more than a phrase. */
const span = (text: string) => Math.min(3, text.split(' ').length);

/**
 * `items` most asked first (distinct clients, then asks, then span, then the text in code-unit
 * order), sorted on keys computed once per item (a comparator that split each text on every
 * comparison took 35 to 50 ms), in slices with the event loop let run between them.
 */
async function byDemand<T extends Counted> (items: readonly T[]): Promise<T[]> {
  const keyed = items.map((item) => ({ item, span: span(item.text) }));
  const sorted = await sortWithPauses(keyed, (a, b) =>
    b.item.clients - a.item.clients ||
    b.item.asks - a.item.asks ||
    b.span - a.span ||
    (a.item.text < b.item.text ? -1 : a.item.text > b.item.text ? 1 : 0)
  );
  return sorted.map((k) => k.item);
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

  const uncovered: Counted[] = [];
  const near = new Map<string, { words: Counted[]; queries: Counted[] }>();
  const scope: ScopeRefusal[] = [];
  let step = 0;
  for (const item of snapshot.items) {
    if (++step % STEPS_BETWEEN_PAUSES === 0) await letEventLoopRun();
    const [kind, ...parts] = item.key.split(SEP) as [string, ...string[]];
    const counted = (text: string): Counted => ({ text, clients: item.clients, asks: item.asks });
    if (kind === 'term' || kind === 'phrase' || kind === 'query') uncovered.push(counted(parts[0]!));
    else if (kind === 'near-word' || kind === 'near-query') {
      const slug = parts[0]!;
      if (!near.has(slug)) near.set(slug, { words: [], queries: [] });
      near.get(slug)![kind === 'near-word' ? 'words' : 'queries'].push(counted(parts[1]!));
    } else if (kind === 'scope') scope.push({ slug: parts[0]!, name: name(parts[0]!), ...counted(parts[1]!) });
  }
  const slugs = new Set([...nearDeclined.keys(), ...near.keys()]);
  const nearMisses: NearMisses[] = [];
  for (const slug of slugs) {
    nearMisses.push({
      slug,
      name: name(slug),
      declined: nearDeclined.get(slug) ?? 0,
      unknownWords: (await byDemand(near.get(slug)?.words ?? [])).slice(0, SHOWN.words),
      queries: (await byDemand(near.get(slug)?.queries ?? [])).slice(0, SHOWN.queries),
    });
  }
  nearMisses.sort((a, b) => b.declined - a.declined || a.slug.localeCompare(b.slug));
  const requests = Object.values(byOutcome).reduce((a, b) => a + b, 0);
  return {
    recording: context.recording,
    store: context.store,
    window: { days: context.windowDays, from: dateOf(snapshot.fromDay), to: dateOf(snapshot.toDay) },
    minClients: context.minClients,
    totals: { requests, byOutcome, answeredByCategory },
    uncovered: await groupTopics(uncovered),
    nearMisses,
    scopeRefusals: (await byDemand(scope)).slice(0, SHOWN.groups),
  };
}

/**
 * Topics grouped where they share words, most asked first: each item joins the first group whose
 * head (its most asked item) shares a word with it ("sourdough starter" gathers "sourdough",
 * "starter smells acetone"). Only with the head, never through another member: a word many topics
 * use ("best", "cheap") would otherwise chain unrelated topics into one.
 */
export async function groupTopics (items: readonly Counted[]): Promise<TopicGroup[]> {
  const groups: { head: Counted; related: Counted[] }[] = [];
  // Each word to the first group whose head holds it, and to the first group any member of which
  // holds it: looked up per word, so the report costs what its items do, never items times groups.
  const byHeadWord = new Map<string, number>();
  const byAnyWord = new Map<string, number>();
  const first = (index: ReadonlyMap<string, number>, words: readonly string[]) => {
    let found: number | undefined;
    for (const w of words) {
      const at = index.get(w);
      if (at !== undefined && (found === undefined || at < found)) found = at;
    }
    return found;
  };
  let step = 0;
  for (const item of await byDemand(items)) {
    if (++step % STEPS_BETWEEN_PAUSES === 0) await letEventLoopRun();
    const words = item.text.split(' ');
    // A single word also joins a group one of whose phrases holds it ("alive" with "keep starter
    // alive"): that adds no word to the group, so it chains nothing.
    const at = first(byHeadWord, words) ?? (words.length === 1 ? first(byAnyWord, words) : undefined);
    if (at === undefined) {
      groups.push({ head: item, related: [] });
      for (const w of words) {
        if (!byHeadWord.has(w)) byHeadWord.set(w, groups.length - 1);
        if (!byAnyWord.has(w)) byAnyWord.set(w, groups.length - 1);
      }
    } else {
      groups[at]!.related.push(item);
      for (const w of words) {
        const known = byAnyWord.get(w);
        if (known === undefined || known > at) byAnyWord.set(w, at);
      }
    }
  }
  return groups.slice(0, SHOWN.groups).map((g) => ({ ...g.head, related: g.related.slice(0, SHOWN.related) }));
}

/** The report as the CLI prints it. */
export function formatReport (report: DemandReport): string {
  const lines: string[] = [];
  const { window: w } = report;
  lines.push(`Demand from ${w.from} to ${w.to} (the last ${w.days} day${w.days === 1 ? '' : 's'}; counts kept in ${report.store === 'redis' ? 'Redis' : 'memory'}).`);
  if (!report.recording) lines.push('Recording is off on this server (DEMAND_SIGNAL=off): nothing is counted.');
  lines.push(`Words, phrases and queries appear only once at least ${report.minClients} distinct clients asked them on one day.`);
  const t = report.totals;
  if (t.requests === 0) {
    lines.push('', 'No requests were recorded in this window.');
    return `${lines.join('\n')}\n`;
  }
  lines.push('', `Requests: ${t.requests}`);
  for (const [outcome, n] of Object.entries(t.byOutcome)) if (n > 0) lines.push(`  ${outcome}: ${n}`);
  const answered = Object.entries(t.answeredByCategory).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (answered.length > 0) {
    lines.push('', 'Answered, per category:');
    for (const [slug, n] of answered) lines.push(`  ${slug}: ${n}`);
  }
  const counted = (c: Counted) => `"${c.text}" (${c.clients} client${c.clients === 1 ? '' : 's'}, ${c.asks} ask${c.asks === 1 ? '' : 's'})`;
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
