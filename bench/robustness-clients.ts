/** bench/robustness.ts's clients of a gateway: a clip over REST and over the WebSocket (letters shown, turns), greedy text translation. */
import WebSocket from 'ws';
import { scoringForm } from '../src/engines/scoring/scoring.js';
import { wavOf } from '../test/helpers/fixtures.js';

/** A corpus clip. */
export interface Clip {
  readonly file: string;
  readonly rate: number;
  /** 16-bit PCM, cut to --clip-seconds. */
  readonly pcm: Buffer;
  readonly seconds: number;
}

/** How a WebSocket session sends its audio: --ws-speed and --ws-vad. */
export interface WsPacing {
  readonly speed: number;
  /** energy | silero; '' for the server's default. */
  readonly vad: string;
}

/** The language the clients ask for (bench/robustness.ts --language; non-speech only for om and ti). */
export type BenchLanguage = 'am' | 'om' | 'ti';

/** Letters in the language's scoring form (no spaces or punctuation; ALFFA's for am). */
export const letters = (text: string, language: BenchLanguage = 'am'): number => scoringForm(text, language).length;

export interface RestAnswer {
  readonly text: string;
  readonly letters: number;
  readonly segments: number;
}

export async function rest(url: string, key: string, clip: Clip, language: BenchLanguage = 'am'): Promise<RestAnswer> {
  const form = new FormData();
  form.append('language', language);
  form.append('mode', 'sync');
  form.append('file', new Blob([wavOf(clip.pcm, clip.rate)]), 'clip.wav');
  const response = await fetch(`${url}/v1/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const body = (await response.json()) as { status?: string; text?: string; segments?: unknown[] };
  if (body.status !== 'completed') throw new Error(`REST ${clip.file}: ${response.status} ${JSON.stringify(body)}`);
  const text = body.text ?? '';
  return { text, letters: letters(text, language), segments: body.segments?.length ?? 0 };
}

export interface WsAnswer {
  /** The session's committed text (final `full_text`). */
  readonly text: string;
  /** Every letter shown: per turn the most of its committed text and its longest partial, plus the final piece. */
  readonly letters: number;
  readonly committedLetters: number;
  readonly partialLetters: number;
  readonly turns: number;
  readonly partials: number;
}

/** One live session over the clip: 100 ms messages at `speed` times real time (0: as fast as the socket takes them). */
function ws(port: number, key: string, clip: Clip, { speed, vad }: WsPacing, language: BenchLanguage): Promise<WsAnswer> {
  const query = new URLSearchParams({
    language,
    format: clip.rate === 8_000 ? 'pcm_s16le_8k' : 'pcm_s16le',
    turn_detection: 'server_vad',
    partial_results: 'true',
  });
  if (vad !== '') query.set('vad_type', vad);
  const chunkBytes = (clip.rate / 10) * 2; // 100 ms
  const messages = Array.from({ length: Math.ceil(clip.pcm.length / chunkBytes) }, (_, i) => clip.pcm.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  const limitMs = 120_000 + (speed > 0 ? (clip.seconds * 1000) / speed : 0) * 2;
  return new Promise((resolvePromise, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/ws/transcribe?${query}`, { headers: { authorization: `Bearer ${key}` } });
    const turns = new Map<string, { committed: number; partial: number }>();
    const turnOf = (id: unknown): { committed: number; partial: number } => {
      const k = String(id);
      if (!turns.has(k)) turns.set(k, { committed: 0, partial: 0 });
      return turns.get(k)!;
    };
    let finalText: string | null = null;
    let finalPiece = 0;
    let partials = 0;
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`WebSocket ${clip.file}: no final transcription after ${Math.round(limitMs / 1000)} s`));
    }, limitMs);
    const send = (): void => {
      if (speed <= 0) {
        for (const m of messages) socket.send(m);
        socket.send('END');
        return;
      }
      const t0 = performance.now();
      const stepMs = 100 / speed;
      let next = 0;
      const tick = (): void => {
        if (socket.readyState !== WebSocket.OPEN) return;
        const due = Math.min(messages.length, Math.floor((performance.now() - t0) / stepMs) + 1);
        while (next < due) socket.send(messages[next++]!);
        if (next >= messages.length) socket.send('END');
        else setTimeout(tick, stepMs);
      };
      tick();
    };
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      const type = message['type'];
      if (type === 'ready') send();
      else if (type === 'partial') {
        partials++;
        const turn = turnOf(message['turn_id']);
        turn.partial = Math.max(turn.partial, letters(String(message['text'] ?? ''), language));
      } else if (type === 'turn_detected') {
        const turn = turnOf(message['turn_id']);
        turn.committed = Math.max(turn.committed, letters(String(message['text'] ?? ''), language));
      } else if (type === 'transcription') {
        const n = letters(String(message['text'] ?? ''), language);
        if (message['turn_id'] !== null && message['turn_id'] !== undefined) {
          const turn = turnOf(message['turn_id']);
          turn.committed = Math.max(turn.committed, n);
        } else finalPiece += n;
        if (message['is_final'] === true) finalText = String(message['full_text'] ?? '');
      } else if (type === 'error' && message['close_code'] !== null) {
        const error = message['error'] as { code?: string; retry_after?: number };
        if (error.code === 'server_overloaded') reject(new Overloaded(error.retry_after ?? 10));
        else reject(new Error(`WebSocket ${clip.file}: ${JSON.stringify(error)}`));
      }
    });
    socket.on('close', (code) => {
      clearTimeout(timer);
      if (finalText === null) {
        reject(new Error(`WebSocket ${clip.file}: closed ${code} without a final transcription`));
        return;
      }
      const all = [...turns.values()];
      const committed = all.reduce((s, t) => s + t.committed, 0) + finalPiece;
      resolvePromise({
        text: finalText,
        letters: all.reduce((s, t) => s + Math.max(t.committed, t.partial), 0) + finalPiece,
        committedLetters: committed,
        partialLetters: all.reduce((s, t) => s + t.partial, 0),
        turns: all.filter((t) => t.committed > 0).length,
        partials,
      });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** The gateway refused or closed a session for capacity (1013): a capacity matter, retried, not measured. */
class Overloaded extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`server_overloaded, retry after ${retryAfterSeconds} s`);
  }
}

/** Sessions retried after a capacity refusal, over the whole run. */
export const capacity = { retries: 0 };

/** A session, again after `retry_after` when the gateway is at capacity (up to 30 times). */
export async function wsSession(port: number, key: string, clip: Clip, pacing: WsPacing, language: BenchLanguage = 'am'): Promise<WsAnswer> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await ws(port, key, clip, pacing, language);
    } catch (error) {
      if (!(error instanceof Overloaded) || attempt >= 30) throw error;
      capacity.retries++;
      await new Promise((r) => setTimeout(r, error.retryAfterSeconds * 1000));
    }
  }
}

/** `work` over `items`, at most `concurrency` at a time; results in the items' order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!, i);
      }
    }),
  );
  return out;
}

export async function translateGreedy(url: string, key: string, text: string, source: string, target: string): Promise<string> {
  const body = new URLSearchParams({ key, text, src_lang: source, tgt_lang: target }).toString();
  const response = await fetch(`${url}/translate/v1`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const answer = (await response.json()) as { tgt_text?: string };
  if (response.status !== 200 || typeof answer.tgt_text !== 'string')
    throw new Error(`translate ${source}-${target}: ${response.status} ${JSON.stringify(answer)}`);
  return answer.tgt_text;
}
