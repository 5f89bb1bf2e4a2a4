import { atLeast } from './versions.js';

export const SERVER_NAME = 'three-good-sources';
export const SERVER_TITLE = 'Three Good Sources';
export const SERVER_DESCRIPTION = 'Three human-vetted sources per topic, instead of search results.';

export const INSTRUCTIONS =
  'Three Good Sources returns three human-vetted, ranked sources for a topic. ' +
  'Call get_sources with a natural-language query (for example "learn rust programming"); ' +
  'if it reports no match, call list_categories to see the topics covered. ' +
  'get_provenance and get_endorsements tell who curated the registry and who vouches for it; ' +
  'get_history lists its signed versions, to judge how fresh and stable a category is.';

const infos = new Map<string, Readonly<Record<string, string>>>();

/** The `Implementation` object, with only the fields the negotiated version defines; built once per version. */
export function serverInfo (version: string, serverVersion: string): Readonly<Record<string, string>> {
  const key = `${version} ${serverVersion}`;
  let info = infos.get(key);
  if (info === undefined) {
    const built: Record<string, string> = { name: SERVER_NAME, version: serverVersion };
    if (atLeast(version, '2025-06-18')) built.title = SERVER_TITLE;
    if (atLeast(version, '2025-11-25')) built.description = SERVER_DESCRIPTION;
    info = Object.freeze(built);
    infos.set(key, info);
  }
  return info;
}
