// A-law and mu-law WAV files (WAVE_FORMAT_ALAW = 6, WAVE_FORMAT_MULAW = 7: telephone recordings)
// on every REST path. ffmpeg writes the files from committed speech (-c:a pcm_alaw / pcm_mulaw)
// and, as the reference decoder, decodes each to 16-bit PCM of the same rate. Checked: the file
// decoder (pcm-decoder.ts) gives the reference's samples exactly (at 16 kHz without resampling;
// at 8 kHz against the reference WAV upsampled the same way), per channel for stereo; and each
// path (sync upload, async upload, audio_url, batch, the job API, channels=2) reads the G.711 file
// exactly as it reads its reference PCM. Real server, shipped Amharic model.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { probeAudio } from '../../src/engines/signal/files/audio-probe.js';
import { decodeToPcm } from '../../src/engines/signal/files/pcm-decoder.js';
import { resolveMediaTools } from '../../src/platform/subprocess/media-tools.js';
import { audioFixture, runFfmpeg, startFileServer } from '../helpers/audio-files.js';
import { interleaveStereo, wavData, wavHeader } from '../helpers/fixtures.js';
import { JobsClient, TranscribeJobClient } from '../helpers/jobs-client.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { concat } from '../native/audio-helpers.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const HELDOUT = fileURLToPath(new URL('../fixtures/heldout/', import.meta.url));
const LAWS = [
  ['alaw', 6],
  ['mulaw', 7],
] as const;
type Law = (typeof LAWS)[number][0];

const tools = resolveMediaTools();
const scratch = useScratchDir('g711-wav-');
const suite = useTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '60' });

/** Per law: G.711 WAV files and, beside each, ffmpeg's decoding of it as 16-bit PCM WAV (`ref`). */
const files = {} as Record<Law, { mono8k: string; mono8kRef: string; mono16k: string; stereo8k: string; stereo8kRef: string }>;
let server: Awaited<ReturnType<typeof startFileServer>>;

/** ffmpeg's reading of a G.711 file: the same rate and channels, 16-bit PCM. */
function reference(g711: string): string {
  const ref = g711.replace(/\.wav$/, '-ref.wav');
  runFfmpeg(['-i', g711, '-c:a', 'pcm_s16le', ref]);
  return ref;
}

beforeAll(async () => {
  // A call: one ALFFA speaker per channel, the second starting 3 s in.
  const pcmOf = (clip: string): Buffer => wavData(readFileSync(`${HELDOUT}${clip}`)).pcm;
  const left = Buffer.concat([pcmOf('alffa_spk_heldout-tr_10779_tr02102.wav'), Buffer.alloc(32_000)]);
  const right = Buffer.concat([Buffer.alloc(96_000), pcmOf('alffa_spk_heldout-tr_10829_tr09103.wav')]);
  const call = interleaveStereo(left, right);
  const callWav = scratch('call16k.wav');
  writeFileSync(callWav, Buffer.concat([wavHeader(call.length, 16_000, 2), call]));
  const paths: string[] = [];
  for (const [law] of LAWS) {
    const mono8k = scratch(`mono8k-${law}.wav`);
    const mono16k = scratch(`mono16k-${law}.wav`);
    const stereo8k = scratch(`stereo8k-${law}.wav`);
    runFfmpeg(['-i', audioFixture('speech-am.flac'), '-ar', '8000', '-ac', '1', '-c:a', `pcm_${law}`, mono8k]);
    runFfmpeg(['-i', audioFixture('speech-am.flac'), '-ar', '16000', '-ac', '1', '-c:a', `pcm_${law}`, mono16k]);
    runFfmpeg(['-i', callWav, '-ar', '8000', '-ac', '2', '-c:a', `pcm_${law}`, stereo8k]);
    files[law] = { mono8k, mono8kRef: reference(mono8k), mono16k, stereo8k, stereo8kRef: reference(stereo8k) };
    paths.push(mono8k, files[law].mono8kRef, stereo8k, files[law].stereo8kRef);
  }
  server = await startFileServer(Object.fromEntries(paths.map((path) => [basename(path), path])));
  return () => server.close();
}, 120_000);

async function decodeAll(path: string, channel?: number): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const chunk of decodeToPcm(path, { ffmpegPath: tools.ffmpeg, ...(channel === undefined ? {} : { channel }) })) parts.push(chunk);
  return concat(parts);
}

function expectSameSamples(ours: Float32Array, theirs: Float32Array): void {
  expect(ours.length).toBe(theirs.length);
  let differing = 0;
  for (let i = 0; i < ours.length; i++) if (ours[i] !== theirs[i]) differing++;
  expect(differing).toBe(0);
}

describe.each(LAWS)('%s WAV files', (law, tag) => {
  it(`are WAVE_FORMAT ${tag}; decoded sample for sample as the reference decoder decodes them (mono and per channel)`, async () => {
    const { mono8k, mono8kRef, mono16k, stereo8k, stereo8kRef } = files[law];
    for (const path of [mono8k, mono16k, stereo8k]) expect(readFileSync(path).readUInt16LE(20), path).toBe(tag);
    expect(await probeAudio(stereo8k, { ffprobePath: tools.ffprobe })).toMatchObject({ codec: `pcm_${law}`, sampleRate: 8000, channels: 2 });

    // 16 kHz: no resampling, so the decoder's floats are the reference's 16-bit samples / 32768.
    const raw = scratch(`mono16k-${law}.s16`);
    runFfmpeg(['-i', mono16k, '-f', 's16le', '-c:a', 'pcm_s16le', raw]);
    const bytes = readFileSync(raw);
    const theirs = Float32Array.from({ length: bytes.length / 2 }, (_, i) => bytes.readInt16LE(2 * i) / 32768);
    expect(theirs.length).toBeGreaterThan(100_000);
    expectSameSamples(await decodeAll(mono16k), theirs);

    // 8 kHz, upsampled to 16 kHz: the same as the reference PCM upsampled; each channel alone too.
    expectSameSamples(await decodeAll(mono8k), await decodeAll(mono8kRef));
    for (const channel of [0, 1]) expectSameSamples(await decodeAll(stereo8k, channel), await decodeAll(stereo8kRef, channel));
  });

  it('every REST path reads the G.711 file as its reference PCM: sync, async, audio_url, batch, job API, channels=2', async () => {
    const client = new JobsClient(suite.gw.url, suite.key);
    const { mono8k, mono8kRef, stereo8k, stereo8kRef } = files[law];
    const finished = async (created: { status: number; body: any }): Promise<any> => {
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const job = ['queued', 'processing'].includes(created.body.status) ? await client.waitFor(created.body.id) : created.body;
      expect(job.status, JSON.stringify(job.error)).toBe('completed');
      return job;
    };
    const texts: Record<string, [string, string]> = {};
    const both = async (name: string, run: (g711: boolean) => Promise<string>): Promise<void> => {
      texts[name] = [await run(true), await run(false)];
    };

    await both('sync', async (g711) => (await finished(await client.submitFile(g711 ? mono8k : mono8kRef, { language: 'am', mode: 'sync' }))).text);
    await both('async', async (g711) => (await finished(await client.submitFile(g711 ? mono8k : mono8kRef, { language: 'am' }))).text);
    await both(
      'audio_url',
      async (g711) => (await finished(await client.submitUrl({ audio_url: server.url(basename(g711 ? mono8k : mono8kRef)), language: 'am' }))).text,
    );
    await both('batch', async (g711) => {
      const form = new FormData();
      form.append('language', 'am');
      form.append('files', new Blob([readFileSync(g711 ? mono8k : mono8kRef)]), `call-${law}.wav`);
      const response = await fetch(`${suite.gw.url}/v1/transcriptions/batch`, { method: 'POST', headers: client.headers(), body: form });
      const parent = await client.waitFor(((await response.json()) as { id: string }).id);
      expect(parent.metadata).toMatchObject({ completed_count: 1, failed_count: 0 });
      return (await client.get(parent.metadata.jobs[0].job_id)).body.text;
    });
    await both('job API', async (g711) => {
      const { job, transcript } = await new TranscribeJobClient(suite.gw.url, suite.key).run({
        audio_urls: [server.url(basename(g711 ? mono8k : mono8kRef))],
        language: 'am',
      });
      expect(job.status).toBe('COMPLETED');
      return transcript.text;
    });
    await both('channels=2', async (g711) => {
      const job = await finished(await client.submitFile(g711 ? stereo8k : stereo8kRef, { language: 'am', mode: 'sync', channels: '2' }));
      const segments = job.segments as Array<{ channel: number; text: string }>;
      expect(new Set(segments.map((s) => s.channel))).toEqual(new Set([0, 1]));
      return segments.map((s) => `${s.channel}: ${s.text}`).join(' | ');
    });
    console.info(`${law} WAV against its reference PCM on every path:`, JSON.stringify(texts));
    for (const [path, [g711, pcm]] of Object.entries(texts)) {
      expect(pcm.length, path).toBeGreaterThan(10);
      expect(g711, path).toBe(pcm);
    }
  }, 240_000);
});
