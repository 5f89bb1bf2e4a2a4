import { describeChange, registryChanges } from '../provenance/changes.js';
import { readRegistry } from '../registry/load.js';
import type { CliIo } from './io.js';

export const DIFF_USAGE = 'diff <old.json> <new.json>   print what changed between two registry files, in the words of the history';

/** The history's change lines for any two registry files (the curator's draft, a signed copy, a download). */
export async function diff(args: readonly string[], io: CliIo): Promise<number> {
  if (args.length !== 2 || args.some((a) => a.startsWith('--'))) {
    io.err(`usage: three-good-sources ${DIFF_USAGE}`);
    return 1;
  }
  const [oldFile, newFile] = args as [string, string];
  const [before, after] = await Promise.all([readRegistry(oldFile), readRegistry(newFile)]);
  let failed = false;
  for (const [file, read] of [[oldFile, before], [newFile, after]] as const) {
    if (read.ok) continue;
    for (const p of read.problems) io.err(`error ${file}: ${p}`);
    failed = true;
  }
  if (!before.ok || !after.ok || failed) {
    io.err('FAIL only two valid registry files can be compared');
    return 1;
  }
  const changes = registryChanges(before.registry, after.registry);
  io.out(`${oldFile} (${before.registry.version}) -> ${newFile} (${after.registry.version}): ${changes.length === 0 ? 'no changes' : `${changes.length} change${changes.length === 1 ? '' : 's'}`}`);
  for (const c of changes) io.out(`  ${describeChange(c)}`);
  return 0;
}
