// The server -> client message union of GET /v1/ws/transcribe (JSON text frames with `type`).
// One TypeBox schema per message: the TypeScript types, the JSON Schema served in the docs
// (GET /v1/ws/schema and README) and the test assertions all come from here.
//
// Times: every `*_ms` position is stream time, milliseconds of 16 kHz audio since the session
// started (CLEAR does not reset it). Segment ids count the session's segments.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { SegmentSchema } from '../api/transcriptions/transcription-schemas.js';

const StreamMs = (description: string) => Type.Integer({ minimum: 0, description });

/** channels=2 only: which channel a message is about (absent in a mono session). */
const ChannelFields = {
  channel: Type.Optional(Type.Integer({ minimum: 0, description: 'channels=2 only: the 0-based channel (turn ids count per channel)' })),
  speaker: Type.Optional(Type.String({ description: "channels=2 only: the channel's name from channel_names (default agent, customer)" })),
};

export const ReadyMessage = Type.Object(
  {
    type: Type.Literal('ready'),
    session_id: Type.String(),
    job_id: Type.String({ description: 'The session is recorded as this transcription job (source=websocket)' }),
    format: Type.String(),
    sample_rate: Type.Integer({ description: 'Declared sample rate of the format' }),
    language: Type.String(),
    model: Type.Union([Type.String(), Type.Null()], { description: 'null for language=auto until the language is detected' }),
    turn_detection: Type.Union([Type.Literal('server_vad'), Type.Literal('none')], {
      description: 'server_vad also when the format is opus_raw_16k (automatic transcriptions)',
    }),
    vad_type: Type.Union([Type.Literal('energy'), Type.Literal('silero')]),
    partial_results: Type.Boolean(),
    channels: Type.Optional(Type.Integer({ description: 'channels=2 only: audio channels, each with its own VAD and turns' })),
    channel_names: Type.Optional(Type.Array(Type.String(), { description: 'channels=2 only: the speaker name of each channel' })),
    resume_token: Type.Union([Type.String(), Type.Null()], {
      description:
        'Extension: reconnect with `resume_token=<this>` within `resume_window_seconds` after the connection drops to continue this session (docs/streaming.md "Resuming a session"); bound to the API key that opened the session. null when resuming is off (WS_RESUME_WINDOW_SECONDS=0)',
    }),
    resume_window_seconds: Type.Integer({ description: 'How long a dropped session waits for its client (0: resuming is off)' }),
    limits: Type.Object({
      max_session_seconds: Type.Integer(),
      max_messages_per_second: Type.Integer(),
      max_bytes_per_second: Type.Integer(),
      max_audio_speed: Type.Number({ description: 'WS_MAX_AUDIO_SPEED: decoded audio may arrive at most this many times real time (0: no limit)' }),
      audio_burst_seconds: Type.Integer({ description: 'WS_AUDIO_BURST_SECONDS: how far ahead of real time audio may run at once' }),
      max_message_bytes: Type.Integer(),
      max_buffer_bytes: Type.Integer(),
      idle_timeout_seconds: Type.Integer(),
      endpoint_silence_ms: Type.Integer(),
    }),
  },
  { description: 'Sent once, right after the connection is accepted.' },
);

export const ChunkReceivedMessage = Type.Object(
  {
    type: Type.Literal('chunk_received'),
    messages: Type.Integer({ description: 'Audio messages acknowledged by this message (acks are coalesced to at most one per 100 ms)' }),
    bytes: Type.Integer({ description: 'Bytes of those messages' }),
    total_bytes: Type.Integer({ description: 'Audio bytes received in the session' }),
    stream_ms: StreamMs('Decoded audio received so far (the write position)'),
    buffered_ms: Type.Integer({ description: 'Audio held by the server and not yet handed to recognition' }),
    pending_ms: Type.Integer({ description: 'Audio handed to recognition and not yet answered (lag)' }),
  },
  { description: 'After audio messages.' },
);

const Seq = Type.Optional(
  Type.Integer({
    minimum: 1,
    description:
      "Always present: 1-based number of this message among the session's turn_detected, transcription and caption messages; pass the last one received as `last_seq` when resuming",
  }),
);

const TranscriptFields = {
  text: Type.String(),
  segments: Type.Array(SegmentSchema, { description: 'Segments of this piece; ids count the session' }),
  start_ms: StreamMs('Stream time where the transcribed audio starts'),
  end_ms: StreamMs('Stream time where the transcribed audio ends'),
  language: Type.String(),
  model: Type.Union([Type.String(), Type.Null()]),
  latency_ms: Type.Integer({ description: 'From the arrival of the last audio of the piece to this message' }),
  processing_ms: Type.Integer({ description: 'From the piece being cut to this message (queue + inference)' }),
};

export const TranscriptionMessage = Type.Object(
  {
    type: Type.Literal('transcription'),
    ...TranscriptFields,
    is_final: Type.Boolean({ description: 'true only for the last message of the session (END, session duration, idle timeout)' }),
    turn_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The turn, for automatic transcriptions (opus_raw_16k)' }),
    full_text: Type.Optional(
      Type.String({
        description: "Final message only: the text of the whole session (channels=2: one 'speaker: text' line per change of speaker, in time order)",
      }),
    ),
    ...ChannelFields,
    seq: Seq,
  },
  {
    description:
      'After TRANSCRIBE, after END (is_final true), and per turn in opus_raw_16k mode (automatic; with server_vad a turn_detected comes too). ' +
      'channels=2: one per channel, each with `channel`; after END is_final (and full_text) is on the last of them.',
  },
);

export const TurnDetectedMessage = Type.Object(
  {
    type: Type.Literal('turn_detected'),
    turn_id: Type.Integer(),
    ...TranscriptFields,
    forced_split: Type.Boolean({ description: 'The turn reached WS_MAX_TURN_MS and was cut' }),
    ...ChannelFields,
    seq: Seq,
  },
  {
    description:
      'turn_detection=server_vad: one per completed speech turn, carrying its final transcription (decoded from the whole padded turn as REST decodes a file; never empty: a turn with no words is dropped).',
  },
);

export const CaptionMessage = Type.Object(
  {
    type: Type.Literal('caption'),
    format: Type.Union([Type.Literal('webvtt'), Type.Literal('srt')]),
    cues: Type.Array(
      Type.Object({
        index: Type.Integer({ description: '1-based, continuing across the session' }),
        start_ms: StreamMs('Cue start'),
        end_ms: StreamMs('Cue end'),
        lines: Type.Array(Type.String(), { description: 'At most two lines of at most 42 characters' }),
        speaker: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    text: Type.String({ description: 'The cues rendered in `format`; a WebVTT file is "WEBVTT\n\n" followed by every message\'s text' }),
    seq: Seq,
  },
  {
    description:
      'captions=webvtt|srt: ready-to-display cues for the text just committed (turn_detected or transcription), under broadcast line and timing rules. A cue is never sent twice nor changed.',
  },
);

export const ResumedMessage = Type.Object(
  {
    type: Type.Literal('resumed'),
    session_id: Type.String(),
    job_id: Type.String(),
    resume_from_bytes: Type.Integer({
      minimum: 0,
      description: 'Audio bytes of the session the server holds: the client continues its audio from this byte offset',
    }),
    discard_bytes: Type.Integer({
      minimum: 0,
      description:
        "Bytes at the start of what this connection sends that the server drops as already received (resume_from_bytes minus the query's resume_from_bytes)",
    }),
    stream_ms: StreamMs('Audio received so far, in stream time: the session clock continues from here'),
    last_seq: Type.Integer({ minimum: 0, description: 'seq of the last turn_detected, transcription or caption message of the session (0: none yet)' }),
    replayed_messages: Type.Integer({ description: "Messages with seq above the query's last_seq sent right after this one" }),
    missed_messages: Type.Integer({ description: 'Messages above last_seq no longer held (the history is bounded); the job record holds their text' }),
    detached_ms: Type.Integer({ description: 'How long the session had no connection (0 when this connection took over a live one)' }),
  },
  {
    description:
      'Extension: the first message on a connection opened with `resume_token`; the messages the client missed (seq above last_seq) follow it, then the session continues.',
  },
);

export const SpeechStartedMessage = Type.Object(
  {
    type: Type.Literal('speech_started'),
    turn_id: Type.Integer(),
    start_ms: StreamMs('Where the turn starts (padding included)'),
    ...ChannelFields,
  },
  { description: 'server_vad: a turn opened (not part of the spec; may be dropped under backpressure).' },
);

export const PartialMessage = Type.Object(
  {
    type: Type.Literal('partial'),
    turn_id: Type.Integer(),
    start_ms: StreamMs('Start of the open turn'),
    end_ms: StreamMs('End of the audio recognised so far'),
    text: Type.String({ description: 'stable_text + unstable_text' }),
    stable_text: Type.String({ description: 'Words two consecutive partials of this turn agree on' }),
    unstable_text: Type.String({ description: 'The tail that may still change' }),
    ...ChannelFields,
  },
  {
    description:
      'partial_results=true: interim text of the open turn. Only this turn may change; the turn_detected message replaces it. ' + 'Dropped under backpressure.',
  },
);

export const BargeInMessage = Type.Object(
  {
    type: Type.Literal('barge_in'),
    channel: Type.Integer({ description: 'The channel that started speaking' }),
    speaker: Type.String(),
    turn_id: Type.Integer({ description: 'Its new turn (the speech_started turn of that channel)' }),
    interrupted_channel: Type.Integer({ description: 'The channel whose turn was open' }),
    interrupted_speaker: Type.String(),
    interrupted_turn_id: Type.Union([Type.Integer(), Type.Null()]),
    at_ms: StreamMs('Where the new speech starts (the VAD onset, unpadded)'),
  },
  {
    description:
      "channels=2 with server_vad: a channel's speech started while another channel's turn was open (it had not been silent for WS_ENDPOINT_SILENCE_MS). Sent at once; the `overlap` that follows (once both spans ended) gives the exact overlap, and none comes when the first speaker had in fact stopped before.",
  },
);

export const OverlapMessage = Type.Object(
  {
    type: Type.Literal('overlap'),
    start_ms: StreamMs('Where both channels are first in speech'),
    end_ms: StreamMs('Where one of them stops'),
    duration_ms: Type.Integer({ minimum: 1 }),
    channels: Type.Array(Type.Integer(), { description: 'The two channels, lower first' }),
    speakers: Type.Array(Type.String(), { description: 'Their names, in the same order' }),
  },
  {
    description:
      'channels=2 with server_vad: both channels were in speech over [start_ms, end_ms) (VAD speech spans, unpadded). Sent once both spans have ended; a forced split may report one overlap in two adjacent parts.',
  },
);

export const FormatChangedMessage = Type.Object(
  {
    type: Type.Literal('format_changed'),
    format: Type.String(),
    sample_rate: Type.Integer(),
  },
  { description: 'Answer to FORMAT:<format>.' },
);

export const PongMessage = Type.Object(
  {
    type: Type.Literal('pong'),
    server_time: Type.String({ description: 'ISO 8601 UTC timestamp' }),
  },
  { description: 'Answer to PING.' },
);

export const LagMessage = Type.Object(
  {
    type: Type.Literal('lag'),
    pending_ms: Type.Integer({ description: 'Audio handed to recognition and not yet answered' }),
    pending_pieces: Type.Integer(),
    oldest_pending_ms: Type.Integer({ description: 'Age of the oldest unanswered piece' }),
    vad_behind_ms: Type.Integer({ description: 'Silero only: audio not yet analysed by the VAD' }),
  },
  { description: 'Sent (at most once a second) while a piece has waited for recognition, or audio for the VAD, longer than WS_LAG_WARNING_MS.' },
);

export const SessionStatsMessage = Type.Object(
  {
    type: Type.Literal('session_stats'),
    audio_ms: Type.Integer(),
    turns: Type.Integer(),
    transcriptions: Type.Integer(),
    latency_ms: Type.Object({
      count: Type.Integer(),
      p50: Type.Union([Type.Integer(), Type.Null()]),
      p95: Type.Union([Type.Integer(), Type.Null()]),
      max: Type.Union([Type.Integer(), Type.Null()]),
    }),
    max_lag_ms: Type.Integer({ description: 'Worst lag seen: age of the oldest unanswered piece, or audio not yet analysed by the VAD' }),
    dropped_audio_ms: Type.Integer({ description: 'Audio that could not be buffered or analysed' }),
    dropped_messages: Type.Integer({ description: 'Droppable messages (partial, chunk_received) skipped under backpressure' }),
    overlaps: Type.Optional(Type.Integer({ description: 'channels=2 only: overlap messages sent' })),
    overlap_ms: Type.Optional(Type.Integer({ description: 'channels=2 only: their total length' })),
  },
  { description: 'Per-session figures, sent right before the server closes the session normally.' },
);

export const ErrorMessage = Type.Object(
  {
    type: Type.Literal('error'),
    error: Type.Object({
      type: Type.String(),
      code: Type.String(),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'Seconds to wait before reconnecting (server_overloaded, 1013)' })),
    }),
    close_code: Type.Union([Type.Integer(), Type.Null()], { description: 'The close code that follows, or null when the session continues' }),
  },
  { description: 'A problem with a message or the session, in the REST error envelope.' },
);

export const SERVER_MESSAGES = [
  ReadyMessage,
  ChunkReceivedMessage,
  TranscriptionMessage,
  TurnDetectedMessage,
  CaptionMessage,
  SpeechStartedMessage,
  PartialMessage,
  BargeInMessage,
  OverlapMessage,
  FormatChangedMessage,
  PongMessage,
  LagMessage,
  SessionStatsMessage,
  ErrorMessage,
  ResumedMessage,
] as const;

export const ServerMessageSchema = Type.Union([...SERVER_MESSAGES], {
  $id: 'WsServerMessage',
  description: 'Server -> client messages of GET /v1/ws/transcribe (JSON text frames, discriminated by `type`).',
});

export type ReadyMessage = Static<typeof ReadyMessage>;
export type ChunkReceivedMessage = Static<typeof ChunkReceivedMessage>;
export type TranscriptionMessage = Static<typeof TranscriptionMessage>;
export type TurnDetectedMessage = Static<typeof TurnDetectedMessage>;
export type CaptionMessage = Static<typeof CaptionMessage>;
export type SpeechStartedMessage = Static<typeof SpeechStartedMessage>;
export type PartialMessage = Static<typeof PartialMessage>;
export type BargeInMessage = Static<typeof BargeInMessage>;
export type OverlapMessage = Static<typeof OverlapMessage>;
export type FormatChangedMessage = Static<typeof FormatChangedMessage>;
export type PongMessage = Static<typeof PongMessage>;
export type LagMessage = Static<typeof LagMessage>;
export type SessionStatsMessage = Static<typeof SessionStatsMessage>;
export type ErrorMessage = Static<typeof ErrorMessage>;
export type ResumedMessage = Static<typeof ResumedMessage>;
export type ServerMessage = Static<typeof ServerMessageSchema>;

/** Messages a slow reader may miss: they are skipped instead of queued under backpressure. */
/** Messages numbered by `seq` and re-sent after a resume when the client missed them. */
export const SEQUENCED_TYPES: ReadonlySet<ServerMessage['type']> = new Set(['turn_detected', 'transcription', 'caption']);

export const DROPPABLE_TYPES: ReadonlySet<ServerMessage['type']> = new Set(['chunk_received', 'partial', 'speech_started', 'lag']);

/** Plain JSON Schema of the union (TypeBox symbols dropped) for docs and clients. */
export function serverMessageJsonSchema(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(ServerMessageSchema as TSchema)) as Record<string, unknown>;
}
