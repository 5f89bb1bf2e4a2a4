/**
 * The same four tools built the way most people would: the official TypeScript SDK's McpServer
 * and StreamableHTTPServerTransport, stateful (a transport per session), JSON replies, on
 * node:http. The tools call our own tool code, so the difference measured is the stack around it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { prepareCatalog } from '../../src/catalog.js';
import { loadConfig } from '../../src/config.js';
import { callTool } from '../../src/mcp/tools/toolbox.js';
import { generateKey } from '../../src/provenance/keys.js';

const config = loadConfig({});
const catalog = await prepareCatalog(config.registryPath, { mode: 'ephemeral', key: generateKey(true).key }, config.matchThreshold);
const text = (name: string, args: Record<string, unknown>) => ({ content: [...callTool({ name, arguments: args }, catalog).content] });

function server (): McpServer {
  const s = new McpServer({ name: 'three-good-sources-sdk', version: '0.0.0' });
  s.registerTool('get_sources', { description: 'Three good sources for a topic', inputSchema: { query: z.string().max(1000), threshold: z.number().min(0).max(1).optional() } }, async (args) => text('get_sources', args));
  for (const name of ['list_categories', 'get_provenance', 'get_endorsements']) {
    s.registerTool(name, { description: name, inputSchema: {} }, async () => text(name, {}));
  }
  return s;
}

const transports = new Map<string, StreamableHTTPServerTransport>();

async function body (req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

createServer(async (req, res) => {
  try {
    const parsed = await body(req);
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (transport === undefined && isInitializeRequest(parsed)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => { transports.set(sid, transport!); },
      });
      await server().connect(transport);
    }
    if (transport === undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"No session"}}');
      return;
    }
    await transport.handleRequest(req, res, parsed);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
}).listen(Number(process.env.PORT), '127.0.0.1');
