import { readFile } from 'node:fs/promises';
import { formatReport, type DemandReport } from '../demand/report.js';
import { demandReportProblem } from '../demand/report-shape.js';
import { getDocument, PeerFetchError, type FetchedDocument } from '../federation/fetch.js';
import { takeOption, type CliIo } from './io.js';

export const DEMAND_USAGE =
  'demand <url> --token-file <file> [--json] [--timeout <seconds>]   print what agents asked that nobody covers (a server\'s GET /demand, behind its DEMAND_TOKEN): totals, uncovered topics, near-misses, scope refusals';

/** A server's base URL ("https://3gs.example.org/", "https://example.org/3gs/") means its /demand; any other URL is read as it is. */
export function demandUrl (text: string): URL {
  const url = new URL(text);
  return url.pathname.endsWith('/') ? new URL('demand', url) : url;
}

/** The whole reply is read within these: a demand report is a few kilobytes (SHOWN bounds its lists). */
export const MAX_REPORT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_TIMEOUT_S = 15;

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** `three-good-sources demand <url> --token-file F`: the curator's demand report. */
export async function demand (args: readonly string[], io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const { value: tokenFile, rest: afterToken } = takeOption(args.filter((a) => a !== '--json'), 'token-file');
  const { value: timeoutText, rest } = takeOption(afterToken, 'timeout');
  const timeoutS = timeoutText === undefined ? DEFAULT_TIMEOUT_S : Number(timeoutText);
  if (!(timeoutS > 0 && timeoutS <= 600)) {
    io.err(`--timeout must be a number of seconds above 0, at most 600 (got ${JSON.stringify(timeoutText)})`);
    return 1;
  }
  if (rest.length !== 1 || tokenFile === undefined || !URL.canParse(rest[0]!) || !/^https?:$/.test(new URL(rest[0]!).protocol)) {
    io.err(`usage: three-good-sources ${DEMAND_USAGE}`);
    return 1;
  }
  const report = await fetchDemandReport(rest[0]!, tokenFile, timeoutS, io);
  if (report === undefined) return 1;
  if (json) io.out(JSON.stringify(report, null, 2));
  else io.out(formatReport(report).trimEnd());
  return 0;
}

/**
 * A server's demand report, read as `demand` reads it (a token from a file, no redirect, bounded,
 * its shape checked, its text made visible); undefined, with one line said, when it cannot be.
 */
export async function fetchDemandReport (urlText: string, tokenFile: string, timeoutS: number, io: CliIo): Promise<DemandReport | undefined> {
  let token: string;
  try {
    // The token stays out of the command line (and so out of shell history and ps).
    token = (await readFile(tokenFile, 'utf8')).trim();
  } catch (err) {
    io.err(`cannot read the token file ${tokenFile} (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
    return undefined;
  }
  if (token === '') {
    io.err(`the token file ${tokenFile} is empty: put the server's DEMAND_TOKEN in it`);
    return undefined;
  }
  const url = demandUrl(urlText);
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) io.err(`warning: sending the token over plain http to ${url.host}: anyone on the way can read it; use https`);
  let reply: FetchedDocument;
  try {
    // No redirects: the token would follow them to wherever they point. A byte cap and one
    // deadline for the whole reply, nothing decompressed: a hostile or broken server costs at
    // most MAX_REPORT_BYTES of memory and --timeout of waiting.
    reply = await getDocument(url, { timeoutMs: timeoutS * 1000, maxBytes: MAX_REPORT_BYTES, maxRedirects: 0, allowLoopbackHttp: true, anyStatus: true, headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    io.err(`cannot reach ${url.href}: ${err instanceof PeerFetchError ? err.message : 'unreachable'}`);
    return undefined;
  }
  const body = reply.body.toString('utf8');
  if (reply.status === 401) {
    io.err(`${url.href} refused the token (401): check the file holds the server's DEMAND_TOKEN`);
    return undefined;
  }
  if (reply.status === 404) {
    io.err(`${url.href} has no demand report (404): the server runs without DEMAND_TOKEN, so the route does not exist`);
    return undefined;
  }
  if (reply.status !== 200) {
    io.err(`${url.href} answered ${reply.status}: ${visible(body).slice(0, 300)}`);
    return undefined;
  }
  let report: unknown;
  try {
    report = JSON.parse(body);
  } catch {
    report = undefined;
  }
  const problem = demandReportProblem(report);
  if (problem !== undefined) {
    io.err(`${url.href} answered something other than a demand report (${visible(problem).slice(0, 200)}): is it a Three Good Sources server's /demand?`);
    return undefined;
  }
  return withVisibleText(report) as DemandReport;
}

/**
 * Characters a terminal acts on rather than shows (controls, format characters such as
 * bidirectional overrides, line and paragraph separators): written as \u escapes, so that a
 * server's text can neither write the clipboard, make a link, move the cursor nor reorder what is
 * printed around it (issue 31, finding 9). The same classes peer-text.ts removes from peers' text.
 */
const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
export const visible = (text: string): string => text.replace(CONTROLS, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);

/** `value` with every string in it (keys too) made visible. */
function withVisibleText (value: unknown): unknown {
  if (typeof value === 'string') return visible(value);
  if (Array.isArray(value)) return value.map(withVisibleText);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [visible(k), withVisibleText(v)]));
  return value;
}
