/** The JSON-RPC method and tool of a parsed /mcp body, clipped, for logs and metric labels. */
export function rpcSummary (body: unknown): { rpcMethod?: string; tool?: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return {};
  const tool = method === 'tools/call' && typeof params?.name === 'string' ? params.name.slice(0, 64) : undefined;
  return tool === undefined ? { rpcMethod: method.slice(0, 64) } : { rpcMethod: method.slice(0, 64), tool };
}
