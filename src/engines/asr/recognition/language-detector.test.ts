import { describe, expect, it } from 'vitest';
import type { CtcRecognizer, Recognition } from './ctc-recognizer.js';
import { CtcConfidenceLanguageDetector } from './language-detector.js';

/** A recognizer that answers every piece with these confidences (all the detector reads). */
function answering(confidence: number | null, rawConfidence: number | null, calibrated: boolean): CtcRecognizer {
  const recognition = { text: rawConfidence === null ? '' : 'x', confidence, rawConfidence, calibrated } as Recognition;
  return { recognize: async () => recognition } as unknown as CtcRecognizer;
}

const speech = new Float32Array(16_000).map((_, i) => 0.3 * Math.sin(i / 5));

describe('CtcConfidenceLanguageDetector', () => {
  it("compares each language's confidence as its recognition states it (calibrated where the model has a calibration)", async () => {
    const detector = new CtcConfidenceLanguageDetector(
      new Map([
        ['am', answering(0.86, 0.8, true)],
        ['om', answering(0.84, 0.84, false)],
        ['ti', answering(0.7, 0.7, false)],
      ]),
    );
    const detection = await detector.detect(speech);
    expect(detection).toEqual({ language: 'am', scores: { am: 0.86, om: 0.84, ti: 0.7 }, method: 'ctc_confidence' });
  });

  it('scores a model that recognises nothing 0', async () => {
    const detector = new CtcConfidenceLanguageDetector(
      new Map([
        ['am', answering(null, null, false)],
        ['om', answering(0.2, 0.2, false)],
      ]),
    );
    expect(await detector.detect(speech)).toMatchObject({ language: 'om', scores: { am: 0, om: 0.2 } });
  });

  it('names the only language without running it', async () => {
    const detector = new CtcConfidenceLanguageDetector(new Map([['am', answering(0.1, 0.1, false)]]));
    expect(await detector.detect(speech)).toEqual({ language: 'am', scores: { am: 1 }, method: 'single_language' });
  });
});
