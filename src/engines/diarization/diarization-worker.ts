/**
 * Diarization worker thread: runs `diarize` calls (MFCC statistics, projection or a
 * speaker-embedding network's window embeddings, clustering,
 * re-segmentation; tens of milliseconds to seconds of CPU, see bench/diarization.ts) off the event
 * loop, one file after another, and posts each file's speaker turns back, with the segment types
 * when a type model is given (typed-diarization.ts: music regions first, left out of diarization,
 * then each speaker's voice; bench/segment-types.ts). When the VAD's speech spans are still being
 * computed, the typing (which does not need them) runs first and the clustering waits for them
 * (a DiarizationSpeech message). With a speaker-embedding network (DIARIZATION_EMBEDDING_MODEL) the
 * windows' embeddings are computed (asynchronously, batched) before the pure pipeline runs on them,
 * and the speaker projection is not read. The models are read on the first file and
 * kept for the next ones (a model that could not be read is tried again on the next file).
 * Started (its priority lowered first, when asked), ended on timeout, abort or idleness by
 * diarization-thread.ts.
 */
import { basename } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { BACKENDS, type SpeechSpan } from './diarize.js';
import type { DiarizationSpeech, DiarizationTask, DiarizationThreadSetup, DiarizationWorkerReply } from './diarization-thread.js';
import { loadOverlapDetector, type OverlapDetector } from './overlap-detector.js';
import { loadSegmentTypeModel, type SegmentTypeModel } from './segment-type.js';
import { SpeakerEmbeddingModel } from './speaker-embedding-model.js';
import { loadSpeakerProjection, type SpeakerProjection } from './speaker-projection.js';
import { diarizeTyped, diarizeTypedWithModel, typeAudio } from './typed-diarization.js';

const setup = workerData as DiarizationThreadSetup;

/** An error's message for the job's warnings: a file system error (or the embedding model's) names its file, never the folder it is in (no server paths). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const path = (error as NodeJS.ErrnoException).path;
  const message = typeof path === 'string' && path.length > 0 ? error.message.replaceAll(path, basename(path)) : error.message;
  const model = setup.embeddingModelPath;
  return model !== null && model.length > 0 ? message.replaceAll(model, basename(model)) : message;
}

let projection: SpeakerProjection | null = null;
let embeddingModel: SpeakerEmbeddingModel | null = null;
let typeModel: SegmentTypeModel | null = null;
let overlapDetector: OverlapDetector | null = null;

async function diarizeTask(task: DiarizationTask): Promise<DiarizationWorkerReply> {
  // A speaker-embedding network takes the projection's place (checked at start-up; read once, kept).
  if (setup.embeddingModelPath !== null) embeddingModel ??= await SpeakerEmbeddingModel.open(setup.embeddingModelPath);
  else projection ??= await loadSpeakerProjection(setup.projectionPath);
  // Segment types never fail the diarization: a model that cannot be read leaves them out, with a warning.
  let typesWarning: string | null = null;
  if (setup.typeModelPath !== null && typeModel === null) {
    try {
      typeModel = await loadSegmentTypeModel(setup.typeModelPath);
    } catch (error) {
      typesWarning = `Segment types were not classified: ${messageOf(error)}`;
    }
  }
  // Overlapped speech is marked by the backends that do it (backend_a); a detector that cannot be read leaves one speaker at a time, with a warning.
  let overlapWarning: string | null = null;
  if (setup.overlapModelPath !== null && overlapDetector === null && BACKENDS[task.options.backend].overlapAware) {
    try {
      overlapDetector = await loadOverlapDetector(setup.overlapModelPath);
    } catch (error) {
      overlapWarning = `Overlapping speech was not detected: ${messageOf(error)}`;
    }
  }
  const pcm = task.pcm.subarray(0, task.samples);
  const typed = typeAudio(pcm, typeModel);
  const speech = task.speechFollows ? await speechOf(task.id) : null;
  const options = { ...task.options, ...(speech !== null ? { speech } : {}), ...(overlapDetector !== null ? { overlapDetector } : {}) };
  const result =
    embeddingModel !== null
      ? await diarizeTypedWithModel(pcm, options, embeddingModel, typeModel, typed)
      : { ...diarizeTyped(pcm, options, projection!, typeModel, typed), windows: 0 };
  return {
    id: task.id,
    ok: true,
    turns: result.turns,
    types: result.types,
    typesWarning: typesWarning ?? result.typesWarning,
    overlapWarning,
    modelWindows: result.windows,
  };
}

/** Speech spans that came before their task asked for them, and the task waiting for its spans. */
const speechCame = new Map<number, readonly SpeechSpan[] | null>();
let speechWaiter: { readonly id: number; readonly resolve: (speech: readonly SpeechSpan[] | null) => void } | null = null;

function speechOf(id: number): Promise<readonly SpeechSpan[] | null> {
  if (speechCame.has(id)) {
    const speech = speechCame.get(id)!;
    speechCame.delete(id);
    return Promise.resolve(speech);
  }
  return new Promise((resolve) => {
    speechWaiter = { id, resolve };
  });
}

parentPort!.on('message', (message: DiarizationTask | DiarizationSpeech) => {
  if (message.type === 'speech') {
    if (speechWaiter?.id === message.id) {
      const waiter = speechWaiter;
      speechWaiter = null;
      waiter.resolve(message.speech);
    } else speechCame.set(message.id, message.speech);
    return;
  }
  const task = message;
  // Spans of an earlier task that ended before it asked for them.
  speechCame.clear();
  diarizeTask(task).then(
    (reply) => parentPort!.postMessage(reply),
    (error: unknown) => parentPort!.postMessage({ id: task.id, ok: false, message: messageOf(error) } satisfies DiarizationWorkerReply),
  );
});
