import t from 'tap';
import { build, rpc } from '../../helpers/build.js';

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const statuses = async (app: Awaited<ReturnType<typeof build>>, requests: { remoteAddress: string; headers?: Record<string, string> }[]) => {
  const out: number[] = [];
  for (const { remoteAddress, headers } of requests) out.push((await rpc(app, ping, { 'mcp-protocol-version': '2025-11-25', ...headers }, { remoteAddress })).statusCode);
  return out;
};

t.test('the rate limit counts an IPv6 client by its /64: rotating addresses inside it share one budget (issue 31, finding 6)', async (t) => {
  const app = await build(t, { rateLimitMax: 2 });
  const sameNetwork = ['2001:db8:1:2::a', '2001:db8:1:2::b', '2001:db8:1:2:ffff::c'].map((remoteAddress) => ({ remoteAddress }));
  const got = await statuses(app, sameNetwork);
  t.equal(got[2], 429, `the third address of the same /64 is limited (${got.join(', ')})`);
  t.not((await statuses(app, [{ remoteAddress: '2001:db8:1:3::a' }]))[0], 429, 'another /64 has its own budget');
});

t.test('behind a trusted proxy, a forwarded address with a port is the same client on every connection (issue 31, finding 5)', async (t) => {
  const app = await build(t, { rateLimitMax: 2, trustProxy: ['127.0.0.1'] });
  const forwarded = ['203.0.113.5:51000', '203.0.113.5:51001', '203.0.113.5:51002'].map((xff) => ({ remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } }));
  const got = await statuses(app, forwarded);
  t.equal(got[2], 429, `the third connection is limited (${got.join(', ')})`);
  const junk = ['junk-1', 'junk-2', 'junk-3'].map((xff) => ({ remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } }));
  t.equal((await statuses(app, junk))[2], 429, 'forwarded values that are no address count as one client');
});

t.test('one budget per client across /mcp, the page and /demand (issue 31, finding 2): spending it on one route limits the others', async (t) => {
  const app = await build(t, { rateLimitMax: 3, demandToken: 'a-demand-token-of-enough-length-000' });
  const remoteAddress = '198.51.100.7';
  t.equal((await app.inject({ method: 'GET', url: '/?q=learn+rust', remoteAddress })).statusCode, 200, 'a page search');
  t.equal((await app.inject({ method: 'GET', url: '/demand', remoteAddress })).statusCode, 401, 'a guess at the token');
  t.same(await statuses(app, [{ remoteAddress }, { remoteAddress }]), [200, 429], 'the third request of the budget is the last, whichever route spent it');
  t.equal((await app.inject({ method: 'GET', url: '/', remoteAddress })).statusCode, 429, 'the page is limited once /mcp has spent the rest');
  t.equal((await app.inject({ method: 'GET', url: '/demand', remoteAddress })).statusCode, 429, '/demand too');
  t.equal((await app.inject({ method: 'GET', url: '/?q=learn+rust', remoteAddress: '198.51.100.8' })).statusCode, 200, 'another client has its own budget');
});
