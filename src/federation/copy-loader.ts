import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { buildMatcherInSlices, IndexTooLarge, PEER_INDEX_LIMITS } from '../matcher/matcher.js';
import { sharedSpellingSteps } from '../matcher/spelling.js';
import type { WordVectors } from '../semantic/word-vectors.js';
import { runInSlices } from '../util/slices.js';
import type { CachedCopy } from './cache.js';
import type { PeerCopy } from './federation.js';
import { PeerVerifier, type VerifierOptions } from './verifier.js';
import { PeerRefused, type InUse, type PeerDocuments } from './verify.js';

/** Quiet time after the last copy changed before the shared spelling index is rebuilt. */
const SPELLING_QUIET_MS = 200;

export interface CopyLoaderOptions {
  readonly matchThreshold: number;
  readonly allowLoopbackHttp: boolean;
  readonly meaning: WordVectors | undefined;
  readonly now: () => number;
  readonly verifier: VerifierOptions;
  /** The copies in use now, for the shared spelling index. */
  readonly copies: () => readonly PeerCopy[];
}

/** The three documents' digest: a copy fetched again unchanged is not verified or indexed again. */
export function fingerprint (docs: PeerDocuments): string {
  const hash = createHash('sha256');
  for (const doc of [docs.registry, docs.signature, docs.history]) hash.update(createHash('sha256').update(doc).digest());
  return hash.digest('hex');
}

/** What a new copy must move forward from: checked in the worker, before the copy is parsed. */
function inUseOf (copy: PeerCopy | undefined): InUse | undefined {
  if (copy === undefined) return undefined;
  return { version: copy.version, historyLength: copy.historyLength, head: copy.historyHead };
}

/**
 * Turns a peer's documents into a copy to serve: verified off the event loop (one at a time, in
 * the worker), then indexed in slices between which requests are served, one peer at a time;
 * and, once copies stop changing, one spelling index shared by all of them. The scheduling of
 * fetches is the federation's (federation.ts); this is only what becomes of what was fetched.
 */
export class CopyLoader {
  readonly #options: CopyLoaderOptions;
  readonly #verifier: PeerVerifier;
  /** Indexing a verified copy runs one peer at a time, in slices between which requests are served. */
  #accepting: Promise<unknown> = Promise.resolve();
  /** Runs the next rebuild of the shared spelling index, once the copies have stopped changing. */
  #spellingTimer: NodeJS.Timeout | undefined;

  constructor (options: CopyLoaderOptions) {
    this.#options = options;
    this.#verifier = new PeerVerifier(options.verifier);
  }

  /**
   * Verifies documents for a peer (in the worker, against the copy in use: a rollback is refused
   * before the copy is even parsed) and builds its matcher in slices; throws PeerRefused.
   */
  async accept (
    pubkey: string,
    docs: PeerDocuments & Partial<Pick<CachedCopy, 'fetchedAt'>>,
    inUse: PeerCopy | undefined,
    fetchedAt = docs.fetchedAt ?? this.#options.now()
  ): Promise<PeerCopy> {
    const verified = await this.#verifier.verify(docs, pubkey, this.#options.allowLoopbackHttp, inUseOf(inUse));
    const turn = this.#accepting.then(async () => {
      try {
        const matcher = await buildMatcherInSlices(verified.registry, this.#options.matchThreshold, {
          limits: PEER_INDEX_LIMITS,
          pause: nextTurn,
          meaning: this.#options.meaning,
        });
        return { ...verified, matcher, fetchedAt, fingerprint: fingerprint(docs) };
      } catch (err) {
        throw err instanceof IndexTooLarge ? new PeerRefused(err.message) : err;
      }
    });
    this.#accepting = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Rebuilds, after the copies changed, one spelling index over every copy's words, in slices, in
   * the same queue as indexing; each copy's matcher then reads it as its own (until then, its own).
   * A word that a hundred peers use is compared once per query instead of a hundred times.
   */
  queueSpelling (): void {
    // Copies arrive together (start-up, a refresh round): one rebuild after a quiet moment serves
    // them all. The wait is outside the indexing queue, so that copies are never held up by it.
    clearTimeout(this.#spellingTimer);
    this.#spellingTimer = setTimeout(() => {
      this.#spellingTimer = undefined;
      this.#accepting = this.#accepting
        .then(async () => {
          const copies = this.#options.copies();
          if (copies.length === 0) return;
          const shared = await runInSlices(sharedSpellingSteps(copies.map((c) => c.matcher.vocabulary())), nextTurn);
          copies.forEach((copy, id) => copy.matcher.useSpelling(shared.forVocabulary(id)));
        })
        .catch(() => undefined);
    }, SPELLING_QUIET_MS);
    this.#spellingTimer.unref();
  }

  /** Resolves once no copy is being indexed and the shared spelling index covers every copy. */
  async idle (): Promise<void> {
    for (;;) {
      const queue = this.#accepting;
      await queue;
      if (this.#spellingTimer === undefined && queue === this.#accepting) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Ends the worker and any pending rebuild; a stopped federation makes a new loader. */
  close (): void {
    clearTimeout(this.#spellingTimer);
    this.#spellingTimer = undefined;
    void this.#verifier.close();
  }
}
