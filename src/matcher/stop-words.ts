import { editDistance } from './edit-distance.js';

/**
 * Words that say nothing about which topic a query is about: ordinary English function words,
 * the filler agents wrap around a topic ("find me good sources on ..."), words that name the
 * kind of help wanted rather than its subject ("tutorial", "beginners"), and the people and
 * time frames of a long request ("my user", "next month").
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'been', 'before', 'being', 'between', 'both', 'but', 'by', 'can', 'could', 'did', 'do', 'does',
  'doing', 'during', 'each', 'either', 'else', 'etc', 'for', 'from', 'further', 'get', 'getting', 'got',
  'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'him', 'his', 'how', 'i', 'if', 'im', 'in',
  'into', 'is', 'it', 'its', 'ive', 'just', 'let', 'lets', 'like', 'me', 'might', 'more', 'most',
  'much', 'must', 'my', 'myself', 'nor', 'not', 'now', 'of', 'once', 'only',
  'or', 'other', 'our', 'ours', 'over', 'own', 'please', 'same', 'she', 'should', 'so', 'some',
  'such', 'than', 'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those',
  'through', 'to', 'too', 'under', 'until', 'up', 'us', 'very', 'was', 'we', 'were', 'what', 'when',
  'where', 'which', 'while', 'who', 'whom', 'why', 'with', 'would', 'you', 'your', 'yours',
  'youre', 'yourself', 'want', 'wants', 'need', 'needs', 'trying', 'try', 'really', 'thing', 'things',
]);

/**
 * Stop words that are not function words: alone they say nothing about a topic, but inside a
 * curator's phrase they can ("first aid", "day hike", "Next.js"): there they count (see the
 * matcher's phrases of the curator's own words).
 */
export const SOFT_STOP_WORDS: ReadonlySet<string> = new Set([
  // request filler
  'best', 'good', 'great', 'top', 'recommend', 'recommended', 'recommendation', 'recommendations',
  'suggest', 'suggestion', 'suggestions', 'source', 'sources', 'resource', 'resources', 'reference',
  'references', 'link', 'links', 'material', 'materials', 'info', 'information', 'find', 'finding',
  'looking', 'look', 'search', 'show', 'give', 'tell', 'help', 'helpful', 'trusted', 'trustworthy',
  'reliable', 'authoritative', 'quality', 'vetted', 'curated', 'official', 'useful', 'primary',
  'material', 'read', 'reading', 'article', 'articles', 'answer', 'question', 'questions', 'explain',
  'explained', 'explanation', 'explains', 'understand', 'understanding', 'know', 'idea', 'ideas',
  'tips', 'advice', 'instructions', 'steps', 'step', 'started', 'start', 'starting', 'begin',
  'beginner', 'beginners', 'intro', 'introduction', 'introductory', 'basics', 'basic', 'overview',
  'tutorial', 'tutorials', 'guide', 'guides', 'learn', 'learning', 'course', 'courses', 'docs',
  'documentation', 'doc', 'example', 'examples', 'up', 'date', 'current', 'latest', 'modern',
  // people and time frames of a request
  'user', 'users', 'agent', 'someone', 'somebody', 'person', 'people', 'friend',
  'team', 'colleague', 'boss', 'customer', 'today', 'day', 'days', 'week', 'weeks', 'month',
  'months', 'year', 'years', 'next', 'soon', 'actually', 'finally', 'currently', 'new', 'first',
  'use', 'using', 'used', 'make', 'way', 'ways', 'lot', 'lots', 'bit', 'kind', 'sort', 'ask',
  'asked', 'asking', 'wondering', 'preparing', 'planning', 'writing', 'working', 'tell', 'says',
  // how a learner asks, not what about
  'exercise', 'exercises', 'practice', 'practicing', 'practise', 'practising', 'realistic',
  'still', 'nowadays',
  // Function words that are also nouns or parts of a term ("make a will", "laid off", "no dig",
  // "one on one", "all season tyres"): a curator's phrase keeps them.
  // Session 4, on the twenty-four read registries: first answers 0.753 to 0.755.
  'will', 'may', 'off', 'out', 'one', 'no', 'all', 'on',
]);

export const STOP_WORDS: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...SOFT_STOP_WORDS]);

/** Stop words of six letters or more, by first letter: the only ones a slip can be recognised in. */
const LONG_STOP_WORDS = new Map<string, string[]>();
for (const word of STOP_WORDS) {
  if (word.length < 6) continue;
  LONG_STOP_WORDS.set(word[0]!, [...(LONG_STOP_WORDS.get(word[0]!) ?? []), word]);
}

/**
 * A word one edit from a stop word of six letters or more, same first letter ("tutoriall",
 * "explaned", "beginers"): a slip in filler. Shorter ones are too close to real words to tell.
 */
export function isStopWordSlip (word: string): boolean {
  if (word.length < 6) return false;
  for (const stop of LONG_STOP_WORDS.get(word[0]!) ?? []) {
    if (Math.abs(stop.length - word.length) <= 1 && editDistance(word, stop, 1) <= 1) return true;
  }
  return false;
}
