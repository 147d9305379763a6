import type { ConfigEntry } from './config-entries.js';
import { CONFIG_SECTIONS, CONFIG_TABLE } from './config-table.js';

export const CONFIG_DOCS_BEGIN =
  '<!-- BEGIN config table: generated from src/platform/config/config-table.ts by `npm run docs:config`; edit the table, not this text -->';
export const CONFIG_DOCS_END = '<!-- END config table -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The README's configuration tables (between the markers, markers excluded), one per section. */
export function renderConfigDocs(): string {
  const entries = Object.entries(CONFIG_TABLE) as [string, ConfigEntry<unknown>][];
  const parts: string[] = [];
  for (const section of CONFIG_SECTIONS) {
    parts.push(`### ${section.title}`, '');
    if (section.intro !== undefined) parts.push(section.intro, '');
    parts.push('| variable | default | values | meaning |', '|---|---|---|---|');
    for (const [name, entry] of entries) {
      if (entry.section !== section.id) continue;
      parts.push(`| \`${name}\` | ${cell(entry.defaultText)} | ${cell(entry.valuesText)} | ${cell(entry.description)} |`);
    }
    parts.push('');
  }
  return parts.join('\n');
}

/** `readme` with the text between the markers replaced by the rendered tables; throws when a marker is missing. */
export function withConfigDocs(readme: string): string {
  const begin = readme.indexOf(CONFIG_DOCS_BEGIN);
  const end = readme.indexOf(CONFIG_DOCS_END);
  if (begin < 0 || end < begin) throw new Error(`README.md lacks the markers ${CONFIG_DOCS_BEGIN} ... ${CONFIG_DOCS_END}`);
  return `${readme.slice(0, begin + CONFIG_DOCS_BEGIN.length)}\n\n${renderConfigDocs()}\n${readme.slice(end)}`;
}
