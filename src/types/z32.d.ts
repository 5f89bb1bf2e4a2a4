/** z32 ships no types; these are the two functions we use. */
declare module 'z32' {
  export function encode (data: Uint8Array | string): string;
  export function decode (text: string): Buffer;
}
