// scripts/dockerfile-plan.ts: what the docker context check (scripts/docker-context-check.ts,
// `npm run lint:docker`) reads from the Dockerfiles, on the real ones and on crafted text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDockerfile, splitSteps } from '../../scripts/dockerfile-plan.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the Dockerfile plan', () => {
  it.each(['Dockerfile', 'Dockerfile.gpu'])(
    '%s: the build stage copies the context and skips the CUDA download in npm ci; the runtime copies from it',
    (name) => {
      const plan = parseDockerfile(readFileSync(join(ROOT, name), 'utf8'));
      expect(plan.build.name).toBe('build');
      expect(plan.build.base).toBe('node:20.19-bookworm-slim');
      expect(plan.build.copiesContext).toBe(true);
      const withContext = plan.build.runs.filter((run) => run.withContext);
      expect(withContext).toHaveLength(1);
      expect(withContext[0]!.steps[0]).toBe('npm ci');
      expect(withContext[0]!.env['ONNXRUNTIME_NODE_INSTALL']).toBe('skip');
      expect(plan.runtime.copiesFrom.map((copy) => copy.dest)).toContain('/app/dist');
      expect(plan.runtime.cmd).toEqual(['node', '--enable-source-maps', 'dist/src/main.js']);
      expect(plan.runtime.healthcheck?.[0]).toBe('node');
    },
  );

  it('joins continuations, skips comments inside them, substitutes ARGs in FROM and keeps ENV per RUN', () => {
    const plan = parseDockerfile(
      [
        'ARG BASE=node:20',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: Dockerfile text, not a template.
        'FROM ${BASE} AS build',
        'WORKDIR /app',
        'RUN apt-get update \\',
        '  # a comment inside the continuation',
        ' && apt-get install -y cmake',
        'ENV A=1 B="two words"',
        'COPY . .',
        'RUN npm ci && echo "a && b" && rm -rf x',
        'ENV C 3',
        'FROM $BASE',
        'WORKDIR /app',
        'COPY --from=build /app/dist ./dist',
        'CMD ["node", "dist/main.js"]',
      ].join('\n'),
    );
    expect(plan.build.base).toBe('node:20');
    expect(plan.build.runs.map((run) => [run.withContext, run.steps])).toEqual([
      [false, ['apt-get update', 'apt-get install -y cmake']],
      [true, ['npm ci', 'echo "a && b"', 'rm -rf x']],
    ]);
    expect(plan.build.runs[1]!.env).toEqual({ A: '1', B: 'two words' });
    expect(plan.build.env).toEqual({ A: '1', B: 'two words', C: '3' });
    expect(plan.runtime.copiesFrom).toEqual([{ from: 'build', source: '/app/dist', dest: '/app/dist' }]);
  });

  it('refuses what it cannot replay', () => {
    expect(() => parseDockerfile('FROM a AS build\nCOPY src ./src\nFROM b\nCOPY --from=build /app/x ./x')).toThrow(/COPY src/);
    expect(() => parseDockerfile('FROM a AS build\nCOPY . .\nFROM b\nCOPY --from=build /app/x ./x\nCMD node x.js')).toThrow(/exec form/);
    expect(() => parseDockerfile('FROM a AS build\nONBUILD RUN x\nFROM b')).toThrow(/ONBUILD/);
    expect(() => splitSteps('echo "unterminated')).toThrow(/quote/);
  });
});
