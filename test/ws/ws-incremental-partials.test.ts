// Partials from live streams (issue 30, LIVE_INCREMENTAL_PARTIALS): with the shipped default, small-am-v7
// (it has streaming.onnx and stream-stats.json) each partial feeds only the audio since the last
// one to the turn's stream in the inference worker. The same two turns are streamed to a gateway
// with it on and one with it off: partials arrive for both turns either way, the turns' text
// (the second pass, decoded as REST decodes the turn) is the same, and only the gateway with it
// on ran stream steps. A third gateway has LIVE_FINAL_PASS=stream: its turns are transcribed
// from the streams' own frames, with no second pass. A fourth has LIVE_PARTIAL_MODELS: its
// sessions on small-am-v7 take their partials from small-am-stream-v3's stream, and their turns
// are still small-am-v7's second pass, even with LIVE_FINAL_PASS=stream.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance } from '../../src/engines/scoring/character-error-rate.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from './ws-audio.js';
import { chunks, connectReady, type Message, paced, wsUrl } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
type Mode = 'on' | 'off' | 'stream' | 'cheap';
const gateways: Record<Mode, TestGateway | null> = { on: null, off: null, stream: null, cheap: null };
const keys: Record<Mode, string> = { on: '', off: '', stream: '', cheap: '' };
const DEFAULT_MODEL = 'small-am-v7';
const PARTIALS_MODEL = 'small-am-stream-v3';

beforeAll(async () => {
  for (const mode of ['on', 'off', 'stream', 'cheap'] as const) {
    const gw = await startTestGateway({
      MODELS_DIR,
      DEFAULT_LANGUAGE: 'am',
      LIVE_INCREMENTAL_PARTIALS: mode === 'off' ? 'off' : 'on',
      LIVE_FINAL_PASS: mode === 'stream' || mode === 'cheap' ? 'stream' : 'second_pass',
      WS_PARTIAL_INTERVAL_MS: '300',
      ...(mode === 'cheap' ? { LIVE_PARTIAL_MODELS: `${DEFAULT_MODEL}=${PARTIALS_MODEL}` } : {}),
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

/** Runs `body` with every partial step of `mode`'s gateway answered `ms` late (the step itself runs as usual). */
async function withSlowSteps<T>(mode: Mode, ms: number, body: () => Promise<T>): Promise<T> {
  const asr = gateways[mode]!.gateway.engines.asr;
  const open = asr.openPartialStream;
  asr.openPartialStream = (model, keyterms) => {
    const stream = open.call(asr, model, keyterms);
    if (stream === null) return null;
    return {
      ...stream,
      step: async (pcm, restart) => {
        const partial = await stream.step(pcm, restart);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return partial;
      },
    };
  };
  try {
    return await body();
  } finally {
    asr.openPartialStream = open;
  }
}

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
    // close to the second pass, pooled over the turns: the second turn starts mid-word (the clip is cut at
    // 4 s), where the two decodings differ most (small-am-v6: 5 edits in its 17 letters, the first turn 1 in 25;
    // on 50 held-out utterances the stream's finals are 12.6% from the second pass, bench/live-partials.ts)
    let edits = 0;
    let letters = 0;
    for (const [i, turn] of turns(single).entries()) {
      const text = String(turn.text);
      const second = String(turns(twoPass)[i]!.text);
      edits += editDistance([...text], [...second]);
      letters += second.length;
      const words = (turn.segments as { words?: { start_ms: number; end_ms: number }[] }[])[0]!.words!;
      expect(words.length).toBeGreaterThan(0);
      for (const w of words) {
        expect(w.start_ms).toBeGreaterThanOrEqual(Number(turn.start_ms));
        expect(w.end_ms).toBeLessThanOrEqual(Number(turn.end_ms));
      }
    }
    expect(edits / letters).toBeLessThan(0.2);
    // no whole-turn runs: the session's recognition was stream steps only (language detection aside)
    expect(gateways.stream!.gateway.engines.asr.poolStats().completedRequests - before).toBe(0);
  }, 60_000);
  it("LIVE_PARTIAL_MODELS: partials from the cheaper model's stream, turns from the session's model", async () => {
    // which model's stream each opened partial stream is (the session's model asks; the façade picks)
    const asr = gateways.cheap!.gateway.engines.asr;
    const open = asr.openPartialStream.bind(asr);
    const opened: [string, string | null][] = [];
    asr.openPartialStream = (model, keyterms) => {
      const stream = open(model, keyterms);
      opened.push([model, stream?.model ?? null]);
      return stream;
    };
    const [cheap, twoPass] = await Promise.all([session('cheap'), session('on')]);
    expect(stepsRun('cheap')).toBeGreaterThan(0);
    expect(opened.length).toBeGreaterThanOrEqual(2);
    expect(new Set(opened.map((pair) => pair.join('=')))).toEqual(new Set([`${DEFAULT_MODEL}=${PARTIALS_MODEL}`]));
    const turns = (messages: Message[]) => messages.filter((m) => m.type === 'turn_detected');
    // LIVE_FINAL_PASS=stream does not apply to another model's stream: the turns are the default's second pass
    expect(turns(cheap).map((t) => [t.turn_id, t.text, t.model])).toEqual(turns(twoPass).map((t) => [t.turn_id, t.text, t.model]));
    // another model's partials: near the turn's text, not equal (28.5% apart on 50 held-out utterances,
    // bench/live-partials.ts), pooled over the turns since one short turn's last partial may miss a word
    let edits = 0;
    let letters = 0;
    for (const turn of turns(cheap)) {
      const partials = cheap.filter((m) => m.type === 'partial' && m.turn_id === turn.turn_id);
      expect(partials.length).toBeGreaterThanOrEqual(2);
      const text = String(turn.text);
      edits += editDistance([...String(partials.at(-1)!.text)], [...text]);
      letters += text.length;
    }
    expect(edits / letters).toBeLessThan(0.5);
  }, 60_000);
  it("a turn does not wait for its session's partial in flight, and that partial is never sent after the turn", async () => {
    const SLOW_MS = 2500;
    const [slow, off] = await Promise.all([withSlowSteps('on', SLOW_MS, () => session('on')), session('off')]);
    const turns = (messages: Message[]) => messages.filter((m) => m.type === 'turn_detected');
    expect(turns(slow).map((t) => [t.turn_id, t.text])).toEqual(turns(off).map((t) => [t.turn_id, t.text]));
    for (const turn of turns(slow)) {
      // cut while a partial stepped (each takes 2.5 s here), it did not wait for it
      expect(Number(turn.processing_ms)).toBeLessThan(SLOW_MS / 2);
      const at = slow.indexOf(turn);
      expect(slow.slice(at).filter((m) => m.type === 'partial' && m.turn_id === turn.turn_id)).toEqual([]);
    }
  }, 60_000);
  it("LIVE_FINAL_PASS=stream: a turn cut while its stream steps waits for that step, then takes the stream's frames", async () => {
    const before = gateways.stream!.gateway.engines.asr.poolStats().completedRequests;
    const messages = await withSlowSteps('stream', 1000, () => session('stream'));
    const turns = messages.filter((m) => m.type === 'turn_detected');
    expect(turns.map((t) => t.turn_id)).toEqual([1, 2]);
    for (const turn of turns) expect(String(turn.text).length).toBeGreaterThan(5);
    // still no second pass: each turn came from its stream's frames after the step in flight
    expect(gateways.stream!.gateway.engines.asr.poolStats().completedRequests - before).toBe(0);
  }, 60_000);
  it('language=auto: a turn cut while the first partial detects the language shares that detection, and the stale partial computes nothing', async () => {
    const gw = gateways.on!;
    const asr = gw.gateway.engines.asr;
    const detect = asr.detectLanguage;
    let detections = 0;
    asr.detectLanguage = async (pcm, signal) => {
      detections++;
      await new Promise((resolve) => setTimeout(resolve, 4000));
      return detect.call(asr, pcm, signal);
    };
    const recognize = asr.recognizePiece;
    // where each whole-turn partial starts (a model without a step graph re-runs the open turn)
    const wholeTurnPartials: number[] = [];
    asr.recognizePiece = (pcm, options) => {
      wholeTurnPartials.push(options.startMs);
      return recognize.call(asr, pcm, options);
    };
    try {
      const client = await connectReady(wsUrl(gw.url, { turn_detection: 'server_vad', partial_results: 'true', language: 'auto' }), bearer(keys.on));
      await paced(client, chunks(twoTurns().pcm, 3200), 100);
      await client.waitFor('turn_detected', (m) => m.turn_id === 2);
      client.send('END');
      await client.closed;
      const turns = client.messages.filter((m) => m.type === 'turn_detected');
      // one detection for the whole session, from a partial of at least 3 s (from half a second it named ti)
      expect(turns.map((t) => [t.turn_id, t.language, t.model])).toEqual([
        [1, 'am', DEFAULT_MODEL],
        [2, 'am', DEFAULT_MODEL],
      ]);
      // the first partial asked; the first turn, cut meanwhile, waited for the same answer
      expect(detections).toBe(1);
      const first = client.messages.indexOf(turns[0]!);
      expect(client.messages.slice(0, first).filter((m) => m.type === 'partial')).toEqual([]);
      // the first partial (no model yet, so no live stream) ran nothing once detected: its turn had overtaken it
      expect(wholeTurnPartials.filter((startMs) => startMs < Number(turns[0]!.end_ms))).toEqual([]);
      // later partials run as usual
      expect(client.messages.filter((m) => m.type === 'partial' && m.turn_id === 2).length).toBeGreaterThan(0);
    } finally {
      asr.detectLanguage = detect;
      asr.recognizePiece = recognize;
    }
  }, 60_000);
});
