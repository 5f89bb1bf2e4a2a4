import t from 'tap';
import { BUCKETS, bucketOf, DailySalt, dateOf, dayOf } from '../../../src/demand/client-bucket.js';

t.test('a bucket is one of 64, the same for the same salt and client, and the salt changes with the day', async (t) => {
  const b = bucketOf('salt', 'client');
  t.ok(b >= 0 && b < BUCKETS);
  t.equal(bucketOf('salt', 'client'), b);
  const daily = new DailySalt();
  const buckets = (day: number) => Array.from({ length: 40 }, (_, i) => daily.bucket(day, `10.0.0.${i}`)).join(',');
  const first = buckets(1);
  t.equal(buckets(1), first, 'stable within a day');
  t.not(buckets(2), first, 'another salt the next day (40 clients all in the same buckets again: 1 in 64^40)');
  t.equal(dateOf(dayOf(Date.UTC(2026, 10, 26, 23, 59))), '2026-11-26');
});
