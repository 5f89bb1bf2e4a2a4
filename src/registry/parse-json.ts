import jsonc from 'jsonc-parser';

export type JsonParse =
  | { readonly ok: true; readonly value: unknown }
  /** `problem`: the first of `problems` (a syntax error is one; each duplicate key is one). */
  | { readonly ok: false; readonly problem: string; readonly problems: readonly string[] };

/** What went wrong, by jsonc-parser's error code: described, never quoted. */
const SYNTAX: Readonly<Record<string, string>> = {
  InvalidSymbol: 'unexpected characters',
  InvalidNumberFormat: 'a malformed number',
  UnexpectedEndOfNumber: 'a malformed number',
  PropertyNameExpected: 'a field name in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma or a closing bracket was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'more text after the end of the JSON value',
  InvalidCommentToken: 'JSON has no comments',
  UnexpectedEndOfComment: 'JSON has no comments',
  UnexpectedEndOfString: 'a string is not closed',
  InvalidUnicode: 'a malformed \\u escape',
  InvalidEscapeCharacter: 'a malformed escape',
  InvalidCharacter: 'a control character (such as a tab or a line break) inside a string',
};

/**
 * JSON.parse, with a failure described by line and column only. JSON.parse's own message quotes
 * the text around the error (and on Node 20 gives no position at all for some errors), so a
 * secret file named by mistake would leak onto stderr; jsonc-parser, in strict JSON mode, finds
 * where the text stops being JSON.
 */
export function parseJson (text: string): JsonParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const problem = describeSyntaxError(text, (err as Error).message);
    return { ok: false, problem, problems: [problem] };
  }
  // JSON.parse keeps the last of two equal keys and drops the first without a word: a category
  // defined twice would lose its first definition silently. Refused, each with where it is.
  const duplicates = duplicateKeys(text);
  if (duplicates.length > 0) return { ok: false, problem: duplicates[0]!, problems: duplicates };
  return { ok: true, value };
}

/** At most this many duplicate keys are listed: past it, one more line says so. */
export const MAX_DUPLICATES_LISTED = 20;

/**
 * Every key that appears twice in the same object, with the line and column of each appearance
 * and the path of the object (the key itself is quoted, cut to 60 characters: keys are names, not
 * secrets, and a curator needs to find them). jsonc-parser's visitor walks the text once.
 */
export function duplicateKeys (text: string): string[] {
  const found: string[] = [];
  let more = 0;
  const open: Map<string, { line: number; column: number }>[] = [];
  jsonc.visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Map());
      },
      onObjectEnd: () => {
        open.pop();
      },
      // The visitor's own line and character (0-based, in UTF-16 units): lineAndColumn per key would
      // rescan the text before it each time.
      onObjectProperty: (property, _offset, _length, line, character, pathSupplier) => {
        const keys = open[open.length - 1];
        if (keys === undefined) return;
        const here = { line: line + 1, column: character + 1 };
        const first = keys.get(property);
        if (first === undefined) {
          keys.set(property, here);
          return;
        }
        if (found.length >= MAX_DUPLICATES_LISTED) {
          more++;
          return;
        }
        const path = pathSupplier().join('.');
        const key = property.length > 60 ? `${property.slice(0, 57)}...` : property;
        found.push(
          `duplicate key ${JSON.stringify(key)}${path === '' ? '' : ` in ${path}`} at line ${here.line}, column ${here.column} ` +
            `(first at line ${first.line}, column ${first.column}): JSON keeps only the last, so the first would silently disappear; rename or merge them`
        );
      },
    },
    { disallowComments: true, allowTrailingComma: false }
  );
  if (more > 0) found.push(`and ${more} more duplicate key${more === 1 ? '' : 's'}`);
  return found;
}

function describeSyntaxError (text: string, nodeMessage: string): string {
  if (text.trim() === '') return 'not valid JSON: the file is empty';
  if (text.startsWith('\uFEFF')) return 'not valid JSON at line 1, column 1: the file starts with a byte-order mark; save it as UTF-8 without one';
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) {
    // Should the two parsers ever disagree, Node's position (never its quote) still helps.
    const position = / at position (\d+)/.exec(nodeMessage)?.[1];
    if (position === undefined) return 'not valid JSON';
    const { line, column } = lineAndColumn(text, Number(position));
    return `not valid JSON at line ${line}, column ${column}`;
  }
  const { line, column } = lineAndColumn(text, first.offset);
  return `not valid JSON at line ${line}, column ${column}: ${SYNTAX[jsonc.printParseErrorCode(first.error)] ?? 'unexpected text'}`;
}

/** 1-based, as editors show them; a column counts characters, not UTF-16 units. */
export function lineAndColumn (text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}
