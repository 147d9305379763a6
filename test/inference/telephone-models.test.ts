// Telephone models (manifest `telephone_model`, TELEPHONE_MODELS) against the shipped models folder:
// audio stated at 8 kHz (an 8 kHz WAV upload, a `mulaw_8k` WebSocket session) with no model named
// runs on the default's telephone model (small-am-v7's is small-am-v2-telephone) and says so; a named model, and 16 kHz audio, run as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearToMulaw, telephoneChannel } from '../../bench/telephone-channel.js';
import { ModelRegistry } from '../../src/engines/asr/models/model-registry.js';
import { editDistance } from '../../src/engines/scoring/character-error-rate.js';
import { wavOf } from '../helpers/fixtures.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from '../ws/ws-audio.js';
import { chunks, connectReady, paced, wavPcm, wsUrl } from '../ws/ws-client.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const CLIP = heldOutClip('alffa_spk_heldout-tr_10778_tr02101.wav').path;
const DEFAULT = 'small-am-v7';
const TELEPHONE = 'small-am-v2-telephone';

const floats = (pcm: Buffer): Float32Array => Float32Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(2 * i) / 32_768);
const int16Bytes = (samples: Int16Array): Buffer => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
const cer = (hypothesis: string, reference: string): number => editDistance([...hypothesis], [...reference]) / Math.max(1, [...reference].length);

let gw: TestGateway;
let key: string;
let dir: string;
let callWav: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'telephone-models-'));
  // the clip as a G.711 mu-law call delivers it: 8 kHz, 300-3,400 Hz (the robustness benchmark's channel)
  callWav = join(dir, 'call-8k.wav');
  writeFileSync(callWav, wavOf(int16Bytes(telephoneChannel(floats(wavPcm(CLIP).pcm), 'mulaw')), 8_000));
  gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', WS_PARTIAL_INTERVAL_MS: '300', SYNC_WAIT_SECONDS: '60' });
  key = await gw.key({ scopes: ['read', 'write'] });
}, 120_000);

afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('telephone models', () => {
  it('the shipped default names its telephone model, a model of the same language and vocabulary that is no default', async () => {
    const shipped = await ModelRegistry.scan(MODELS_DIR);
    expect(shipped.defaultModel('am')?.name).toBe(DEFAULT);
    expect(shipped.telephoneModelOf(DEFAULT)).toBe(TELEPHONE);
    expect(shipped.problems().filter((p) => p.message.startsWith('telephone_model'))).toEqual([]);
    expect(shipped.isDefault(shipped.get(TELEPHONE)!)).toBe(false);
    // opened at start beside the default, before any call came (Asr's preload)
    expect(gw.gateway.engines.asr.models().find((m) => m.name === TELEPHONE)?.loaded).toBe(true);
    expect(gw.gateway.engines.asr.models().find((m) => m.name === 'small-am-v5-telephone')?.loaded).toBe(false);
  });

  it('REST: an 8 kHz file with no model named runs on the telephone model; a named model and a 16 kHz file run as asked', async () => {
    const client = new JobsClient(gw.url, key);
    const call = await client.submitFile(callWav, { language: 'am', mode: 'sync' });
    expect(call.status, JSON.stringify(call.body)).toBe(202);
    expect(call.body.status).toBe('completed');
    expect(call.body.metadata.resolved_model).toBe(TELEPHONE);
    // language=auto: the detected language's default, and for a call its telephone model
    const auto = await client.submitFile(callWav, { language: 'auto', mode: 'sync' });
    expect(auto.body.language).toBe('am');
    expect(auto.body.metadata.resolved_model).toBe(TELEPHONE);
    const named = await client.submitFile(callWav, { language: 'am', model: DEFAULT, mode: 'sync' });
    expect(named.body.metadata.resolved_model).toBe(DEFAULT);
    const wide = await client.submitFile(CLIP, { language: 'am', mode: 'sync' });
    expect(wide.body.metadata.resolved_model).toBe(DEFAULT);
    // the call reads as the same sentence (tolerance: the telephone model on a call against the default on the wideband clip)
    expect(String(call.body.text).length).toBeGreaterThan(5);
    expect(cer(String(call.body.text), String(wide.body.text))).toBeLessThan(0.5);
  }, 90_000);

  it('WebSocket: a mulaw_8k session with no model named runs on the telephone model, partials from its own live stream', async () => {
    const stepsBefore = gw.gateway.engines.asr.poolStats().streams.steps;
    const call = telephoneChannel(floats(twoTurns().pcm), 'mulaw');
    const codes = Buffer.from(Array.from(call, (sample) => linearToMulaw(sample)));
    const client = await connectReady(wsUrl(gw.url, { format: 'mulaw_8k', turn_detection: 'server_vad', partial_results: 'true' }), bearer(key));
    expect(client.messages.find((m) => m.type === 'ready')?.model).toBe(TELEPHONE);
    await paced(client, chunks(codes, 800), 100);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    client.send('END');
    await client.closed;
    expect(gw.gateway.engines.asr.poolStats().streams.steps).toBeGreaterThan(stepsBefore);
    const turns = client.messages.filter((m) => m.type === 'turn_detected');
    expect(turns).toHaveLength(2);
    for (const turn of turns) expect(String(turn.text).length).toBeGreaterThan(5);
    expect(client.messages.some((m) => m.type === 'partial')).toBe(true);

    const named = await connectReady(wsUrl(gw.url, { format: 'mulaw_8k', model: DEFAULT }), bearer(key));
    expect(named.messages.find((m) => m.type === 'ready')?.model).toBe(DEFAULT);
    named.send('END');
    await named.closed;
    const wide = await connectReady(wsUrl(gw.url, {}), bearer(key));
    expect(wide.messages.find((m) => m.type === 'ready')?.model).toBe(DEFAULT);
    wide.send('END');
    await wide.closed;
  }, 90_000);
});
