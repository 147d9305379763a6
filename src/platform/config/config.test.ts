import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig } from './config.js';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe('/srv/app/data');
    expect(config.allowPrivateNetwork).toBe(false);
    expect(config.limits.requestsPerMinute).toBe(60);
    expect(config.limits.maxAudioBytes).toBe(500_000_000);
    expect(config.limits.wsMaxBufferBytes).toBe(50_000_000);
    expect(config.limits.webhookRetryScheduleSeconds).toEqual([60, 300, 1800, 7200, 86400]);
    expect(config.publicBaseUrl).toBeNull();
    expect(config.inferenceWorkerNice).toBe(10);
  });

  it('reads the inference worker priority: a nice value 0..19 or off', () => {
    expect(loadConfig({ INFERENCE_WORKER_NICE: '4' }, '/srv/app').inferenceWorkerNice).toBe(4);
    expect(loadConfig({ INFERENCE_WORKER_NICE: 'off' }, '/srv/app').inferenceWorkerNice).toBeNull();
    expect(() => loadConfig({ INFERENCE_WORKER_NICE: '25' }, '/srv/app')).toThrow(/INFERENCE_WORKER_NICE must be between 0 and 19/);
  });

  it('reads the onnxruntime threads of each inference worker: 0 (automatic) or a count', () => {
    expect(loadConfig({}, '/srv/app').inferenceIntraOpThreads).toBe(0);
    expect(loadConfig({ INFERENCE_INTRA_OP_THREADS: '1' }, '/srv/app').inferenceIntraOpThreads).toBe(1);
    expect(() => loadConfig({ INFERENCE_INTRA_OP_THREADS: 'two' }, '/srv/app')).toThrow(/INFERENCE_INTRA_OP_THREADS/);
  });

  it('reads the overlap detector: a path under the working folder, or off', () => {
    expect(loadConfig({}, '/srv/app').diarizationOverlapModel).toBe('/srv/app/models/diarization/overlap-detector-v1.json');
    expect(loadConfig({ DIARIZATION_OVERLAP_MODEL: '/opt/osd.json' }, '/srv/app').diarizationOverlapModel).toBe('/opt/osd.json');
    expect(loadConfig({ DIARIZATION_OVERLAP_MODEL: 'off' }, '/srv/app').diarizationOverlapModel).toBeNull();
  });

  it('reads the speaker-embedding model of diarization: none by default or when empty, a path otherwise', () => {
    expect(loadConfig({}, '/srv/app').diarizationEmbeddingModel).toBeNull();
    expect(loadConfig({ DIARIZATION_EMBEDDING_MODEL: '' }, '/srv/app').diarizationEmbeddingModel).toBeNull();
    expect(loadConfig({ DIARIZATION_EMBEDDING_MODEL: 'models/spk.onnx' }, '/srv/app').diarizationEmbeddingModel).toBe('/srv/app/models/spk.onnx');
  });

  it("reads the beam of live partials' tails: 8 by default, 0 for the model's own (null)", () => {
    expect(loadConfig({}, '/srv/app').streaming.partialTailBeamWidth).toBe(8);
    expect(loadConfig({ LIVE_PARTIAL_TAIL_BEAM: '0' }, '/srv/app').streaming.partialTailBeamWidth).toBeNull();
    expect(loadConfig({ LIVE_PARTIAL_TAIL_BEAM: '4' }, '/srv/app').streaming.partialTailBeamWidth).toBe(4);
    expect(() => loadConfig({ LIVE_PARTIAL_TAIL_BEAM: '-1' }, '/srv/app')).toThrow(/LIVE_PARTIAL_TAIL_BEAM/);
  });

  it('reads the partials models of live sessions: none by default, name=name pairs otherwise', () => {
    expect(loadConfig({}, '/srv/app').streaming.partialModels.size).toBe(0);
    const pairs = loadConfig({ LIVE_PARTIAL_MODELS: ' small-am-v2 = small-am-stream-v3 ,x=y,' }, '/srv/app').streaming.partialModels;
    expect([...pairs]).toEqual([
      ['small-am-v2', 'small-am-stream-v3'],
      ['x', 'y'],
    ]);
    expect(() => loadConfig({ LIVE_PARTIAL_MODELS: 'small-am-v2' }, '/srv/app')).toThrow(
      /LIVE_PARTIAL_MODELS must be comma-separated name=name pairs, got "small-am-v2"/,
    );
    expect(() => loadConfig({ LIVE_PARTIAL_MODELS: 'a=b=c' }, '/srv/app')).toThrow(/name=name pairs/);
    expect(() => loadConfig({ LIVE_PARTIAL_MODELS: 'a=b,a=c' }, '/srv/app')).toThrow(/LIVE_PARTIAL_MODELS names a twice/);
    expect(() => loadConfig({ LIVE_PARTIAL_MODELS: 'a=a' }, '/srv/app')).toThrow(/pairs a with itself/);
  });

  it('parses sizes, lists and booleans', () => {
    const config = loadConfig({
      MAX_AUDIO_BYTES: '1.5GB',
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      ALLOW_PRIVATE_NETWORK: 'yes',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(config.limits.maxAudioBytes).toBe(1_500_000_000);
    expect(config.limits.webhookRetryScheduleSeconds).toEqual([1, 2, 3]);
    expect(config.allowPrivateNetwork).toBe(true);
    expect(config.publicBaseUrl).toBe('https://api.example.com');
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: '70000', RATE_LIMIT_PER_MINUTE: '0', PUBLIC_BASE_URL: 'ftp://x', SIGNING_SECRET: 'short', MAX_AUDIO_BYTES: 'lots' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toContain('PORT must be between 0 and 65535');
      expect(problems).toContain('RATE_LIMIT_PER_MINUTE must be between 1');
      expect(problems).toContain('PUBLIC_BASE_URL must be an http(s) URL');
      expect(problems).toContain('SIGNING_SECRET must be at least 32 characters');
      expect(problems).toContain('MAX_AUDIO_BYTES must be a byte size');
    }
  });

  it('reads the distributed backends and refuses a shared queue over a per-process store', () => {
    const config = loadConfig({
      STORE_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://db/x',
      DATABASE_POOL_SIZE: '4',
      QUEUE_BACKEND: 'redis',
      CACHE_BACKEND: 'redis',
      REDIS_KEY_PREFIX: 'speech:prod',
      JOB_LEASE_SECONDS: '30',
    });
    expect(config.store).toEqual({ backend: 'postgres', databaseUrl: 'postgres://db/x', poolSize: 4 });
    expect([config.queue.backend, config.cache.backend, config.redisKeyPrefix, config.jobLeaseSeconds]).toEqual(['redis', 'redis', 'speech:prod', 30]);
    const defaults = loadConfig({});
    expect([defaults.queue.backend, defaults.cache.backend, defaults.redisKeyPrefix, defaults.jobLeaseSeconds]).toEqual(['in-process', 'memory', 'gw', 60]);
    expect(() => loadConfig({ QUEUE_BACKEND: 'redis' })).toThrow(/QUEUE_BACKEND=redis needs STORE_BACKEND=postgres/);
    expect(() => loadConfig({ REDIS_KEY_PREFIX: 'a b' })).toThrow(/REDIS_KEY_PREFIX/);
  });

  it('reads where metrics are served: a separate listener by default, the main port only for admin keys', () => {
    expect(loadConfig({}).metrics).toEqual({ port: 9464, host: '127.0.0.1', onMainPort: 'off' });
    expect(loadConfig({ METRICS_PORT: 'off', METRICS_ON_MAIN_PORT: 'admin' }).metrics).toEqual({ port: null, host: '127.0.0.1', onMainPort: 'admin' });
    expect(loadConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' }).metrics).toMatchObject({ port: 0, host: '0.0.0.0' });
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT must be between 0 and 65535/);
    expect(() => loadConfig({ METRICS_ON_MAIN_PORT: 'open' })).toThrow(/METRICS_ON_MAIN_PORT must be one of off, admin/);
    expect(() => loadConfig({ PORT: '9000', METRICS_PORT: '9000' })).toThrow(/METRICS_PORT must differ from PORT/);
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port).toBe(0);
  });

  it('redacts secrets and URL passwords', () => {
    const config = loadConfig({
      SIGNING_SECRET: 'z'.repeat(40),
      REDIS_URL: 'redis://:pw@127.0.0.1:6379',
      STORE_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://u:secret@db/x',
    });
    const text = JSON.stringify(redactedConfig(config));
    expect(text).not.toContain('z'.repeat(40));
    expect(text).not.toContain(':pw@');
    expect(text).not.toContain('secret@');
  });

  it('reads the S3 storage settings, refuses incomplete ones and redacts the secret key', () => {
    expect(loadConfig({}).files).toEqual({ backend: 'local', s3: null });
    const config = loadConfig({
      FILES_BACKEND: 's3',
      S3_BUCKET: 'speech',
      S3_ENDPOINT: 'http://minio:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'very-secret-key',
      S3_PREFIX: '/prod/gateway/',
      S3_DIRECT_UPLOADS: 'true',
    });
    expect(config.files.s3).toEqual({
      bucket: 'speech',
      region: 'us-east-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret-key' },
      prefix: 'prod/gateway',
      presignedDownloads: true,
      directUploads: true,
    });
    expect(JSON.stringify(redactedConfig(config))).not.toContain('very-secret-key');
    expect(() => loadConfig({ FILES_BACKEND: 's3' })).toThrow(/S3_BUCKET is required/);
    expect(() => loadConfig({ FILES_BACKEND: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'x' })).toThrow(/S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ FILES_BACKEND: 's3', S3_BUCKET: 'b', S3_PREFIX: 'a b' })).toThrow(/S3_PREFIX/);
  });

  it('reads the overload settings', () => {
    expect(loadConfig({}).overload).toEqual({
      wsMaxSessions: 0,
      partialsOffAt: 0.6,
      partialsMaxStride: 4,
      largerBatchesAt: 0.75,
      fullAt: 0.85,
      maxInferenceWaitMs: 150,
      hostCpuFullAt: 0.9,
      largerBatchWaitMs: 20,
      jobMaxQueueWaitSeconds: 600,
    });
    expect(loadConfig({ WS_MAX_SESSIONS: '40', JOB_MAX_QUEUE_WAIT_SECONDS: '0' }).overload).toMatchObject({ wsMaxSessions: 40, jobMaxQueueWaitSeconds: 0 });
    expect(loadConfig({ OVERLOAD_HOST_CPU_FULL_AT: '0' }).overload.hostCpuFullAt).toBe(0);
    expect(loadConfig({ OVERLOAD_PARTIALS_MAX_STRIDE: '0' }).overload.partialsMaxStride).toBe(0);
    expect(() => loadConfig({ OVERLOAD_PARTIALS_MAX_STRIDE: '1.5' })).toThrow(/OVERLOAD_PARTIALS_MAX_STRIDE/);
    expect(() => loadConfig({ OVERLOAD_HOST_CPU_FULL_AT: '1.5' })).toThrow(/OVERLOAD_HOST_CPU_FULL_AT/);
    expect(() => loadConfig({ OVERLOAD_PARTIALS_OFF_AT: '0.9' })).toThrow(/degrade in order/);
  });
});
