import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** An executable named `name` on PATH, if there is one (what the shell would run). */
export function binaryOnPath (name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
