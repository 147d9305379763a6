/**
 * A two-speaker conversation from the held-out ALFFA fixtures (groups 021, a development group,
 * and 091, held out), three turns each, alternating: the diarization tests' shared audio.
 */
import { readFileSync } from 'node:fs';
import { fixturePath, pcm16ToFloat, wavData } from './fixtures.js';

export interface FixtureConversation {
  readonly pcm: Float32Array;
  readonly reference: { startMs: number; endMs: number; speaker: string }[];
}

const clip = (id: string): Float32Array => pcm16ToFloat(wavData(readFileSync(fixturePath(`heldout/alffa_spk_heldout-${id}.wav`))).pcm);

/**
 * Speakers A and B taking turns; `gapSamples` (16 kHz) between turns, negative: each turn starts
 * that long before the previous one ends (overlapped speech, mixed). Half a second of silence leads.
 */
export function twoSpeakerConversation(gapSamples = 8000): FixtureConversation {
  const a = ['tr_10778_tr02101', 'tr_10779_tr02102', 'tr_10780_tr02103'].map(clip);
  const b = ['tr_10827_tr09101', 'tr_10828_tr09102', 'tr_10829_tr09103'].map(clip);
  const order = [a[0]!, b[0]!, a[1]!, b[1]!, a[2]!, b[2]!];
  const lead = 8000;
  const total = order.reduce((sum, c) => sum + c.length + gapSamples, lead + Math.max(0, -gapSamples));
  const pcm = new Float32Array(total);
  const reference: FixtureConversation['reference'] = [];
  let at = lead;
  order.forEach((c, i) => {
    for (let j = 0; j < c.length; j++) pcm[at + j]! += c[j]!;
    reference.push({ startMs: at / 16, endMs: (at + c.length) / 16, speaker: i % 2 === 0 ? 'A' : 'B' });
    at += c.length + gapSamples;
  });
  return { pcm, reference };
}
