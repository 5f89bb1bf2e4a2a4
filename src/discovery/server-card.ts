import type { Registry } from '../registry/types.js';

/**
 * The MCP Server Card (the experimental server-card extension, SEP-2127): what a discovery tool
 * reads at /.well-known/mcp/server-card.json to learn what this server is and where to connect,
 * in the shape of the official MCP Registry's server.json (name, title, description, version,
 * remotes). Built per request from what is served now: the registry of the moment and the URL
 * the client reached this server by.
 */
export interface ServerCard {
  readonly $schema: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly version: string;
  readonly remotes: readonly { readonly type: 'streamable-http'; readonly url: string }[];
}

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_TITLE = 'Three Good Sources';
/** The registry's limit for a description (server.json's schema: at most 100 characters). */
export const MAX_DESCRIPTION = 100;

export function serverCard ({ name, version, registry, mcpUrl }: { name: string; version: string; registry: Registry; mcpUrl: string }): ServerCard {
  const topics = Object.keys(registry.categories).length;
  const lead = `Three human-vetted sources for each of ${topics} topic${topics === 1 ? '' : 's'}, curated by `;
  // A curator's name is theirs to choose: cut to fit rather than break the registry's limit.
  const room = MAX_DESCRIPTION - lead.length - 1;
  const curator = registry.curator.name.length > room ? `${registry.curator.name.slice(0, Math.max(0, room - 3))}...` : registry.curator.name;
  return { $schema: SERVER_CARD_SCHEMA, name, title: SERVER_TITLE, description: `${lead}${curator}.`, version, remotes: [{ type: 'streamable-http', url: mcpUrl }] };
}
