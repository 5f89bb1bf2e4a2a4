import type { ErrorObject } from 'ajv';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ErrorCode, ProtocolError } from '../errors.js';
import { derived, stable } from '../stable-json.js';
import { atLeast } from '../versions.js';
import { getEndorsements } from './get-endorsements.js';
import { getFederatedSources } from './get-federated-sources.js';
import { getHistory } from './get-history.js';
import { getProvenance } from './get-provenance.js';
import { getSources } from './get-sources.js';
import { listCategories } from './list-categories.js';
import { NO_FEDERATION, type FederationView } from '../../federation/federation.js';
import type { Catalog, Tool, ToolContext, ToolResult } from './tool.js';

/** Fixed order: tools/list is the same on every call. */
const TOOLS: readonly Tool[] = [getSources, getFederatedSources, listCategories, getProvenance, getEndorsements, getHistory];

/** Every tool's name: what metrics label calls by (anything else is "other"). */
export const TOOL_NAMES: ReadonlySet<string> = new Set(TOOLS.map((tool) => tool.definition.name));

const ajv = new Ajv2020({ strict: true, allErrors: false });
// Compiled once at start-up, never per request.
const validators = new Map<string, { tool: Tool; validate: ValidateFunction }>(
  TOOLS.map((tool) => [tool.definition.name, { tool, validate: ajv.compile(tool.definition.inputSchema) }])
);

const listed = new Map<string, readonly Record<string, unknown>[]>();

/** Tool definitions with only the fields the negotiated version defines; built once per version. */
export function listTools (version: string): readonly Record<string, unknown>[] {
  let tools = listed.get(version);
  if (tools === undefined) {
    tools = Object.freeze(buildList(version));
    listed.set(version, tools);
  }
  return tools;
}

function buildList (version: string): Record<string, unknown>[] {
  const sinceJune2025 = atLeast(version, '2025-06-18');
  return TOOLS.map(({ definition: d }) => {
    const entry: Record<string, unknown> = { name: d.name };
    if (sinceJune2025) entry.title = d.title;
    entry.description = d.description;
    entry.inputSchema = d.inputSchema;
    if (sinceJune2025) entry.outputSchema = d.outputSchema;
    entry.annotations = sinceJune2025 ? { title: d.title, ...d.annotations } : d.annotations;
    return entry;
  });
}

/** The tools/list result for a version, built once. */
export function toolsListResult (version: string): Record<string, unknown> {
  return derived(listTools(version), 'result', () => stable({ tools: listTools(version) }));
}

/** A tool result as the negotiated version knows it: structuredContent arrived in 2025-06-18. */
export function viewForVersion (result: ToolResult, version: string): Record<string, unknown> {
  if (atLeast(version, '2025-06-18') || result.structuredContent === undefined) return { ...result };
  const { structuredContent: _dropped, ...older } = result;
  return older;
}

/** viewForVersion, built once per version while the result is remembered, with its JSON text. */
export function resultForVersion (result: ToolResult, version: string): Record<string, unknown> {
  return derived(result, version, () => stable(viewForVersion(result, version)));
}

/** Runs `tools/call` params. Protocol problems throw ProtocolError; tool problems come back as isError results. */
export function callTool (
  params: Record<string, unknown> | undefined,
  catalog: Catalog,
  onResult?: (tool: string, result: ToolResult) => void,
  federation: FederationView = NO_FEDERATION,
  call: Pick<ToolContext, 'asked' | 'asker'> = {}
): ToolResult {
  const name = params?.name;
  if (typeof name !== 'string') {
    throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs a string "name"');
  }
  const entry = validators.get(name);
  if (entry === undefined) {
    // Our decision: -32601, and the message does not echo valid tool names (tools/list does that).
    throw new ProtocolError(ErrorCode.MethodNotFound, 'Unknown tool: call tools/list for the available tools');
  }
  const args = params?.arguments ?? {};
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${name}'s arguments must be an object`, 200, { rule: 'arguments must be an object' });
  }
  if (!entry.validate(args)) {
    const problem = argumentProblem(entry.validate.errors?.[0], args as Record<string, unknown>);
    throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: ${problem.rule}`, 200, problem);
  }
  const result = entry.tool.run(args as Record<string, unknown>, catalog, { federation, asked: call.asked, asker: call.asker });
  onResult?.(name, result);
  return result;
}

/** What is wrong with a call's arguments, as its input schema says it: the field and the rule, with the value sent (at most 60 characters of it). */
export function argumentProblem (error: ErrorObject | undefined, args: Readonly<Record<string, unknown>>): { field?: string; rule: string } {
  if (error === undefined) return { rule: 'the arguments do not match the tool\'s inputSchema' };
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return { field: String(params.missingProperty), rule: `${String(params.missingProperty)} is required` };
  if (error.keyword === 'additionalProperties') {
    const extra = String(params.additionalProperty);
    return { field: extra, rule: `unknown argument ${JSON.stringify(extra.slice(0, 60))}: see the tool's inputSchema in tools/list` };
  }
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const value = args[field.split('.')[0]!];
  const json = JSON.stringify(value) ?? 'nothing';
  const got = typeof value === 'string' && value.length > 60 ? `a string of ${value.length} characters` : json.length > 60 ? `${json.slice(0, 57)}...` : json;
  return { field, rule: `${field} ${error.message ?? 'is invalid'} (got ${got})` };
}
