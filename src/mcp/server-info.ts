import { atLeast } from './versions.js';

export const SERVER_NAME = 'three-good-sources';
export const SERVER_TITLE = 'Three Good Sources';
export const SERVER_DESCRIPTION = 'Three human-vetted sources per topic, instead of search results.';

export const INSTRUCTIONS =
  'Three Good Sources returns three human-vetted, ranked sources for a topic. ' +
  'Call get_sources with a natural-language query (for example "learn rust programming"); ' +
  'if it reports no match, call list_categories to see the topics covered. ' +
  'get_provenance and get_endorsements tell who curated the registry and who vouches for it.';

/** The `Implementation` object, with only the fields the negotiated version defines. */
export function serverInfo(version: string, serverVersion: string): Record<string, string> {
  const info: Record<string, string> = { name: SERVER_NAME, version: serverVersion };
  if (atLeast(version, '2025-06-18')) info.title = SERVER_TITLE;
  if (atLeast(version, '2025-11-25')) info.description = SERVER_DESCRIPTION;
  return info;
}
