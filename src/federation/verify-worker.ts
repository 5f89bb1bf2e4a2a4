// Entry of the worker thread that verifies peers' copies (see verifier.ts): nothing else runs here.
import { parentPort } from 'node:worker_threads';
import { PeerRefused, verifyPeer, type InUse, type PeerDocuments } from './verify.js';

export interface VerifyTask {
  readonly id: number;
  readonly docs: PeerDocuments;
  readonly endorsedKey: string;
  readonly allowLoopbackHttp: boolean;
  readonly inUse: InUse | undefined;
}

export type VerifyReply =
  | { readonly id: number; readonly ok: true; readonly value: ReturnType<typeof verifyPeer> }
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
    reply = { id: task.id, ok: true, value: verifyPeer(docs, task.endorsedKey, task.allowLoopbackHttp, task.inUse) };
  } catch (err) {
    // A refusal says why; anything else (a stack overflow on a crafted copy, say) is a refusal too.
    reply = { id: task.id, ok: false, reason: err instanceof PeerRefused ? err.message : `could not be verified (${err instanceof Error ? err.name : 'error'})` };
  }
  parentPort!.postMessage(reply);
});
