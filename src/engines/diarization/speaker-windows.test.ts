import { describe, expect, it } from 'vitest';
import { twoSpeakerConversation } from '../../../test/helpers/speaker-conversation.js';
import { BACKENDS } from './diarization-backends.js';
import { diarizationFrames } from './diarize.js';
import { dot } from './speaker-clustering.js';
import { loadSpeakerProjection } from './speaker-projection.js';
import { embeddedWindows } from './speaker-windows.js';

const modelPath = (name: string): string => new URL(`../../../models/diarization/${name}.json`, import.meta.url).pathname;
const v1 = await loadSpeakerProjection(modelPath('speaker-ivector-v1'));
const v3 = await loadSpeakerProjection(modelPath('speaker-ivector-v3'));

describe('i-vector window embeddings with a speaker discriminant', () => {
  const { features, speech } = diarizationFrames(twoSpeakerConversation().pcm, {});
  const embed = (model: typeof v3, discriminantWeight: number) =>
    embeddedWindows(features, speech, { ...BACKENDS.backend_a, windowFrames: 75, hopFrames: 12, discriminantWeight }, model).windows.map((w) => w.embedding);

  it('weight 0 is the file directions alone, as a model without a discriminant gives them (v3 is v1 plus one)', () => {
    expect(embed(v3, 0)).toEqual(embed(v1, 0.3));
  });

  it("a window pair's cosine is the weighted sum of the discriminant's and the file directions'", () => {
    const within = embed(v3, 0);
    const across = embed(v3, 1);
    const mixed = embed(v3, 0.3);
    expect(mixed.length).toBeGreaterThan(20);
    let differs = 0;
    for (let i = 0; i < mixed.length; i += 3) {
      expect(dot(mixed[i]!, mixed[i]!)).toBeCloseTo(1, 5);
      for (let j = i + 1; j < mixed.length; j += 7) {
        const expected = 0.3 * dot(across[i]!, across[j]!) + 0.7 * dot(within[i]!, within[j]!);
        expect(dot(mixed[i]!, mixed[j]!)).toBeCloseTo(expected, 5);
        if (Math.abs(dot(across[i]!, across[j]!) - dot(within[i]!, within[j]!)) > 0.1) differs++;
      }
    }
    // The two spaces disagree about many pairs: the discriminant is not the file directions again.
    expect(differs).toBeGreaterThan(10);
  });
});
