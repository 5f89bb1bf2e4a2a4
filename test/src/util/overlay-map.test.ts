import t from 'tap';
import { OverlayMap } from '../../../src/util/overlay-map.js';

t.test('a map read through a few changes: changed, removed and untouched entries, every way a ReadonlyMap is read', async (t) => {
  const base = new Map([['a', 1], ['b', 2], ['c', 3]]);
  const map = new OverlayMap(base, new Map<string, number | undefined>([['b', 20], ['c', undefined], ['d', 4]]));
  t.equal(map.get('a'), 1, 'untouched');
  t.equal(map.get('b'), 20, 'changed');
  t.equal(map.get('c'), undefined, 'removed');
  t.equal(map.get('d'), 4, 'added');
  t.same([map.has('a'), map.has('c'), map.has('z')], [true, false, false]);
  t.equal(map.size, 3);
  t.same([...map.entries()].sort(), [['a', 1], ['b', 20], ['d', 4]]);
  t.same([...map.keys()].sort(), ['a', 'b', 'd']);
  t.same([...map.values()].sort(), [1, 20, 4].sort());
  t.same([...map].sort(), [['a', 1], ['b', 20], ['d', 4]]);
  const seen: string[] = [];
  map.forEach((v, k, m) => {
    seen.push(`${k}=${v}`);
    t.equal(m, map);
  });
  t.same(seen.sort(), ['a=1', 'b=20', 'd=4']);
  t.same([...base.entries()], [['a', 1], ['b', 2], ['c', 3]], 'the base is never changed');
});
