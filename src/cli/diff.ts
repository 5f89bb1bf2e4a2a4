import semver from 'semver';
import { fetchDocument, PeerFetchError } from '../federation/fetch.js';
import { describeChange, registryChanges } from '../provenance/changes.js';
import { readRegistry, registryFromBytes } from '../registry/load.js';
import { WHOLE_REGISTRY } from '../registry/paths.js';
import type { RegistryCheck } from '../registry/validate.js';
import type { CliIo } from './io.js';

export const DIFF_USAGE =
  'diff <old> <new>   print what changed between two registries, in the words of the history; each is a file or a URL (a server\'s base URL, whose /registry is read, or the URL of a registry file)';

/** What a download may be: the limits a peer's registry has. */
const DOWNLOAD = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 3, allowLoopbackHttp: true } as const;

/** A server's base URL ("https://3gs.example.org/") means its /registry; any other URL is read as it is. */
export function registryUrl(text: string): URL {
  const url = new URL(text);
  return url.pathname === '/' || url.pathname === '' ? new URL('registry', url) : url;
}

/** A registry from a file or an http(s) URL, checked with the server's rules. */
async function readEither(where: string): Promise<RegistryCheck> {
  if (!/^https?:\/\//i.test(where)) return readRegistry(where);
  let url: URL;
  try {
    url = registryUrl(where);
  } catch {
    return { ok: false, problems: [`${WHOLE_REGISTRY}: not a valid URL`] };
  }
  try {
    return registryFromBytes(await fetchDocument(url, DOWNLOAD));
  } catch (err) {
    if (!(err instanceof PeerFetchError)) throw err;
    return { ok: false, problems: [`${WHOLE_REGISTRY}: cannot download ${url.href} (${err.message})`] };
  }
}

/** The history's change lines for any two registries (the curator's draft, a signed copy, a server's). */
export async function diff(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length !== 2 || args.some((a) => a.startsWith('--'))) {
    io.err(`usage: three-good-sources ${DIFF_USAGE}`);
    return 1;
  }
  const [oldFile, newFile] = args as [string, string];
  const [before, after] = await Promise.all([readEither(oldFile), readEither(newFile)]);
  let failed = false;
  for (const [file, read] of [[oldFile, before], [newFile, after]] as const) {
    if (read.ok) continue;
    for (const p of read.problems) io.err(`error ${file}: ${p}`);
    failed = true;
  }
  if (!before.ok || !after.ok || failed) {
    io.err('FAIL only two valid registries can be compared');
    return 1;
  }
  const changes = registryChanges(before.registry, after.registry);
  const [from, to] = [before.registry.version, after.registry.version];
  io.out(`${oldFile} (${from}) -> ${newFile} (${to}): ${changes.length === 0 ? 'no changes' : `${changes.length} change${changes.length === 1 ? '' : 's'}`}`);
  for (const c of changes) io.out(`  ${describeChange(c)}`);
  // sign refuses a version that is not greater than the last signed one: said before it is tried.
  if (changes.length > 0 && !semver.gt(to, from)) {
    io.out(`warning version not raised: ${newFile} has changes but version ${to}, not greater than ${from}; raise "version" (e.g. ${semver.inc(from, 'patch')}) before signing`);
  }
  return 0;
}
