// The layer rule of docs/architecture.md, checked by `npm run lint:layers` (and so by `npm run lint` in .ci/run):
//   app → api, streaming → jobs, media, webhooks → speech → platform
// A layer may import any layer below it, never one above it; type-only imports count too.
// Exceptions are written as rules below, each with the reason; test/architecture/layers.test.ts
// proves that a wrong import fails the check.

/** Layers above `speech` and `platform`, by folder under src/. */
const ABOVE_SPEECH = '^src/(app|api|streaming|jobs|media|webhooks)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-upward',
      comment: 'platform/ is the bottom layer (config, logging, metrics, db, files, cache, redis, limits, net): it imports nothing else from src/.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(app|api|streaming|jobs|media|webhooks|speech)/', '^src/main\\.ts$'] },
    },
    {
      name: 'speech-imports-upward',
      comment: 'speech/ (audio in, text out) may import only platform/.',
      severity: 'error',
      from: { path: '^src/speech/' },
      to: { path: [ABOVE_SPEECH, '^src/main\\.ts$'] },
    },
    {
      name: 'jobs-imports-upward-or-sideways',
      comment: 'jobs/ may import speech/ and platform/ only; media/ and webhooks/ build on jobs/, never the reverse.',
      severity: 'error',
      from: { path: '^src/jobs/' },
      to: { path: ['^src/(app|api|streaming|media|webhooks)/', '^src/main\\.ts$'] },
    },
    {
      name: 'media-imports-upward-or-sideways',
      comment: 'media/ may import jobs/ (the audio fetcher), speech/ and platform/; not webhooks/ nor anything above.',
      severity: 'error',
      from: { path: '^src/media/' },
      to: { path: ['^src/(app|api|streaming|webhooks)/', '^src/main\\.ts$'] },
    },
    {
      name: 'webhooks-imports-upward-or-sideways',
      comment: 'webhooks/ may import jobs/ (job views and events it delivers), speech/ and platform/; not media/ nor anything above.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: { path: ['^src/(app|api|streaming|media)/', '^src/main\\.ts$'] },
    },
    {
      name: 'api-imports-upward-or-sideways',
      comment: 'api/ (HTTP surface) may not import app/ nor streaming/.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: ['^src/(app|streaming)/', '^src/main\\.ts$'] },
    },
    {
      name: 'streaming-imports-upward-or-sideways',
      comment: 'streaming/ (WebSocket) may not import app/ nor api/; the one exception is the segment schema that REST results and WebSocket messages share.',
      severity: 'error',
      from: { path: '^src/streaming/' },
      to: {
        path: ['^src/(app|api)/', '^src/main\\.ts$'],
        pathNot: '^src/api/transcriptions/transcription-schemas\\.ts$',
      },
    },
    {
      name: 'app-is-composition-root',
      comment: 'app/ composes everything; only src/main.ts (and tests or benchmarks that start a gateway) import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app/', '^src/main\\.ts$'] },
      to: { path: ['^src/app/', '^src/main\\.ts$'] },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycles inside src/ (type-only imports included).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-imports-tests',
      comment: 'Shipped code never imports test/, bench/ or scripts/ code.',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'src-imports-dev-dependency',
      comment: 'Shipped code may import only runtime dependencies (npm ci --omit=dev must still run it).',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'undeclared-package',
      comment: 'Every package imported from src/, test/ or bench/ is declared in package.json.',
      severity: 'error',
      from: { path: '^(src|test|bench|scripts)/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'unresolvable-import',
      comment: 'An import that does not resolve to a file is a typo or a moved file.',
      severity: 'error',
      from: { path: '^(src|test|bench|scripts)/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'orphan-test-helper',
      comment: 'A shared test helper that no test, helper or benchmark imports is dead code.',
      severity: 'error',
      from: { orphan: true, path: '^test/helpers/' },
      to: {},
    },
    {
      name: 'test-helper-imports-app',
      comment: 'Test helpers reach the composition root through test/helpers/test-gateway.ts only.',
      severity: 'error',
      from: { path: '^test/helpers/', pathNot: '^test/helpers/test-gateway\\.ts$' },
      to: { path: ['^src/app/', '^src/main\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist/', '^build/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
