// POST /v1/transcriptions with channels=2 (issue 18 item 1): a stereo call recording is
// transcribed per channel, segments carry `channel` and `speaker` and are merged in time order;
// a mono file is refused with 400 (upload) or fails the job (audio_url). Real server, shipped
// Amharic model, two committed ALFFA utterances of different speakers on the two channels.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance, scoringForm } from '../../src/engines/scoring/character-error-rate.js';
import { runFfmpeg, startFileServer } from '../helpers/audio-files.js';
import { interleaveStereo, wavData, wavHeader, wavOf } from '../helpers/fixtures.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { useTestGateway } from '../helpers/suite-gateway.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const HELDOUT = fileURLToPath(new URL('../fixtures/heldout/', import.meta.url));
const AGENT_CLIP = join(HELDOUT, 'alffa_spk_heldout-tr_10779_tr02102.wav');
const CUSTOMER_CLIP = join(HELDOUT, 'alffa_spk_heldout-tr_10829_tr09103.wav');

const scratch = useScratchDir('stereo-jobs-');
const suite = useTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '60' });
let client: JobsClient;
let files: Awaited<ReturnType<typeof startFileServer>>;
let stereoFlac: string;
let monoWav: string;
/** Each channel of the call on its own, as a mono WAV file. */
let channelFiles: [string, string];

const pcmOf = (path: string): Buffer => wavData(readFileSync(path)).pcm;
const silence = (ms: number): Buffer => Buffer.alloc(ms * 32);

/** A 16 kHz 16-bit stereo WAV file of two mono channels (the shorter padded with silence). */
function stereoWav(left: Buffer, right: Buffer): Buffer {
  const data = interleaveStereo(left, right);
  return Buffer.concat([wavHeader(data.length, 16_000, 2), data]);
}

function cer(reference: string, hypothesis: string): number {
  const ref = scoringForm(reference, 'am');
  return editDistance(ref, scoringForm(hypothesis, 'am')) / ref.length;
}

beforeAll(async () => {
  client = new JobsClient(suite.gw.url, suite.key);
  // The agent speaks from 0.5 s, the customer from 3.5 s (overlapping the agent's last second).
  const left = Buffer.concat([silence(500), pcmOf(AGENT_CLIP), silence(1_000)]);
  const right = Buffer.concat([silence(3_500), pcmOf(CUSTOMER_CLIP), silence(500)]);
  const wav = scratch('call.wav');
  writeFileSync(wav, stereoWav(left, right));
  channelFiles = [scratch('left.wav'), scratch('right.wav')];
  const frames = Math.max(left.length, right.length);
  writeFileSync(channelFiles[0], wavOf(Buffer.concat([left, Buffer.alloc(frames - left.length)])));
  writeFileSync(channelFiles[1], wavOf(Buffer.concat([right, Buffer.alloc(frames - right.length)])));
  stereoFlac = scratch('call.flac');
  runFfmpeg(['-i', wav, '-c:a', 'flac', stereoFlac]);
  monoWav = AGENT_CLIP;
  files = await startFileServer({ 'mono.wav': monoWav, 'call.flac': stereoFlac });
}, 120_000);

afterAll(async () => files?.close());

describe('channels=2 on REST', () => {
  it('a stereo FLAC gives per-channel segments with channel and speaker, in time order, each read as its channel alone', async () => {
    const agentAlone = (await client.submitFile(channelFiles[0], { language: 'am', mode: 'sync' })).body.text as string;
    const customerAlone = (await client.submitFile(channelFiles[1], { language: 'am', mode: 'sync' })).body.text as string;

    const created = await client.submitFile(stereoFlac, { language: 'am', mode: 'sync', channels: '2' });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const job = created.body.status === 'completed' ? created.body : await client.waitFor(created.body.id);
    expect(job.status).toBe('completed');
    const segments = job.segments as Array<{ id: number; start_ms: number; channel: number; speaker: string; text: string }>;
    expect(segments.map((s) => s.id)).toEqual(segments.map((_, i) => i));
    expect([...segments].sort((a, b) => a.start_ms - b.start_ms)).toEqual(segments);
    for (const s of segments) expect(s.speaker).toBe(s.channel === 0 ? 'agent' : 'customer');
    const textOf = (channel: number): string =>
      segments
        .filter((s) => s.channel === channel)
        .map((s) => s.text)
        .join(' ');
    // The same samples (FLAC is lossless) decoded the same way: the same text as the channel's own file.
    expect(textOf(0)).toBe(agentAlone);
    expect(textOf(1)).toBe(customerAlone);
    // And each channel is its own speaker's utterance, not the other's.
    expect(cer(agentAlone, textOf(1))).toBeGreaterThan(0.6);
    // The customer's first segment starts around 3.5 s, after the agent's.
    const firstCustomer = segments.find((s) => s.channel === 1)!;
    expect(firstCustomer.start_ms).toBeGreaterThan(2_500);
    expect(segments[0]!.channel).toBe(0);
    expect(job.text).toBe(`agent: ${textOf(0)}\ncustomer: ${textOf(1)}`);
    expect(job.duration_seconds).toBeGreaterThan(7);
    // Each merged segment keeps its own channel's words, inside it and spelling its text.
    for (const s of segments as unknown as Array<{
      start_ms: number;
      end_ms: number;
      text: string;
      words: Array<{ word: string; start_ms: number; end_ms: number }>;
    }>) {
      expect(s.words.map((w) => w.word).join(' ')).toBe(s.text);
      for (const w of s.words) expect(w.start_ms >= s.start_ms && w.end_ms <= s.end_ms).toBe(true);
    }

    // The stored transcript carries the same segments.
    const transcript = await fetch(`${suite.gw.url}${job.result_url as string}`, { headers: client.headers() });
    expect(((await transcript.json()) as { segments: unknown[] }).segments).toEqual(segments);
  }, 120_000);

  it('channel_names names the speakers (JSON audio_url); without channels a stereo file is mixed as before', async () => {
    const named = await client.submitUrl({ audio_url: files.url('call.flac'), language: 'am', mode: 'sync', channels: 2, channel_names: 'operator,caller' });
    expect(named.status).toBe(202);
    const job = named.body.status === 'completed' ? named.body : await client.waitFor(named.body.id);
    expect(new Set((job.segments as Array<{ speaker: string; channel: number }>).map((s) => `${s.channel}:${s.speaker}`))).toEqual(
      new Set(['0:operator', '1:caller']),
    );

    const mixed = await client.submitFile(stereoFlac, { language: 'am', mode: 'sync' });
    const plain = mixed.body.status === 'completed' ? mixed.body : await client.waitFor(mixed.body.id);
    for (const segment of plain.segments) {
      expect(segment).not.toHaveProperty('channel');
      expect(segment.speaker).toBeNull();
    }
  }, 120_000);

  it('a mono file with channels=2: 400 invalid_field_value on upload, a failed job by URL; bad channel fields: 400', async () => {
    const refused = await client.submitFile(monoWav, { language: 'am', channels: '2' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_field_value', param: 'channels' });
    expect(refused.body.error.message).toContain('has 1 channel');

    const byUrl = await client.submitUrl({ audio_url: files.url('mono.wav'), language: 'am', mode: 'sync', channels: 2 });
    const failed = byUrl.body.status === 'failed' ? byUrl.body : await client.waitFor(byUrl.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'invalid_field_value' });
    expect(failed.error.message).toContain('channels=2');

    const badFields: Record<string, string>[] = [{ channels: '3' }, { channels: '2', channel_names: 'one' }, { channel_names: 'a,b' }];
    for (const fields of badFields) {
      const bad = await client.submitFile(stereoFlac, { language: 'am', ...fields });
      expect(bad.status, JSON.stringify(fields)).toBe(400);
    }
  }, 60_000);
});
