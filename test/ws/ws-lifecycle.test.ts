// Language detection, lag telemetry, metrics and shutdown of streaming sessions.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bearer, startTestGateway } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { speech16k, twoTurns } from './ws-audio.js';
import { connect, wsUrl, connectReady } from './ws-client.js';

// 160 s of audio at once (the lag test) is past the default audio speed bucket (60 s ahead).
const suite = useTestGateway(
  { WS_LAG_WARNING_MS: '100', WS_MAX_BYTES_PER_SECOND: '10MB', WS_AUDIO_BURST_SECONDS: '600', METRICS_ENABLED: 'true' },
  { scopes: ['write'] },
);

describe('streaming sessions', () => {
  it('language=auto detects the language from the first piece and names it in every transcription', async () => {
    const client = connect(wsUrl(suite.gw.url, { language: 'auto' }), bearer(suite.key));
    const ready = await client.waitFor('ready');
    expect(ready).toMatchObject({ language: 'auto', model: null });
    client.send(speech16k().subarray(0, 96_000));
    client.send('TRANSCRIBE');
    const t = await client.waitFor('transcription');
    // The fixture language-id model is untrained: any language that has a model.
    expect(['am', 'om', 'ti']).toContain(t.language);
    expect(t.model).not.toBeNull();
    expect(suite.gw.gateway.engines.asr.resolveModel(t.language, t.model!)).toMatchObject({ language: t.language, model: t.model });
    client.send('END');
    await client.closed;
  });

  it('a server that falls behind says so with lag messages', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    const pcm = speech16k();
    // Twenty 8 s pieces at once (5 MB): each waits for the ones before it, so the last ones wait
    // far longer than the 100 ms lag threshold even on a fast machine.
    for (let i = 0; i < 20; i++) {
      client.send(pcm);
      client.send('TRANSCRIBE');
    }
    const lag = await client.waitFor('lag');
    expect(lag.pending_pieces).toBeGreaterThanOrEqual(1);
    expect(lag.oldest_pending_ms).toBeGreaterThanOrEqual(100);
    expect(lag.pending_ms).toBeGreaterThan(0);
    await client.waitFor('transcription', () => client.ofType('transcription').length === 20);
    client.send('END');
    const stats = await client.waitFor('session_stats');
    expect(stats.max_lag_ms).toBeGreaterThanOrEqual(100);
    await client.closed;
  }, 30_000);

  it('sessions show in /metrics', async () => {
    const client = await connectReady(wsUrl(suite.gw.url, { turn_detection: 'server_vad' }), bearer(suite.key));
    client.send(twoTurns().pcm);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    const metrics = await (await fetch(suite.gw.metricsUrl!)).text();
    expect(metrics).toMatch(/^gateway_ws_sessions\{[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_ws_turn_latency_seconds_count\{[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_ws_messages_total\{kind="audio"[^}]*\} [1-9]/m);
    // The event loop's time on the session by part: handling messages, the front end, writing JSON.
    for (const part of ['session', 'front_end', 'json'])
      expect(metrics).toMatch(new RegExp(`^gateway_ws_main_thread_seconds_total\\{[^}]*part="${part}"[^}]*\\} [0-9.e-]*[1-9]`, 'm'));
    client.send('END');
    await client.closed;
  });
});

describe('shutdown', () => {
  it('closes open sessions with 1001 and records their jobs before the store closes', async () => {
    const own = await startTestGateway();
    const ownKey = await own.key({ scopes: ['write'] });
    const client = connect(wsUrl(own.url), bearer(ownKey));
    const ready = await client.waitFor('ready');
    client.send(speech16k().subarray(0, 64_000));
    await client.waitFor('chunk_received');
    const started = Date.now();
    const closing = own.gateway.close();
    expect((await client.closed).code).toBe(1001);
    await closing;
    // Well within the shutdown grace (10 s): nothing waits for a timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
    // The store closed with the gateway; a new gateway on the same data folder reads the record.
    const again = await startTestGateway({ DATA_DIR: own.dataDir });
    try {
      const job = await again.gateway.store.jobs.get(ready.job_id);
      expect(job?.status).toBe('completed');
      expect(job?.segments?.length).toBe(1);
      expect(job?.durationSeconds).toBeCloseTo(2, 1);
    } finally {
      await again.close();
      rmSync(own.dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
