import type { WordVectors } from '../semantic/word-vectors.js';
import type { Matcher } from '../matcher/matcher.js';
import type { SigningMode } from '../provenance/signature.js';
import type { Endorsement, Registry } from '../registry/types.js';
import { loadCopy, saveCopy } from './cache.js';
import { CopyLoader, fingerprint } from './copy-loader.js';
import { fetchDocument, PeerFetchError, type FetchLimits } from './fetch.js';
import { DOCUMENT_LIMITS, type VerifierOptions } from './verifier.js';
import { inLog } from './peer-text.js';
import { PeerRefused } from './verify.js';

/** Computed when read, from the age of the last good copy. */
export type PeerState = 'fresh' | 'stale' | 'unavailable';

/** A peer's registry that passed every check, ready to answer. */
export interface PeerCopy {
  readonly registry: Registry;
  /** How many signed history entries it has, and the hash of the newest (none when self-signed). */
  readonly historyLength: number;
  readonly historyHead: string | undefined;
  /** SHA-256 of the three documents as fetched: an unchanged peer costs a comparison, not a rebuild. */
  readonly fingerprint: string;
  readonly matcher: Matcher;
  readonly sha256: string;
  readonly version: string;
  readonly signedBy: SigningMode;
  /** When it was fetched (ms since the epoch); a copy read from disk keeps its own. */
  readonly fetchedAt: number;
}

/** What a tool, a route or the metrics see of one peer. */
export interface PeerView {
  readonly endorsement: Endorsement;
  readonly state: PeerState;
  readonly copy: PeerCopy | undefined;
  readonly lastSuccess: number | undefined;
  readonly lastError: { readonly at: number; readonly reason: string } | undefined;
}

/** What the protocol side reads: the peers as they are now. */
export interface FederationView {
  peers(): readonly PeerView[];
}

export const NO_FEDERATION: FederationView = { peers: () => [] };

export interface FederationOptions {
  readonly refreshMs: number;
  readonly cacheDir: string | undefined;
  readonly allowLoopbackHttp: boolean;
  readonly matchThreshold: number;
  /** The semantic stage's word vectors, for peers' matchers as for ours (none: words alone). */
  readonly meaning?: WordVectors | undefined;
  /** Per request. */
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly maxRedirects?: number;
  /** Peers fetched at the same time. */
  readonly concurrency?: number;
  /** The worker that verifies copies: its deadline and heap (tests set them low). */
  readonly verifier?: VerifierOptions;
  /** Told of each refusal or failure (for the log) and each success. */
  readonly onEvent?: (event: PeerEvent) => void;
  readonly now?: () => number;
}

export type PeerEvent =
  /** `serving`: whether a copy of the peer is still in use (its last good one), so the log can say so. */
  | { readonly kind: 'refused' | 'failed' | 'disk'; readonly peer: Endorsement; readonly reason: string; readonly serving: boolean }
  | { readonly kind: 'updated'; readonly peer: Endorsement; readonly version: string };

export const PEER_MAX_BYTES = DOCUMENT_LIMITS.registry;
/** A signature document is a few hundred bytes. */
const SIGNATURE_MAX_BYTES = DOCUMENT_LIMITS.signature;
const DEFAULTS = { timeoutMs: 5000, maxBytes: PEER_MAX_BYTES, maxRedirects: 3, concurrency: 4 };
/** The first retry of a failing peer; each further failure doubles it, up to the refresh period. */
const FIRST_BACKOFF_MS = 5000;
/** How often the scheduler looks for peers that are due. */
const TICK_MS = 250;
/** A copy older than this many refresh periods is stale (two missed refreshes in a row). */
export const STALE_AFTER_PERIODS = 3;

interface Peer {
  endorsement: Endorsement;
  copy: PeerCopy | undefined;
  lastSuccess: number | undefined;
  lastError: { at: number; reason: string } | undefined;
  failures: number;
  nextAttempt: number;
  inFlight: boolean;
}

/** ±10%: peers endorsed together do not all refresh in the same second. */
const jitter = (ms: number) => ms * (0.9 + Math.random() * 0.2);

/**
 * The registries of the curators this registry endorses, each verified before use. Fetches run
 * in the background, a few at a time, never in the way of start-up or a request; a peer that
 * fails keeps its last good copy and backs off exponentially. One hop: a peer's own
 * endorsements are never followed. This is the schedule; what becomes of the documents fetched
 * (verified, indexed, a spelling index shared by all copies) is the CopyLoader's.
 */
export class Federation implements FederationView {
  readonly #options: Required<Omit<FederationOptions, 'cacheDir' | 'onEvent' | 'verifier' | 'meaning'>> & Pick<FederationOptions, 'cacheDir' | 'onEvent' | 'meaning'>;
  #peers = new Map<string, Peer>();
  #timer: NodeJS.Timeout | undefined;
  #running = 0;
  /** Aborts the fetches in flight when the server closes. */
  #stopped = new AbortController();
  readonly #verifierOptions: VerifierOptions;
  /** Verifies and indexes copies; replaced when the federation stops. */
  #loader: CopyLoader;

  constructor (options: FederationOptions) {
    this.#options = { ...DEFAULTS, now: Date.now, ...options };
    this.#verifierOptions = options.verifier ?? {};
    this.#loader = this.#newLoader();
  }

  /**
   * The endorsements of the registry being served: new peers are added (due at once), gone ones
   * dropped, and a peer whose URL changed starts afresh.
   */
  setPeers (endorsements: readonly Endorsement[]): void {
    const next = new Map<string, Peer>();
    for (const endorsement of endorsements) {
      const known = this.#peers.get(endorsement.pubkey);
      if (known !== undefined && known.endorsement.url === endorsement.url) {
        known.endorsement = endorsement;
        next.set(endorsement.pubkey, known);
      } else {
        next.set(endorsement.pubkey, {
          endorsement,
          copy: undefined,
          lastSuccess: undefined,
          lastError: undefined,
          failures: 0,
          nextAttempt: 0,
          inFlight: false,
        });
      }
    }
    this.#peers = next;
    this.#loader.queueSpelling();
  }

  /** Reads the copies kept on disk, each verified again; for peers that have none yet. */
  async loadCache (): Promise<void> {
    const dir = this.#options.cacheDir;
    if (dir === undefined) return;
    await Promise.all(
      [...this.#peers.values()].map(async (peer) => {
        const kept = await loadCopy(dir, peer.endorsement.pubkey, peer.endorsement.url);
        if (kept === undefined || peer.copy !== undefined) return;
        if ('problem' in kept) {
          this.#options.onEvent?.({ kind: 'refused', peer: peer.endorsement, reason: `disk copy: ${kept.problem}`, serving: false });
          return;
        }
        try {
          const copy = await this.#loader.accept(peer.endorsement.pubkey, kept, peer.copy);
          // A fetched copy came first, or the peer was dropped: the disk copy (checked against no
          // copy) must not replace it.
          if (peer.copy !== undefined || this.#peers.get(peer.endorsement.pubkey) !== peer) return;
          peer.copy = copy;
          this.#loader.queueSpelling();
        } catch (err) {
          this.#options.onEvent?.({ kind: 'refused', peer: peer.endorsement, reason: `disk copy: ${(err as Error).message}`, serving: false });
        }
      })
    );
  }

  /** Starts refreshing in the background; the timer never keeps the process alive. */
  start (): void {
    if (this.#timer !== undefined) return;
    if (this.#stopped.signal.aborted) this.#stopped = new AbortController();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    this.#timer.unref();
    this.#tick();
  }

  stop (): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopped.abort();
    this.#loader.close();
    this.#loader = this.#newLoader();
  }

  #newLoader (): CopyLoader {
    const { matchThreshold, allowLoopbackHttp, meaning, now } = this.#options;
    const copies = () => [...this.#peers.values()].flatMap((p) => (p.copy === undefined ? [] : [p.copy]));
    return new CopyLoader({ matchThreshold, allowLoopbackHttp, meaning, now, verifier: this.#verifierOptions, copies });
  }

  /** Resolves once no copy is being indexed and the shared spelling index covers every copy (benchmarks, tests). */
  idle (): Promise<void> {
    return this.#loader.idle();
  }

  peers (): readonly PeerView[] {
    const now = this.#options.now();
    return [...this.#peers.values()].map((p) => ({
      endorsement: p.endorsement,
      state: this.#state(p, now),
      copy: p.copy,
      lastSuccess: p.lastSuccess,
      lastError: p.lastError,
    }));
  }

  #state (peer: Peer, now: number): PeerState {
    if (peer.copy === undefined) return 'unavailable';
    return now - peer.copy.fetchedAt <= STALE_AFTER_PERIODS * this.#options.refreshMs ? 'fresh' : 'stale';
  }

  #tick (): void {
    const now = this.#options.now();
    for (const peer of this.#peers.values()) {
      if (this.#running >= this.#options.concurrency) return;
      if (peer.inFlight || peer.nextAttempt > now) continue;
      peer.inFlight = true;
      this.#running++;
      void this.#refresh(peer).finally(() => {
        peer.inFlight = false;
        this.#running--;
        // A slot is free: the next peer that is due need not wait for the timer.
        if (this.#timer !== undefined) this.#tick();
      });
    }
  }

  async #refresh (peer: Peer): Promise<void> {
    const { endorsement } = peer;
    const base = new URL(endorsement.url.endsWith('/') ? endorsement.url : `${endorsement.url}/`);
    // One failure ends the other two fetches of this attempt, and closing the server ends all.
    const attempt = new AbortController();
    const signal = AbortSignal.any([attempt.signal, this.#stopped.signal]);
    const limits: FetchLimits = { ...this.#options, signal };
    try {
      const [registry, signature, history] = await Promise.all(
        (['registry', 'registry/signature', 'registry/history'] as const).map((path) =>
          fetchDocument(new URL(path, base), path === 'registry/signature' ? { ...limits, maxBytes: SIGNATURE_MAX_BYTES } : limits)
        )
      ).catch((err: unknown) => {
        attempt.abort();
        throw err;
      });
      if (this.#stopped.signal.aborted) return;
      const fetchedAt = this.#options.now();
      const docs = { registry: registry!, signature: signature!, history: history! };
      const previous = peer.copy;
      const unchanged = previous !== undefined && previous.fingerprint === fingerprint(docs);
      const copy = unchanged ? { ...previous, fetchedAt } : await this.#loader.accept(endorsement.pubkey, docs, previous, fetchedAt);
      // Dropped or re-pointed while the fetch ran: this answer is for a peer that is no more.
      if (this.#peers.get(endorsement.pubkey) !== peer || this.#stopped.signal.aborted) return;
      // Another copy came into use meanwhile (a disk copy read at a reload): this one was checked
      // against the copy before it, so it may be older. Dropped; the next refresh checks afresh.
      if (peer.copy !== previous) return;
      peer.copy = copy;
      if (unchanged) {
        peer.lastSuccess = fetchedAt;
        peer.failures = 0;
        peer.nextAttempt = fetchedAt + jitter(this.#options.refreshMs);
        return;
      }
      this.#loader.queueSpelling();
      peer.lastSuccess = fetchedAt;
      peer.failures = 0;
      peer.nextAttempt = fetchedAt + jitter(this.#options.refreshMs);
      this.#options.onEvent?.({ kind: 'updated', peer: endorsement, version: copy.version });
      const dir = this.#options.cacheDir;
      if (dir !== undefined && !this.#stopped.signal.aborted) {
        await saveCopy(dir, endorsement.pubkey, endorsement.url, { registry: registry!, signature: signature!, history: history!, fetchedAt })
          .catch((err: NodeJS.ErrnoException) =>
            this.#options.onEvent?.({ kind: 'disk', peer: endorsement, reason: `cannot write its disk copy (${err.code ?? 'write error'})`, serving: true })
          );
      }
    } catch (err) {
      // Closing the server cancels what is in flight: that is no failure of the peer's.
      if (this.#stopped.signal.aborted) return;
      // Nothing a peer sends may take the server down: an error we did not foresee is a failure too.
      const expected = err instanceof PeerFetchError || err instanceof PeerRefused;
      const reason = expected ? (err as Error).message : `unexpected error: ${inLog(String((err as Error)?.message ?? err), 200)}`;
      const now = this.#options.now();
      peer.failures++;
      peer.lastError = { at: now, reason };
      peer.nextAttempt = now + jitter(Math.min(this.#options.refreshMs, FIRST_BACKOFF_MS * 2 ** (peer.failures - 1)));
      this.#options.onEvent?.({ kind: err instanceof PeerRefused ? 'refused' : 'failed', peer: endorsement, reason, serving: peer.copy !== undefined });
    }
  }
}
