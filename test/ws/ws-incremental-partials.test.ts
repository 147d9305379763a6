// Partials from live streams (issue 30, LIVE_INCREMENTAL_PARTIALS): with the shipped small-am-v2
// (it has streaming.onnx and stream-stats.json) each partial feeds only the audio since the last
// one to the turn's stream in the inference worker. The same two turns are streamed to a gateway
// with it on and one with it off: partials arrive for both turns either way, the turns' text
// (the second pass, decoded as REST decodes the turn) is the same, and only the gateway with it
// on ran stream steps. A third gateway has LIVE_FINAL_PASS=stream: its turns are transcribed
// from the streams' own frames, with no second pass.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance } from '../../src/engines/scoring/character-error-rate.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from './ws-audio.js';
import { chunks, connectReady, type Message, paced, wsUrl } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
type Mode = 'on' | 'off' | 'stream';
const gateways: Record<Mode, TestGateway | null> = { on: null, off: null, stream: null };
const keys: Record<Mode, string> = { on: '', off: '', stream: '' };

beforeAll(async () => {
  for (const mode of ['on', 'off', 'stream'] as const) {
    const gw = await startTestGateway({
      MODELS_DIR,
      DEFAULT_LANGUAGE: 'am',
      LIVE_INCREMENTAL_PARTIALS: mode === 'off' ? 'off' : 'on',
      LIVE_FINAL_PASS: mode === 'stream' ? 'stream' : 'second_pass',
      WS_PARTIAL_INTERVAL_MS: '300',
    });
    gateways[mode] = gw;
    keys[mode] = await gw.key({ scopes: ['write'] });
  }
}, 180_000);
afterAll(async () => {
  for (const gw of Object.values(gateways)) await gw?.close();
});

/** Two turns at real time (100 ms messages), END; every message. */
async function session(mode: Mode): Promise<Message[]> {
  const client = await connectReady(wsUrl(gateways[mode]!.url, { turn_detection: 'server_vad', partial_results: 'true' }), bearer(keys[mode]));
  await paced(client, chunks(twoTurns().pcm, 3200), 100);
  await client.waitFor('turn_detected', (m) => m.turn_id === 2);
  client.send('END');
  await client.closed;
  return client.messages;
}

const stepsRun = (mode: Mode): number => gateways[mode]!.gateway.engines.asr.poolStats().streams.steps;

describe('partials from live streams', () => {
  it('each turn gets partials from its stream, the turn text is the second pass, and the last partial is close to it', async () => {
    const [on, off] = await Promise.all([session('on'), session('off')]);
    expect(stepsRun('on')).toBeGreaterThan(0);
    expect(stepsRun('off')).toBe(0);
    const turns = (messages: Message[]) => messages.filter((m) => m.type === 'turn_detected');
    expect(turns(on).map((t) => t.text)).toEqual(turns(off).map((t) => t.text));
    for (const turn of turns(on)) {
      const partials = on.filter((m) => m.type === 'partial' && m.turn_id === turn.turn_id);
      expect(partials.length).toBeGreaterThanOrEqual(2);
      for (const p of partials) expect(p.text).toBe([p.stable_text, p.unstable_text].filter(Boolean).join(' '));
      // stable words stay: every later partial of the turn starts with them
      for (const [i, p] of partials.entries()) {
        const stable = String(p.stable_text);
        for (const later of partials.slice(i + 1)) expect(`${later.text} `.startsWith(stable.length > 0 ? `${stable} ` : '')).toBe(true);
      }
      const last = String(partials.at(-1)!.text);
      const text = String(turn.text);
      expect(text.length).toBeGreaterThan(5);
      expect(editDistance([...last], [...text]) / text.length).toBeLessThan(0.35);
    }
  }, 60_000);
  it("LIVE_FINAL_PASS=stream: turns come from the streams' frames, close to the second pass, with timed words", async () => {
    const before = gateways.stream!.gateway.engines.asr.poolStats().completedRequests;
    const [single, twoPass] = await Promise.all([session('stream'), session('on')]);
    const turns = (messages: Message[]) => messages.filter((m) => m.type === 'turn_detected');
    expect(turns(single).map((t) => t.turn_id)).toEqual([1, 2]);
    for (const [i, turn] of turns(single).entries()) {
      const text = String(turn.text);
      const second = String(turns(twoPass)[i]!.text);
      expect(editDistance([...text], [...second]) / second.length).toBeLessThan(0.2);
      const words = (turn.segments as { words?: { start_ms: number; end_ms: number }[] }[])[0]!.words!;
      expect(words.length).toBeGreaterThan(0);
      for (const w of words) {
        expect(w.start_ms).toBeGreaterThanOrEqual(Number(turn.start_ms));
        expect(w.end_ms).toBeLessThanOrEqual(Number(turn.end_ms));
      }
    }
    // no whole-turn runs: the session's recognition was stream steps only (language detection aside)
    expect(gateways.stream!.gateway.engines.asr.poolStats().completedRequests - before).toBe(0);
  }, 60_000);
});
