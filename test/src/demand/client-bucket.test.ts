import t from 'tap';
import { BUCKETS, bucketOf, clientKey, DailySalt, dateOf, dayOf } from '../../../src/demand/client-bucket.js';

t.test('a client is its IPv4 address, or the /64 network of its IPv6 address', async (t) => {
  t.equal(clientKey('10.0.0.1'), '10.0.0.1');
  t.equal(clientKey('::ffff:10.0.0.1'), '10.0.0.1', 'an IPv4-mapped address is the IPv4 client');
  t.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  t.equal(clientKey('2001:db8:0:0:ffff::1'), '2001:db8:0:0::/64', 'the same /64, written another way');
  t.equal(clientKey('2001:0DB8:0000:0000:1:2:3:4'), '2001:db8:0:0::/64', 'leading zeros and capitals');
  t.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64', 'no :: at all');
  t.equal(clientKey('::1'), '0:0:0:0::/64');
  t.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64', 'a zone id is no part of the client');
  t.equal(clientKey('2001:db8:1:2::'), '2001:db8:1:2::/64', 'a trailing ::');
});

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
