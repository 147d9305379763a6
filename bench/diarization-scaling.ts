/**
 * Diarization time and memory against the length of the audio, up to an hour: one long
 * synthetic conversation of six held-out ALFFA speaker groups (training/common/diarization-conversations.ts)
 * per length, diarized by each backend with the shipped speaker model (energy gate, count not
 * given). Prints, per length and backend, the seconds per audio second and their ratio to the
 * shortest length's (constant when time grows linearly), the peak RSS of the process, and the DER.
 * Then the cost of the clustering choice: spectral (shipped) against agglomerative on 12 held-out
 * conversations of 2-4 speakers, alternating, 3 rounds. Writes bench/results/diarization-scaling.json.
 *
 *   npx tsx bench/diarization-scaling.ts [--minutes 5,15,30,60]
 */
import { resourceUsage } from 'node:process';
import { BACKENDS, DIARIZATION_BACKENDS, diarize } from '../src/engines/diarization/diarize.js';
import { diarizationErrorRate } from '../src/engines/scoring/diarization-error-rate.js';
import { loadSpeakerProjection } from '../src/engines/diarization/speaker-projection.js';
import { publishReport, ratio3 } from './bench-results.js';
import { buildConversation, conversationSet, loadGroupClips, TEST_GROUPS } from '../training/common/diarization-conversations.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const minutesList = (option('--minutes') ?? '5,15,30,60').split(',').map(Number);
const SPEAKERS = 6;
/** Turns average about 6 s with their pauses (ALFFA utterances of 2-15 s). */
const TURN_SECONDS = 6.2;

const projection = await loadSpeakerProjection(new URL('../models/diarization/speaker-ivector-v1.json', import.meta.url).pathname);
await loadGroupClips(TEST_GROUPS, 12);

const rows: Record<string, unknown>[] = [];
const baseline: Record<string, number> = {};
for (const minutes of minutesList) {
  const conversation = buildConversation(`long-${minutes}min`, TEST_GROUPS, SPEAKERS, Math.round((minutes * 60) / TURN_SECONDS), 500 + minutes);
  const audioSeconds = conversation.pcm.length / 16_000;
  for (const backend of DIARIZATION_BACKENDS) {
    const started = process.hrtime.bigint();
    const turns = diarize(conversation.pcm, { backend, minSpeakers: null, maxSpeakers: null }, projection, BACKENDS[backend]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perAudioSecond = seconds / audioSeconds;
    baseline[backend] ??= perAudioSecond;
    const score = diarizationErrorRate(
      conversation.reference,
      turns.map((t) => ({ ...t, speaker: String(t.speaker) })),
    );
    const row = {
      minutes: Math.round(audioSeconds / 6) / 10,
      backend,
      seconds: Math.round(seconds * 100) / 100,
      secondsPerAudioSecond: Math.round(perAudioSecond * 1e5) / 1e5,
      perAudioSecondRatioToShortest: ratio3(perAudioSecond, baseline[backend]!),
      peakRssMb: Math.round(resourceUsage().maxRSS / 1024),
      speakersFound: new Set(turns.map((t) => t.speaker)).size,
      der: Math.round((1000 * (score.missedMs + score.falseAlarmMs + score.confusionMs)) / score.referenceMs) / 1000,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
// The clustering's cost: the same conversations, spectral and agglomerative in turn (load changes hit both).
const set = conversationSet(TEST_GROUPS, [2, 3, 4], 4, 1000);
const setAudio = set.reduce((sum, c) => sum + c.pcm.length / 16_000, 0);
const clusteringSeconds = { spectral: 0, agglomerative: 0 };
for (let round = 0; round < 3; round++) {
  for (const clustering of ['spectral', 'agglomerative'] as const) {
    for (const c of set) {
      const started = process.hrtime.bigint();
      diarize(c.pcm, { backend: 'backend_a', minSpeakers: null, maxSpeakers: null }, projection, { ...BACKENDS.backend_a, clustering });
      clusteringSeconds[clustering] += Number(process.hrtime.bigint() - started) / 1e9;
    }
  }
}
const clusteringCost = {
  conversations: set.length,
  audioSeconds: Math.round(setAudio),
  spectralSecondsPerAudioSecond: Math.round((clusteringSeconds.spectral / 3 / setAudio) * 1e5) / 1e5,
  agglomerativeSecondsPerAudioSecond: Math.round((clusteringSeconds.agglomerative / 3 / setAudio) * 1e5) / 1e5,
  ratio: ratio3(clusteringSeconds.spectral, clusteringSeconds.agglomerative),
};
console.log(JSON.stringify(clusteringCost));

publishReport('diarization-scaling', {
  what: 'diarize() time and peak RSS against the audio length: one synthetic conversation of 6 held-out ALFFA groups per length, energy gate, count not given',
  speakers: SPEAKERS,
  rows,
  clusteringCost,
});
