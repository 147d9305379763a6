import { describe, expect, it } from 'vitest';
import { audioProblemInUserTerms } from './audio-problem.js';

describe('audioProblemInUserTerms', () => {
  const cases: [string, string][] = [
    ['/tmp/gw/files/accounts/acct_1/jobs/tr_1/audio: Invalid data found when processing input', 'damaged'],
    ['[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0c0a3c2c0] moov atom not found', 'incomplete'],
    ['/data/x/audio: End of file', 'incomplete'],
    ['Output file #0 does not contain any stream', 'no audio stream'],
    ['Decoder (codec opus) not found for input stream #0:0', 'codec is not supported'],
    ['something nobody has seen before at /srv/data/x', 'could not be decoded'],
  ];
  for (const [line, expected] of cases) {
    it(`says "${expected}" for ${line.slice(0, 40)}`, () => {
      const phrase = audioProblemInUserTerms(line);
      expect(phrase).toContain(expected);
      expect(phrase).not.toMatch(/\/|0x|@/);
    });
  }
});
