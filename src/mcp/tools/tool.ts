import type { Matcher } from '../../matcher/matcher.js';
import type { Registry } from '../../registry/types.js';

/** What a tool reads: one registry and the matcher built for it, swapped together. */
export interface Catalog {
  readonly registry: Registry;
  readonly matcher: Matcher;
}

export interface TextContent {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolResult {
  readonly content: readonly TextContent[];
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
  readonly annotations: ToolAnnotations;
}

export interface Tool {
  readonly definition: ToolDefinition;
  /** Arguments have passed `definition.inputSchema` before this runs. */
  run(args: Readonly<Record<string, unknown>>, catalog: Catalog): ToolResult;
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

export function text(body: string, isError = false): ToolResult {
  return isError ? { content: [{ type: 'text', text: body }], isError: true } : { content: [{ type: 'text', text: body }] };
}
