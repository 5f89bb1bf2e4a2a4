import jsonc from 'jsonc-parser';

export type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

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
export function parseJson(text: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problem: describeSyntaxError(text, (err as Error).message) };
  }
}

function describeSyntaxError(text: string, nodeMessage: string): string {
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
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: [...before.slice(lineStart)].length + 1 };
}
