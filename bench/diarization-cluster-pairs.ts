/**
 * EXPERIMENT (issue 29, 2026-11-29; reverted after its commit): the short-turn path's agglomerative
 * clusters before any centroid merge, each pair's centroid cosine and whether both hold the same
 * reference speaker most, on the realistic development and test sides, the joined development side
 * and the API's two-speaker fixture. Writes /tmp/pairs.json (summarised in
 * bench/results/diarization-cluster-pair-cosines.json).
 */
import { writeFileSync } from 'node:fs';
import { BACKENDS, diarizationFrames } from '../src/engines/diarization/diarize.js';
import { clusterCentroids, dot } from '../src/engines/diarization/speaker-clustering.js';
import { loadSpeakerProjection } from '../src/engines/diarization/speaker-projection.js';
import { embeddedWindows } from '../src/engines/diarization/speaker-windows.js';
import { parametersForSpeech } from '../src/engines/diarization/speech-runs.js';
import { clusterWindows } from '../src/engines/diarization/window-clustering.js';
import { DIARIZATION_SPEECH_SPANS, sileroProbabilities, speechSpans } from '../src/engines/vad/silero-file.js';
import { SileroVad } from '../src/engines/vad/silero-vad.js';
import { twoSpeakerConversation } from '../test/helpers/speaker-conversation.js';
import { conversationSet, DEV_GROUPS, loadGroupClips, TEST_GROUPS } from '../training/common/diarization-conversations.js';
import { realisticSet } from '../training/common/realistic-conversations.js';

const proj = await loadSpeakerProjection('models/diarization/speaker-ivector-v3.json');
const vad = await SileroVad.create({ maxBatch: 64, maxQueuedWindowsPerStream: 128 });
await loadGroupClips([...DEV_GROUPS, ...TEST_GROUPS], 12);
const fx = twoSpeakerConversation();
const sets = {
  realdev: await realisticSet('dev', [2, 3, 4, 5, 6], 8, 7),
  realtest: [...(await realisticSet('test', [2], 6, 3000)), ...(await realisticSet('test', [3, 4, 5, 6], 3, 1000))],
  joineddev: conversationSet(DEV_GROUPS, [2, 3, 4], 8, 7),
  fixture: [{ name: 'fixture', pcm: fx.pcm, reference: fx.reference, speakers: 2 }],
};
const rows: unknown[] = [];
for (const [setName, set] of Object.entries(sets)) {
  for (const c of set) {
    const probabilities = await sileroProbabilities(vad, c.pcm);
    const speech = speechSpans(probabilities, DIARIZATION_SPEECH_SPANS, (c.pcm.length / 16_000) * 1000);
    const frames = diarizationFrames(c.pcm, { speech });
    const chosen = parametersForSpeech(BACKENDS.backend_a, frames.speech);
    const { windows } = embeddedWindows(frames.features, frames.speech, chosen, proj);
    if (windows.length === 0) continue;
    const embeddings = windows.map((w) => w.embedding);
    const labels = clusterWindows(embeddings, null, null, { ...chosen, mergeSimilarity: 1.01, minClusterShare: 0, refinements: 0 });
    const centroids = clusterCentroids(embeddings, labels);
    const votes = centroids.map(() => new Map<string, number>());
    windows.forEach((w, i) => {
      const ms = ((w.startFrame + w.endFrame) / 2) * 20;
      for (const t of c.reference) if (t.startMs <= ms && ms < t.endMs) votes[labels[i]!]!.set(t.speaker, (votes[labels[i]!]!.get(t.speaker) ?? 0) + 1);
    });
    const major = votes.map((v) => [...v.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '');
    const pairs = [];
    for (let a = 0; a < centroids.length; a++)
      for (let b = a + 1; b < centroids.length; b++) pairs.push({ a, b, cos: dot(centroids[a]!, centroids[b]!), same: major[a] === major[b] });
    rows.push({ set: setName, name: c.name, speakers: c.speakers, k: centroids.length, pairs });
  }
}
writeFileSync('/tmp/pairs.json', JSON.stringify(rows));
await vad.close();
