import t from 'tap';
import { prepareCatalog } from '../../../src/catalog.js';
import { callTool } from '../../../src/mcp/tools/toolbox.js';
import { answersFor } from '../../../src/mcp/tools/get-sources.js';
import { homeView } from '../../../src/page/view.js';
import { SHIPPED_REGISTRY, serverSigning, testConfig } from '../../helpers/build.js';

// Issue 31, finding 10: a remembered answer comes back faster than one worked out, so a memo
// shared by every client would let one client time whether another asked a guessed question.
// Answers and rankings are remembered per asker: what one client asked never speeds another's.

const ask = (query: string) => ({ name: 'get_sources', arguments: { query } });

t.test("one client's question is never remembered for another: answers and rankings are kept per asker", async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), testConfig().matchThreshold);
  const query = 'how do I keep a sourdough starter alive';
  callTool(ask(query), catalog, undefined, undefined, { asker: '198.51.100.1' });
  const after = { answers: answersFor(catalog).size, rankings: catalog.matcher.remembered().rankings };
  callTool(ask(query), catalog, undefined, undefined, { asker: '198.51.100.1' });
  t.same({ answers: answersFor(catalog).size, rankings: catalog.matcher.remembered().rankings }, after, 'the same client asking again is answered from memory');
  callTool(ask(query), catalog, undefined, undefined, { asker: '198.51.100.2' });
  t.equal(answersFor(catalog).size, after.answers + 1, "another client's answer is worked out afresh");
  t.equal(catalog.matcher.remembered().rankings, after.rankings + 1, 'and so is its ranking');
  homeView(catalog, { baseUrl: 'http://localhost:3000', query, asker: '198.51.100.3' });
  t.equal(catalog.matcher.remembered().rankings, after.rankings + 2, 'a page search is its own asker too');
});

t.test('what a misspelt word resolved to is remembered per asker too', async (t) => {
  const catalog = await prepareCatalog(SHIPPED_REGISTRY, serverSigning(), testConfig().matchThreshold);
  const query = 'how do I harden my linnux servver';
  callTool(ask(query), catalog, undefined, undefined, { asker: '198.51.100.1' });
  const once = catalog.matcher.remembered().corrections;
  t.ok(once > 0, `corrections remembered (${once})`);
  callTool(ask(`${query}?`), catalog, undefined, undefined, { asker: '198.51.100.1' });
  t.equal(catalog.matcher.remembered().corrections, once, 'the same client: from memory');
  callTool(ask(query), catalog, undefined, undefined, { asker: '198.51.100.2' });
  t.equal(catalog.matcher.remembered().corrections, once * 2, 'another client: looked up afresh');
});
