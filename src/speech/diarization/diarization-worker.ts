/**
 * Diarization worker thread: runs one `diarize` call (MFCC statistics, projection, clustering,
 * re-segmentation; tens of milliseconds to seconds of CPU, see bench/diarization.ts) off the event
 * loop and posts the speaker turns back, with the segment types when a type model is given
 * (segment-type.ts: music regions first, left out of diarization, then each speaker's voice;
 * bench/segment-types.ts). One thread per call, started by diarization-thread.ts, which ends it
 * on timeout or abort.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setThreadBackground } from '../native/thread-priority.js';
import type { DiarizationTask, DiarizationWorkerReply } from './diarization-thread.js';
import { diarize } from './diarize.js';
import { typingFrames } from './music-detector.js';
import { type AudioTypes, classifySpeakers, detectMusic, loadSegmentTypeModel, outsideRegions } from './segment-type.js';
import { loadSpeakerProjection } from './speaker-projection.js';

const task = workerData as DiarizationTask;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The caller's speech spans (all the audio when absent) cut to the spans outside music. */
function withoutMusic(speech: DiarizationTask['options']['speech'], outside: AudioTypes['music']): AudioTypes['music'] {
  if (speech === undefined) return outside;
  const out: AudioTypes['music'] = [];
  for (const a of speech) {
    for (const b of outside) {
      const startMs = Math.max(a.startMs, b.startMs);
      const endMs = Math.min(a.endMs, b.endMs);
      if (endMs > startMs) out.push({ startMs, endMs });
    }
  }
  return out;
}

async function main(): Promise<DiarizationWorkerReply> {
  if (task.nice !== null) {
    try {
      setThreadBackground(task.nice);
    } catch {
      // Without the native addon the thread keeps the event loop's priority.
    }
  }
  const projection = await loadSpeakerProjection(task.projectionPath);
  const pcm = task.pcm.subarray(0, task.samples);
  // Segment types never fail the diarization: a failure leaves them out, with a warning.
  let typing: { model: Awaited<ReturnType<typeof loadSegmentTypeModel>>; frames: ReturnType<typeof typingFrames>; music: AudioTypes['music'] } | null = null;
  let typesWarning: string | null = null;
  let options = task.options;
  if (task.typeModelPath !== null) {
    try {
      const model = await loadSegmentTypeModel(task.typeModelPath);
      const frames = typingFrames(pcm);
      const music = detectMusic(frames, model);
      typing = { model, frames, music };
      // Music is nobody's speech: diarization gives speakers only outside it.
      if (music.length > 0) options = { ...options, speech: withoutMusic(options.speech, outsideRegions(music, (pcm.length / 16_000) * 1000)) };
    } catch (error) {
      typesWarning = `Segment types were not classified: ${messageOf(error)}`;
    }
  }
  const turns = diarize(pcm, options, projection);
  let types: AudioTypes | null = null;
  if (typing !== null) types = { music: typing.music, speakers: classifySpeakers(typing.frames.track, turns, typing.music, typing.model) };
  return { ok: true, turns, types, typesWarning };
}

main().then(
  (reply) => parentPort!.postMessage(reply),
  (error: unknown) => parentPort!.postMessage({ ok: false, message: messageOf(error) } satisfies DiarizationWorkerReply),
);
