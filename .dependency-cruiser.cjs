// The layer rule of docs/architecture.md, checked by `npm run lint:layers` (and so by `npm run lint` in .ci/run):
//   app → api, streaming → jobs, media, webhooks → engines → platform
// A layer may import any layer below it, never one above it; type-only imports count too.
// Exceptions are written as rules below, each with the reason; test/architecture/layers.test.ts
// proves that a wrong import fails the check.

const MAIN = '^src/main\\.ts$';
/** The engines' façades: what other layers (and other engines) may import from src/engines. */
const FACADES = '^src/engines/(engines|asr/asr|vad/vad|diarization/diarization|translation/translation|signal/signal)\\.ts$';

/** An error rule: modules matching `from` may not import modules matching `to`. */
const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/** The layer in src/`folder` may not import the folders `above` (nor src/main.ts), except `pathNot`. */
const layer = (folder, above, comment, pathNot) =>
  forbid(
    folder === 'platform' || folder === 'engines' ? `${folder}-imports-upward` : `${folder}-imports-upward-or-sideways`,
    comment,
    { path: `^src/${folder}/` },
    { path: [`^src/(${above.join('|')})/`, MAIN], ...(pathNot === undefined ? {} : { pathNot }) },
  );

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    layer(
      'platform',
      ['app', 'api', 'streaming', 'jobs', 'media', 'webhooks', 'engines'],
      'platform/ is the bottom layer (config, logging, metrics, db, files, cache, redis, limits, net): it imports nothing else from src/.',
    ),
    layer('engines', ['app', 'api', 'streaming', 'jobs', 'media', 'webhooks'], 'engines/ (audio in, text out) may import only platform/.'),
    layer(
      'jobs',
      ['app', 'api', 'streaming', 'media', 'webhooks'],
      'jobs/ may import engines/ and platform/ only; media/ and webhooks/ build on jobs/, never the reverse.',
    ),
    layer(
      'media',
      ['app', 'api', 'streaming', 'webhooks'],
      'media/ may import jobs/ (the audio fetcher), engines/ and platform/; not webhooks/ nor anything above.',
    ),
    layer(
      'webhooks',
      ['app', 'api', 'streaming', 'media'],
      'webhooks/ may import jobs/ (job views and events it delivers), engines/ and platform/; not media/ nor anything above.',
    ),
    layer('api', ['app', 'streaming'], 'api/ (HTTP surface) may not import app/ nor streaming/.'),
    layer(
      'streaming',
      ['app', 'api'],
      'streaming/ (WebSocket) may not import app/ nor api/; the one exception is the segment schema that REST results and WebSocket messages share.',
      '^src/api/transcriptions/transcription-schemas\\.ts$',
    ),
    forbid(
      'engines-through-facades',
      "Outside src/engines, code imports an engine only through its façade (asr/asr.ts, vad/vad.ts, diarization/diarization.ts, translation/translation.ts), the signal room's (signal/signal.ts) or engines.ts, types included; never an engine's inner files.",
      { path: '^src/', pathNot: ['^src/engines/', '\\.test\\.ts$'] },
      { path: '^src/engines/', pathNot: FACADES },
    ),
    forbid(
      'training-through-facades',
      'Training code reaches the engines through their façades or the documented training entry (src/engines/training.ts), never their inner files.',
      { path: '^training/' },
      { path: '^src/engines/', pathNot: [FACADES, '^src/engines/(training|scoring/scoring)\\.ts$'] },
    ),
    forbid(
      'training-imports-tests-or-bench',
      'Training code never imports test/ or bench/ code (shared pieces live in training/common or behind src/engines/training.ts).',
      { path: '^training/' },
      { path: '^(test|bench)/' },
    ),
    forbid(
      'training-kinds-are-entry-points',
      'The per-kind training folders hold entry scripts that nothing imports; what others share lives in training/common/.',
      { path: '^(src|test|bench|scripts)/' },
      { path: '^training/', pathNot: '^training/common/' },
    ),
    forbid(
      'training-kinds-stand-alone',
      'A training kind imports its own folder and training/common/ only, never another kind.',
      { path: '^training/([^/]+)/' },
      { path: '^training/', pathNot: ['^training/common/', '^training/$1/'] },
    ),
    forbid(
      'training-common-stays-below-kinds',
      'training/common/ is shared by the kinds and by bench/ and test/: it never imports a kind.',
      { path: '^training/common/' },
      { path: '^training/(asr|lm|speakers|segment-types|translation)/' },
    ),
    forbid(
      'shipped-code-imports-scoring-or-training',
      'Shipped code never imports the measures (src/engines/scoring/) nor the training entry; benchmarks, tests and training do.',
      { path: '^src/', pathNot: ['\\.test\\.ts$', '^src/engines/(scoring/|training\\.ts$)'] },
      { path: ['^src/engines/scoring/', '^src/engines/training\\.ts$', '^training/'] },
    ),
    forbid(
      'engines-inner-order',
      'Inside src/engines: runtime/ is the bottom room (imports no other engines folder); signal/ may import runtime/ only.',
      { path: '^src/engines/(runtime|signal)/' },
      { path: '^src/engines/', pathNot: ['^src/engines/runtime/', '^src/engines/$1/'] },
    ),
    forbid(
      'engines-reach-each-other-through-facades',
      'An engine (asr, vad, diarization, translation) uses signal/ and runtime/ freely, but another engine only through its façade; engines.ts alone composes them.',
      { path: '^src/engines/(asr|vad|diarization|translation)/', pathNot: '\\.test\\.ts$' },
      { path: '^src/engines/(asr|vad|diarization|translation|engines\\.ts)', pathNot: ['^src/engines/$1/', FACADES] },
    ),
    forbid(
      'engines-order',
      'Diarization, VAD and translation stand on signal/ and runtime/ only; asr/ may use the diarization façade (a file is diarized beside its recognition), never the reverse.',
      { path: '^src/engines/(vad|diarization|translation)/', pathNot: '\\.test\\.ts$' },
      { path: '^src/engines/(asr|vad|diarization|translation)/', pathNot: '^src/engines/$1/' },
    ),
    forbid(
      'app-is-composition-root',
      'app/ composes everything; only src/main.ts (and tests or benchmarks that start a gateway) import it.',
      { path: '^src/', pathNot: ['^src/app/', MAIN] },
      { path: ['^src/app/', MAIN] },
    ),
    forbid('no-cycles', 'No import cycles inside src/ (type-only imports included).', { path: '^src/' }, { circular: true }),
    forbid(
      'src-imports-tests',
      'Shipped code never imports test/, bench/ or scripts/ code.',
      { path: '^src/', pathNot: '\\.test\\.ts$' },
      { path: '^(test|bench|scripts)/' },
    ),
    forbid(
      'src-imports-dev-dependency',
      'Shipped code may import only runtime dependencies (npm ci --omit=dev must still run it).',
      { path: '^src/', pathNot: '\\.test\\.ts$' },
      { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'undeclared-package',
      'Every package imported from src/, test/, bench/, scripts/ or training/ is declared in package.json.',
      { path: '^(src|test|bench|scripts|training)/' },
      { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    ),
    forbid(
      'unresolvable-import',
      'An import that does not resolve to a file is a typo or a moved file.',
      { path: '^(src|test|bench|scripts|training)/' },
      { couldNotResolve: true },
    ),
    forbid(
      'orphan-test-helper',
      'A shared test or training helper that nothing imports is dead code.',
      { orphan: true, path: '^(test/helpers|training/common)/' },
      {},
    ),
    forbid(
      'test-helper-imports-app',
      'Test helpers reach the composition root through test/helpers/test-gateway.ts only.',
      { path: '^test/helpers/', pathNot: '^test/helpers/test-gateway\\.ts$' },
      { path: ['^src/app/', MAIN] },
    ),
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
