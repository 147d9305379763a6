#!/usr/bin/env node
// Streams a 16 kHz mono 16-bit WAV file to GET /v1/ws/transcribe at real time and prints the
// server's messages. Needs only Node 20 and the `ws` package (a dev dependency here).
//
//   API_KEY=sk_... node examples/ws-stream-file.mjs test/fixtures/audio/speech-am.wav
//   GATEWAY_URL=ws://localhost:8080 LANGUAGE=am PARTIALS=true node examples/ws-stream-file.mjs file.wav
//
// Other inputs: convert first, e.g. `ffmpeg -i in.mp3 -ac 1 -ar 16000 -c:a pcm_s16le out.wav`.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const [file] = process.argv.slice(2);
const apiKey = process.env.API_KEY;
if (!file || !apiKey) {
  console.error('usage: API_KEY=<key> node examples/ws-stream-file.mjs <16 kHz mono 16-bit WAV>');
  process.exit(2);
}

/** The PCM samples of a WAV file (the data chunk). */
function wavData(bytes) {
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = bytes.toString('ascii', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ' && (bytes.readUInt16LE(at + 10) !== 1 || bytes.readUInt32LE(at + 12) !== 16000)) {
      throw new Error('expected 16 kHz mono PCM; convert with ffmpeg -ac 1 -ar 16000 -c:a pcm_s16le');
    }
    if (id === 'data') return bytes.subarray(at + 8, at + 8 + size);
    at += 8 + size + (size & 1);
  }
  throw new Error('no data chunk');
}

const pcm = wavData(readFileSync(file));
const url = new URL('/v1/ws/transcribe', process.env.GATEWAY_URL ?? 'ws://localhost:8080');
url.searchParams.set('language', process.env.LANGUAGE ?? 'am');
url.searchParams.set('format', 'pcm_s16le');
url.searchParams.set('turn_detection', 'server_vad');
if (process.env.PARTIALS === 'true') url.searchParams.set('partial_results', 'true');

const socket = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } });
socket.on('message', (data) => {
  const message = JSON.parse(data.toString());
  switch (message.type) {
    case 'ready':
      console.log(`ready: session ${message.session_id}, job ${message.job_id}, model ${message.model}`);
      void stream();
      break;
    case 'partial':
      console.log(`  ... [${message.start_ms}-${message.end_ms} ms] ${message.text}`);
      break;
    case 'turn_detected':
      console.log(`turn ${message.turn_id} [${message.start_ms}-${message.end_ms} ms, ${message.latency_ms} ms after its audio]: ${message.text}`);
      break;
    case 'transcription':
      // The final transcription carries the audio after the last turn: often nothing.
      if (message.text !== '') console.log(`${message.is_final ? 'final' : 'transcription'} [${message.start_ms}-${message.end_ms} ms]: ${message.text}`);
      if (message.is_final) console.log(`full text: ${message.full_text}`);
      break;
    case 'session_stats':
      console.log('stats:', JSON.stringify(message));
      break;
    case 'error':
      console.error(`error ${message.error.code}: ${message.error.message}`);
      break;
    case 'lag':
      console.warn(`server behind by ${message.oldest_pending_ms} ms`);
      break;
  }
});
socket.on('close', (code, reason) => console.log(`closed ${code} ${reason}`));
socket.on('error', (error) => console.error(error.message));

/** 100 ms chunks at real time, then END (final transcription, then close 1000). */
async function stream() {
  const chunkBytes = 3200;
  for (let at = 0; at < pcm.length && socket.readyState === WebSocket.OPEN; at += chunkBytes) {
    socket.send(pcm.subarray(at, at + chunkBytes));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (socket.readyState === WebSocket.OPEN) socket.send('END');
}
