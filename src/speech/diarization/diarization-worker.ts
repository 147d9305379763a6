/**
 * Diarization worker thread: runs one `diarize` call (MFCC statistics, projection, clustering,
 * re-segmentation; tens of milliseconds to seconds of CPU, see bench/diarization.ts) off the event
 * loop and posts the speaker turns back, with the segment types when a type model is given
 * (typed-diarization.ts: music regions first, left out of diarization, then each speaker's voice;
 * bench/segment-types.ts). One thread per call, started by diarization-thread.ts, which ends it
 * on timeout or abort.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setThreadBackground } from '../native/thread-priority.js';
import type { DiarizationTask, DiarizationWorkerReply } from './diarization-thread.js';
import { loadSegmentTypeModel, type SegmentTypeModel } from './segment-type.js';
import { loadSpeakerProjection } from './speaker-projection.js';
import { diarizeWithTypes } from './typed-diarization.js';

const task = workerData as DiarizationTask;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function main(): Promise<DiarizationWorkerReply> {
  if (task.nice !== null) {
    try {
      setThreadBackground(task.nice);
    } catch {
      // Without the native addon the thread keeps the event loop's priority.
    }
  }
  const projection = await loadSpeakerProjection(task.projectionPath);
  // Segment types never fail the diarization: a model that cannot be read leaves them out, with a warning.
  let model: SegmentTypeModel | null = null;
  let typesWarning: string | null = null;
  if (task.typeModelPath !== null) {
    try {
      model = await loadSegmentTypeModel(task.typeModelPath);
    } catch (error) {
      typesWarning = `Segment types were not classified: ${messageOf(error)}`;
    }
  }
  const result = diarizeWithTypes(task.pcm.subarray(0, task.samples), task.options, projection, model);
  return { ok: true, turns: result.turns, types: result.types, typesWarning: typesWarning ?? result.typesWarning };
}

main().then(
  (reply) => parentPort!.postMessage(reply),
  (error: unknown) => parentPort!.postMessage({ ok: false, message: messageOf(error) } satisfies DiarizationWorkerReply),
);
