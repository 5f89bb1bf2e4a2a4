import t from 'tap';
import { bitsSet, clientsSeen, see, SpaceSaving } from '../../../src/demand/space-saving.js';

t.test('Space-Saving never holds more than its capacity and keeps every item asked more than total/capacity times', async (t) => {
  const summary = new SpaceSaving(100);
  let total = 0;
  let largest = 0;
  // 200,000 distinct one-off items, and five heavy hitters among them.
  for (let i = 0; i < 200_000; i++) {
    summary.add(`noise ${i}`);
    total++;
    if (i % 50 === 0) for (const h of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) { summary.add(h); total++; }
    largest = Math.max(largest, summary.size);
  }
  t.equal(largest, 100, 'never more than 100 held');
  for (const h of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) {
    const c = summary.get(h);
    t.ok(c !== undefined, `${h} kept (asked 4,000 times of ${total}, more than ${total / 100})`);
    t.ok(c!.count - c!.error <= 4000 && c!.count >= 4000, `${h}: ${c!.count - c!.error} <= true count 4000 <= ${c!.count}`);
  }
});

t.test('counts are exact while the summary has room', async (t) => {
  const summary = new SpaceSaving(10);
  for (const [key, n] of [['a', 5], ['b', 3], ['c', 1]] as const) for (let i = 0; i < n; i++) summary.add(key);
  t.same([...summary.entries()].map(({ key, count, error }) => [key, count, error]), [['a', 5, 0], ['b', 3, 0], ['c', 1, 0]]);
  t.throws(() => new SpaceSaving(0), RangeError);
});

t.test('the least count is tracked through increments and evictions', async (t) => {
  const summary = new SpaceSaving(2);
  summary.add('a');
  summary.add('a');
  summary.add('b');
  // Full: c replaces b (the least, 1) and inherits its count as error.
  const c = summary.add('c');
  t.same([c.count, c.error], [2, 1]);
  t.equal(summary.get('b'), undefined);
  // Both at 2 now; d replaces one of them.
  const d = summary.add('d');
  t.same([d.count, d.error], [3, 2]);
  t.equal(summary.size, 2);
});

t.test('client buckets: 64 bits, counted', async (t) => {
  const c = new SpaceSaving(1).add('x');
  for (const b of [0, 1, 31, 32, 63, 63]) see(c, b);
  t.equal(clientsSeen(c), 5);
  t.equal(bitsSet(0xffffffff), 32);
  t.equal(bitsSet(0), 0);
});

t.test('a kept item is never evicted, counts on, and leaves the least count right', async (t) => {
  const summary = new SpaceSaving(2);
  const kept = summary.add('kept');
  summary.add('other');
  t.ok(summary.keep(kept), 'kept');
  t.ok(summary.keep(kept), 'keeping twice is harmless');
  for (let i = 0; i < 10; i++) summary.add(`new${i}`);
  t.equal(summary.get('kept')?.count, 1, 'never evicted');
  summary.add('kept');
  t.equal(summary.get('kept')?.count, 2, 'still counted');
  const last = summary.get('new9')!;
  t.equal(last.count - last.error, 1, 'the newest item counted once, its error the least count it inherited');
  t.equal(summary.size, 3, 'two counted beside the one kept');
  t.ok(summary.keep(last), 'a second item kept');
  t.notOk(summary.keep(summary.get('new8') ?? summary.add('new10')), 'no more kept than the capacity');
});
