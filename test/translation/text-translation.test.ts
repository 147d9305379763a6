// POST /translate/v1 on a real gateway (port 0) serving the shipped translation model from the
// repository's models/ folder, as a gateway on the default MODELS_DIR and TRANSLATION_MODEL does
// (every direction answered by word or phrase transfer), and on one with TRANSLATION_TRANSFER=off
// for what only the network does (batches, decoding guards).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDegeneracies } from '../../src/engines/scoring/degenerate-output.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { DIRECTIONS, REPO_MODELS_DIR, SAMPLES, scriptShare } from '../helpers/translation-model.js';

let gw: TestGateway;
let key: string;
let net: TestGateway;
let netKey: string;
beforeAll(async () => {
  [gw, net] = await Promise.all([
    startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '1000' }),
    startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '1000', TRANSLATION_TRANSFER: 'off' }),
  ]);
  [key, netKey] = await Promise.all([gw.key(), net.key()]);
}, 180_000);
afterAll(async () => Promise.all([gw?.close(), net?.close()]));

const translate = (url: string, fields: Record<string, string>) =>
  fetch(`${url}/translate/v1`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

describe('POST /translate/v1', () => {
  for (const [source, target] of DIRECTIONS) {
    it(`translates ${source} -> ${target}`, async () => {
      const response = await translate(gw.url, { key, text: SAMPLES[source][0]!, src_lang: source, tgt_lang: target });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      const body = (await response.json()) as { tgt_text: string };
      expect(Object.keys(body)).toEqual(['tgt_text']);
      expect(body.tgt_text.length).toBeGreaterThan(0);
      expect(scriptShare(body.tgt_text, target)).toBeGreaterThan(0.8);
    }, 60_000);
  }

  it('serves concurrent requests (batched by the network) with the answers one request at a time gets', async () => {
    const texts = [...SAMPLES.en, ...SAMPLES.en.map((t) => t.toUpperCase())];
    const alone: string[] = [];
    for (const text of texts)
      alone.push(((await (await translate(net.url, { key: netKey, text, src_lang: 'en', tgt_lang: 'ti' })).json()) as { tgt_text: string }).tgt_text);
    const responses = await Promise.all(texts.map((text) => translate(net.url, { key: netKey, text, src_lang: 'en', tgt_lang: 'ti' })));
    expect(responses.map((r) => r.status)).toEqual(texts.map(() => 200));
    const together = await Promise.all(responses.map(async (r) => ((await r.json()) as { tgt_text: string }).tgt_text));
    expect(together).toEqual(alone);
  }, 120_000);

  it('400 invalid_field_value for the same language twice', async () => {
    const response = await translate(gw.url, { key, text: 'hello', src_lang: 'en', tgt_lang: 'en' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_field_value', param: 'tgt_lang' } });
  });

  it('400 invalid_field_value for a language outside en, am, ti', async () => {
    const response = await translate(gw.url, { key, text: 'hello', src_lang: 'om', tgt_lang: 'en' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_field_value', param: 'src_lang' } });
  });

  it('400 with the limit named for a text over 5000 characters; 5000 is accepted', async () => {
    const response = await translate(gw.url, { key, text: 'a'.repeat(5001), src_lang: 'en', tgt_lang: 'am' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'invalid_field_value', param: 'text' });
    expect(body.error.message).toContain('5000');
    const long = Array.from({ length: 160 }, (_, i) => SAMPLES.en[i % 3])
      .join(' ')
      .slice(0, 5000);
    expect(long.length).toBe(5000);
    const atLimit = await translate(gw.url, { key, text: long, src_lang: 'en', tgt_lang: 'am' });
    expect(atLimit.status).toBe(200);
  }, 300_000);

  it('400 missing_required_field (param key) without a key, 401 invalid_api_key for an unknown one', async () => {
    const missing = await translate(gw.url, { text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_required_field', param: 'key' } });
    const unknown = await translate(gw.url, { key: 'sk_unknown', text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
  });

  it('counts against the key rate limit', async () => {
    const response = await translate(gw.url, { key, text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeLessThan(1000);
  });

  it('reports batches and sentences in the Prometheus metrics', async () => {
    expect((await translate(net.url, { key: netKey, text: SAMPLES.en[0]!, src_lang: 'en', tgt_lang: 'am' })).status).toBe(200);
    const text = await (await fetch(net.metricsUrl!)).text();
    expect(text).toMatch(/translation_sentences_total\{[^}]*mode="greedy",outcome="ok"[^}]*\} [1-9]/);
    expect(text).toContain('translation_batch_size_bucket');
    expect(text).toMatch(/translation_queue_depth\{[^}]*\} 0/);
  });

  it('answers am -> ti by word-for-word transfer: the source with the words it knows replaced, and counts it', async () => {
    const response = await translate(gw.url, { key, text: 'ልጆቹ ጠዋት ወደ ትምህርት ቤት ሄዱ። ሆስፒታሉ የት ነው?', src_lang: 'am', tgt_lang: 'ti' });
    expect(response.status).toBe(200);
    const { tgt_text: text } = (await response.json()) as { tgt_text: string };
    // ወደ -> ናብ ("to"), ትምህርት -> ትምህርቲ, ነው -> እዩ ("is") in the shipped lex.am-ti; word order and punctuation kept.
    expect(text).toMatch(/^\S+ \S+ ናብ ትምህርቲ ቤት \S+። \S+ \S+ እዩ\?$/);
    const metrics = await (await fetch(gw.metricsUrl!)).text();
    expect(metrics).toMatch(/translation_word_transfer_texts_total\{[^}]*direction="am-ti"[^}]*\} [1-9]/);
  });

  it('answers am -> en and en -> am by phrase transfer: a gloss in the source order, unknown names romanized, and counts them', async () => {
    const toEnglish = await translate(gw.url, { key, text: 'ኢትዮጵያ ውስጥ ያሉ ተማሪዎች። ዝብርቅርቅ', src_lang: 'am', tgt_lang: 'en' });
    expect(toEnglish.status).toBe(200);
    const { tgt_text: english } = (await toEnglish.json()) as { tgt_text: string };
    // The shipped phrases.am-en: ኢትዮጵያ ውስጥ -> in Ethiopia, ተማሪዎች -> students; the made-up last word is
    // romanized, the Ethiopic full stop becomes a Latin one, and every sentence starts with a capital.
    expect(english).toMatch(/^In Ethiopia .*students\. Zbrqrq$/);
    expect(scriptShare(english, 'en')).toBe(1);
    const toAmharic = await translate(gw.url, { key, text: 'The students are in Ethiopia, Zorblax.', src_lang: 'en', tgt_lang: 'am' });
    expect(toAmharic.status).toBe(200);
    const { tgt_text: amharic } = (await toAmharic.json()) as { tgt_text: string };
    expect(amharic).toMatch(/ኢትዮጵያ፣ Zorblax።$/);
    expect(amharic).toContain('ተማሪዎች');
    const metrics = await (await fetch(gw.metricsUrl!)).text();
    expect(metrics).toMatch(/translation_word_transfer_texts_total\{[^}]*direction="am-en"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/translation_word_transfer_texts_total\{[^}]*direction="en-am"[^}]*\} [1-9]/);
  });

  it('is described in /openapi.json and /llms.txt', async () => {
    const openapi = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, { post?: { description?: string } }> };
    expect(openapi.paths['/translate/v1']?.post?.description).toContain('5000');
    expect(await (await fetch(`${gw.url}/llms.txt`)).text()).toContain('POST /translate/v1');
  });
});

describe('decoding guards (TRANSLATION_DECODING_GUARDS)', () => {
  const sentence = 'The patient has a fever and a cough.';

  it('the shipped model no longer loops on an out-of-domain sentence (en -> am, greedy)', async () => {
    const response = await translate(net.url, { key: netKey, text: sentence, src_lang: 'en', tgt_lang: 'am' });
    expect(response.status).toBe(200);
    const { tgt_text } = (await response.json()) as { tgt_text: string };
    expect(tgt_text.length).toBeGreaterThan(0);
    expect(scriptShare(tgt_text, 'am')).toBeGreaterThan(0.8);
    expect(findDegeneracies(tgt_text, sentence)).toEqual([]);
    const metrics = await (await fetch(net.metricsUrl!)).text();
    expect(metrics).toMatch(/translation_guard_rows_total\{[^}]*mode="greedy"[^}]*\} [1-9]/);
  }, 60_000);

  it('with the guards off the same sentence loops, as it did before them', async () => {
    const off = await startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, TRANSLATION_DECODING_GUARDS: 'off', TRANSLATION_TRANSFER: 'off' });
    try {
      const response = await translate(off.url, { key: await off.key(), text: sentence, src_lang: 'en', tgt_lang: 'am' });
      expect(response.status).toBe(200);
      const { tgt_text } = (await response.json()) as { tgt_text: string };
      expect(findDegeneracies(tgt_text, sentence).map((d) => d.kind)).toContain('letter-run');
    } finally {
      await off.close();
    }
  }, 120_000);
});

describe('without the model', () => {
  it.each([
    ['a missing folder', 'no-such-model'],
    ['translation switched off', 'off'],
  ])(
    'the gateway starts and the endpoint answers 500 service_unavailable (%s)',
    async (_case, model) => {
      const bare = await startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, TRANSLATION_MODEL: model });
      try {
        const bareKey = await bare.key();
        const response = await translate(bare.url, { key: bareKey, text: 'hello', src_lang: 'en', tgt_lang: 'am' });
        expect(response.status).toBe(500);
        expect(await response.json()).toMatchObject({ error: { type: 'server_error', code: 'service_unavailable' } });
      } finally {
        await bare.close();
      }
    },
    60_000,
  );
});
