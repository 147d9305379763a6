/**
 * Segment-type accuracy and cost, on data the model was not fitted on (training/common/segment-type-data.ts):
 * - voice: held-out espeak-ng variants reading held-out sentences (am, om, ti): male / female /
 *   speech per clip and per voice (all its clips pooled, as a speaker's turns are);
 * - real speakers: ALFFA groups have no gender labels, so per group the pooled median F0, the
 *   decision, and how consistently its single utterances get the same decision;
 * - music: files of held-out speech (ALFFA test groups, held-out espeak voices), synthesised music
 *   of unseen seeds alone, and speech over music 10-20 dB down: time precision / recall of `music`
 *   against the music-alone spans, and how much speech, alone or over music, is called music;
 * - end to end: conversations of 2-3 held-out espeak voices (a man and a woman at least) with a
 *   stretch of music, through diarization with types as the diarization thread runs it: the share
 *   of male / female / music time typed right;
 * - cost: CPU time of the typing (pitch track, log-mel, music windows, voices) per audio second.
 *
 *   nice -n 10 npx tsx bench/segment-types.ts   → bench/results/segment-types.json
 */
import { writeFileSync } from 'node:fs';
import { DEV_GROUPS, groupClips, loadGroupClips, TEST_GROUPS } from '../training/common/diarization-conversations.js';
import { HELD_OUT_TEXTS, HELD_OUT_VOICES, joinWithPauses, mixUnder, voiceClips } from '../training/common/segment-type-data.js';
import { loadSegmentTypeModel, classifySpeakers, classifyVoice, detectMusic } from '../src/engines/diarization/segment-type.js';
import { typingFrames } from '../src/engines/diarization/music-detector.js';
import { trackPitch } from '../src/engines/diarization/pitch-track.js';
import { loadSpeakerProjection } from '../src/engines/diarization/speaker-projection.js';
import { diarizeWithTypes } from '../src/engines/diarization/typed-diarization.js';
import { synthesiseMusic } from '../training/common/music-synth.js';
import { seededRandom } from '../training/common/seeded-random.js';

const MODEL = 'models/segment-types/segment-types-v1.json';
const model = await loadSegmentTypeModel(MODEL);
const random = seededRandom(77);
const started = Date.now();
const voicedOf = (pcm: Float32Array): number[] => [...trackPitch(pcm).f0].filter((f) => f > 0);
const ratio = (a: number, b: number): number => (b === 0 ? 0 : Number((a / b).toFixed(4)));

// --- Voice on held-out espeak voices -------------------------------------------------------------
console.log('voice: held-out espeak voices');
const clips = voiceClips(HELD_OUT_VOICES, HELD_OUT_TEXTS, 2, 99);
const perClip = clips.map((clip) => ({ truth: clip.voice.gender, decision: classifyVoice(voicedOf(clip.pcm), model) }));
const scoreVoice = (rows: { truth: string; decision: { type: string } }[]) => {
  const decided = rows.filter((r) => r.decision.type !== 'speech');
  const right = decided.filter((r) => r.decision.type === r.truth).length;
  return {
    items: rows.length,
    decided: decided.length,
    right,
    accuracyOfDecided: ratio(right, decided.length),
    coverage: ratio(decided.length, rows.length),
    accuracyCountingSpeechWrong: ratio(right, rows.length),
  };
};
const perVoice = HELD_OUT_VOICES.map((voice) => {
  const pooled = clips.filter((c) => c.voice.variant === voice.variant).flatMap((c) => voicedOf(c.pcm));
  const decision = classifyVoice(pooled, model);
  return {
    voice: voice.variant,
    truth: voice.gender,
    type: decision.type,
    medianF0: Math.round(decision.medianF0 ?? 0),
    pFemale: Number((decision.pFemale ?? 0).toFixed(3)),
  };
});
// Short turns: the first 1.5 s of each clip alone.
const shortTurns = clips.map((clip) => ({ truth: clip.voice.gender, decision: classifyVoice(voicedOf(clip.pcm.subarray(0, 24_000)), model) }));
const voice = {
  heldOutVoices: HELD_OUT_VOICES.map((v) => `${v.variant} (${v.gender})`),
  languages: ['am', 'om', 'ti'],
  perClip: scoreVoice(perClip),
  perClipFirst1_5s: scoreVoice(shortTurns),
  perVoicePooled: scoreVoice(perVoice.map((v) => ({ truth: v.truth, decision: { type: v.type } }))),
  perVoice,
};
console.log(JSON.stringify({ perClip: voice.perClip, short: voice.perClipFirst1_5s, pooled: voice.perVoicePooled }));

// --- Real speakers: ALFFA groups (no gender labels) ----------------------------------------------
console.log('real speakers: ALFFA groups');
const GROUPS = [...DEV_GROUPS, ...TEST_GROUPS];
await loadGroupClips(GROUPS, 12);
const alffa = GROUPS.map((group) => {
  const utterances = groupClips(group, 12);
  const pooled = classifyVoice(utterances.flatMap(voicedOf), model);
  const single = utterances.map((u) => classifyVoice(voicedOf(u), model));
  return {
    group,
    utterances: utterances.length,
    medianF0: Math.round(pooled.medianF0 ?? 0),
    pFemale: Number((pooled.pFemale ?? 0).toFixed(3)),
    type: pooled.type,
    utteranceTypes: {
      male: single.filter((s) => s.type === 'male').length,
      female: single.filter((s) => s.type === 'female').length,
      speech: single.filter((s) => s.type === 'speech').length,
    },
    consistency: ratio(single.filter((s) => s.type === pooled.type).length, single.length),
    utteranceMedianF0: single.map((s) => Math.round(s.medianF0 ?? 0)),
  };
});
for (const g of alffa)
  console.log(`group ${g.group}: median F0 ${g.medianF0} Hz, P(female) ${g.pFemale} -> ${g.type}; utterances ${JSON.stringify(g.utteranceTypes)}`);

// --- Music ---------------------------------------------------------------------------------------
console.log('music: held-out files');
const espeakSpeech = clips.map((c) => c.pcm);
const realSpeech = TEST_GROUPS.flatMap((g) => groupClips(g, 12));
interface Tally {
  musicMs: number;
  musicCalledMs: number;
  speechMs: number;
  speechCalledMs: number;
  mixedMs: number;
  mixedCalledMs: number;
  calledMs: number;
  calledRightMs: number;
}
const tally = (): Tally => ({ musicMs: 0, musicCalledMs: 0, speechMs: 0, speechCalledMs: 0, mixedMs: 0, mixedCalledMs: 0, calledMs: 0, calledRightMs: 0 });
const tallies: Record<string, Tally> = {
  mixedFilesAlffa: tally(),
  mixedFilesEspeak: tally(),
  speechOnlyFilesAlffa: tally(),
  speechOnlyFilesEspeak: tally(),
  musicOnlyFiles: tally(),
};
let typingMs = 0;
let audioMs = 0;
type Span = { startMs: number; endMs: number; kind: 'music' | 'speech' | 'mixed' };
function score(pcm: Float32Array, spans: Span[], into: Tally): void {
  const t0 = performance.now();
  const frames = typingFrames(pcm);
  const regions = detectMusic(frames, model);
  classifySpeakers(
    frames.track,
    spans.filter((s) => s.kind !== 'music').map((s) => ({ ...s, speaker: 0 })),
    regions,
    model,
  );
  typingMs += performance.now() - t0;
  audioMs += (pcm.length / 16_000) * 1000;
  const inside = (a: number, b: number): number => regions.reduce((sum, r) => sum + Math.max(0, Math.min(b, r.endMs) - Math.max(a, r.startMs)), 0);
  for (const s of spans) {
    const len = s.endMs - s.startMs;
    const called = inside(s.startMs, s.endMs);
    if (s.kind === 'music') {
      into.musicMs += len;
      into.musicCalledMs += called;
    } else if (s.kind === 'speech') {
      into.speechMs += len;
      into.speechCalledMs += called;
    } else {
      into.mixedMs += len;
      into.mixedCalledMs += called;
    }
  }
  const calledTotal = regions.reduce((sum, r) => sum + r.endMs - r.startMs, 0);
  into.calledMs += calledTotal;
  into.calledRightMs += spans.filter((s) => s.kind === 'music').reduce((sum, s) => sum + inside(s.startMs, s.endMs), 0);
}
const spansOf = (starts: number[], pieces: Float32Array[], kinds: Span['kind'][]): Span[] =>
  pieces.map((p, i) => ({ startMs: starts[i]! / 16, endMs: (starts[i]! + p.length) / 16, kind: kinds[i]! }));
for (let i = 0; i < 24; i++) {
  const speech = i % 2 === 0 ? realSpeech : espeakSpeech;
  const pick = (): Float32Array => speech[Math.floor(random() * speech.length)]!;
  const a = pick();
  const music = synthesiseMusic(10_001 + i, 6 + random() * 6).pcm;
  const b = pick();
  const under = mixUnder(pick(), synthesiseMusic(20_001 + i, 15).pcm, -10 - random() * 10);
  const tail = synthesiseMusic(30_001 + i, 4 + random() * 2).pcm;
  const pieces = [a, music, b, under, tail];
  const { pcm, starts } = joinWithPauses(pieces, 0.4, i);
  score(pcm, spansOf(starts, pieces, ['speech', 'music', 'speech', 'mixed', 'music']), tallies[i % 2 === 0 ? 'mixedFilesAlffa' : 'mixedFilesEspeak']!);
}
for (let i = 0; i < 12; i++) {
  const pieces = [0, 1, 2].map(
    () => (i % 2 === 0 ? realSpeech : espeakSpeech)[Math.floor(random() * (i % 2 === 0 ? realSpeech.length : espeakSpeech.length))]!,
  );
  const { pcm, starts } = joinWithPauses(pieces, 0.3 + random() * 0.5, 100 + i);
  score(pcm, spansOf(starts, pieces, ['speech', 'speech', 'speech']), tallies[i % 2 === 0 ? 'speechOnlyFilesAlffa' : 'speechOnlyFilesEspeak']!);
}
for (let i = 0; i < 12; i++) {
  const pieces = [synthesiseMusic(40_001 + i, 10 + random() * 10).pcm];
  const { pcm, starts } = joinWithPauses(pieces, 0.5, 200 + i);
  score(pcm, spansOf(starts, pieces, ['music']), tallies['musicOnlyFiles']!);
}
const summarise = (t: Tally) => ({
  musicSeconds: Math.round(t.musicMs / 1000),
  recall: ratio(t.musicCalledMs, t.musicMs),
  precision: ratio(t.calledRightMs, t.calledMs),
  speechSeconds: Math.round(t.speechMs / 1000),
  speechCalledMusic: ratio(t.speechCalledMs, t.speechMs),
  speechOverMusicSeconds: Math.round(t.mixedMs / 1000),
  speechOverMusicCalledMusic: ratio(t.mixedCalledMs, t.mixedMs),
});
const all = Object.values(tallies).reduce((sum, t) => {
  for (const k of Object.keys(t) as (keyof Tally)[]) sum[k] += t[k];
  return sum;
}, tally());
const music = {
  what: 'time share; music seeds 10001+ (fit: under 2000); speech: ALFFA test groups and held-out espeak voices; speech over music 10-20 dB down; music regions need 2 s',
  all: summarise(all),
  ...Object.fromEntries(Object.entries(tallies).map(([k, t]) => [k, summarise(t)])),
};
console.log(JSON.stringify(music, null, 1));

// --- End to end: conversations with music through diarization with types -------------------------
console.log('end to end: conversations');
const projection = await loadSpeakerProjection('models/diarization/speaker-lda-v1.json');
const LABELS = ['male', 'female', 'music'] as const;
const emptyConfusion = (): Record<string, Record<string, number>> =>
  Object.fromEntries(LABELS.map((l) => [l, { male: 0, female: 0, speech: 0, music: 0, none: 0 }]));
const confusion = emptyConfusion();
/** The same with every turn typed by its speaker's pooled voice alone (for comparison). */
const perSpeakerOnly = emptyConfusion();
/** Per held-out voice: its frames in conversations and how they were typed. */
const byVoice: Record<string, Record<string, number>> = {};
let conversations = 0;
for (let i = 0; i < 12; i++) {
  const males = HELD_OUT_VOICES.filter((v) => v.gender === 'male');
  const females = HELD_OUT_VOICES.filter((v) => v.gender === 'female');
  const chosen = [males[Math.floor(random() * males.length)]!, females[Math.floor(random() * females.length)]!];
  if (i % 3 === 2) {
    const third = HELD_OUT_VOICES.filter((v) => !chosen.includes(v));
    chosen.push(third[Math.floor(random() * third.length)]!);
  }
  const pieces: { pcm: Float32Array; label: (typeof LABELS)[number]; voice?: string }[] = [];
  for (let turn = 0; turn < 8; turn++) {
    if (turn === 4) pieces.push({ pcm: synthesiseMusic(50_001 + i, 5 + random() * 5).pcm, label: 'music' });
    const voice = chosen[turn < chosen.length ? turn : Math.floor(random() * chosen.length)]!;
    const own = clips.filter((c) => c.voice.variant === voice.variant);
    pieces.push({ pcm: own[Math.floor(random() * own.length)]!.pcm, label: voice.gender, voice: voice.variant });
  }
  const { pcm, starts } = joinWithPauses(
    pieces.map((p) => p.pcm),
    0.2 + random() * 0.6,
    300 + i,
  );
  const { turns, types } = diarizeWithTypes(pcm, { backend: 'backend_a', minSpeakers: null, maxSpeakers: null }, projection, model);
  const typeOf = new Map(types!.speakers.map((s) => [s.speaker, s.type]));
  const frames = Math.ceil(pcm.length / 160);
  const hyp: string[] = new Array(frames).fill('none');
  const pooledHyp: string[] = new Array(frames).fill('none');
  for (const t of types!.turns) for (let f = Math.floor(t.startMs / 10); f < Math.min(frames, t.endMs / 10); f++) hyp[f] = t.type;
  for (const t of turns) for (let f = Math.floor(t.startMs / 10); f < Math.min(frames, t.endMs / 10); f++) pooledHyp[f] = typeOf.get(t.speaker) ?? 'speech';
  for (const r of types!.music) {
    for (let f = Math.floor(r.startMs / 10); f < Math.min(frames, r.endMs / 10); f++) {
      hyp[f] = 'music';
      pooledHyp[f] = 'music';
    }
  }
  pieces.forEach((piece, k) => {
    for (let f = Math.floor(starts[k]! / 160); f < Math.floor((starts[k]! + piece.pcm.length) / 160); f++) {
      confusion[piece.label]![hyp[f]!]! += 1;
      perSpeakerOnly[piece.label]![pooledHyp[f]!]! += 1;
      if (piece.voice !== undefined) {
        const row = (byVoice[piece.voice] ??= {});
        row[hyp[f]!] = (row[hyp[f]!] ?? 0) + 1;
      }
    }
  });
  conversations++;
}
const rightShare = (label: string, table = confusion): number => {
  const row = table[label]!;
  return ratio(
    row[label]!,
    Object.values(row).reduce((a, b) => a + b, 0),
  );
};
const endToEnd = {
  what: 'share of reference time (10 ms frames of each piece, its pauses included) typed as the reference; diarization backend_a, speaker count found; rows: reference, columns: typed (none: no speaker turn there)',
  conversations,
  confusionFrames: confusion,
  maleTypedMale: rightShare('male'),
  femaleTypedFemale: rightShare('female'),
  musicTypedMusic: rightShare('music'),
  byVoice,
  perSpeakerOnly: {
    confusionFrames: perSpeakerOnly,
    maleTypedMale: rightShare('male', perSpeakerOnly),
    femaleTypedFemale: rightShare('female', perSpeakerOnly),
  },
  overall: ratio(
    LABELS.reduce((sum, l) => sum + confusion[l]![l]!, 0),
    LABELS.reduce((sum, l) => sum + Object.values(confusion[l]!).reduce((a, b) => a + b, 0), 0),
  ),
};
console.log(JSON.stringify(endToEnd));

// --- Cost ----------------------------------------------------------------------------------------
const cost = {
  audioSeconds: Math.round(audioMs / 1000),
  typingSeconds: Number((typingMs / 1000).toFixed(2)),
  secondsPerAudioSecond: Number((typingMs / audioMs).toFixed(5)),
};
const pitchOnly = (() => {
  const pcm = realSpeech.slice(0, 20).reduce((acc, c) => {
    const out = new Float32Array(acc.length + c.length);
    out.set(acc);
    out.set(c, acc.length);
    return out;
  }, new Float32Array(0));
  const t0 = performance.now();
  trackPitch(pcm);
  return {
    audioSeconds: Number((pcm.length / 16_000).toFixed(1)),
    secondsPerAudioSecond: Number(((performance.now() - t0) / 1000 / (pcm.length / 16_000)).toFixed(5)),
  };
})();
console.log('cost', cost, 'pitch track alone', pitchOnly);

writeFileSync(
  'bench/results/segment-types.json',
  `${JSON.stringify(
    {
      command: 'nice -n 10 npx tsx bench/segment-types.ts',
      model: MODEL,
      date: new Date().toISOString(),
      machine: '2 shared CPU cores (other agents running)',
      voice,
      alffaGroups: alffa,
      music,
      endToEnd,
      cost: { ...cost, pitchTrackAlone: pitchOnly },
      wallSeconds: Math.round((Date.now() - started) / 1000),
    },
    null,
    2,
  )}\n`,
);
console.log('wrote bench/results/segment-types.json');
