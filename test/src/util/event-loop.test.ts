import t from 'tap';
import { sortWithPauses, STEPS_BETWEEN_PAUSES } from '../../../src/util/event-loop.js';

t.test('sortWithPauses sorts as Array.prototype.sort does, stable, across many slices', async (t) => {
  // Items with many ties (key) and their original place (at): stability shows in `at` order among equal keys.
  const items = Array.from({ length: STEPS_BETWEEN_PAUSES * 7 + 123 }, (_, at) => ({ key: (at * 7919) % 97, at }));
  const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
  t.same(await sortWithPauses(items, byKey), [...items].sort(byKey), 'the same order, ties in their first order');
  t.same(await sortWithPauses([], byKey), []);
  t.same(await sortWithPauses([{ key: 2, at: 0 }, { key: 1, at: 1 }], byKey), [{ key: 1, at: 1 }, { key: 2, at: 0 }]);
});

t.test('sortWithPauses lets timers run while it sorts', async (t) => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  await sortWithPauses(Array.from({ length: STEPS_BETWEEN_PAUSES * 20 }, (_, i) => (i * 7919) % 10007), (a, b) => a - b);
  clearInterval(timer);
  t.ok(ticks > 0, `a timer ran ${ticks} times during the sort`);
});
