const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests arrays and objects at most `max` deep, found in one pass over the bytes
 * before anything parses them: canonicalize (and our own walks over parsed data) recurse once per
 * level, so a reply nested a million deep must be refused while it is still bytes. Written by
 * hand: no JSON library we use takes a depth limit, and this is a dozen lines of byte scanning
 * (strings skipped, escapes honoured). It says nothing of whether the text is valid JSON.
 */
export function jsonDepthWithin (bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return false;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return true;
}
