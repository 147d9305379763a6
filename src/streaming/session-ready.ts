// The `ready` message that opens a session (docs/streaming.md): what the session runs with
// (format, language and model, turn detection, VAD, partials, channels), its resume token, and
// the limits it runs under. Pure: built from what the session passes.
import type { Limits, StreamingSettings } from '../platform/config/config.js';
import { STREAM_FORMAT_SAMPLE_RATE, type StreamFormat } from '../engines/signal/signal.js';
import type { SessionChannel } from './session-channel.js';
import type { ReadyMessage } from './ws-messages.js';
import type { SessionSettings } from './ws-query.js';

export interface ReadyFacts {
  readonly sessionId: string;
  readonly jobId: string;
  readonly format: StreamFormat;
  readonly language: string;
  readonly model: string | null;
  readonly turnDetection: boolean;
  readonly settings: SessionSettings;
  readonly channels: readonly SessionChannel[];
  /** The token a dropped connection resumes the session with; null when resuming is off. */
  readonly resume: { readonly token: string; readonly windowSeconds: number } | null;
  readonly limits: Limits;
  readonly streaming: StreamingSettings;
}

export function readyMessage(facts: ReadyFacts): ReadyMessage {
  const { settings, channels, resume, limits, streaming } = facts;
  return {
    type: 'ready',
    session_id: facts.sessionId,
    job_id: facts.jobId,
    format: facts.format,
    sample_rate: STREAM_FORMAT_SAMPLE_RATE[facts.format],
    language: facts.language,
    model: facts.model,
    turn_detection: facts.turnDetection ? 'server_vad' : 'none',
    vad_type: settings.vadType,
    partial_results: settings.partialResults,
    ...(channels.length > 1 ? { channels: channels.length, channel_names: channels.map((channel) => channel.name!) } : {}),
    resume_token: resume?.token ?? null,
    resume_window_seconds: resume?.windowSeconds ?? 0,
    limits: {
      max_session_seconds: limits.wsSessionSeconds,
      max_messages_per_second: limits.wsMessagesPerSecond,
      max_bytes_per_second: limits.wsBytesPerSecond,
      max_audio_speed: limits.wsMaxAudioSpeed,
      audio_burst_seconds: limits.wsAudioBurstSeconds,
      max_message_bytes: limits.wsMaxMessageBytes,
      max_buffer_bytes: limits.wsMaxBufferBytes,
      idle_timeout_seconds: limits.wsIdleTimeoutSeconds,
      endpoint_silence_ms: streaming.endpointSilenceMs,
    },
  };
}
