#!/usr/bin/env node
// The command line runs the TypeScript sources directly through tsx, so `npx paneward` works
// right after `npm ci` with nothing to build first.
import { tsImport } from 'tsx/esm/api';

const { main } = await tsImport('../src/cli/main.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2));
