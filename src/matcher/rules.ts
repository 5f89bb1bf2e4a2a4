/**
 * Every weight and rule that decides how the matcher answers, in one place. Each says the general
 * principle it stands for; none names a registry, a category or a labelled query. (What bounds a
 * query's cost, the MAX_ numbers, and the word lists live beside the code they bound or feed.) `npm run eval -- --ablation` turns
 * each switch off in turn and reports what it is worth on the registries written by curators new
 * to the tool (see scripts/eval.ts): a rule that does not earn its place there goes.
 */
export interface MatcherRules {
  /**
   * The least score an answer needs (0 to 1). A confident wrong answer costs the user (the agent
   * trusts sources that do not serve the question) while a decline costs one more call (it names
   * the candidates to re-ask with): where answers are right only about two times in three, the
   * matcher declines. Session 4 moved it from 0.45 to 0.50, with `broadEvidenceDiscount` from 0.10
   * to 0.15 so that a request holding four to six of the leader's words needs what it did (the
   * floor, with `broadEvidenceMaxDiscount`, rose from 0.25 to 0.30): on the sixteen registries read
   * by then, confident wrong answers fell from 2.22% to 1.71%, declines rose from 0.955 to 0.967,
   * first answers fell from 0.765 to 0.746 and right-within-two-calls stayed at 0.950.
   */
  readonly threshold: number;
  /**
   * The least a match must lead the runner-up by. A win by a hair between two categories says
   * the query is about neither, not about the one a word more in favour.
   */
  readonly minMargin: number;

  // Field weights: how much a word counts for a category, by where the curator wrote it. A word of
  // the category's own prose (name, slug, description, tags, example questions) counts 1.
  /** A curated keyword (a tool name, jargon) says more about the topic than a word of its prose. */
  readonly keywordWeight: number;
  /** Words of the sources' names and reasons: what the sources cover (0: not read, as the ablation does). */
  readonly sourceWeight: number;

  /**
   * Weight of a query word the registry has never seen, relative to the rarest registry word,
   * when the category's evidence is weak (one everyday word: "rust removal", "bitcoin price").
   */
  readonly unknownWeightWeak: number;
  /** The same when the category's evidence is strong (a keyword, or several words): the unknown words are context. */
  readonly unknownWeightStrong: number;
  /**
   * Several words are strong evidence when at least this many of the query's words are the
   * category's and together they weigh at least as much as this many of the registry's rarest.
   */
  readonly strongEvidenceWords: number;
  /**
   * Weight of an unknown word that is no everyday English word (most often a product, place or
   * tool's name: a query naming a thing the registry does not know is likely about that thing),
   * against a category the query names by a keyword, and against one it does not. (One weight
   * for both was measured in session 10: see docs/evaluation.md.)
   */
  readonly nameWeightNamed: number;
  readonly nameWeightUnnamed: number;
  /**
   * A question about buying, prices, a local provider or a job asks for a shop, a map or a job
   * board, not for sources on how to do the thing: such a word (see intent-words.ts) that the
   * category's own text does not use weighs this much against it, relative to the rarest word,
   * whatever else the query holds. Long requests carry enough topic words to outweigh it.
   */
  readonly intentWeight: number;
  /** A country the category is not bound to counts as this many intent words (see `placesBindCategories`). */
  readonly placeIntentWords: number;
  /**
   * In a query of at most `shortQueryWords` content words every word was chosen: a category that
   * explains less than `minExplained` of them sees its score scaled down by the share it explains
   * (the words it does not explain say what is really asked: "selenium supplement daily dose").
   */
  readonly shortQueryWords: number;
  readonly minExplained: number;
  /** What a corrected typo loses per edit: a word spelt right says a little more. */
  readonly typoPenalty: number;
  /** Shorter words are never corrected ("rust" vs "trust"). */
  readonly minTypoLength: number;
  /** Words shorter than this are corrected only for a swap of two neighbouring letters ("rsut"). */
  readonly minAnyTypoLength: number;
  /** Words looked up as typos per query: a person makes a typo or two; past this, words are unknown. */
  readonly maxTypoLookups: number;
  /**
   * A topic that many of the query's words point to is named by more than chance: when this many
   * distinct registry words of the leading category are in the query, it needs `broadEvidenceDiscount`
   * less than the threshold (long plain-language requests share many words with their topic, and
   * many others with none).
   */
  readonly broadEvidenceWords: number;
  readonly broadEvidenceDiscount: number;
  /** Each further word of the leader lowers it by this much more, to at most `broadEvidenceMaxDiscount`. */
  readonly broadEvidencePerWord: number;
  readonly broadEvidenceMaxDiscount: number;
  /**
   * A request of at least this many content words (read as in `considered`: known, unknown and
   * names) is a long request with background; see `longRequestBackground`.
   */
  readonly longRequestWords: number;

  // What a decline names (see candidates.ts).
  /**
   * At most this many candidates: among hundreds of categories, three often miss the one meant
   * (issue 30: 0.85 right within two calls at 369 categories); five, each with its description,
   * are still quick to read.
   */
  readonly declineCandidates: number;
  /** Categories nearest in meaning added to a decline's candidates (the semantic stage), before ranking. */
  readonly nearestInMeaning: number;
  /**
   * A category that shares no word with the question is named only when it is at least this near
   * in meaning: about where the nearest category of nine on-topic questions in ten lies (on the
   * twenty-eight read registries, 2026-11-28: 0.62). Word vectors find some relation between almost
   * any two texts; below this, what they find is rarely what was meant.
   */
  readonly meaningFloor: number;
  /**
   * A category the question's words point to is named only when its score reaches this, or its
   * meaning reaches `meaningFloor`: a shared everyday word ("home", "setup") at a score of 0.05
   * says nothing of what was meant (issue 33). On the thirty-five read registries (8,830
   * questions, 2026-11-28), 0.1 named a fifth fewer candidates (13,640 to 10,927) and kept 1,129
   * of the 1,145 right ones.
   */
  readonly candidateScoreFloor: number;

  // Switches (turned off one at a time by the ablation).
  /**
   * A topic is named by a keyword or by the category's own words (name, description, tags):
   * one or two words found only in its example questions or sources happen by chance.
   */
  readonly contextNeedsStrongerEvidence: boolean;
  /** How many such words happen by chance (see `contextNeedsStrongerEvidence`). */
  readonly chanceWords: number;
  /** A query of one content word makes a topic only of a category it names (its name or a keyword). */
  readonly oneWordNeedsName: boolean;
  /** A query of one everyday word alone ("security", "keys") is too vague to answer. */
  readonly oneEverydayWordIsVague: boolean;
  /** A leader the query names, over a runner-up it does not name, wins however close the scores. */
  readonly namedLeaderWins: boolean;
  /** An everyday word one letter from a word of a topic the query names is a slip for it ("mcp sever"). */
  readonly slipsNextToTopic: boolean;
  /** The curator's not-about entries turn a query away from the category. */
  readonly scopeEntries: boolean;
  /**
   * A stop word inside a curator's phrase ("first aid", "day hiking", "Next.js") counts for the
   * category when the whole phrase is in the query: the curator chose that word.
   */
  readonly stopWordsInPhrases: boolean;
  /**
   * In a long request most words are background (the asker's job, family, town, what was tried),
   * and background words land in one category or another by chance: the words that belong to
   * other categories weigh against a category by the square root of their number, as unknown
   * words do, not one by one. A short query's words were all chosen and still count one by one.
   */
  readonly longRequestBackground: boolean;
  /**
   * A category whose name, slug or tags name a country, or whose description says "in <country>"
   * ("in England and Wales"), is bound to it: a short question naming other countries only ("in
   * Ontario", "in Germany") asks about their rules, and that weighs against the category as an
   * intent word does. Places are ISO 3166 countries and their first-level subdivisions (see
   * places.ts).
   */
  readonly placesBindCategories: boolean;
  /** Typos are corrected into a keyword's everyday words too ("batery" is "battery"), never into its coined names. */
  readonly correctIntoKeywords: boolean;
}

/** What a word of a category's own prose counts: the unit the field weights are measured in, not a setting. */
export const PROSE_WEIGHT = 1;

export const RULES: MatcherRules = Object.freeze({
  threshold: 0.5,
  minMargin: 0.1,
  keywordWeight: 2,
  sourceWeight: 1,
  unknownWeightWeak: 1.6,
  unknownWeightStrong: 0.5,
  strongEvidenceWords: 2,
  nameWeightNamed: 1,
  nameWeightUnnamed: 3,
  intentWeight: 6,
  placeIntentWords: 2,
  shortQueryWords: 6,
  minExplained: 0.5,
  typoPenalty: 0.15,
  minTypoLength: 4,
  minAnyTypoLength: 5,
  maxTypoLookups: 3,
  broadEvidenceWords: 4,
  broadEvidenceDiscount: 0.15,
  broadEvidencePerWord: 0.02,
  broadEvidenceMaxDiscount: 0.2,
  longRequestWords: 16,
  declineCandidates: 5,
  nearestInMeaning: 3,
  meaningFloor: 0.65,
  candidateScoreFloor: 0.1,
  chanceWords: 2,
  contextNeedsStrongerEvidence: true,
  oneWordNeedsName: true,
  oneEverydayWordIsVague: true,
  namedLeaderWins: true,
  slipsNextToTopic: true,
  scopeEntries: true,
  stopWordsInPhrases: true,
  longRequestBackground: true,
  placesBindCategories: true,
  correctIntoKeywords: true,
});

/** The switches, by name: what the ablation turns off one at a time. */
export const RULE_SWITCHES = (Object.keys(RULES) as (keyof MatcherRules)[]).filter((k) => typeof RULES[k] === 'boolean');
