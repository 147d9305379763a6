/**
 * Fits the segment-type model (models/segment-types/segment-types-v1.json): the voice model
 * (P(female) from F0 statistics, a logistic regression) and the music model (P(music) per 2 s
 * window, a network with one hidden layer of 12 units), on seeded data that the figures never see (training/common/segment-type-data.ts: FIT_VOICES,
 * FIT_TEXTS, music seeds under 2,000, ALFFA FIT_SPEECH_GROUPS). Features come from the gateway's own code.
 *
 *   nice -n 10 npx tsx training/segment-types/segment-types.ts
 *
 * writes the model JSON and training/segment-types/results/segment-types-fit.json (fit-set accuracies).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { groupClips, loadGroupClips } from '../common/diarization-conversations.js';
import { FIT_SPEECH_GROUPS, FIT_TEXTS, FIT_VOICES, joinWithPauses, mixUnder, voiceClips } from '../common/segment-type-data.js';
import {
  activeGate,
  fitLogisticModel,
  fitTinyNetwork,
  logisticModelJson,
  logisticProbability,
  MUSIC_FEATURES,
  MUSIC_HOP_FRAMES,
  MUSIC_WINDOW_FRAMES,
  musicWindowFeatures,
  networkProbability,
  tinyNetworkJson,
  trackPitch,
  typingFrames,
  VOICE_FEATURES,
  voiceFeatures,
} from '../../src/engines/training.js';
import { synthesiseMusic } from '../common/music-synth.js';
import { seededRandom } from '../common/seeded-random.js';

const OUT = 'models/segment-types/segment-types-v1.json';
const SUMMARY = 'training/segment-types/results/segment-types-fit.json';
const VOICE_BAND = { male: 0.25, female: 0.75 };
const MUSIC_THRESHOLD = 0.5;
const MIN_VOICED_FRAMES = 50;

const started = Date.now();
const random = seededRandom(20261125);

// --- Voice --------------------------------------------------------------------------------------
console.log('voices: synthesising fit clips');
const clips = voiceClips(FIT_VOICES, FIT_TEXTS, 3, 11);
const voiceRows: Float64Array[] = [];
const voiceLabels: number[] = [];
for (const clip of clips) {
  const track = trackPitch(clip.pcm);
  const f0 = [...track.f0].filter((f) => f > 0);
  const x = voiceFeatures(f0);
  if (x === null || f0.length < MIN_VOICED_FRAMES) continue;
  voiceRows.push(x);
  voiceLabels.push(clip.voice.gender === 'female' ? 1 : 0);
}
const voice = fitLogisticModel(VOICE_FEATURES, voiceRows, voiceLabels, { l2: 1e-2, steps: 3000 });
const voiceDecisions = voiceRows.map((x) => logisticProbability(voice, x));
const decided = voiceDecisions.map((p, i) => ({ p, y: voiceLabels[i]! })).filter(({ p }) => p <= VOICE_BAND.male || p >= VOICE_BAND.female);
const voiceFit = {
  clips: voiceRows.length,
  decided: decided.length,
  accuracyOfDecided: decided.filter(({ p, y }) => (p >= 0.5 ? 1 : 0) === y).length / Math.max(1, decided.length),
};
console.log('voice fit', voiceFit);

// --- Music --------------------------------------------------------------------------------------
interface Example {
  readonly pcm: Float32Array;
  readonly music: boolean;
  readonly kind: string;
}
const examples: Example[] = [];
console.log('music: synthesising fit pieces');
for (let seed = 1; seed <= 60; seed++) examples.push({ pcm: joinWithPauses([synthesiseMusic(seed, 8).pcm], 0.3, seed).pcm, music: true, kind: 'music' });
// Espeak speech, three clips to a file, alone and over music 8-20 dB down.
for (let i = 0; i + 3 <= clips.length; i += 3) {
  const speech = joinWithPauses(
    clips.slice(i, i + 3).map((c) => c.pcm),
    0.3 + random() * 0.4,
    i,
  ).pcm;
  examples.push({ pcm: speech, music: false, kind: 'espeak' });
  if ((i / 3) % 2 === 0) examples.push({ pcm: mixUnder(speech, synthesiseMusic(100 + i, 12).pcm, -8 - random() * 12), music: false, kind: 'espeak+music' });
}
console.log('real speech: decoding ALFFA fitting groups');
await loadGroupClips(FIT_SPEECH_GROUPS, 12);
for (const group of FIT_SPEECH_GROUPS) {
  const utterances = groupClips(group, 12);
  for (let i = 0; i + 3 <= utterances.length; i += 3) {
    const speech = joinWithPauses(utterances.slice(i, i + 3), 0.3 + random() * 0.4, i).pcm;
    examples.push({ pcm: speech, music: false, kind: 'alffa' });
    // Two mixes, with different music at different levels.
    for (const k of [0, 1]) {
      examples.push({
        pcm: mixUnder(speech, synthesiseMusic(500 + 10 * Number(group) + i + k * 5, 30).pcm, -8 - random() * 12),
        music: false,
        kind: 'alffa+music',
      });
    }
  }
}
const musicRows: Float64Array[] = [];
const musicLabels: number[] = [];
const kinds: string[] = [];
for (const example of examples) {
  const frames = typingFrames(example.pcm);
  const gate = activeGate(frames.track);
  const envelope = new Float64Array(MUSIC_WINDOW_FRAMES);
  for (let start = 0; start + MUSIC_WINDOW_FRAMES <= frames.frames; start += MUSIC_HOP_FRAMES) {
    const x = musicWindowFeatures(frames, start, gate, new Float64Array(MUSIC_FEATURES.length), envelope);
    if (x === null) continue;
    musicRows.push(x);
    musicLabels.push(example.music ? 1 : 0);
    kinds.push(example.kind);
  }
}
// Every kind of example weighs the same in total (music: half; each of the four speech kinds: an eighth).
const perKind = new Map<string, number>();
for (const k of kinds) perKind.set(k, (perKind.get(k) ?? 0) + 1);
const speechKinds = perKind.size - 1;
const weights = kinds.map((k, i) => (musicLabels[i] === 1 ? 0.5 : 0.5 / speechKinds) * (musicLabels.length / perKind.get(k)!));
// A logistic regression for comparison, and the shipped model: a network with one hidden layer of 12 tanh units.
const linear = fitLogisticModel(MUSIC_FEATURES, musicRows, musicLabels, { l2: 1e-3, steps: 3000, weights });
const music = fitTinyNetwork(MUSIC_FEATURES, musicRows, musicLabels, { hidden: 12, seed: 5, l2: 1e-3, steps: 2000, rate: 0.02, weights });
const byKind: Record<string, { windows: number; calledMusic: number; calledMusicByLogistic: number }> = {};
musicRows.forEach((x, i) => {
  const k = (byKind[kinds[i]!] ??= { windows: 0, calledMusic: 0, calledMusicByLogistic: 0 });
  k.windows++;
  if (networkProbability(music, x) >= MUSIC_THRESHOLD) k.calledMusic++;
  if (logisticProbability(linear, x) >= MUSIC_THRESHOLD) k.calledMusicByLogistic++;
});
console.log('music fit windows by kind', byKind);

mkdirSync('models/segment-types', { recursive: true });
const model = {
  name: 'segment-types-v1',
  voice: logisticModelJson(voice),
  music: tinyNetworkJson(music),
  voice_band: VOICE_BAND,
  music_threshold: MUSIC_THRESHOLD,
  min_voiced_frames: MIN_VOICED_FRAMES,
};
writeFileSync(OUT, `${JSON.stringify(model, null, 2)}\n`);
writeFileSync(
  SUMMARY,
  `${JSON.stringify({ command: 'nice -n 10 npx tsx training/segment-types/segment-types.ts', model: OUT, voiceFit, musicFitWindowsByKind: byKind, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`,
);
console.log(`wrote ${OUT} and ${SUMMARY} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
