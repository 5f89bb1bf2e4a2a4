const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of strict UTF-8 bytes, or undefined: no lossy decode ever stands in for the bytes. */
export function decodeUtf8 (bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
