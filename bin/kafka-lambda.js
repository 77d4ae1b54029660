#!/usr/bin/env node
// Node.js 22.18+/24 runs the TypeScript sources directly (type stripping); there is no build step.
import '../lib/cli/main.ts';
