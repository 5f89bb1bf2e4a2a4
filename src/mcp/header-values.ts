const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** RFC 9110 field values: visible ASCII, space and tab. */
const PLAIN = /^[\x20-\x7e\t]*$/;

/**
 * Decodes a mirrored header value (`Mcp-Name`, `Mcp-Param-*`): plain ASCII as is, or the
 * `=?base64?...?=` sentinel form. "Servers MUST decode an encoded Mcp-Name ... value before
 * comparing it to the corresponding request body value." Undefined when malformed.
 */
export function decodeHeaderValue (value: string): string | undefined {
  if (value.startsWith('=?base64?')) {
    const match = SENTINEL.exec(value);
    if (match === null || match[1]!.length % 4 !== 0) return undefined;
    return Buffer.from(match[1]!, 'base64').toString('utf8');
  }
  return PLAIN.test(value) ? value : undefined;
}
