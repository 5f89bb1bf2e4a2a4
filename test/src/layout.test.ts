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

t.test('the layout the README describes: src/ imports no Fastify (but the composition root); each file directly in plugins/ is a Fastify plugin, what they share sits in plugins/support/ (issue 24, item 21)', async (t) => {
  // app.ts is the composition root: it builds the Fastify instance and registers the plugins.
  for (const file of sources(join(ROOT, 'src')).filter((f) => relative(ROOT, f) !== join('src', 'app.ts'))) {
    t.notMatch(readFileSync(file, 'utf8'), /from '(fastify|@fastify\/[\w-]+|fastify-plugin)'/, `${relative(ROOT, file)}: no Fastify import`);
  }
  const top = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'));
  t.ok(top.length >= 8);
  for (const entry of top) {
    const text = readFileSync(join(ROOT, 'plugins', entry.name), 'utf8');
    t.match(text, /export const \w+(: FastifyPluginAsync<[^>]*>)? = (fp(<[^>]*>)?\(|async \(app)/, `plugins/${entry.name}: exports a plugin`);
  }
  for (const file of sources(join(ROOT, 'plugins', 'support'))) {
    t.notMatch(readFileSync(file, 'utf8'), /FastifyPluginAsync|fastify-plugin/, `${relative(ROOT, file)}: no plugin here, only what plugins share`);
  }
});

t.test("the page builds from the tools' own typed services: it never calls a tool and casts its output (issue 24, item 19)", async (t) => {
  for (const file of sources(join(ROOT, 'src', 'page'))) {
    const text = readFileSync(file, 'utf8');
    t.notMatch(text, /as unknown as/, `${relative(ROOT, file)}: no cast of a tool's output`);
    t.notMatch(text, /callTool\(/, `${relative(ROOT, file)}: no tool call`);
  }
});
