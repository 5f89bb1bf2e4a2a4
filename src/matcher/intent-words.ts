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
  'wage', 'wages', 'hourly', 'nearby', 'hire', 'openings', 'careers', 'news', 'headlines',
]);

/** How "near me" is kept: one token no stemmer or word list produces, matched the same way in a category's text. */
export const NEAR_ME = 'near me';

/** Whether a normalised text asks for something near the asker. */
export function asksNearMe(text: string): boolean {
  return /(?:^| )near me(?: |$)/.test(text);
}

/**
 * A price ceiling ("under $1000", "for less than £30") asks for a product at a price, as "price"
 * does. Not any amount: "$60,000 in my 401k" and "a £900 sofa arrived broken" describe the
 * asker's situation. Read before folding, which drops the currency signs.
 */
const PRICE_CEILING = /\b(?:under|below|less than|cheaper than|up to|max(?:imum)?)\s+(?:[$£€¥₹]\s?\d|\d[\d,.]*\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b)/i;

/**
 * The query's intent words, as written; "near me" counts as one ("near" alone is a place word: "go
 * near his bowl"), and a price ceiling as "price". `unfolded`: the query before folding.
 */
export function intentWordsOf(words: readonly string[], text: string, unfolded = ''): string[] {
  const found = words.filter((w) => INTENT_WORDS.has(w));
  if (asksNearMe(text)) found.push(NEAR_ME);
  if (PRICE_CEILING.test(unfolded) && !found.includes('price')) found.push('price');
  return found;
}
