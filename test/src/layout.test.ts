import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/build.js';

/** Every .ts file under `dir`. */
function sources (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

t.test('the layout the README describes: src/ imports no Fastify (but the composition root); plugins/ holds the app plugin, infrastructure/ and routes/ one Fastify plugin per file, support/ what they share (issues 24 and 33)', async (t) => {
  // app.ts is the composition root: it builds the Fastify instance and registers the app plugin.
  for (const file of sources(join(ROOT, 'src')).filter((f) => relative(ROOT, f) !== join('src', 'app.ts'))) {
    t.notMatch(readFileSync(file, 'utf8'), /from '(fastify|@fastify\/[\w-]+|fastify-plugin)'/, `${relative(ROOT, file)}: no Fastify import`);
  }
  const src = readFileSync(join(ROOT, 'src', 'app.ts'), 'utf8');
  t.notMatch(src, /FastifyPluginAsync/, 'the composition root holds no plugin of its own');
  t.match(readFileSync(join(ROOT, 'plugins', 'app.ts'), 'utf8'), /export const app: FastifyPluginAsync<AppParts> = async \(instance/, 'plugins/app.ts: the app as a plugin');
  const folders = ['infrastructure', 'routes'];
  const top = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  t.same(top, ['app.ts'], 'beside the folders, only the app plugin');
  for (const folder of folders) {
    const files = sources(join(ROOT, 'plugins', folder));
    t.ok(files.length >= (folder === 'routes' ? 7 : 3), `plugins/${folder}/ holds its plugins`);
    for (const file of files) {
      t.match(readFileSync(file, 'utf8'), /export const \w+(: FastifyPluginAsync<[^>]*>)? = (fp(<[^>]*>)?\(|async \(app)/, `${relative(ROOT, file)}: exports a plugin`);
    }
  }
  for (const file of sources(join(ROOT, 'plugins', 'support'))) {
    t.notMatch(readFileSync(file, 'utf8'), /FastifyPluginAsync|fastify-plugin/, `${relative(ROOT, file)}: no plugin here, only what plugins share`);
  }
  for (const folder of ['infrastructure', 'routes']) {
    t.ok(sources(join(ROOT, 'test', 'plugins', folder)).length > 0, `test/plugins/${folder}/ mirrors it`);
  }
});

t.test("the page builds from the tools' own typed services: it never calls a tool and casts its output (issue 24, item 19)", async (t) => {
  for (const file of sources(join(ROOT, 'src', 'page'))) {
    const text = readFileSync(file, 'utf8');
    t.notMatch(text, /as unknown as/, `${relative(ROOT, file)}: no cast of a tool's output`);
    t.notMatch(text, /callTool\(/, `${relative(ROOT, file)}: no tool call`);
  }
});
