/** 2025-era revisions we answer as asked, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

/**
 * A request without the MCP-Protocol-Version header: "the server SHOULD assume protocol
 * version 2025-03-26" (transports, 2025-06-18 and later).
 */
export const DEFAULT_HEADER_VERSION = '2025-03-26';

export function isLegacyVersion(version: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(version);
}

/**
 * "If the server supports the requested protocol version, it MUST respond with the same
 * version. Otherwise, the server MUST respond with another protocol version it supports.
 * This SHOULD be the latest version supported by the server." (lifecycle, Version Negotiation)
 */
export function negotiateVersion(requested: string): string {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** True when `version` is `since` or a later revision (dates compare as strings). */
export function atLeast(version: string, since: string): boolean {
  return version >= since;
}
