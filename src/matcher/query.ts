import { INSTRUCTION, intentWordsOf, NEAR_ME } from './intent-words.js';
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
  /** The query is one word as typed (no other word at all, common or not). */
  readonly oneWord: boolean;
  /** Everyday words it writes in capitals, stemmed ("STRIDE"): a curator's acronym, when the curator writes it so too. */
  readonly capitals: readonly string[];
  /** Stems of its words that ask for a transaction (a price, a shop near me, a job): see intent-words.ts. */
  readonly intents: readonly string[];
  /**
   * The query's words in order, function words left out and stemmed, when it holds a stop word
   * that a curator's phrase may use ("first aid", "day hike"); empty otherwise.
   */
  readonly phraseWords: readonly string[];
}

/** Normalised first, then measured: the length limit holds for what the matcher actually reads. */
export function prepareQuery(query: string): PreparedQuery {
  const unfolded = unfold(query);
  const text = foldUnfolded(unfolded);
  if (text.length > MAX_NORMALIZED_LENGTH) return { tooLong: true, text: '', words: [], stems: [], key: '', oneWord: false, capitals: [], intents: [], phraseWords: [] };
  // One pass over the tokens: the content words, and the words a curator's phrase may hold.
  const words: string[] = [];
  const phraseTokens: string[] = [];
  let soft = false;
  // A long request gives its background first and asks its question last ("... she wants to know
  // whether to defer"): past MAX_CONTENT_WORDS, the first half is kept and the rest of the budget
  // goes to the last words, kept in a ring so that the cost stays bounded.
  const head = MAX_CONTENT_WORDS >> 1;
  const tail: string[] = [];
  let seen = 0;
  for (const w of text === '' ? [] : text.split(' ')) {
    if (w.length < 2 || FUNCTION_WORDS.has(w)) continue;
    if (phraseTokens.length < 2 * MAX_CONTENT_WORDS) phraseTokens.push(w);
    if (SOFT_STOP_WORDS.has(w)) soft = true;
    else if (words.length < head) words.push(w);
    else tail[seen++ % (MAX_CONTENT_WORDS - head)] = w;
  }
  const rest = MAX_CONTENT_WORDS - head;
  for (let i = Math.max(0, seen - rest); i < seen; i++) words.push(tail[i % rest]!);
  // One word as typed, or one word typed over and over ("work work work"): a word repeated says no more.
  const tokens = text.trim() === '' ? [] : text.trim().split(/\s+/);
  const oneWord = words.length > 0 && tokens.every((t) => t === words[0]);
  const stems = words.map(stem);
  const capitals = capitalizedEverydayWords(unfolded).filter((c) => stems.includes(c));
  const intents = intentWordsOf(words, text, unfolded).map((w) => (w === NEAR_ME || w === INSTRUCTION ? w : stem(w)));
  const phraseWords = soft ? phraseTokens.map(stem) : [];
  return { tooLong: false, text, words, stems, key: words.join(' '), oneWord, capitals, intents, phraseWords };
}
