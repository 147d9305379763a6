// Graceful overload with a real gateway and `ws` clients, limits made small to force it:
// refusals (1013 + retry_after for sessions, 503 + Retry-After for jobs), the degradation order
// (partials off before anything else), and admitted streams keeping their turns and finals.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { audioFixture } from '../helpers/audio-files.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { chunks, connect, wsUrl, type StreamClient, connectReady } from '../ws/ws-client.js';
import { speech16k, twoTurns } from '../ws/ws-audio.js';
import { twoTurnsWithPartials } from '../ws/ws-scenarios.js';

/** The value of one sample line of the exposition (labels in any order), or null. */
function sample(exposition: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const rest = line.slice(name.length);
    if (!Object.entries(labels).every(([k, v]) => rest.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return null;
}

async function refusedOpen(client: StreamClient): Promise<{ code: number; reason: string; error: Record<string, unknown> }> {
  const closed = await client.closed;
  const error = client.ofType('error')[0]!;
  expect(client.ofType('ready')).toHaveLength(0);
  return { ...closed, error: error.error as Record<string, unknown> };
}

describe('a fixed session cap and the job queue bound', () => {
  const suite = useTestGateway({
    METRICS_ENABLED: 'true',
    WS_MAX_SESSIONS: '2',
    JOB_WORKERS: '1',
    JOB_MAX_QUEUE_WAIT_SECONDS: '0.001',
    RATE_LIMIT_PER_MINUTE: '100000',
  });

  it('refuses the session past capacity with 1013 and retry_after; admitted streams keep their finals', async () => {
    const admitted = [connect(wsUrl(suite.gw.url), bearer(suite.key)), connect(wsUrl(suite.gw.url), bearer(suite.key))];
    for (const client of admitted) await client.waitFor('ready');
    const third = connect(wsUrl(suite.gw.url), bearer(suite.key));
    const refused = await refusedOpen(third);
    expect(refused.code).toBe(1013);
    expect(refused.reason).toMatch(/^server_overloaded: /);
    expect(refused.error).toMatchObject({ type: 'server_error', code: 'server_overloaded' });
    expect(refused.error['retry_after']).toBeGreaterThan(0);
    expect(third.ofType('error')[0]!.close_code).toBe(1013);

    // The admitted sessions still get their final transcription.
    const speech = speech16k().subarray(0, 16_000 * 2 * 3);
    for (const client of admitted) {
      for (const part of chunks(speech, 6400)) client.send(part);
      client.send('END');
    }
    for (const client of admitted) {
      const final = await client.waitFor('transcription', (m) => m.is_final === true);
      expect(final.end_ms).toBeGreaterThan(2900);
      expect((await client.closed).code).toBe(1000);
    }
    // Capacity is back once they are gone.
    const later = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    later.send('END');
    await later.closed;
  }, 60_000);

  it('answers 503 with Retry-After when a new job would wait past JOB_MAX_QUEUE_WAIT_SECONDS', async () => {
    const client = new JobsClient(suite.gw.url, suite.key);
    // Before any job finished the wait is unknown: admitted.
    const first = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    expect(first.status).toBe(202);
    expect((await client.waitFor(first.body.id)).status).toBe('completed');
    // The one worker takes the next job at once; the one after it would wait.
    const second = await client.submitFile(audioFixture('speech-am.wav'), { language: 'am' });
    expect(second.status).toBe(202);
    const form = new FormData();
    form.append('language', 'am');
    form.append('file', new Blob([readFileSync(audioFixture('speech-am.wav'))]), 'speech-am.wav');
    const third = await fetch(`${suite.gw.url}/v1/transcriptions`, { method: 'POST', headers: bearer(suite.key), body: form });
    expect(third.status).toBe(503);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await third.json()) as { error: { code: string; retry_after: number } };
    expect(body.error).toMatchObject({ code: 'server_overloaded' });
    expect(body.error.retry_after).toBeGreaterThanOrEqual(1);
    expect((await client.waitFor(second.body.id)).status).toBe('completed');
  }, 60_000);

  it('exports the refusals, jobs, audio seconds and session durations (promtool-clean)', async () => {
    const exposition = await (await fetch(suite.gw.metricsUrl!)).text();
    expect(sample(exposition, 'gateway_rejections_total', { surface: 'ws', reason: 'server_overloaded' })).toBe(1);
    expect(sample(exposition, 'gateway_rejections_total', { surface: 'rest', reason: 'server_overloaded' })).toBe(1);
    expect(sample(exposition, 'gateway_jobs_total', { status: 'completed', source: 'upload', language: 'am' })).toBe(2);
    expect(sample(exposition, 'gateway_job_duration_seconds_count', { status: 'completed', source: 'upload' })).toBe(2);
    expect(sample(exposition, 'gateway_job_queue_wait_seconds_count', { source: 'upload' })).toBe(2);
    expect(sample(exposition, 'gateway_audio_ingested_seconds_total', { surface: 'rest', format: 'wav', language: 'am' })).toBeGreaterThan(16);
    expect(sample(exposition, 'gateway_audio_transcribed_seconds_total', { surface: 'rest', format: 'wav', language: 'am' })).toBeGreaterThan(16);
    expect(sample(exposition, 'gateway_audio_ingested_seconds_total', { surface: 'ws', format: 'pcm_s16le', language: 'am' })).toBeCloseTo(6, 1);
    expect(sample(exposition, 'gateway_audio_transcribed_seconds_total', { surface: 'ws', format: 'pcm_s16le', language: 'am' })).toBeCloseTo(6, 1);
    expect(sample(exposition, 'gateway_real_time_factor_count', { surface: 'rest' })).toBe(2);
    expect(sample(exposition, 'gateway_real_time_factor_count', { surface: 'ws' })).toBeGreaterThanOrEqual(2);
    expect(sample(exposition, 'gateway_ws_session_duration_seconds_count', { code: '1000' })).toBe(3);
    expect(sample(exposition, 'gateway_ws_closes_total', { code: '1013' })).toBe(1);
    expect(sample(exposition, 'gateway_job_queue_depth')).toBe(0);
    // Two sessions of 3 s of 16 kHz PCM (and one without audio) through the native front ends.
    expect(sample(exposition, 'gateway_native_decoded_samples_total', { format: 'pcm_s16le' })).toBe(2 * 48_000);
    expect(sample(exposition, 'gateway_native_dropped_samples_total', { format: 'pcm_s16le' })).toBe(0);
    if (spawnSync('promtool', ['--version']).status === 0 || process.env['CI']) {
      const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
      expect(result.stdout + result.stderr).toBe('');
      expect(result.status).toBe(0);
    }
  });
});

describe('the host CPU guard (OVERLOAD_HOST_CPU_FULL_AT)', () => {
  // A bound no running host stays under: once the gateway has read the host's CPU, it is full.
  const suite = useTestGateway({ METRICS_ENABLED: 'true', OVERLOAD_HOST_CPU_FULL_AT: '0.00001' });

  it("reads the host's busy cores and refuses new sessions past the bound, saying why; the open one keeps its final", async () => {
    const first = await connectReady(wsUrl(suite.gw.url), bearer(suite.key)); // an idle gateway always admits
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // readings every 0.5 s
    const exposition = await (await fetch(suite.gw.metricsUrl!)).text();
    const hostUtilization = sample(exposition, 'gateway_host_cpu_utilization_ratio')!;
    expect(hostUtilization).toBeGreaterThan(0);
    // the live session's part of the host: this process's CPU less its REST and job recognition
    const sessionsCores = sample(exposition, 'gateway_host_cpu_live_sessions_cores')!;
    expect(sessionsCores).toBeGreaterThanOrEqual(0);
    expect(sessionsCores).toBeLessThanOrEqual(hostUtilization * cpus().length + 1e-9);
    expect(sample(exposition, 'gateway_overload_level')).toBe(3);
    const refused = await refusedOpen(connect(wsUrl(suite.gw.url), bearer(suite.key)));
    expect(refused.code).toBe(1013);
    expect(refused.error).toMatchObject({ code: 'server_overloaded' });
    expect(String(refused.error['message'])).toContain("the host's CPU is busy");
    expect(refused.error['retry_after']).toBeGreaterThan(0);
    for (const part of chunks(speech16k().subarray(0, 16_000 * 2 * 2), 6400)) first.send(part);
    first.send('END');
    expect((await first.waitFor('transcription', (m) => m.is_final === true)).is_final).toBe(true);
  }, 30_000);
});

describe('native front-end counters', () => {
  const suite = useTestGateway({ METRICS_ENABLED: 'true' });

  it('are read from the live sessions at each scrape, and kept when they end', async () => {
    const read = async (name: string, labels: Record<string, string>): Promise<number> =>
      sample(await (await fetch(suite.gw.metricsUrl!)).text(), name, labels) ?? 0;
    const opus = readFileSync(audioFixture('speech-am.webm'));
    const client = await connectReady(wsUrl(suite.gw.url, { format: 'webm_opus' }), bearer(suite.key));
    for (const part of chunks(opus, 4096)) client.send(part);
    // Scraped while the session is open: the samples and packets decoded so far.
    let live = 0;
    for (let i = 0; i < 100 && live < 16_000; i++) {
      live = await read('gateway_native_decoded_samples_total', { format: 'webm_opus' });
      if (live < 16_000) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(live).toBeGreaterThanOrEqual(16_000);
    expect(await read('gateway_native_packets_total', { format: 'webm_opus', result: 'decoded' })).toBeGreaterThan(50);
    client.send('END');
    await client.closed;
    const ended = await read('gateway_native_decoded_samples_total', { format: 'webm_opus' });
    expect(ended).toBeGreaterThanOrEqual(live);
    expect(await read('gateway_native_packets_total', { format: 'webm_opus', result: 'rejected' })).toBe(0);
  }, 60_000);
});

/** Partials every 100 ms, and a partials threshold that the first recognised piece passes. */
const PAST_PARTIALS_AT_ONCE = { METRICS_ENABLED: 'true', OVERLOAD_PARTIALS_OFF_AT: '0.00001', WS_PARTIAL_INTERVAL_MS: '100' };

describe('the measured capacity estimate', () => {
  // Thresholds so low that the first recognised piece puts this gateway past each of them.
  const suite = useTestGateway({
    ...PAST_PARTIALS_AT_ONCE,
    OVERLOAD_LARGER_BATCHES_AT: '0.00002',
    OVERLOAD_FULL_AT: '0.00005',
    // partials stop past the threshold instead of thinning (the order is what this checks)
    OVERLOAD_PARTIALS_MAX_STRIDE: '0',
  });

  it('turns partials off first, refuses new sessions past the estimate, and never sheds turns or finals', async () => {
    const client = await twoTurnsWithPartials(suite.gw.url, suite.key);
    // Measured load past the bound: the next session is refused by the estimate (no fixed cap here).
    const second = connect(wsUrl(suite.gw.url), bearer(suite.key));
    const refused = await refusedOpen(second);
    expect(refused.code).toBe(1013);
    expect(refused.error['code']).toBe('server_overloaded');
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final === true);
    expect(final.full_text).toBeDefined();
    expect((await client.closed).code).toBe(1000);
    // Turns were all delivered; partials stopped once the first recognition was measured.
    expect(client.ofType('turn_detected')).toHaveLength(2);
    expect(client.ofType('partial').filter((p) => p.turn_id === 2)).toHaveLength(0);
    const exposition = await (await fetch(suite.gw.metricsUrl!)).text();
    expect(sample(exposition, 'gateway_ws_partials_skipped_total')).toBeGreaterThan(0);
    expect(sample(exposition, 'gateway_overload_level')).toBe(3);
    expect(sample(exposition, 'gateway_inference_cost_ratio')).toBeGreaterThan(0);
    expect(sample(exposition, 'gateway_inference_utilization_ratio')).toBeGreaterThan(0);
    // The skipped partials count as demand on top of what the workers did.
    expect(sample(exposition, 'gateway_inference_demand_ratio')).toBeGreaterThan(
      sample(exposition, 'gateway_inference_utilization_ratio') ?? Number.POSITIVE_INFINITY,
    );
    expect(sample(exposition, 'gateway_rejections_total', { surface: 'ws', reason: 'server_overloaded' })).toBe(1);
  }, 60_000);
});

describe('partials of live streams past OVERLOAD_PARTIALS_OFF_AT', () => {
  // small-am-v2 has a streaming step graph: its partials feed a live stream only the audio since the last one.
  const suite = useTestGateway({
    ...PAST_PARTIALS_AT_ONCE,
    MODELS_DIR: fileURLToPath(new URL('../../models', import.meta.url)),
    DEFAULT_LANGUAGE: 'am',
    LIVE_INCREMENTAL_PARTIALS: 'on',
  });

  it('are thinned, not stopped, and charge each stretch of audio once as demand, not the open turn again at every skip', async () => {
    const client = await twoTurnsWithPartials(suite.gw.url, suite.key);
    client.send('END');
    await client.closed;
    expect(client.ofType('turn_detected')).toHaveLength(2);
    const exposition = await (await fetch(suite.gw.metricsUrl!)).text();
    // Past the threshold from the first measured piece (not full): one due partial in 2, then 3, 4.
    expect(sample(exposition, 'gateway_overload_level')).toBe(1);
    expect(sample(exposition, 'gateway_overload_partials_every')).toBeGreaterThanOrEqual(2);
    expect(client.ofType('partial').filter((p) => p.turn_id === 2).length).toBeGreaterThan(0);
    // Dozens skipped, most of one every 100 ms of the turns.
    expect(sample(exposition, 'gateway_ws_partials_skipped_total')).toBeGreaterThan(20);
    // What they would have decoded is at most the audio sent (9.3 s); counting the open turn at
    // every skip made it several times that.
    const sentSeconds = twoTurns().pcm.length / 2 / 16_000;
    const skippedAudio = sample(exposition, 'gateway_ws_partials_skipped_audio_seconds_total');
    expect(skippedAudio).toBeGreaterThan(1);
    expect(skippedAudio).toBeLessThanOrEqual(sentSeconds);
  }, 60_000);
});
