// Prints the libopus source list that @discordjs/opus's deps/binding.gyp declares for
// the given target architecture, as a CMake list (paths relative to deps/).
// Usage: node list-opus-sources.cjs <path to deps/binding.gyp> <x64|arm64|ia32|arm>
'use strict';
const fs = require('node:fs');

const [gypPath, arch] = process.argv.slice(2);
if (!gypPath || !arch) {
  console.error('usage: list-opus-sources.cjs <binding.gyp> <arch>');
  process.exit(2);
}
// binding.gyp is a Python literal; without '#' comments it is also a JavaScript literal.
const text = fs
  .readFileSync(gypPath, 'utf8')
  .split('\n')
  .filter((line) => !line.trim().startsWith('#'))
  .join('\n');
const gyp = new Function(`return (${text});`)();
const target = gyp.targets.find((t) => t.target_name === 'libopus');
if (!target) {
  console.error('binding.gyp has no libopus target');
  process.exit(1);
}
const sources = [...target.sources];
for (const [condition, extra] of target.conditions ?? []) {
  const match = /^target_arch==["'](\w+)["']$/.exec(condition.replace(/\s/g, ''));
  if (match && match[1] === arch && extra.sources) sources.push(...extra.sources);
}
process.stdout.write(sources.join(';'));
