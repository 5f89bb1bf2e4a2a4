/** The stateless revision: version, identity and capabilities travel in every request's `_meta`. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const MODERN_VERSION = MODERN_VERSIONS[0];

/** 2025-era revisions we answer as asked at `initialize`, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];

/** Everything this dual-era server speaks, as `UnsupportedProtocolVersionError` lists it. */
export const SUPPORTED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export function isLegacyVersion (version: string): boolean {
  return (LEGACY_VERSIONS as readonly string[]).includes(version);
}

export function isModernVersion (version: string): boolean {
  return (MODERN_VERSIONS as readonly string[]).includes(version);
}

/**
 * "If the server supports the requested protocol version, it MUST respond with the same
 * version. Otherwise, the server MUST respond with another protocol version it supports.
 * This SHOULD be the latest version supported by the server." (lifecycle, Version Negotiation)
 */
export function negotiateVersion (requested: string): string {
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** True when `version` is `since` or a later revision (dates compare as strings). */
export function atLeast (version: string, since: string): boolean {
  return version >= since;
}
