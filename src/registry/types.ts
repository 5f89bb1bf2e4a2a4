/** The kinds of source a curator may list. */
export const SOURCE_TYPES = [
  'documentation',
  'tutorial',
  'video',
  'article',
  'tool',
  'repo',
  'forum',
  'book',
  'course',
  'api',
] as const;

export type SourceType = (typeof SOURCE_TYPES)[number];

export interface Source {
  readonly rank: 1 | 2 | 3;
  readonly name: string;
  readonly url: string;
  readonly type: SourceType;
  readonly why: string;
}

export interface Category {
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly keywords: readonly string[];
  readonly queryPatterns: readonly string[];
  /**
   * What the category is not about, as the curator states its scope: words or phrases that, in a
   * query, count against it ("price" for running a Bitcoin node). Optional.
   */
  readonly notAbout?: readonly string[];
  /** Always exactly three, sorted by rank once loaded. */
  readonly sources: readonly Source[];
}

export interface Endorsement {
  readonly pubkey: string;
  readonly url: string;
  readonly name: string;
  readonly since: string;
}

export interface Curator {
  readonly name: string;
  /** Empty until a curator key is configured. */
  readonly pubkey: string;
}

export interface Registry {
  readonly version: string;
  readonly updated: string;
  readonly curator: Curator;
  readonly endorsements: readonly Endorsement[];
  readonly categories: Readonly<Record<string, Category>>;
}
