import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a whole file or nothing: the content goes to a temporary file in the same folder
 * (same file system, so the rename is atomic), which then replaces the target. A reader sees
 * the old file or the new one, never half of either; a failure leaves the old one as it was.
 */
export async function writeFileAtomic (file: string, content: string | Uint8Array, mode?: number): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', mode);
    try {
      await handle.writeFile(content);
      // On disk before the rename makes it the file: a power cut must not leave an empty history.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
    const folder = await open(dirname(file), 'r');
    await folder.sync().finally(() => folder.close());
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}
