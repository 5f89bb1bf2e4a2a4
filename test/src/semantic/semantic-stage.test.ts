import t, { type Test } from 'tap';
import { build, callTool, openSession } from '../../helpers/build.js';

// Shares a weak word or two with several categories of the shipped registry, and is declined.
const QUESTION = 'a stranger keeps trying to get into my accounts';

interface Declined {
  readonly declined: { readonly candidates: readonly { readonly slug: string; readonly score: number; readonly similarity?: number }[] };
}

async function ask (t: Test, overrides: Parameters<typeof build>[1]) {
  const app = await build(t, overrides);
  const session = await openSession(app);
  const { json } = await callTool(app, session, 'get_sources', { query: QUESTION });
  const result = json.result as unknown as { isError?: boolean; content: { text: string }[]; structuredContent: Declined };
  t.equal(result.isError, true, 'declined');
  return result;
}

t.test('over MCP, a decline says how near in meaning each candidate is, and ranks them by it too', async (t) => {
  const result = await ask(t, {});
  const { candidates } = result.structuredContent.declined;
  t.ok(candidates.length >= 2 && candidates.length <= 5, `${candidates.length} candidates`);
  for (const c of candidates) t.type(c.similarity, 'number', `${c.slug}: similarity in structuredContent`);
  t.match(result.content[0]!.text, /\(slug: [a-z-]+, score \d\.\d{3}, similarity in meaning \d\.\d{3}\)/, 'and in the text the agent reads');
  t.equal(candidates[0]!.slug, 'password-management', 'the account question is nearest to password management, though linux-hardening scores more by words');
});

t.test('SEMANTIC_STAGE=off: the same decline names candidates by words alone', async (t) => {
  const result = await ask(t, { semanticStage: false });
  const { candidates } = result.structuredContent.declined;
  t.ok(candidates.length >= 1);
  for (const c of candidates) t.equal(c.similarity, undefined, `${c.slug}: no similarity`);
  t.notMatch(result.content[0]!.text, /similarity/);
  t.equal(candidates[0]!.slug, 'linux-hardening', 'the best score by words leads');
});
