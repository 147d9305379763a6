/**
 * Diarization overhead: job processing time with and without `diarize: true` on the same files,
 * through the job API of a real gateway (port 0) on the shipped models. The files are synthetic
 * conversations of held-out ALFFA speakers (training/common/diarization-conversations.ts: 2, 3 and 4
 * speakers, `--per-count` of each). In each of `--rounds` rounds every file runs plain, with
 * backend_a and with backend_b, one job at a time, the order rotating from file to file, after a
 * warm-up job; a backend's ratio is its processing time summed over files and rounds divided by
 * the plain one (the spec's bound: 1.8). Beside the wall-clock ratio, the CPU each job cost: the
 * bench process's process.cpuUsage() (user + system) from submission to completion, which covers
 * the gateway running in this process and all its threads (inference workers, the Silero VAD,
 * the diarization thread, the event loop; also the bench's own polling and file server, alike for
 * every job) but not the ffmpeg/ffprobe subprocesses (decoding, the same for plain and diarized
 * jobs); its ratio per backend is the diarized CPU summed over files and rounds divided by the
 * plain one. Diarization runs beside recognition (recognition/file-transcription.ts), so the wall
 * ratio can be well under the CPU ratio on a machine with idle cores.
 * Writes bench/results/diarization-overhead.json.
 *
 *   npm run bench:diarization-overhead [-- --per-count 2 --rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFileServer } from '../test/helpers/audio-files.js';
import { REPO_ROOT, writeConversationWav } from '../test/helpers/fixtures.js';
import { startTestGateway, type TestGateway } from '../test/helpers/test-gateway.js';
import { publishReport, ratio3 } from './bench-results.js';
import { conversationSet, loadGroupClips, TEST_GROUPS } from '../training/common/diarization-conversations.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const perCount = Number(option('--per-count') ?? 2) || 2;
const rounds = Number(option('--rounds') ?? 3) || 3;
const MODES = ['plain', 'backend_a', 'backend_b'] as const;
const round3 = (v: number): number => Math.round(v * 1000) / 1000;
type Mode = (typeof MODES)[number];

interface Outcome {
  readonly processingSeconds: number;
  /** This process's CPU (user + system, s) from submission to completion. */
  readonly cpuSeconds: number;
  readonly durationSeconds: number;
  readonly speakers: number | null;
  readonly warnings: string[];
}

async function runJob(gw: TestGateway, key: string, url: string, mode: Mode): Promise<Outcome> {
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const cpuBefore = process.cpuUsage();
  const body = { audio_urls: [url], language: 'am', ...(mode === 'plain' ? {} : { diarize: true, diarization_config: { backend: mode } }) };
  const submitted = await fetch(`${gw.url}/transcribe`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (submitted.status !== 202) throw new Error(`submit: ${submitted.status} ${await submitted.text()}`);
  const { job_id } = (await submitted.json()) as { job_id: string };
  for (;;) {
    const job = (await (await fetch(`${gw.url}/transcribe/${job_id}`, { headers })).json()) as any;
    if (job.status === 'COMPLETED') {
      const cpu = process.cpuUsage(cpuBefore);
      const transcript = (await (await fetch(job.transcript_urls[0])).json()) as any;
      return {
        processingSeconds: job.results[0].processing_time,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        durationSeconds: job.results[0].duration,
        speakers: transcript.speakers?.count ?? null,
        warnings: transcript.warnings ?? [],
      };
    }
    if (job.status === 'FAILED' || job.status === 'PARTIAL') throw new Error(`job ${job_id}: ${JSON.stringify(job.results)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

await loadGroupClips(TEST_GROUPS, 12);
const set = conversationSet(TEST_GROUPS, [2, 3, 4], perCount, 5000);
const dir = mkdtempSync(join(tmpdir(), 'diarization-overhead-'));
const files = await startFileServer(Object.fromEntries(set.map((c) => [`${c.name}.wav`, writeConversationWav(join(dir, `${c.name}.wav`), c)])));
const gw = await startTestGateway(
  { MODELS_DIR: join(REPO_ROOT, 'models'), RATE_LIMIT_PER_MINUTE: '100000', JOB_SUBMISSIONS_PER_HOUR: '100000' },
  { validateResponses: false, dataDirPrefix: 'diarization-overhead-' },
);
try {
  const key = await gw.key();
  await runJob(gw, key, files.url(`${set[0]!.name}.wav`), 'backend_a'); // warm-up: models, LM, worker start
  const seconds: Record<Mode, number> = { plain: 0, backend_a: 0, backend_b: 0 };
  const cpuSeconds: Record<Mode, number> = { plain: 0, backend_a: 0, backend_b: 0 };
  const rows: Record<string, unknown>[] = [];
  let audioSeconds = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [index, c] of set.entries()) {
      const url = files.url(`${c.name}.wav`);
      const order = MODES.map((_, i) => MODES[(i + index + round) % MODES.length]!);
      const outcomes = new Map<Mode, Outcome>();
      for (const mode of order) outcomes.set(mode, await runJob(gw, key, url, mode));
      for (const mode of MODES) {
        const outcome = outcomes.get(mode)!;
        if (outcome.warnings.length > 0) throw new Error(`${c.name} ${mode}: diarization failed: ${outcome.warnings.join(' ')}`);
        seconds[mode] += outcome.processingSeconds;
        cpuSeconds[mode] += outcome.cpuSeconds;
      }
      const plain = outcomes.get('plain')!;
      audioSeconds += plain.durationSeconds;
      const row = {
        round,
        file: c.name,
        speakers: c.speakers,
        audioSeconds: plain.durationSeconds,
        plainSeconds: plain.processingSeconds,
        plainCpuSeconds: round3(plain.cpuSeconds),
        ...Object.fromEntries(
          (['backend_a', 'backend_b'] as const).map((mode) => {
            const outcome = outcomes.get(mode)!;
            return [mode, { seconds: outcome.processingSeconds, cpuSeconds: round3(outcome.cpuSeconds), speakersFound: outcome.speakers }];
          }),
        ),
      };
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  }
  publishReport('diarization-overhead', {
    what: 'job processing time (job API processing_time) and CPU of the same files plain and with diarize: true per backend, one job at a time, shipped models',
    cpuMeasure:
      'process.cpuUsage() (user + system) of the bench process from submission to completion: the in-process gateway and all its threads (inference workers, Silero VAD, diarization thread); ffmpeg/ffprobe subprocesses (decoding) not counted',
    cpus: `${availableParallelism()} x ${cpus()[0]?.model ?? 'unknown'}`,
    files: set.length,
    rounds,
    audioSeconds: Math.round(audioSeconds * 10) / 10,
    plainSeconds: Math.round(seconds.plain * 100) / 100,
    plainCpuSeconds: Math.round(cpuSeconds.plain * 100) / 100,
    ...Object.fromEntries(
      (['backend_a', 'backend_b'] as const).map((mode) => [
        mode,
        {
          seconds: Math.round(seconds[mode] * 100) / 100,
          ratio: ratio3(seconds[mode], seconds.plain),
          cpuSeconds: Math.round(cpuSeconds[mode] * 100) / 100,
          cpuRatio: ratio3(cpuSeconds[mode], cpuSeconds.plain),
        },
      ]),
    ),
    bound: 1.8,
    rows,
  });
} finally {
  await gw.close();
  await files.close();
  rmSync(dir, { recursive: true, force: true });
}
