/**
 * Freezes an object graph for good. The server shares one registry, and remembered answers,
 * across every request: frozen, no handler can damage what the next request reads.
 */
export function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
