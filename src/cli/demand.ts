import { readFile } from 'node:fs/promises';
import { formatReport, type DemandReport } from '../demand/report.js';
import { takeOption, type CliIo } from './io.js';

export const DEMAND_USAGE =
  'demand <url> --token-file <file> [--json]   print what agents asked that nobody covers (a server\'s GET /demand, behind its DEMAND_TOKEN): totals, uncovered topics, near-misses, scope refusals';

/** A server's base URL ("https://3gs.example.org/", "https://example.org/3gs/") means its /demand; any other URL is read as it is. */
export function demandUrl(text: string): URL {
  const url = new URL(text);
  return url.pathname.endsWith('/') ? new URL('demand', url) : url;
}

/** What a server answered, shown to the terminal: printable characters only, never its escape sequences. */
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').slice(0, 300);

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** `three-good-sources demand <url> --token-file F`: the curator's demand report. */
export async function demand(args: readonly string[], io: CliIo): Promise<number> {
  const json = args.includes('--json');
  const { value: tokenFile, rest } = takeOption(args.filter((a) => a !== '--json'), 'token-file');
  if (rest.length !== 1 || tokenFile === undefined || !URL.canParse(rest[0]!) || !/^https?:$/.test(new URL(rest[0]!).protocol)) {
    io.err(`usage: three-good-sources ${DEMAND_USAGE}`);
    return 1;
  }
  let token: string;
  try {
    // The token stays out of the command line (and so out of shell history and ps).
    token = (await readFile(tokenFile, 'utf8')).trim();
  } catch (err) {
    io.err(`cannot read the token file ${tokenFile} (${(err as NodeJS.ErrnoException).code ?? 'read error'})`);
    return 1;
  }
  if (token === '') {
    io.err(`the token file ${tokenFile} is empty: put the server's DEMAND_TOKEN in it`);
    return 1;
  }
  const url = demandUrl(rest[0]!);
  if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) io.err(`warning: sending the token over plain http to ${url.host}: anyone on the way can read it; use https`);
  let res: Response;
  let body: string;
  try {
    // No redirects: the token would follow them to wherever they point.
    res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(15_000) });
    body = await res.text();
  } catch (err) {
    io.err(`cannot reach ${url.href}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    return 1;
  }
  if (res.status === 401) {
    io.err(`${url.href} refused the token (401): check the file holds the server's DEMAND_TOKEN`);
    return 1;
  }
  if (res.status === 404) {
    io.err(`${url.href} has no demand report (404): the server runs without DEMAND_TOKEN, so the route does not exist`);
    return 1;
  }
  if (!res.ok) {
    io.err(`${url.href} answered ${res.status}: ${printable(body)}`);
    return 1;
  }
  let report: DemandReport | undefined;
  try {
    report = JSON.parse(body) as DemandReport;
  } catch {
    report = undefined;
  }
  if (typeof report?.totals?.requests !== 'number') {
    io.err(`${url.href} answered something other than a demand report: is it a Three Good Sources server's /demand?`);
    return 1;
  }
  if (json) io.out(JSON.stringify(report, null, 2));
  else io.out(formatReport(report).trimEnd());
  return 0;
}
