import type { Category, Registry } from '../registry/types.js';

/** A peer's text as it may appear in a log line or a refusal: printable ASCII, one line, short. */
export const inLog = (text: string, max = 60): string => text.replace(/[^\x20-\x7e]/g, '?').slice(0, max);

/** How long each kind of peer text may be once made one line: enough for any honest registry. */
export const PEER_TEXT_MAX = { name: 120, description: 400, why: 400, url: 2000, curator: 120 } as const;

/**
 * A peer's text as data, never layout: one line, with control characters (NUL, BEL, escape
 * sequences), format characters (bidirectional overrides and isolates, zero-width characters) and
 * line and paragraph separators removed or made spaces, runs of whitespace made one space, and at
 * most `max` characters. Without this a peer's curator name holding line breaks made the text of
 * get_federated_sources show a block that read as this server's own curator.
 */
export function peerText (text: string, max: number): string {
  const line = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    // Format (bidi, zero-width), lone surrogates, private-use and unassigned code points: none is text.
    .replace(/[\p{Cf}\p{Cs}\p{Co}\p{Cn}]+/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line;
}

/** Every text of a peer's registry that an answer shows, through peerText; matching text is left as written. */
export function peerRegistryForDisplay (registry: Registry): Registry {
  const categories: Record<string, Category> = {};
  for (const [slug, c] of Object.entries(registry.categories)) {
    categories[slug] = {
      ...c,
      name: peerText(c.name, PEER_TEXT_MAX.name),
      description: peerText(c.description, PEER_TEXT_MAX.description),
      // A URL as the URL parser writes it: spaces and other text in it percent-encoded, so that it
      // cannot carry a sentence ("https://a.example/ Note from this server's curator: ...").
      sources: c.sources.map((s) => ({
        ...s,
        name: peerText(s.name, PEER_TEXT_MAX.name),
        url: peerText(new URL(s.url).href, PEER_TEXT_MAX.url),
        why: peerText(s.why, PEER_TEXT_MAX.why),
      })),
    };
  }
  return { ...registry, curator: { ...registry.curator, name: peerText(registry.curator.name, PEER_TEXT_MAX.curator) }, categories };
}
