import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioFixture } from '../helpers/audio-files.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { chunks, connect, wavPcm, wsUrl } from './ws-client.js';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  key = await gw.key({ scopes: ['read', 'write'] });
}, 60_000);
afterAll(async () => gw?.close());

describe('smoke', () => {
  it('pcm then END', async () => {
    const client = connect(wsUrl(gw.url), bearer(key));
    const ready = await client.waitFor('ready');
    expect(ready.format).toBe('pcm_s16le');
    const { pcm } = wavPcm(audioFixture('speech-am.wav'));
    for (const part of chunks(pcm, 6400)) client.send(part);
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final);
    const closed = await client.closed;
    console.log(JSON.stringify(final), JSON.stringify(client.messages.filter((m) => m.type !== 'transcription').slice(-3)), closed);
    expect(closed.code).toBe(1000);
  }, 60_000);
});
