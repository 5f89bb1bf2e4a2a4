import type { Catalog } from '../../catalog.js';
import type { Asked } from '../../demand/asked.js';
import type { FederationView } from '../../federation/federation.js';
import { deepFreeze } from '../../util/deep-freeze.js';

/** What a tool reads: one registry, its matcher and its signature. */
export type { Catalog };

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolResult {
  readonly content: readonly TextContent[];
  /** On success: the same answer as data, valid against the tool's outputSchema. */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
}

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Root type object, so that 2025-06-18 clients can use it too. */
  readonly outputSchema: Readonly<Record<string, unknown>>;
  readonly annotations: ToolAnnotations;
}

/** What a tool may read besides the catalog: the endorsed peers as they are now. */
export interface ToolContext {
  readonly federation: FederationView;
  /** Told what a query amounted to (the demand signal), once per call that asked for sources. */
  readonly asked?: ((asked: Asked) => void) | undefined;
  /**
   * Who asked, as one client key (src/clients): answers and rankings are remembered per asker, so
   * that how fast a question is answered never tells one client what another asked (issue 31,
   * finding 10). Undefined (in-process callers) is one asker of its own.
   */
  readonly asker?: string | undefined;
}

export interface Tool {
  readonly definition: ToolDefinition;
  /** Arguments have passed `definition.inputSchema` before this runs. */
  run(args: Readonly<Record<string, unknown>>, catalog: Catalog, context?: ToolContext): ToolResult;
}

/** Every 3GS tool only reads the curated registry. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The input schema of a tool that takes no arguments. */
export const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

/** A successful result: the plain text an agent reads and the same answer as data. */
export function answer (body: string, structuredContent: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: body }], structuredContent };
}

/**
 * A tool-level failure the agent can act on, flagged isError, in one shape for every tool: the
 * text, and as data `error: { reason, message }` (a reason from the tool's list, the same text)
 * beside whatever more the tool says (get_sources' `declined`). Its outputSchema holds it
 * (errorSchema), so a client reads every tool's errors the same way (issue 33, item 4).
 */
export function failure (body: string, reason: string, more: Record<string, unknown> = {}): ToolResult {
  return { content: [{ type: 'text', text: body }], structuredContent: { error: { reason, message: body }, ...more }, isError: true };
}

/** The outputSchema branch of a tool's error results: `error` with one of `reasons`, and `more` (each optional). */
export function errorSchema (reasons: readonly string[], more: Record<string, unknown> = {}): Record<string, unknown> {
  return schema.object({ error: schema.object({ reason: { enum: reasons }, message: schema.string }), ...more }, ['error']);
}

/** JSON Schema building blocks shared by the output schemas. */
export const schema = {
  string: { type: 'string' },
  strings: { type: 'array', items: { type: 'string' } },
  object (properties: Record<string, unknown>, required = Object.keys(properties)): Record<string, unknown> {
    return { type: 'object', properties, required, additionalProperties: false };
  },
} as const;

/**
 * For tools whose answer depends on the registry alone: built once per catalog (a reload
 * brings a new catalog, so a new answer), frozen, and shared by every call.
 */
export function oncePerCatalog (build: (catalog: Catalog) => ToolResult): Tool['run'] {
  const built = new WeakMap<Catalog, ToolResult>();
  return (_args, catalog) => {
    let result = built.get(catalog);
    if (result === undefined) {
      result = deepFreeze(build(catalog));
      built.set(catalog, result);
    }
    return result;
  };
}
