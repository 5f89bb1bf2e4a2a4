/**
 * The framework's ceiling: a bare Fastify server answering every POST /mcp with a canned reply
 * of the size of a get_sources answer. Nothing the real server does can be faster than this.
 */
import Fastify from 'fastify';

const size = Number(process.env.REPLY_BYTES ?? 2600);
const text = 'x'.repeat(Math.max(0, size - 80));
const reply = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });

const app = Fastify({ logger: false });
app.post('/mcp', async (_request, res) => res.header('content-type', 'application/json').send(reply));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
// Exit cleanly on SIGTERM so that BENCH_NODE_ARGS="--cpu-prof" can write its profile.
process.once('SIGTERM', () => { void app.close().then(() => process.exit(0)); });
