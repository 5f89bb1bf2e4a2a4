import { CHECK_USAGE, check } from './check.js';
import { DEMAND_USAGE, demand } from './demand.js';
import { DIFF_USAGE, diff } from './diff.js';
import { processIo, type CliIo } from './io.js';
import { KEYGEN_USAGE, keygen } from './keygen.js';
import { SIGN_USAGE, sign } from './sign.js';
import { TRIAGE_USAGE, triage } from './triage.js';
import { VERIFY_USAGE, verify } from './verify.js';
import { packageVersion } from '../project.js';

/** A Map, so that `three-good-sources toString` is an unknown command, not Object's own method. */
const COMMANDS: ReadonlyMap<string, (args: readonly string[], io: CliIo) => Promise<number>> = new Map([
  ['keygen', keygen],
  ['sign', sign],
  ['verify', verify],
  ['diff', diff],
  ['check', check],
  ['demand', demand],
  ['triage', triage],
]);

/** Run by the process entry (main.ts) itself: here only its usage, and its refusal of arguments. */
export const SERVE_USAGE = 'serve   run the server, configured by environment variables as for npm start (see Configuration)';

const USAGE = ['usage: three-good-sources <command>   (or --version)', '', `  ${SERVE_USAGE}`, `  ${KEYGEN_USAGE}`, `  ${SIGN_USAGE}`, `  ${VERIFY_USAGE}`, `  ${DIFF_USAGE}`, `  ${CHECK_USAGE}`, `  ${DEMAND_USAGE}`, `  ${TRIAGE_USAGE}`].join('\n');

/** The command-line tool: keygen, sign, verify, diff, check, demand, triage (serve starts in main.ts). Returns the exit code. */
export async function run (argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(packageVersion());
    return 0;
  }
  if (name === 'serve') {
    io.err(`serve takes no arguments: set PORT, HOST, REGISTRY_PATH and the rest in the environment\nusage: three-good-sources ${SERVE_USAGE}`);
    return 1;
  }
  const command = COMMANDS.get(name);
  if (command === undefined) {
    io.err(`unknown command ${name}\n${USAGE}`);
    return 1;
  }
  return command(args, io);
}
