/**
 * What a public model of a published size costs on this machine (docs/public-models.md, the cost
 * table): load time, resident memory added, and speed, through the gateway's own engines, with the
 * machine's 1-minute load average beside them (the cores are shared: a load far above 2 means the
 * figures are pessimistic). The
 * weights are random (made by the export scripts with published sizes, never committed): speed and
 * memory depend on the sizes, not on the values.
 *
 * Speech (a folder imported with `npm run models -- import --in-place`): InferencePool with one
 * worker of `--threads` onnxruntime threads; load = opening the session; real-time factor =
 * recognition time / audio time on a 14 s utterance (4 held-out ALFFA clips joined), median of
 * `--runs`; the baseline from the same run is the shipped small-am-v2 model. Live streams a model
 * sustains on the cores is estimated as 1 / RTF (a stream sends one second of audio per second;
 * wav2vec2 exports without a lengths input run each piece alone, so there is no batching gain):
 * an estimate, not a measurement with sockets.
 *
 * Translation (a folder imported with `npm run models -- import-translation`): OnnxTranslationEngine
 * greedy, decoding guards off, `--sentences` sentences of 20 pieces each submitted at once (the
 * sentence queue batches them, TRANSLATION_MAX_BATCH 16); with --no-eos weights every sentence runs
 * to the output cap (2.5 x 20 + 4 = 54 tokens): the worst case per sentence.
 *
 * Speaker embedding (a WeSpeaker / 3D-Speaker ONNX, DIARIZATION_EMBEDDING_MODEL; e.g. the ResNet34-sized
 * export of training/speakers/export_resnet34_style.py): what the diarization thread does with it, on
 * one onnxruntime thread as there: load = SpeakerEmbeddingModel.open; the windows of a 57 s file
 * (the 14 s utterance four times) embedded (batched), and the whole diarization (speaker frames,
 * window embeddings, clustering, turns), median of `--runs`, against the built-in i-vector
 * diarization of the same file (models/diarization/speaker-ivector-v1.json) in the same run. The
 * energy gate finds speech in about 30% of that file's frames (32 windows), so the time per window
 * and the real-time factor of audio that is all speech (a window every 0.76 s) are given too.
 *
 *   npx tsx bench/public-models-cost.ts [--asr DIR] [--translation DIR] [--speaker FILE] [--threads 2] [--runs 3] [--sentences 32]
 *   figures to bench/results/public-models-cost.json (merged by model folder name)
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferencePool } from '../src/engines/asr/inference/inference-pool.js';
import { diarizationFrames, diarize, EMBEDDING_BACKENDS } from '../src/engines/diarization/diarize.js';
import { SpeakerEmbeddingModel } from '../src/engines/diarization/speaker-embedding-model.js';
import { loadSpeakerProjection } from '../src/engines/diarization/speaker-projection.js';
import { speechWindowSpans } from '../src/engines/diarization/speaker-windows.js';
import { poolSpecFor } from '../src/engines/asr/inference/model-specs.js';
import { loadModelFolder, type LoadedCtcModel } from '../src/engines/asr/models/model-loader.js';
import { CtcRecognizer } from '../src/engines/asr/recognition/ctc-recognizer.js';
import { OnnxTranslationEngine } from '../src/engines/translation/onnx-translation-engine.js';
import { concatSamples } from '../src/engines/signal/signal.js';
import { readWav } from '../training/common/wav-file.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const threads = Number(args.get('threads') ?? 2);
const runs = Number(args.get('runs') ?? 3);
const mb = (bytes: number): number => Math.round(bytes / 2 ** 20);
// The file's size without reading it (a 300 M model is 1.2 GB), with Optimum's external data file (`model.onnx_data`) if there is one.
const onnxBytes = (path: string): number => statSync(path).size + (existsSync(`${path}_data`) ? statSync(`${path}_data`).size : 0);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** What `run` answers and the seconds it took. */
async function timed<T>(run: () => T | Promise<T>): Promise<{ value: T; s: number }> {
  const t = performance.now();
  const value = await run();
  return { value, s: (performance.now() - t) / 1000 };
}

/** The median seconds of `--runs` calls of `run`, after `warmUp` (by default one call of `run`). */
async function medianSeconds(run: () => unknown, warmUp: () => unknown = run): Promise<number> {
  await warmUp();
  const seconds: number[] = [];
  for (let r = 0; r < runs; r++) seconds.push((await timed(run)).s);
  return median(seconds);
}

/** How a row was measured: the runs and the machine's load (the cores are shared). */
const conditions = (): { runs: number; load_average_1m: number } => ({ runs, load_average_1m: Math.round(loadavg()[0]! * 10) / 10 });

function utterance(): Float32Array {
  const clips = ['10778_tr02101', '10779_tr02102', '10780_tr02103', '10827_tr09101'].map((c) =>
    join(ROOT, `test/fixtures/heldout/alffa_spk_heldout-tr_${c}.wav`),
  );
  return concatSamples(
    clips.filter((c) => existsSync(c)).map((c) => readWav(c)),
    Float32Array,
  );
}

async function measureAsr(dir: string): Promise<Record<string, unknown>> {
  const pcm = utterance();
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const pool = await InferencePool.start({ workers: 1, intraOpThreads: threads, workerNice: null });
  try {
    const model = (await loadModelFolder(dir)) as LoadedCtcModel;
    const recognizer = new CtcRecognizer(pool, model);
    const load = await timed(() => pool.load(poolSpecFor(model, recognizer.decoding)));
    const rtf = (await medianSeconds(() => recognizer.recognize(pcm))) / (pcm.length / 16000);
    const rss = process.memoryUsage().rss - rss0;
    return {
      model: basename(dir),
      onnx_mb: mb(onnxBytes(model.onnxPath)),
      load_s: Math.round(load.s * 1000) / 1000,
      rss_added_mb: mb(rss),
      audio_s: Math.round((pcm.length / 16000) * 10) / 10,
      rtf: Math.round(rtf * 1000) / 1000,
      live_streams_estimate: Math.floor(1 / rtf),
      threads,
      ...conditions(),
    };
  } finally {
    await pool.close();
  }
}

async function measureTranslation(dir: string): Promise<Record<string, unknown>> {
  const count = Number(args.get('sentences') ?? 32);
  // 20 pieces per sentence from the fixture vocabulary's words (the same in the tiny and the sized exports).
  const words = ['the', 'a', 'is', 'good', 'day', 'water', 'nagaa', 'bishaan'];
  const sentences = Array.from({ length: count }, (_, i) => Array.from({ length: 20 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' '));
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const opened = await timed(() => OnnxTranslationEngine.open(dir, { intraOpThreads: threads, workerNice: null, decodingGuards: false }));
  const engine = opened.value;
  try {
    const seconds = await medianSeconds(
      () => engine.translateMany(sentences, 'en', 'am', { mode: 'greedy' }),
      () => engine.translate(sentences[0]!, 'en', 'am', { mode: 'greedy' }), // a large model: warm with one sentence
    );
    const rss = process.memoryUsage().rss - rss0;
    return {
      model: basename(dir),
      load_s: Math.round(opened.s * 1000) / 1000,
      rss_added_mb: mb(rss),
      sentences: count,
      source_pieces: 20,
      sentences_per_s: Math.round((count / seconds) * 100) / 100,
      threads,
      ...conditions(),
    };
  } finally {
    await engine.close();
  }
}

async function measureSpeaker(file: string): Promise<Record<string, unknown>> {
  const once = utterance();
  const pcm = concatSamples([once, once, once, once], Float32Array);
  const audioS = pcm.length / 16000;
  const options = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null } as const;
  const projection = await loadSpeakerProjection(join(ROOT, 'models/diarization/speaker-ivector-v1.json'));
  const baselineS = await medianSeconds(() => diarize(pcm, options, projection));
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const opened = await timed(() => SpeakerEmbeddingModel.open(file, 1));
  const model = opened.value;
  try {
    const frames = diarizationFrames(pcm, {});
    const spans = speechWindowSpans(frames.speech, frames.features.frames, EMBEDDING_BACKENDS.backend_a);
    const embeddingS = await medianSeconds(() => model.embedWindows(pcm, frames.speech, spans));
    const wholeS = await medianSeconds(
      async () => {
        const f = diarizationFrames(pcm, {});
        const windows = await model.embedWindows(pcm, f.speech, speechWindowSpans(f.speech, f.features.frames, EMBEDDING_BACKENDS.backend_a));
        return diarize(pcm, options, windows, undefined, f);
      },
      () => undefined, // the embedding runs above warmed the model
    );
    const rss = process.memoryUsage().rss - rss0;
    const round = (x: number): number => Math.round(x * 1000) / 1000;
    return {
      model: basename(file),
      onnx_mb: mb(onnxBytes(file)),
      dim: (await model.embed(pcm.subarray(0, 16000))).length,
      load_s: round(opened.s),
      rss_added_mb: mb(rss),
      audio_s: Math.round(audioS * 10) / 10,
      windows: spans.length,
      embedding_s: round(embeddingS),
      embedding_ms_per_window: Math.round((embeddingS * 1000) / spans.length),
      // Audio that is all speech has a window every hop (0.76 s): the embedding's real-time factor then.
      all_speech_embedding_rtf_estimate: round(embeddingS / spans.length / (EMBEDDING_BACKENDS.backend_a.hopFrames * 0.02)),
      diarization_s: round(wholeS),
      diarization_rtf: round(wholeS / audioS),
      baseline_ivector_diarization_s: round(baselineS),
      baseline_ivector_rtf: round(baselineS / audioS),
      onnxruntime_threads: 1,
      ...conditions(),
    };
  } finally {
    await model.release();
  }
}

async function main(): Promise<void> {
  const measured: { asr?: [string, unknown]; translation?: [string, unknown]; speaker?: [string, unknown] } = {};
  const asr = args.get('asr');
  if (asr) {
    const baseline = await measureAsr(join(ROOT, 'models/small-am-v2'));
    const model = await measureAsr(asr);
    measured.asr = [basename(asr), { ...model, baseline_same_run: baseline, measured_at: new Date().toISOString() }];
    process.stdout.write(`${JSON.stringify({ measured: model, baseline })}\n`);
  }
  const translation = args.get('translation');
  if (translation) {
    const model = await measureTranslation(translation);
    measured.translation = [basename(translation), { ...model, measured_at: new Date().toISOString() }];
    process.stdout.write(`${JSON.stringify(model)}\n`);
  }
  const speaker = args.get('speaker');
  if (speaker) {
    const model = await measureSpeaker(speaker);
    measured.speaker = [basename(speaker), { ...model, measured_at: new Date().toISOString() }];
    process.stdout.write(`${JSON.stringify(model)}\n`);
  }
  // Read the file only now (a large model runs for many minutes): rows written meanwhile by another run stay.
  const out = join(ROOT, 'bench/results/public-models-cost.json');
  const results: Record<'asr' | 'translation' | 'speaker', Record<string, unknown>> = { asr: {}, translation: {}, speaker: {} };
  if (existsSync(out)) Object.assign(results, JSON.parse(readFileSync(out, 'utf8')));
  for (const section of ['asr', 'translation', 'speaker'] as const) {
    const row = measured[section];
    if (row) results[section] = { ...results[section], [row[0]]: row[1] };
  }
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
}

await main();
