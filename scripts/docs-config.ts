// Regenerates the README's configuration tables from src/platform/config/config-table.ts
// (`npm run docs:config`); src/platform/config/config-docs.test.ts fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withConfigDocs } from '../src/platform/config/config-docs.js';

const readmePath = join(import.meta.dirname, '..', 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = withConfigDocs(before);
if (after === before) {
  process.stdout.write('README.md configuration tables are up to date\n');
} else {
  writeFileSync(readmePath, after);
  process.stdout.write('README.md configuration tables regenerated\n');
}
