import t from 'tap';
import { clientKey, UNREADABLE_CLIENT } from '../../../src/clients/client-key.js';

t.test('a client is its IPv4 address, or the /64 network of its IPv6 address', async (t) => {
  t.equal(clientKey('10.0.0.1'), '10.0.0.1');
  t.equal(clientKey('::ffff:10.0.0.1'), '10.0.0.1', 'an IPv4-mapped address is the IPv4 client');
  t.equal(clientKey('2001:db8::1'), '2001:db8::/64');
  t.equal(clientKey('2001:db8:0:0:ffff::1'), '2001:db8::/64', 'the same /64, written another way');
  t.equal(clientKey('2001:0DB8:0000:0000:1:2:3:4'), '2001:db8::/64', 'leading zeros and capitals');
  t.equal(clientKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64', 'no :: at all');
  t.equal(clientKey('::1'), '::/64');
  t.equal(clientKey('fe80::1%eth0'), 'fe80::/64', 'a zone id is no part of the client');
  t.equal(clientKey('2001:db8:1:2::'), '2001:db8:1:2::/64', 'a trailing ::');
});

t.test('a port or brackets are no part of the client; what is no address is one shared client (issue 31, finding 5)', async (t) => {
  t.equal(clientKey('203.0.113.5:51000'), '203.0.113.5');
  t.equal(clientKey('203.0.113.5:51001'), '203.0.113.5', 'another connection, the same client');
  t.equal(clientKey('[2001:db8::1]:443'), '2001:db8::/64');
  t.equal(clientKey('[2001:db8::1]'), '2001:db8::/64');
  for (const junk of ['unknown', 'evil.example', '', '1.2.3', '203.0.113.5:x', '<script>']) t.equal(clientKey(junk), UNREADABLE_CLIENT, JSON.stringify(junk));
});

t.test('an IPv6 client is its network of the prefix asked for; IPv4 and IPv4-mapped addresses whatever it is (issue 31, finding 7)', async (t) => {
  t.equal(clientKey('2001:db8:1:2ff::1', 56), '2001:db8:1:200::/56', 'a /56: the low 8 bits of the fourth group go');
  t.equal(clientKey('2001:db8:1:2aa:5::9', 56), '2001:db8:1:200::/56', 'another /64 of the same home');
  t.equal(clientKey('2001:db8:1:2ff::1', 128), '2001:db8:1:2ff::1/128', '128: each address');
  t.equal(clientKey('::ffff:7f00:1', 56), '127.0.0.1', 'an IPv4-mapped address in hex is its IPv4 client');
  t.equal(clientKey('10.1.2.3', 32), '10.1.2.3');
  t.equal(clientKey('127.1'), UNREADABLE_CLIENT, 'shorthand IPv4 is no address a socket or proxy gives');
});
