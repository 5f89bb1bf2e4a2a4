import { Worker } from 'node:worker_threads';
import { PeerRefused, type InUse, type PeerDocuments, type VerifiedPeer } from './verify.js';

/** A verified copy as the main thread receives it: its history reduced to where it ends. */
export type VerifiedCopy = Omit<VerifiedPeer, 'history'> & { readonly historyLength: number; readonly historyHead: string | undefined };
import type { VerifyReply, VerifyTask } from './verify-worker.js';

export interface VerifierOptions {
  /** A copy whose verification takes longer is refused, and the worker started afresh. */
  readonly timeoutMs?: number;
  /** The worker's heap: a copy that needs more is refused, not the server's memory. */
  readonly maxHeapMb?: number;
}

/** The most a peer may send of each document (the fetch caps them as they arrive). */
export const DOCUMENT_LIMITS: Readonly<Record<keyof PeerDocuments, number>> = { registry: 5 * 1024 * 1024, signature: 16 * 1024, history: 5 * 1024 * 1024 };

/** Far above what a registry at every peer limit needs (about 1 s and under 100 MB on 2 cores). */
const DEFAULTS = { timeoutMs: 30_000, maxHeapMb: 512 };

// Built, the worker is a .js file beside this one; run from source (tests, npm run dev) it is
// the .ts file, which the loader the parent runs under (tsx, tap) also loads in the worker.
const WORKER_FILE = new URL(import.meta.url.endsWith('.ts') ? './verify-worker.ts' : './verify-worker.js', import.meta.url);

interface Pending {
  readonly task: VerifyTask;
  readonly resolve: (value: VerifiedCopy) => void;
  readonly reject: (err: Error) => void;
}

/**
 * Verifies peers' copies in a worker thread, one at a time: parsing, canonicalising, checking the
 * rules and every history signature of a registry near the limits takes seconds, which must not
 * be taken from the requests the event loop serves. The worker's heap is capped and each copy
 * has a deadline: a copy that exceeds either is refused, and the worker replaced. Rejects only
 * with PeerRefused.
 */
export class PeerVerifier {
  readonly #options: Required<VerifierOptions>;
  #worker: Worker | undefined;
  #queue: Pending[] = [];
  #current: (Pending & { timer: NodeJS.Timeout }) | undefined;
  #nextId = 1;
  #closed = false;

  constructor (options: VerifierOptions = {}) {
    this.#options = { ...DEFAULTS, ...options };
  }

  verify (docs: PeerDocuments, endorsedKey: string, allowLoopbackHttp: boolean, inUse: InUse | undefined): Promise<VerifiedCopy> {
    if (this.#closed) return Promise.reject(new PeerRefused('the server is closing'));
    // The heap cap alone does not contain every exhaustion (V8 ends the whole process when one
    // allocation cannot fit): what reaches the worker is bounded first, fetched or read from disk,
    // so that its work stays far below the cap.
    for (const [name, limit] of Object.entries(DOCUMENT_LIMITS) as [keyof PeerDocuments, number][]) {
      if (docs[name].length > limit) return Promise.reject(new PeerRefused(`its ${name} document is larger than ${limit} bytes`));
    }
    return new Promise<VerifiedCopy>((resolve, reject) => {
      this.#queue.push({ task: { id: this.#nextId++, docs, endorsedKey, allowLoopbackHttp, inUse }, resolve, reject });
      this.#next();
    });
  }

  /** Ends the worker; copies waiting are refused. */
  async close (): Promise<void> {
    this.#closed = true;
    const waiting = [...this.#queue, ...(this.#current === undefined ? [] : [this.#current])];
    this.#queue = [];
    if (this.#current !== undefined) clearTimeout(this.#current.timer);
    this.#current = undefined;
    for (const p of waiting) p.reject(new PeerRefused('the server is closing'));
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #next (): void {
    if (this.#current !== undefined || this.#closed) return;
    const pending = this.#queue.shift();
    if (pending === undefined) return;
    const worker = this.#workerNow();
    const timer = setTimeout(() => this.#fail(`verifying it took longer than ${this.#options.timeoutMs} ms`), this.#options.timeoutMs);
    timer.unref();
    this.#current = { ...pending, timer };
    // Referenced while it works (a caller awaits it, perhaps before anything else keeps the
    // process alive, as at start-up); unreferenced when idle, so it never holds the process open.
    worker.ref();
    worker.postMessage(pending.task);
  }

  #workerNow (): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WORKER_FILE, { resourceLimits: { maxOldGenerationSizeMb: this.#options.maxHeapMb, maxYoungGenerationSizeMb: 32 } });
    worker.on('message', (reply: VerifyReply) => {
      const current = this.#current;
      if (current === undefined || reply.id !== current.task.id) return;
      clearTimeout(current.timer);
      this.#current = undefined;
      if (reply.ok) {
        const { registryJson, ...rest } = reply.value;
        current.resolve({ ...rest, registry: JSON.parse(registryJson) as VerifiedCopy['registry'] });
      } else current.reject(new PeerRefused(reply.reason));
      if (this.#queue.length === 0) worker.unref();
      this.#next();
    });
    // Out of memory (ERR_WORKER_OUT_OF_MEMORY) or any other death: the copy it was on is refused.
    worker.on('error', (err: NodeJS.ErrnoException) => {
      if (this.#worker === worker) this.#fail(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'verifying it needed more memory than a registry may' : 'its verification failed');
    });
    worker.on('exit', () => {
      if (this.#worker === worker) this.#fail('its verification failed');
    });
    this.#worker = worker;
    return worker;
  }

  /** Refuses the copy being verified and replaces the worker, which may be stuck in it. */
  #fail (reason: string): void {
    const current = this.#current;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#current = undefined;
    void worker?.terminate();
    if (current !== undefined) {
      clearTimeout(current.timer);
      current.reject(new PeerRefused(reason));
    }
    this.#next();
  }
}
