// Call-centre stereo and telephone audio over the WebSocket (issue 18 item 1): channels=2 runs
// one VAD and turn stream per channel, labels every turn with its channel and speaker, reports
// barge-ins and overlaps, and keeps per-channel segments in the job record; 8 kHz PCM, mu-law
// and A-law are upsampled and read about as well as the 16 kHz PCM of the same speech. Uses the
// shipped Amharic model on two committed ALFFA utterances of different speakers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance, scoringForm } from '../../src/engines/scoring/character-error-rate.js';
import { speechFrames } from '../../bench/speech-onset.js';
import { HELDOUT_FIXTURES_DIR, heldOutFixtures } from '../../training/common/heldout-fixtures.js';
import { runFfmpeg } from '../helpers/audio-files.js';
import { interleaveStereo, pcm16ToFloat, wavHeader, wavOf } from '../helpers/fixtures.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { oddSplits, silence } from './ws-audio.js';
import { chunks, connect, connectReady, paced, wavPcm, wsUrl, type StreamClient } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));

/** Two ALFFA utterances of two speakers (tr021 and tr091), 4.7 s and 4.2 s. */
const AGENT_CLIP = 'alffa_spk_heldout-tr_10779_tr02102.wav';
const CUSTOMER_CLIP = 'alffa_spk_heldout-tr_10829_tr09103.wav';

function reference(clip: string): string {
  return heldOutFixtures().find((row) => row.file === clip)!.reference;
}

const clipPcm = (clip: string): Buffer => wavPcm(join(HELDOUT_FIXTURES_DIR, clip)).pcm;

function cer(referenceText: string, hypothesis: string): number {
  const ref = scoringForm(referenceText, 'am');
  return editDistance(ref, scoringForm(hypothesis, 'am')) / ref.length;
}

/** A clip from its speech onset on, and where its last speech frame ends (ms into the result). */
function fromOnset(clip: string): { pcm: Buffer; speechEndMs: number } {
  const pcm = clipPcm(clip);
  const frames = speechFrames(pcm16ToFloat(pcm));
  const onset = frames.indexOf(true);
  return { pcm: pcm.subarray(onset * 320), speechEndMs: (frames.lastIndexOf(true) + 1 - onset) * 10 };
}

/**
 * The call: the agent speaks from 0.5 s (both clips start at their speech onset); the customer
 * starts 3 s later, while the agent is still talking (about 4 s of speech), then both stop;
 * 1.5 s of silence at the end.
 */
function call(): { stereo: Buffer; channels: [Buffer, Buffer]; agentStartMs: number; customerStartMs: number; agentEndMs: number } {
  const { pcm: agent, speechEndMs } = fromOnset(AGENT_CLIP);
  const customer = fromOnset(CUSTOMER_CLIP).pcm;
  const left = Buffer.concat([silence(500), agent]);
  const right = Buffer.concat([silence(3_500), customer]);
  const longest = Math.max(left.length, right.length);
  const pad = (pcm: Buffer): Buffer => Buffer.concat([pcm, Buffer.alloc(longest - pcm.length), silence(1_500)]);
  return {
    stereo: interleaveStereo(pad(left), pad(right)),
    channels: [pad(left), pad(right)],
    agentStartMs: 500,
    customerStartMs: 3_500,
    agentEndMs: 500 + speechEndMs,
  };
}

let gw: TestGateway;
let key: string;
let tmp: string;

beforeAll(async () => {
  // Audio goes faster than real time: the per-connection rate limits are lifted.
  gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', WS_MAX_MESSAGES_PER_SECOND: '100000', WS_MAX_BYTES_PER_SECOND: '1000000000' });
  key = await gw.key({ scopes: ['write', 'read'] });
  tmp = mkdtempSync(join(tmpdir(), 'ws-stereo-'));
}, 120_000);
afterAll(async () => {
  await gw?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function finish(client: StreamClient): Promise<Record<string, unknown>> {
  client.send('END');
  const final = await client
    .waitFor('transcription', (m) => m.is_final, 60_000)
    .catch((error: unknown) => {
      throw new Error(`${(error as Error).message}: ${JSON.stringify(client.ofType('error'))}`);
    });
  expect((await client.closed).code).toBe(1000);
  return final;
}

type Turn = { channel: number; speaker: string; text: string; turn_id: number; start_ms: number; end_ms: number; segments: Array<Record<string, unknown>> };

describe('channels=2 (call-centre stereo)', () => {
  it.each(['energy', 'silero'] as const)(
    '%s VAD: one turn stream per channel, labelled; a barge-in and the overlap; per-channel text in the job',
    async (vad) => {
      const { stereo, channels, customerStartMs, agentEndMs } = call();
      const client = await connectReady(wsUrl(gw.url, { turn_detection: 'server_vad', vad_type: vad, language: 'am', channels: '2' }), bearer(key));
      const ready = client.ofType('ready')[0]!;
      expect(ready).toMatchObject({ channels: 2, channel_names: ['agent', 'customer'], format: 'pcm_s16le', sample_rate: 16_000 });
      // Uneven message sizes: frames split across messages are put back together.
      await paced(client, oddSplits(stereo), 0);
      const final = await finish(client);

      const turns = client.ofType('turn_detected') as unknown as Turn[];
      const agent = turns.filter((t) => t.channel === 0);
      const customer = turns.filter((t) => t.channel === 1);
      expect(agent.length, JSON.stringify(turns)).toBeGreaterThan(0);
      expect(customer.length, JSON.stringify(turns)).toBeGreaterThan(0);
      for (const turn of agent) expect(turn.speaker).toBe('agent');
      for (const turn of customer) expect(turn.speaker).toBe('customer');
      for (const turn of turns) for (const segment of turn.segments) expect(segment).toMatchObject({ channel: turn.channel, speaker: turn.speaker });
      // Each channel reads as REST reads that channel alone (turns are decoded as files are;
      // the padding differs), and not as the other speaker's utterance.
      const agentText = agent.map((t) => t.text).join(' ');
      const customerText = customer.map((t) => t.text).join(' ');
      const [agentRest, customerRest] = [await restText(channels[0]), await restText(channels[1])];
      expect(cer(agentRest, agentText), `${agentText} / ${agentRest}`).toBeLessThanOrEqual(0.25);
      expect(cer(customerRest, customerText), `${customerText} / ${customerRest}`).toBeLessThanOrEqual(0.25);
      expect(cer(agentRest, customerText)).toBeGreaterThan(0.6);

      // speech_started carries the channel too.
      const started = client.ofType('speech_started') as unknown as Array<{ channel: number; speaker: string }>;
      expect(new Set(started.map((m) => `${m.channel}:${m.speaker}`))).toEqual(new Set(['0:agent', '1:customer']));

      // The customer starts while the agent's turn is open: one barge-in, then the overlap.
      const bargeIns = client.ofType('barge_in') as unknown as Array<Record<string, unknown>>;
      expect(bargeIns.length, JSON.stringify(bargeIns)).toBeGreaterThanOrEqual(1);
      expect(bargeIns[0]).toMatchObject({ channel: 1, speaker: 'customer', interrupted_channel: 0, interrupted_speaker: 'agent' });
      // Times are the speech itself (the endpointer's padding taken off).
      expect(Math.abs((bargeIns[0]!.at_ms as number) - customerStartMs), JSON.stringify(bargeIns[0])).toBeLessThan(300);
      const overlaps = client.ofType('overlap') as unknown as Array<{
        start_ms: number;
        end_ms: number;
        duration_ms: number;
        channels: number[];
        speakers: string[];
      }>;
      expect(overlaps.length, JSON.stringify(overlaps)).toBeGreaterThanOrEqual(1);
      const overlapMs = overlaps.reduce((sum, o) => sum + o.duration_ms, 0);
      for (const o of overlaps) expect(o).toMatchObject({ channels: [0, 1], speakers: ['agent', 'customer'], duration_ms: o.end_ms - o.start_ms });
      // Both speak from 3.5 s to the end of the agent's clip (5.24 s), give or take the VAD's edges.
      expect(Math.abs(overlaps[0]!.start_ms - customerStartMs), JSON.stringify(overlaps)).toBeLessThan(300);
      expect(Math.abs(overlapMs - (agentEndMs - customerStartMs)), JSON.stringify(overlaps)).toBeLessThan(400);
      console.info(
        `stereo call, ${vad} VAD:`,
        JSON.stringify({ customerStartMs, agentEndMs, bargeIn: bargeIns[0], overlaps, turns: turns.map((t) => [t.channel, t.start_ms, t.end_ms]) }),
      );
      const stats = client.ofType('session_stats')[0] as unknown as { overlaps: number; overlap_ms: number };
      expect(stats).toMatchObject({ overlaps: overlaps.length, overlap_ms: overlapMs });

      // The final message: is_final once, on the last channel's final piece, with speaker lines.
      expect(client.ofType('transcription').filter((m) => m.is_final)).toHaveLength(1);
      const fullText = final.full_text as string;
      expect(fullText.split('\n')[0]!.startsWith('agent: ')).toBe(true);
      expect(fullText).toContain('\ncustomer: ');

      // The job record: per-channel segments in time order, renumbered; the labelled text.
      const response = await fetch(`${gw.url}/v1/transcriptions/${ready.job_id as string}`, { headers: bearer(key) });
      const job = (await response.json()) as {
        status: string;
        text: string;
        segments: Array<{ id: number; start_ms: number; channel: number; speaker: string; text: string }>;
      };
      expect(job.status).toBe('completed');
      expect(job.text).toBe(fullText);
      expect(job.segments.map((s) => s.id)).toEqual(job.segments.map((_, i) => i));
      expect([...job.segments].sort((a, b) => a.start_ms - b.start_ms)).toEqual(job.segments);
      expect(new Set(job.segments.map((s) => `${s.channel}:${s.speaker}`))).toEqual(new Set(['0:agent', '1:customer']));
      expect(
        job.segments
          .filter((s) => s.channel === 1)
          .map((s) => s.text)
          .join(' '),
      ).toBe(customerText);
    },
    120_000,
  );

  it('channel_names names the speakers; a stereo WAV stream is split the same way', async () => {
    const { stereo } = call();
    const wav = Buffer.concat([wavHeader('stream', 16_000, 2), stereo]);
    const client = await connectReady(
      wsUrl(gw.url, { turn_detection: 'server_vad', language: 'am', channels: '2', format: 'wav', channel_names: 'operator,caller' }),
      bearer(key),
    );
    expect(client.ofType('ready')[0]).toMatchObject({ channel_names: ['operator', 'caller'], format: 'wav' });
    await paced(client, oddSplits(wav, 11), 0);
    await finish(client);
    const turns = client.ofType('turn_detected') as unknown as Turn[];
    expect(new Set(turns.map((t) => `${t.channel}:${t.speaker}`))).toEqual(new Set(['0:operator', '1:caller']));
    expect(client.ofType('barge_in')[0]).toMatchObject({ speaker: 'caller', interrupted_speaker: 'operator' });
    expect(client.ofType('error')).toEqual([]);
  }, 120_000);

  it('webm_opus with a stereo Opus track (MediaRecorder on a two-channel source) is split too; a mono track is refused once', async () => {
    const { stereo } = call();
    const raw = join(tmp, 'call.s16');
    const webm = join(tmp, 'call.webm');
    writeFileSync(raw, stereo);
    runFfmpeg(['-f', 's16le', '-ar', '16000', '-ac', '2', '-i', raw, '-c:a', 'libopus', '-b:a', '64k', '-ar', '48000', webm]);
    const client = await connectReady(wsUrl(gw.url, { turn_detection: 'server_vad', language: 'am', channels: '2', format: 'webm_opus' }), bearer(key));
    await paced(client, oddSplits(readFileSync(webm), 17), 0);
    await finish(client);
    expect(client.ofType('error')).toEqual([]);
    const turns = client.ofType('turn_detected') as unknown as Turn[];
    expect(new Set(turns.map((t) => `${t.channel}:${t.speaker}`))).toEqual(new Set(['0:agent', '1:customer']));
    expect(client.ofType('barge_in')[0]).toMatchObject({ channel: 1, interrupted_channel: 0 });
    expect(client.ofType('overlap').length).toBeGreaterThanOrEqual(1);
    // Against REST's channels=2 reading of the same WebM file (ffmpeg decodes the Opus there).
    const form = new FormData();
    for (const [name, value] of Object.entries({ language: 'am', mode: 'sync', channels: '2' })) form.append(name, value);
    form.append('file', new Blob([readFileSync(webm)]), 'call.webm');
    const rest = (await (await fetch(`${gw.url}/v1/transcriptions`, { method: 'POST', headers: bearer(key), body: form })).json()) as {
      segments: Array<{ channel: number; text: string }>;
    };
    const restOf = (channel: number): string =>
      rest.segments
        .filter((s) => s.channel === channel)
        .map((s) => s.text)
        .join(' ');
    const [agentRest, customerRest] = [restOf(0), restOf(1)];
    const textOf = (channel: number): string =>
      turns
        .filter((t) => t.channel === channel)
        .map((t) => t.text)
        .join(' ');
    expect(cer(agentRest, textOf(0)), `${textOf(0)} / ${agentRest}`).toBeLessThanOrEqual(0.25);
    expect(cer(customerRest, textOf(1)), `${textOf(1)} / ${customerRest}`).toBeLessThanOrEqual(0.25);

    const monoWebm = join(tmp, 'mono.webm');
    runFfmpeg(['-f', 's16le', '-ar', '16000', '-ac', '2', '-i', raw, '-c:a', 'libopus', '-ac', '1', '-ar', '48000', monoWebm]);
    const mono = await connectReady(wsUrl(gw.url, { language: 'am', channels: '2', format: 'webm_opus' }), bearer(key));
    await paced(mono, chunks(readFileSync(monoWebm), 4_000), 0);
    await finish(mono);
    const errors = mono.ofType('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error.message).toContain('channels=2 needs a stereo track');
  }, 120_000);

  it.each(['alaw_8k', 'mulaw_8k'] as const)(
    '%s stereo (a telephone call recording): each channel through its own G.711 front end, read as the same samples in pcm_s16le_8k',
    async (format) => {
      const { stereo, customerStartMs } = call();
      const codec = format === 'alaw_8k' ? 'alaw' : 'mulaw';
      const eight = telephone(stereo, codec, `call-${format}`, 2);
      // The same call as ffmpeg decodes the G.711 codes (the reference decoder): 8 kHz 16-bit PCM.
      const codes = join(tmp, `call-${format}.g711`);
      const decoded = join(tmp, `call-${format}.s16`);
      writeFileSync(codes, eight.raw);
      runFfmpeg(['-f', codec, '-ar', '8000', '-ac', '2', '-i', codes, '-f', 's16le', '-c:a', 'pcm_s16le', decoded]);
      const texts: Record<string, string[]> = {};
      const ends: Record<string, Array<[number, number]>> = {};
      for (const [sent, audio] of [
        [format, eight.raw],
        ['pcm_s16le_8k', readFileSync(decoded)],
      ] as const) {
        const client = await connectReady(wsUrl(gw.url, { turn_detection: 'server_vad', language: 'am', channels: '2', format: sent }), bearer(key));
        expect(client.ofType('ready')[0]).toMatchObject({ channels: 2, format: sent, sample_rate: 8_000 });
        // Odd sizes: a frame (one code or sample a channel) split across messages.
        await paced(client, oddSplits(audio, 7), 0);
        const final = await finish(client);
        expect(client.ofType('error')).toEqual([]);
        expect(Math.abs((final.end_ms as number) - stereo.length / 64), 'stream length').toBeLessThan(60);
        const turns = client.ofType('turn_detected') as unknown as Turn[];
        expect(new Set(turns.map((t) => `${t.channel}:${t.speaker}`))).toEqual(new Set(['0:agent', '1:customer']));
        expect(client.ofType('barge_in')[0]).toMatchObject({ channel: 1, interrupted_channel: 0 });
        expect(Math.abs((client.ofType('barge_in')[0]!.at_ms as number) - customerStartMs)).toBeLessThan(300);
        ends[sent] = turns.map((t) => [t.channel, t.end_ms]);
        texts[sent] = [0, 1].map((channel) =>
          turns
            .filter((t) => t.channel === channel)
            .map((t) => t.text)
            .join(' '),
        );
      }
      console.info(`stereo ${format} against the same samples as pcm_s16le_8k:`, JSON.stringify({ texts, ends }));
      // The front ends see the same samples (test/native/g711-reference.test.ts), so the VAD ends
      // the same turns at the same times. Where a turn's audio starts depends on when pieces were
      // cut while the audio raced in (the customer's turn began at 1.7 s in one PCM run and at
      // 2.6 s in the A-law run beside it, with identical VAD events), so the texts differ by a few
      // letters at the edges.
      expect(ends[format]).toEqual(ends.pcm_s16le_8k);
      for (const channel of [0, 1]) {
        const reference = texts.pcm_s16le_8k![channel]!;
        expect(reference.length, `channel ${channel}`).toBeGreaterThan(10);
        expect(cer(reference, texts[format]![channel]!), JSON.stringify(texts)).toBeLessThanOrEqual(0.4);
      }
    },
    120_000,
  );

  it('refuses what cannot be split: Opus formats, bad names (1008); a mono WAV stream; FORMAT to Opus', async () => {
    for (const [query, param] of [
      [{ channels: '2', format: 'opus_raw_16k' }, 'channels'],
      [{ channels: '3' }, 'channels'],
      [{ channels: '2', channel_names: 'agent' }, 'channel_names'],
      [{ channels: '2', channel_names: 'agent,agent' }, 'channel_names'],
      [{ channel_names: 'a,b' }, 'channel_names'],
    ] as const) {
      const client = connect(wsUrl(gw.url, { language: 'am', ...query }), bearer(key));
      const closed = await client.closed;
      expect(client.ofType('ready'), JSON.stringify(query)).toHaveLength(0);
      expect(closed.code).toBe(1008);
      expect(client.ofType('error')[0]!.error).toMatchObject({ code: 'invalid_field_value', param });
    }

    const client = await connectReady(wsUrl(gw.url, { language: 'am', channels: '2', format: 'wav' }), bearer(key));
    client.send(Buffer.concat([wavHeader('stream', 16_000, 1), silence(200)]));
    const error = await client.waitFor('error');
    expect(error).toMatchObject({ close_code: null, error: { code: 'invalid_audio_data' } });
    expect(error.error.message).toContain('channels=2');
    client.send('FORMAT:opus_raw_16k');
    const formatError = await client.waitFor('error', (m) => m.error.code === 'invalid_field_value');
    expect(formatError.error).toMatchObject({ param: 'format' });
    client.send('FORMAT:pcm_s16le');
    await client.waitFor('format_changed');
    client.send(interleaveStereo(silence(500), silence(500)));
    await finish(client);
    // Reported once, not per message.
    expect(client.ofType('error').filter((m) => m.error.code === 'invalid_audio_data')).toHaveLength(1);
  }, 60_000);
});

/**
 * 8 kHz of 16 kHz PCM (mono, or stereo with `channels` 2) through ffmpeg: raw `pcm` (s16le) or
 * G.711 `mulaw` / `alaw` for the stream, and the same samples in a WAV file for REST.
 */
function telephone(pcm16k: Buffer, codec: 'pcm' | 'mulaw' | 'alaw', name: string, channels = 1): { raw: Buffer; wav: Buffer } {
  const source = join(tmp, `${name}.s16`);
  writeFileSync(source, pcm16k);
  const raw = join(tmp, `${name}.${codec}`);
  const wav = join(tmp, `${name}.wav`);
  const input = ['-f', 's16le', '-ar', '16000', '-ac', String(channels), '-i', source, '-ar', '8000', '-ac', String(channels)];
  runFfmpeg([...input, '-f', codec === 'pcm' ? 's16le' : codec, raw]);
  runFfmpeg([...input, '-c:a', codec === 'pcm' ? 'pcm_s16le' : `pcm_${codec}`, wav]);
  return { raw: readFileSync(raw), wav: readFileSync(wav) };
}

/** The REST text of a file upload (sync; raw 16 kHz PCM is sent as a WAV file). */
async function restText(file: Buffer): Promise<string> {
  if (file.subarray(0, 4).toString('ascii') !== 'RIFF') file = wavOf(file);
  const form = new FormData();
  form.append('language', 'am');
  form.append('mode', 'sync');
  form.append('file', new Blob([file]), 'call.wav');
  const response = await fetch(`${gw.url}/v1/transcriptions`, { method: 'POST', headers: bearer(key), body: form });
  const body = (await response.json()) as { status: string; text: string };
  expect(body.status).toBe('completed');
  return body.text;
}

describe('8 kHz telephone audio', () => {
  // The model hears 16 kHz speech; 8 kHz audio has nothing above 4 kHz, which costs letters
  // whoever upsamples it (measured here: mean CER 0.32 at 16 kHz, 0.44 to 0.57 at 8 kHz by
  // REST). So the stream's mean CER over the six clips is held to REST's reading of the same
  // 8 kHz files (ffmpeg upsamples there; a clip of 18 letters moves 5 points per letter, hence
  // 8 points of room), and to the 16 kHz PCM within the band's cost.
  it('pcm_s16le_8k, mulaw_8k and alaw_8k are upsampled: as REST reads the same 8 kHz audio, near the 16 kHz PCM (six ALFFA clips)', async () => {
    const figures: Record<string, number> = {};
    const mean: Record<string, number> = { pcm_s16le: 0, pcm_s16le_8k: 0, mulaw_8k: 0, alaw_8k: 0 };
    const restMean: Record<string, number> = { pcm_s16le_8k: 0, mulaw_8k: 0, alaw_8k: 0 };
    const clips = heldOutFixtures()
      .filter((row) => row.set === 'alffa_spk_heldout')
      .map((row) => row.file);
    expect(clips).toHaveLength(6);
    for (const clip of clips) {
      const pcm = Buffer.concat([silence(300), clipPcm(clip), silence(800)]);
      const eight = {
        pcm_s16le_8k: telephone(pcm, 'pcm', `${clip}-pcm`),
        mulaw_8k: telephone(pcm, 'mulaw', `${clip}-mulaw`),
        alaw_8k: telephone(pcm, 'alaw', `${clip}-alaw`),
      };
      for (const [format, audio] of [
        ['pcm_s16le', pcm],
        ['pcm_s16le_8k', eight.pcm_s16le_8k.raw],
        ['mulaw_8k', eight.mulaw_8k.raw],
        ['alaw_8k', eight.alaw_8k.raw],
      ] as const) {
        const client = await connectReady(wsUrl(gw.url, { language: 'am', format }), bearer(key));
        expect(client.ofType('ready')[0]).toMatchObject({ format, sample_rate: format === 'pcm_s16le' ? 16_000 : 8_000 });
        // 100 ms messages; G.711 (one byte a sample) also at odd sizes.
        await paced(client, format === 'mulaw_8k' || format === 'alaw_8k' ? oddSplits(audio, 5) : chunks(audio, 1_600), 0);
        const final = await finish(client);
        expect(client.ofType('error')).toEqual([]);
        // 8 kHz in, 16 kHz positions out: the stream is as long as the audio.
        expect(Math.abs((final.end_ms as number) - pcm.length / 32), format).toBeLessThan(60);
        const text = final.full_text as string;
        const score = cer(reference(clip), text);
        figures[`${clip.slice(18, 26)} ${format}`] = Math.round(score * 1000) / 1000;
        mean[format]! += score / clips.length;
        if (format !== 'pcm_s16le') {
          const rest = await restText(eight[format].wav);
          const restScore = cer(reference(clip), rest);
          figures[`${clip.slice(18, 26)} ${format} REST`] = Math.round(restScore * 1000) / 1000;
          restMean[format]! += restScore / clips.length;
        }
      }
    }
    console.info('CER against the ALFFA references:', JSON.stringify(figures), JSON.stringify({ mean, restMean }));
    for (const format of ['pcm_s16le_8k', 'mulaw_8k', 'alaw_8k']) {
      expect(mean[format], JSON.stringify(figures)).toBeLessThanOrEqual(restMean[format]! + 0.08);
      expect(mean[format], JSON.stringify(figures)).toBeLessThanOrEqual(mean['pcm_s16le']! + 0.35);
    }
  }, 120_000);
});
