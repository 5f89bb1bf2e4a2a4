import semver from 'semver';
import { fetchDocument, PeerFetchError } from '../federation/fetch.js';
import { describeChange, registryChanges, type Change } from '../provenance/changes.js';
import { readRegistry, registryFromBytes } from '../registry/load.js';
import { WHOLE_REGISTRY } from '../registry/paths.js';
import type { Registry } from '../registry/types.js';
import type { RegistryCheck } from '../registry/validate.js';
import type { CliIo } from './io.js';

export const DIFF_USAGE =
  'diff <old> <new>   print what changed between two registries, in the words of the history; each is a file or a URL (a server\'s base URL, whose /registry is read, or the URL of a registry file)';

/** What a download may be: the limits a peer's registry has. */
const DOWNLOAD = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 3, allowLoopbackHttp: true } as const;

/** A server's base URL ("https://3gs.example.org/") means its /registry; any other URL is read as it is. */
export function registryUrl (text: string): URL {
  const url = new URL(text);
  return url.pathname === '/' || url.pathname === '' ? new URL('registry', url) : url;
}

/** A registry from a file or an http(s) URL, checked with the server's rules. */
async function readEither (where: string): Promise<RegistryCheck> {
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
export async function diff (args: readonly string[], io: CliIo): Promise<number> {
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
  for (const c of changes) {
    io.out(`  ${describeChange(c)}`);
    for (const line of changedText(before.registry, after.registry, c)) io.out(`      ${line}`);
  }
  // sign refuses a version that is not greater than the last signed one: said before it is tried.
  if (changes.length > 0 && !semver.gt(to, from)) {
    io.out(`warning version not raised: ${newFile} has changes but version ${to}, not greater than ${from}; raise "version" (e.g. ${semver.inc(from, 'patch')}) before signing`);
  }
  return 0;
}

/** What a changed field held before and holds now: a text as old and new, a list as what left and what came (each clipped). */
function changedText (before: Registry, after: Registry, c: Change): string[] {
  if (c.change !== 'changed' || !('fields' in c) || !('category' in c)) return [];
  const pick = (r: Registry): Readonly<Record<string, unknown>> | undefined => {
    const category = Object.hasOwn(r.categories, c.category) ? r.categories[c.category] : undefined;
    const found: object | undefined = 'rank' in c ? category?.sources.find((s) => s.rank === c.rank) : category;
    return found as Readonly<Record<string, unknown>> | undefined;
  };
  const [old, now] = [pick(before), pick(after)];
  return c.fields.flatMap((field) => {
    const [a, b] = [old?.[field], now?.[field]];
    if (Array.isArray(a) || Array.isArray(b)) {
      const [was, is] = [new Set((a ?? []) as unknown[]), new Set((b ?? []) as unknown[])];
      const gone = [...was].filter((x) => !is.has(x)).map(shown);
      const came = [...is].filter((x) => !was.has(x)).map(shown);
      return [`${field}:${gone.length > 0 ? ` removed ${gone.join(', ')}` : ''}${gone.length > 0 && came.length > 0 ? ';' : ''}${came.length > 0 ? ` added ${came.join(', ')}` : ''}${gone.length + came.length === 0 ? ' reordered' : ''}`];
    }
    return [`${field}: ${shown(a)}`, `${' '.repeat(field.length)}  -> ${shown(b)}`];
  });
}

/** A value as JSON, at most 200 characters: a curator reads it in a terminal. */
function shown (value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
