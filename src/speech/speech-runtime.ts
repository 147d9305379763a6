import type { AudioSniffer, ModelResolver, TranscriptionEngine } from './speech-types.js';
import type { SpeechCatalog } from './models/speech-catalog.js';
import type { StreamingRecognizer } from './recognition/streaming-recognizer.js';

/**
 * Everything speech-specific the gateway needs: the models it can run, the engine that runs
 * them (decoding, batching, CTC), and what /health reports about them.
 */
export interface SpeechRuntime {
  readonly catalog: SpeechCatalog;
  readonly models: ModelResolver;
  readonly engine: TranscriptionEngine;
  /** Live-stream pieces (16 kHz mono PCM) through the same batched inference pool. */
  readonly streaming: StreamingRecognizer;
  readonly sniff: AudioSniffer;
  /** Reads a stored file's container (ffprobe) and throws invalid_audio_format if it is not decodable audio. */
  verify(path: string, signal?: AbortSignal): Promise<void>;
  device(): { requested: string; active: string; workers: number };
  vad(): { energy: boolean; silero: boolean };
  close(): Promise<void>;
}
