import t from 'tap';
import { BoundedMemo } from '../../../src/util/bounded-memo.js';
import { deepFreeze } from '../../../src/util/deep-freeze.js';

t.test('a bounded memo computes once per key and never holds more than its bound', async (t) => {
  const memo = new BoundedMemo<string, number>(3);
  let computed = 0;
  const square = (key: string) => {
    computed++;
    return Number(key) ** 2;
  };
  t.equal(memo.get('2', square), 4);
  t.equal(memo.get('2', square), 4);
  t.equal(computed, 1, 'a hit does not compute again');
  for (let i = 0; i < 10; i++) {
    memo.get(String(i), square);
    t.ok(memo.size <= 3, `never more than 3 (after key ${i}: ${memo.size})`);
  }
  const nothing = new BoundedMemo<string, null>(2);
  t.equal(nothing.get('a', () => null), null, 'null is a value worth remembering');
  t.equal(nothing.get('a', () => { throw new Error('computed twice'); }), null);
  t.throws(() => new BoundedMemo(0), RangeError, 'a memo holds at least one value');
});

t.test('deepFreeze freezes every level and leaves what was frozen alone', async (t) => {
  const value = deepFreeze({ a: [{ b: 1 }], c: { d: { e: 'x' } } });
  t.ok(Object.isFrozen(value.a[0]));
  t.ok(Object.isFrozen(value.c.d));
  t.throws(() => {
    (value.c.d as { e: string }).e = 'y';
  }, TypeError);
  t.equal(deepFreeze(null), null);
  t.equal(deepFreeze('text'), 'text');
});
