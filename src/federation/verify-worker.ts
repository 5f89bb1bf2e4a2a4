// Entry of the worker thread that verifies peers' copies (see verifier.ts): nothing else runs here.
import { parentPort } from 'node:worker_threads';
import { entryHash } from '../provenance/history.js';
import { PeerRefused, verifyPeer, type InUse, type PeerDocuments } from './verify.js';

export interface VerifyTask {
  readonly id: number;
  readonly docs: PeerDocuments;
  readonly endorsedKey: string;
  readonly allowLoopbackHttp: boolean;
  readonly inUse: InUse | undefined;
}

/**
 * The verified copy, its registry as JSON text: cloning one string across threads is a copy of
 * bytes, and JSON.parse of it on the other side is cheaper than deserialising the same object
 * graph (4 MB of registry here: the parse took 8 to 11 ms, and the largest pause while such a
 * copy was accepted fell from about 50 to about 35 ms when the string replaced the object).
 */
export type VerifiedReply = Omit<ReturnType<typeof verifyPeer>, 'registry' | 'history'> & {
  readonly registryJson: string;
  /** The history, as the main thread needs it (to refuse a rollback later): how long, and its head's hash. */
  readonly historyLength: number;
  readonly historyHead: string | undefined;
};

export type VerifyReply =
  | { readonly id: number; readonly ok: true; readonly value: VerifiedReply }
  | { readonly id: number; readonly ok: false; readonly reason: string };

parentPort?.on('message', (task: VerifyTask) => {
  // Structured cloning turns Buffers into plain Uint8Arrays: made Buffers again, without a copy.
  const docs = {
    registry: Buffer.from(task.docs.registry.buffer, task.docs.registry.byteOffset, task.docs.registry.byteLength),
    signature: Buffer.from(task.docs.signature.buffer, task.docs.signature.byteOffset, task.docs.signature.byteLength),
    history: Buffer.from(task.docs.history.buffer, task.docs.history.byteOffset, task.docs.history.byteLength),
  };
  let reply: VerifyReply;
  try {
    const { registry, history, ...rest } = verifyPeer(docs, task.endorsedKey, task.allowLoopbackHttp, task.inUse);
    // Not the entries themselves: a history of many small objects costs the main thread as much
    // to receive as to parse, and it needs only where the history ends.
    const head = history[history.length - 1];
    reply = {
      id: task.id,
      ok: true,
      value: {
        ...rest,
        registryJson: JSON.stringify(registry),
        historyLength: history.length,
        historyHead: head === undefined ? undefined : entryHash(head),
      },
    };
  } catch (err) {
    // A refusal says why; anything else (a stack overflow on a crafted copy, say) is a refusal too.
    reply = { id: task.id, ok: false, reason: err instanceof PeerRefused ? err.message : `could not be verified (${err instanceof Error ? err.name : 'error'})` };
  }
  parentPort!.postMessage(reply);
});
