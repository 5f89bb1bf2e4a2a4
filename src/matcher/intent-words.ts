/**
 * Words that ask for a transaction rather than knowledge: buying and prices, a provider near the
 * asker, a job. A curated source teaches or documents a topic; a question about where to buy,
 * what it costs this week, who is hiring or which shop is near is served by a shop, a map or a job
 * board. The list is general English, the same for every registry; a category whose own text uses
 * the word (a topic about buying a used car, about salaries) explains it, and it counts for nothing.
 *
 * Left out on purpose, because on-topic questions use them as often as shoppers do: "buy" ("which
 * telescope should I buy first"), "cheap" ("a cheap VPS"), "job" ("my job"), "shop" and "store"
 * (a workshop, a state store).
 */
const INTENT_WORDS: ReadonlySet<string> = new Set([
  'price', 'prices', 'pricing', 'priced', 'cost', 'costs', 'cheapest', 'deal', 'deals', 'sale', 'sales',
  'discount', 'discounts', 'coupon', 'coupons', 'purchase', 'jobs', 'salary', 'salaries', 'hiring',
  'wage', 'wages', 'hourly', 'nearby', 'hire',
]);

/** How "near me" is kept: one token no stemmer or word list produces, matched the same way in a category's text. */
export const NEAR_ME = 'near me';

/** Whether a normalised text asks for something near the asker. */
export function asksNearMe(text: string): boolean {
  return /(?:^| )near me(?: |$)/.test(text);
}

/** The query's intent words, as written; "near me" counts as one ("near" alone is a place word: "go near his bowl"). */
export function intentWordsOf(words: readonly string[], text: string): string[] {
  const found = words.filter((w) => INTENT_WORDS.has(w));
  if (asksNearMe(text)) found.push(NEAR_ME);
  return found;
}
