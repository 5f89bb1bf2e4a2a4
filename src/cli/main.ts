#!/usr/bin/env node
// Process entry of `npx three-good-sources`: everything else lives in run.ts.
import { run } from './run.js';

process.exitCode = await run(process.argv.slice(2));
