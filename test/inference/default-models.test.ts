// DEFAULT_MODELS against the shipped models folder: `am=small-am-v4-ensemble` makes the ensemble
// the Amharic default everywhere a request names no model (languages list, REST, WebSocket), with
// live partials from the ensemble's own step graph (both members' caches in one streaming.onnx);
// a name that is not a model of its language stops start-up with an error naming the pair.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelRegistry } from '../../src/engines/asr/models/model-registry.js';
import { editDistance } from '../../src/engines/scoring/character-error-rate.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from '../ws/ws-audio.js';
import { chunks, connectReady, type Message, paced, wsUrl } from '../ws/ws-client.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const CLIP = heldOutClip('alffa_spk_heldout-tr_10778_tr02101.wav').path;
const ENSEMBLE = 'small-am-v4-ensemble';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({
    MODELS_DIR,
    DEFAULT_LANGUAGE: 'am',
    DEFAULT_MODELS: `am=${ENSEMBLE}`,
    WS_PARTIAL_INTERVAL_MS: '300',
    SYNC_WAIT_SECONDS: '60',
  });
  key = await gw.key({ scopes: ['read', 'write'] });
}, 120_000);

afterAll(async () => {
  await gw?.close();
});

describe('DEFAULT_MODELS', () => {
  it('lists the chosen model as the language default and leaves other languages to their folders', async () => {
    const languages = (await (await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) })).json()) as {
      data: Array<{ code: string; default_model: string; models: Array<{ name: string; default: boolean }> }>;
    };
    const am = languages.data.find((l) => l.code === 'am')!;
    expect(am.default_model).toBe(ENSEMBLE);
    expect(am.models.filter((m) => m.default).map((m) => m.name)).toEqual([ENSEMBLE]);
    const shipped = await ModelRegistry.scan(MODELS_DIR);
    expect(shipped.defaultModel('am')?.name).toBe('small-am-v7'); // the folders' own flag, overridden here
    expect(languages.data.find((l) => l.code === 'om')?.default_model).toBe(shipped.defaultModel('om')?.name);
  });

  it('REST decodes with it when no model is named, and with another model when one is', async () => {
    const client = new JobsClient(gw.url, key);
    const implicit = await client.submitFile(CLIP, { language: 'am', mode: 'sync' });
    expect(implicit.status, JSON.stringify(implicit.body)).toBe(202);
    expect(implicit.body.status).toBe('completed');
    expect(implicit.body.metadata.resolved_model).toBe(ENSEMBLE);
    expect(implicit.body.text.length).toBeGreaterThan(5);
    const named = await client.submitFile(CLIP, { language: 'am', model: 'small-am-v2', mode: 'sync' });
    expect(named.body.metadata.resolved_model).toBe('small-am-v2');
  }, 60_000);

  it("WebSocket sessions run on it, with partials from the ensemble's live stream", async () => {
    const stepsBefore = gw.gateway.engines.asr.poolStats().streams.steps;
    const client = await connectReady(wsUrl(gw.url, { turn_detection: 'server_vad', partial_results: 'true' }), bearer(key));
    expect(client.messages.find((m) => m.type === 'ready')?.model).toBe(ENSEMBLE);
    await paced(client, chunks(twoTurns().pcm, 3200), 100);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    client.send('END');
    await client.closed;
    expect(gw.gateway.engines.asr.poolStats().streams.steps).toBeGreaterThan(stepsBefore);
    const turns = client.messages.filter((m: Message) => m.type === 'turn_detected');
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      const partials = client.messages.filter((m) => m.type === 'partial' && m.turn_id === turn.turn_id);
      expect(partials.length).toBeGreaterThanOrEqual(2);
      const text = String(turn.text);
      expect(text.length).toBeGreaterThan(5);
      expect(editDistance([...String(partials.at(-1)!.text)], [...text]) / text.length).toBeLessThan(0.35);
    }
  }, 60_000);

  it('stops start-up on a model that is not one of the language', async () => {
    await expect(startTestGateway({ MODELS_DIR, DEFAULT_MODELS: 'am=small-om-v2' })).rejects.toThrow(
      /DEFAULT_MODELS am=small-om-v2: not a speech model of language am \(am models: .*small-am-v2/,
    );
    await expect(startTestGateway({ MODELS_DIR, DEFAULT_MODELS: 'am' })).rejects.toThrow(/DEFAULT_MODELS must be comma-separated name=name pairs/);
  }, 60_000);
});
