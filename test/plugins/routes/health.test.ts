import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, SHIPPED_REGISTRY, build } from '../../helpers/build.js';

t.test('/health names both versions apart: the server it is and the registry it serves now', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), '3gs-health-'));
  const file = join(dir, 'registry.json');
  const data = JSON.parse(await readFile(SHIPPED_REGISTRY, 'utf8'));
  await writeFile(file, JSON.stringify(data));
  const app = await build(t, { registryPath: file });
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));

  const before = await app.inject({ method: 'GET', url: '/health' });
  t.equal(before.statusCode, 200);
  t.same(before.json(), { status: 'ok', serverVersion: version, registryVersion: '1.0.0', categories: 10 });

  await writeFile(file, JSON.stringify({ ...data, version: '2.3.4' }));
  await app.reloadRegistry();
  t.same((await app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok', serverVersion: version, registryVersion: '2.3.4', categories: 10 });
});
