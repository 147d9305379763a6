// The message timeline of a `record=true` session (issue 18 item 4), stored as NDJSON when the
// session ends so that bench/replay.ts can send it again:
//   line 1: {"type":"recording","version":1,"session_id","job_id","started_at","query":{...}}
//           (the query the session was opened with, without `token`)
//   then one line per client message, in arrival order:
//           {"t":<ms since the session opened>,"text":"<command>"} or {"t":…,"audio":"<base64>"}
//   last:   {"type":"end","t":<ms>,"messages":<n>,"bytes":<payload bytes>,"truncated":<bool>}
// The recording holds at most `maxBytes` of message payload (WS_MAX_BUFFER_BYTES); once full,
// later messages are not recorded and the end line says `truncated: true`. It lives in memory
// only for the session's lifetime.

export const RECORDING_CONTENT_TYPE = 'application/x-ndjson';

export interface RecordingHeader {
  readonly type: 'recording';
  readonly version: 1;
  readonly session_id: string;
  readonly job_id: string;
  readonly started_at: string;
  readonly query: Readonly<Record<string, string>>;
}

export interface RecordedMessage {
  /** Milliseconds since the session opened, to 0.1 ms. */
  readonly t: number;
  readonly text?: string;
  /** Base64 of a binary (audio) message. */
  readonly audio?: string;
}

export interface RecordingEnd {
  readonly type: 'end';
  readonly t: number;
  readonly messages: number;
  readonly bytes: number;
  readonly truncated: boolean;
}

/** The query parameters worth replaying: everything but the one-time `token`. */
export function recordableQuery(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of query) if (name !== 'token' && name !== 'resume_token') out[name] = value;
  return out;
}

export class SessionRecording {
  private readonly lines: string[] = [];
  private bytes = 0;
  private truncated = false;

  constructor(
    header: Omit<RecordingHeader, 'type' | 'version'>,
    private readonly maxBytes: number,
  ) {
    this.lines.push(JSON.stringify({ type: 'recording', version: 1, ...header } satisfies RecordingHeader));
  }

  /** Copies the message (uWS reuses its buffer after the callback). `atMs`: since the session opened. */
  add(message: ArrayBuffer, isBinary: boolean, atMs: number): void {
    if (this.truncated) return;
    if (this.bytes + message.byteLength > this.maxBytes) {
      this.truncated = true;
      return;
    }
    this.bytes += message.byteLength;
    const t = Math.round(atMs * 10) / 10;
    const bytes = Buffer.from(message);
    const line: RecordedMessage = isBinary ? { t, audio: bytes.toString('base64') } : { t, text: bytes.toString('utf8') };
    this.lines.push(JSON.stringify(line));
  }

  /** The NDJSON file, with its end line. */
  finish(atMs: number): Buffer {
    const end: RecordingEnd = { type: 'end', t: Math.round(atMs * 10) / 10, messages: this.lines.length - 1, bytes: this.bytes, truncated: this.truncated };
    return Buffer.from(`${[...this.lines, JSON.stringify(end)].join('\n')}\n`, 'utf8');
  }
}

export interface ParsedRecording {
  readonly header: RecordingHeader;
  readonly messages: readonly RecordedMessage[];
  readonly end: RecordingEnd | null;
}

/** Reads a recording file; throws on a malformed one. */
export function parseRecording(text: string): ParsedRecording {
  const rows = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const header = rows[0] as RecordingHeader | undefined;
  if (header?.type !== 'recording' || header.version !== 1) throw new Error('not a version 1 session recording');
  const last = rows.at(-1);
  const end = rows.length > 1 && last?.type === 'end' ? (last as unknown as RecordingEnd) : null;
  const messages = rows.slice(1, end ? -1 : undefined) as unknown as RecordedMessage[];
  for (const m of messages) {
    if (typeof m.t !== 'number' || (typeof m.text !== 'string' && typeof m.audio !== 'string')) throw new Error('malformed recording line');
  }
  return { header, messages, end };
}
