import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { peerUrlAllowed } from '../registry/validate.js';
import { inLog } from './peer-text.js';

/** What kind of failure: the verify CLI words each kind its own way. */
export type FetchFailure = 'unreachable' | 'timeout' | 'cancelled' | 'status' | 'redirect' | 'type' | 'encoding' | 'too-big' | 'cut-off';

/** Why a peer's document could not be had: unreachable, a bad reply, too big, too slow. */
export class PeerFetchError extends Error {
  constructor (
    readonly failure: FetchFailure,
    message: string
  ) {
    super(message);
  }
}

export interface FetchLimits {
  readonly timeoutMs: number;
  /** Refused while reading, as soon as the body passes it. */
  readonly maxBytes: number;
  readonly maxRedirects: number;
  readonly allowLoopbackHttp: boolean;
  /** Ends the fetch early (another document of the peer failed, or the server is closing). */
  readonly signal?: AbortSignal;
  /** Refuse a reply whose content type is not JSON (peers must say JSON; `verify` reads whatever comes). */
  readonly requireJson?: boolean;
  /** Read a reply of any status within the same limits (the `demand` CLI words 401, 404 and 503 itself); else only 200. */
  readonly anyStatus?: boolean;
  /** More request headers (the `demand` CLI's bearer token). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FetchedDocument {
  readonly status: number;
  readonly body: Buffer;
  readonly etag: string | undefined;
}

/** The JSON media types a peer may answer with. */
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * GET one document from a peer: every redirect followed by hand (at most `maxRedirects`, each to
 * an address the peer rules allow), status 200, a JSON content type, no content encoding, at
 * most `maxBytes` (the declared length is checked first, then every chunk as it arrives), all
 * within `timeoutMs`. Rejects only with PeerFetchError.
 */
export async function fetchDocument (start: URL, limits: FetchLimits): Promise<Buffer> {
  return (await getDocument(start, { requireJson: true, ...limits })).body;
}

/** fetchDocument, with the reply's ETag (for `verify`, which compares them across documents). */
export async function getDocument (start: URL, limits: FetchLimits): Promise<FetchedDocument> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal === undefined ? timeout : AbortSignal.any([timeout, limits.signal]);
  const stopped = (): PeerFetchError =>
    timeout.aborted ? new PeerFetchError('timeout', `no answer within ${limits.timeoutMs} ms`) : new PeerFetchError('cancelled', 'cancelled');
  let url = start;
  for (let hops = 0; ; hops++) {
    if (signal.aborted) throw stopped();
    const reply = await getOnce(url, limits, signal, stopped);
    if (reply.kind === 'document') return reply.document;
    if (hops + 1 > limits.maxRedirects) {
      throw new PeerFetchError('redirect', limits.maxRedirects === 0 ? 'redirected: the documents must be served at that address' : `more than ${limits.maxRedirects} redirects`);
    }
    const next = URL.canParse(reply.location, url) ? new URL(reply.location, url) : undefined;
    // Same origin only: a peer may move a path, but not send us to probe other hosts.
    if (next === undefined || next.origin !== start.origin || !peerUrlAllowed(next.href, limits.allowLoopbackHttp)) {
      throw new PeerFetchError('redirect', 'redirected to another origin');
    }
    url = next;
  }
}

type Reply = { readonly kind: 'document'; readonly document: FetchedDocument } | { readonly kind: 'redirect'; readonly location: string };

/**
 * One request on its own socket (no pooled connection outlives it), with node:http rather than
 * fetch: every failure of the connection, the TLS session, the headers or the body arrives here
 * as an event we handle, and the socket is destroyed on every way out. fetch (undici) decodes
 * content encodings itself and could leave a body stream alive after rejecting, whose later
 * error reached the process as an uncaught exception. We ask for no encoding and refuse any:
 * nothing a peer sends is ever decompressed, so no chain of encodings and no decompression bomb.
 */
function getOnce (url: URL, limits: FetchLimits, signal: AbortSignal, stopped: () => PeerFetchError): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    let req: ClientRequest | undefined;
    let res: IncomingMessage | undefined;
    const finish = (outcome: { ok: true; reply: Reply } | { ok: false; error: PeerFetchError }) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      res?.destroy();
      req?.destroy();
      if (outcome.ok) resolve(outcome.reply);
      else reject(outcome.error);
    };
    const fail = (failure: FetchFailure, message: string) => finish({ ok: false, error: new PeerFetchError(failure, message) });
    const onAbort = () => finish({ ok: false, error: stopped() });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      req = send(url, { method: 'GET', agent: false, headers: { ...limits.headers, accept: 'application/json', 'accept-encoding': 'identity' } });
    } catch (err) {
      fail('unreachable', `unreachable (${codeOf(err)})`);
      return;
    }
    // After the headers, a failed connection is a body cut short, whatever Node calls it.
    req.on('error', (err) => (res === undefined ? fail('unreachable', `unreachable (${codeOf(err)})`) : fail('cut-off', 'the reply was cut off')));
    req.on('response', (response) => {
      res = response;
      response.on('error', () => fail('cut-off', 'the reply was cut off'));
      response.on('close', () => {
        if (!response.complete) fail('cut-off', 'the reply was cut off');
      });
      const location = response.headers.location;
      if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location !== undefined) {
        finish({ ok: true, reply: { kind: 'redirect', location } });
        return;
      }
      const status = response.statusCode ?? 0;
      if (status !== 200 && limits.anyStatus !== true) return fail('status', `HTTP ${status}`);
      const type = response.headers['content-type'];
      if (limits.requireJson && !JSON_TYPE.test(type ?? '')) return fail('type', `content type ${JSON.stringify(inLog(type ?? 'none', 60))}, not JSON`);
      const encoding = response.headers['content-encoding'];
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
        return fail('encoding', `content encoding ${JSON.stringify(inLog(encoding, 60))}: peers must serve their documents unencoded`);
      }
      const tooBig = () => fail('too-big', `larger than ${limits.maxBytes} bytes`);
      if (Number(response.headers['content-length'] ?? Number.NaN) > limits.maxBytes) return tooBig();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) return tooBig();
        chunks.push(chunk);
      });
      response.on('end', () => {
        const etag = response.headers.etag;
        finish({ ok: true, reply: { kind: 'document', document: { status, body: Buffer.concat(chunks), etag } } });
      });
    });
    req.end();
  });
}

/** A system error's code (ECONNREFUSED, CERT_HAS_EXPIRED), else its name: never a peer's text. */
function codeOf (err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code) ? code : ((err as Error).name ?? 'error');
}
