import t from 'tap';
import { MemorySessionStore } from '../../../src/sessions/memory.js';
import { isWellFormedSessionId, newSessionId } from '../../../src/sessions/store.js';

const state = { protocolVersion: '2025-11-25', initialized: false };

function store (ttlMs = 1000, maxSessions = 3) {
  // A clock as a real one reads: never zero (lru-cache takes a start time of 0 for "no TTL").
  let now = 1_000_000;
  const s = new MemorySessionStore({ ttlMs, maxSessions, now: () => now });
  t.teardown(() => s.close());
  return { s, advance: (ms: number) => (now += ms) };
}

t.test('session ids are unguessable visible ASCII', async (t) => {
  const ids = new Set(Array.from({ length: 1000 }, newSessionId));
  t.equal(ids.size, 1000, 'no repeats in 1000 ids');
  for (const id of ids) t.ok(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), `a random UUID, visible ASCII: ${id}`);
  t.notOk(isWellFormedSessionId(''), 'empty is not an id');
  t.notOk(isWellFormedSessionId('has space'), 'spaces are not visible ASCII');
  t.notOk(isWellFormedSessionId('x'.repeat(129)), 'too long');
});

t.test('a session lives while used and expires after the idle TTL', async (t) => {
  const { s, advance } = store(1000);
  const id = await s.create(state);
  advance(900);
  t.same(await s.get(id), state, 'alive before the TTL');
  advance(900);
  t.same(await s.get(id), state, 'use restarted the idle timer');
  advance(1001);
  t.equal(await s.get(id), undefined, 'gone once a full idle TTL has passed');
  t.equal(await s.size(), 0);
});

t.test('the cap evicts the least recently used session first', async (t) => {
  const { s } = store(60_000, 3);
  const a = await s.create(state);
  const b = await s.create(state);
  const c = await s.create(state);
  await s.get(a); // a is now the most recently used
  const d = await s.create(state);
  t.equal(await s.size(), 3, 'never more than the cap');
  t.equal(await s.get(b), undefined, 'b, least recently used, was evicted');
  t.ok(await s.get(a));
  t.ok(await s.get(c));
  t.ok(await s.get(d));
});

t.test('update and delete', async (t) => {
  const { s, advance } = store(1000);
  const id = await s.create(state);
  t.equal(await s.update(id, { ...state, initialized: true }), true);
  t.same(await s.get(id), { ...state, initialized: true });
  t.equal(await s.delete(id), true);
  t.equal(await s.delete(id), false, 'second delete finds nothing');
  t.equal(await s.update(id, state), false, 'cannot update a deleted session');
  const old = await s.create(state);
  advance(5000);
  t.equal(await s.update(old, state), false, 'cannot update an expired session');
  t.equal(await s.delete(old), false, 'an expired session is already gone');
});

t.test('memory stays bounded under a flood of sessions', async (t) => {
  const { s } = store(60_000, 100);
  for (let i = 0; i < 10_000; i++) await s.create(state);
  t.equal(await s.size(), 100);
});

t.test('the idle TTL reads a monotonic clock: a wall clock set forward does not end live sessions', async (t) => {
  // The wall clock jumps a day forward after the session is made (as when an operator fixes the time).
  const realNow = Date.now;
  let jump = 0;
  Date.now = () => realNow() + jump;
  t.teardown(() => {
    Date.now = realNow;
  });
  const s = new MemorySessionStore({ ttlMs: 60_000, maxSessions: 3 });
  t.teardown(() => s.close());
  const id = await s.create(state);
  jump = 86_400_000;
  t.same(await s.get(id), state, 'still there a (wall-clock) day later');
});
