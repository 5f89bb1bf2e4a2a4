import { deepFreeze } from '../util/deep-freeze.js';
import type { JsonRpcMessage, JsonRpcResponse } from './jsonrpc.js';

/**
 * Most replies repeat a result the server has built before: a remembered get_sources answer,
 * tools/list, an initialize result. Such results are frozen once and their JSON text is kept
 * beside them, so a reply costs a string join instead of a JSON.stringify of a few kilobytes
 * (the largest item of our own in a profile of the sources benchmark). Written by hand when
 * Node 20 had no JSON.rawJSON (Node 22 has it: worth measuring against this in the next bench);
 * keyed weakly, so a result forgotten by its cache takes its text along.
 */
const texts = new WeakMap<object, string>();
const views = new WeakMap<object, Map<string, object>>();

/** Freezes a result for good and remembers its JSON text. */
export function stable<T extends object> (result: T): T {
  deepFreeze(result);
  if (!texts.has(result)) texts.set(result, JSON.stringify(result));
  return result;
}

/** A view of `source` (for one protocol version, say), built once while `source` lives. */
export function derived<T extends object> (source: object, key: string, build: () => T): T {
  let byKey = views.get(source);
  if (byKey === undefined) {
    byKey = new Map();
    views.set(source, byKey);
  }
  let view = byKey.get(key) as T | undefined;
  if (view === undefined) {
    view = build();
    byKey.set(key, view);
  }
  return view;
}

/** The JSON text of a message: the same bytes as JSON.stringify, without redoing a stable result. */
export function messageText (message: JsonRpcResponse | JsonRpcMessage): string {
  if ('result' in message) {
    const text = texts.get(message.result);
    if (text !== undefined) return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${text}}`;
  }
  return JSON.stringify(message);
}
