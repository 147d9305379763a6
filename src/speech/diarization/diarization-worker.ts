/**
 * Diarization worker thread: runs one `diarize` call (MFCC statistics, projection, clustering,
 * re-segmentation; tens of milliseconds to seconds of CPU, see bench/diarization.ts) off the event
 * loop and posts the speaker turns back. One thread per call, started by diarization-thread.ts,
 * which ends it on timeout or abort.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setThreadBackground } from '../native/thread-priority.js';
import { diarize } from './diarize.js';
import type { DiarizationTask, DiarizationWorkerReply } from './diarization-thread.js';
import { loadSpeakerProjection } from './speaker-projection.js';

const task = workerData as DiarizationTask;

async function main(): Promise<DiarizationWorkerReply> {
  if (task.nice !== null) {
    try {
      setThreadBackground(task.nice);
    } catch {
      // Without the native addon the thread keeps the event loop's priority.
    }
  }
  const projection = await loadSpeakerProjection(task.projectionPath);
  const turns = diarize(task.pcm.subarray(0, task.samples), task.options, projection);
  return { ok: true, turns };
}

main().then(
  (reply) => parentPort!.postMessage(reply),
  (error: unknown) => parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) } satisfies DiarizationWorkerReply),
);
