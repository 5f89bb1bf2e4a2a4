import { intentWordsOf } from './intent-words.js';
import { countriesIn } from './places.js';
import { capitalizedEverydayWords, foldUnfolded, stem, unfold } from './normalize.js';
import { FUNCTION_WORDS, SOFT_STOP_WORDS } from './stop-words.js';

/** The longest query the matcher reads, counted after normalisation (some characters unfold into several). */
export const MAX_NORMALIZED_LENGTH = 1000;

/**
 * Content words read per query, so that no query costs many times another. A request longer than
 * this is read by its first and last halves (see prepareQuery).
 */
export const MAX_CONTENT_WORDS = 32;

/** A query normalised once, for asking many registries: its content words and its memo key. */
export interface PreparedQuery {
  /** Longer than MAX_NORMALIZED_LENGTH once normalised: not matched at all. */
  readonly tooLong: boolean;
  /** The whole query normalised (for asking by a category's slug or name). */
  readonly text: string;
  readonly words: readonly string[];
  /** Each word's stem, computed once for every registry asked. */
  readonly stems: readonly string[];
  readonly key: string;
  /** The query is one word as typed, or that word typed over and over (no other word at all, common or not). */
  readonly oneWord: boolean;
  /** Everyday words it writes in capitals, stemmed ("STRIDE"): a curator's acronym, when the curator writes it so too. */
  readonly capitals: readonly string[];
  /**
   * Stems of its words that ask for something other than the topic (a price, a shop near me, a
   * job or its pay, a film, an instruction to the service), phrases kept whole: see intent-words.ts.
   */
  readonly intents: readonly string[];
  /**
   * The query's words in order, function words left out and stemmed, when it holds a stop word
   * that a curator's phrase may use ("first aid", "day hike"); empty otherwise.
   */
  readonly phraseWords: readonly string[];
  /** The countries it names (a place is read as its country; not one after "from"): see places.ts. */
  readonly countries: readonly string[];
}

/** Normalised first, then measured: the length limit holds for what the matcher actually reads. */
export function prepareQuery (query: string): PreparedQuery {
  const unfolded = unfold(query);
  const text = foldUnfolded(unfolded);
  if (text.length > MAX_NORMALIZED_LENGTH) return { tooLong: true, text: '', words: [], stems: [], key: '', oneWord: false, capitals: [], intents: [], phraseWords: [], countries: [] };
  // One pass over the tokens: the content words, and the words a curator's phrase may hold.
  const all: string[] = [];
  const phraseTokens: string[] = [];
  let soft = false;
  const tokens = text === '' ? [] : text.split(' ');
  for (const w of tokens) {
    if (w.length < 2 || FUNCTION_WORDS.has(w)) continue;
    phraseTokens.push(w);
    if (SOFT_STOP_WORDS.has(w)) soft = true;
    else all.push(w);
  }
  // A long request gives its background first and asks its question last ("... she wants to know
  // whether to defer"): past MAX_CONTENT_WORDS, its first half and its last half are read, and a
  // curator's phrase is looked for in the same two stretches (an empty token at the cut, so that no
  // phrase spans it). The text is at most 1,000 characters, so this costs what reading it does.
  const words = headAndTail(all, MAX_CONTENT_WORDS, []);
  const phrases = headAndTail(phraseTokens, 2 * MAX_CONTENT_WORDS, ['']);
  // One word as typed, or one word typed over and over ("work work work"): a word repeated says no more.
  const oneWord = words.length > 0 && tokens.every((t) => t === words[0]);
  const stems = words.map(stem);
  const capitals = capitalizedEverydayWords(unfolded).filter((c) => stems.includes(c));
  // Phrases ("near me", "tour dates", the instruction token) are kept whole; single words are stemmed.
  const intents = intentWordsOf(words, text, unfolded).map((w) => (w.includes(' ') ? w : stem(w)));
  const phraseWords = soft ? phrases.map((w) => (w === '' ? w : stem(w))) : [];
  const countries = countriesIn(text, unfolded, 'asked');
  return { tooLong: false, text, words, stems, key: words.join(' '), oneWord, capitals, intents, phraseWords, countries };
}

/** At most `limit` items: all of them, or the first half and the last half with `cut` between. */
function headAndTail (items: readonly string[], limit: number, cut: readonly string[]): string[] {
  if (items.length <= limit) return [...items];
  const head = limit >> 1;
  return [...items.slice(0, head), ...cut, ...items.slice(items.length - (limit - head))];
}
