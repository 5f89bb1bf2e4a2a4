import t from 'tap';
import { clientKey, UNREADABLE_CLIENT } from '../../../src/clients/client-key.js';

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

t.test('a port or brackets are no part of the client; what is no address is one shared client (issue 31, finding 5)', async (t) => {
  t.equal(clientKey('203.0.113.5:51000'), '203.0.113.5');
  t.equal(clientKey('203.0.113.5:51001'), '203.0.113.5', 'another connection, the same client');
  t.equal(clientKey('[2001:db8::1]:443'), '2001:db8:0:0::/64');
  t.equal(clientKey('[2001:db8::1]'), '2001:db8:0:0::/64');
  for (const junk of ['unknown', 'evil.example', '', '1.2.3', '203.0.113.5:x', '<script>']) t.equal(clientKey(junk), UNREADABLE_CLIENT, JSON.stringify(junk));
});
