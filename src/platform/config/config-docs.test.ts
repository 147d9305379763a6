import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS_BEGIN, CONFIG_DOCS_END, renderConfigDocs, withConfigDocs } from './config-docs.js';
import { CONFIG_SECTIONS, CONFIG_TABLE } from './config-table.js';

const README = join(import.meta.dirname, '..', '..', '..', 'README.md');

describe('configuration docs', () => {
  it('the README tables are the ones generated from the config table (run `npm run docs:config`)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toContain(CONFIG_DOCS_BEGIN);
    expect(readme).toContain(CONFIG_DOCS_END);
    expect(withConfigDocs(readme)).toBe(readme);
  });

  it('documents every variable once, in a section the README shows', () => {
    const rendered = renderConfigDocs();
    const sections = new Set(CONFIG_SECTIONS.map((s) => s.id));
    for (const [name, entry] of Object.entries(CONFIG_TABLE)) {
      expect(sections.has(entry.section), name).toBe(true);
      expect(rendered.split(`| \`${name}\` |`).length - 1, name).toBe(1);
      expect(entry.description.length, name).toBeGreaterThan(0);
    }
  });

  it('replaces only the text between the markers and notices a changed table', () => {
    const readme = `# Title\n\n${CONFIG_DOCS_BEGIN}\nstale\n${CONFIG_DOCS_END}\n\nafter\n`;
    const updated = withConfigDocs(readme);
    expect(updated.startsWith(`# Title\n\n${CONFIG_DOCS_BEGIN}\n`)).toBe(true);
    expect(updated.endsWith(`${CONFIG_DOCS_END}\n\nafter\n`)).toBe(true);
    expect(updated).toContain('| `PORT` | `8080` | integer 0 to 65535 |');
    expect(updated).not.toContain('stale');
    expect(withConfigDocs(updated)).toBe(updated);
    expect(() => withConfigDocs('# no markers')).toThrow(/markers/);
  });
});
