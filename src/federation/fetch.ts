import { peerUrlAllowed } from '../registry/validate.js';

/** Why a peer's document could not be had: unreachable, a bad reply, too big, too slow. */
export class PeerFetchError extends Error {}

export interface FetchLimits {
  readonly timeoutMs: number;
  /** Refused while reading, as soon as the body passes it. */
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly allowLoopbackHttp: boolean;
  /** Ends the fetch early (another document of the peer failed, or the server is closing). */
  readonly signal?: AbortSignal;
}

/** The JSON media types a peer may answer with. */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * GET one document from a peer: every redirect followed by hand (at most `maxRedirects`, each to
 * an address the peer rules allow), status 200, a JSON content type, at most `maxBytes` (the
 * declared length is checked first, then every chunk as it arrives), all within `timeoutMs`.
 */
export async function fetchDocument(start: URL, limits: FetchLimits): Promise<Buffer> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal === undefined ? timeout : AbortSignal.any([timeout, limits.signal]);
  let url = start;
  for (let hops = 0; ; hops++) {
    let res: Response;
    try {
      res = await fetch(url, { signal, redirect: 'manual', headers: { accept: 'application/json' } });
    } catch (err) {
      throw new PeerFetchError(timeout.aborted ? `no answer within ${limits.timeoutMs} ms` : signal.aborted ? 'cancelled' : `unreachable (${describeCause(err)})`);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
      if (hops + 1 > limits.maxRedirects) throw new PeerFetchError(`more than ${limits.maxRedirects} redirects`);
      // Same origin only: a peer may move a path, but not send us to probe other hosts.
      if (next === undefined || next.origin !== start.origin || !peerUrlAllowed(next.href, limits.allowLoopbackHttp)) {
        throw new PeerFetchError('redirected to another origin');
      }
      url = next;
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new PeerFetchError(`HTTP ${res.status}`);
    }
    if (!JSON_TYPE.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel();
      throw new PeerFetchError(`content type ${JSON.stringify((res.headers.get('content-type') ?? 'none').slice(0, 60))}, not JSON`);
    }
    return readCapped(res, limits, signal, timeout);
  }
}

async function readCapped(res: Response, limits: FetchLimits, signal: AbortSignal, timeout: AbortSignal): Promise<Buffer> {
  const tooBig = () => new PeerFetchError(`larger than ${limits.maxBytes} bytes`);
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > limits.maxBytes) {
    await res.body?.cancel();
    throw tooBig();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  try {
    for (;;) {
      const { done, value } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      size += value.length;
      if (size > limits.maxBytes) {
        await reader?.cancel();
        throw tooBig();
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof PeerFetchError) throw err;
    throw new PeerFetchError(timeout.aborted ? `no answer within ${limits.timeoutMs} ms` : signal.aborted ? 'cancelled' : 'the reply was cut off');
  }
  return Buffer.concat(chunks);
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).name;
}
