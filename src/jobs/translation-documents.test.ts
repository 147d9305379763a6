import { describe, expect, it } from 'vitest';
import { transcriptFixture } from '../../test/helpers/transcript-fixture.js';
import { decodeText, outputNames, parseSource, renderOutput, sourceCharacters, textsToTranslate, UnitFailure } from './translation-documents.js';

const upper = (texts: readonly string[]) => texts.map((t) => t.toUpperCase());

describe('translation documents', () => {
  it('decodes strict UTF-8, drops a BOM and refuses invalid bytes and NUL', () => {
    expect(decodeText(Buffer.from('\uFEFFሰላም', 'utf8'))).toBe('ሰላም');
    expect(() => decodeText(Buffer.from([0xff, 0xfe, 0x41]))).toThrow(UnitFailure);
    expect(() => decodeText(Buffer.from('a\u0000b'))).toThrow(/binary/);
    try {
      decodeText(Buffer.from([0xc3]));
    } catch (error) {
      expect((error as UnitFailure).code).toBe('UNSUPPORTED_FORMAT');
    }
  });

  it('keeps the lines, blank lines and indentation of plain text', () => {
    const doc = parseSource('a.txt', 'hello world\n\n  second line  \r');
    expect(doc.kind).toBe('text');
    expect(textsToTranslate(doc)).toEqual(['hello world', 'second line']);
    expect(renderOutput(doc, upper(textsToTranslate(doc)), 'am').body).toBe('HELLO WORLD\n\n  SECOND LINE  \r');
    expect(sourceCharacters(parseSource('b.txt', 'ሰላም ab'))).toBe(6);
  });

  it('translates transcript segments and keeps timestamps, speakers, types and duration', () => {
    const input = transcriptFixture;
    const doc = parseSource('t.json', JSON.stringify(input));
    expect(doc.kind).toBe('transcript');
    expect(textsToTranslate(doc)).toEqual(['Good morning everyone.', 'Thank you for coming.']);
    expect(sourceCharacters(doc)).toBe(43);
    const out = JSON.parse(renderOutput(doc, ['ONE', 'TWO'], 'am').body);
    expect(out).toEqual({
      ...input,
      language: 'am',
      text: 'ONE TWO',
      segments: [{ ...input.segments[0], text: 'ONE' }, input.segments[1], { ...input.segments[2], text: 'TWO' }],
    });
  });

  it("drops a translated segment's words (they time the source words)", () => {
    const words = [{ word: 'Good', start_time: '0.10', end_time: '0.40', confidence: 0.9 }];
    const input = { ...transcriptFixture, segments: [{ ...transcriptFixture.segments[0], words }] };
    const out = JSON.parse(renderOutput(parseSource('t.json', JSON.stringify(input)), ['ONE'], 'am').body);
    expect(out.segments).toEqual([{ ...transcriptFixture.segments[0], text: 'ONE' }]);
  });

  it('refuses .json sources that are not transcripts, and reads other JSON-looking text as text', () => {
    expect(() => parseSource('x.json', '{"a": 1}')).toThrow(/segments/);
    expect(() => parseSource('x.json', 'not json')).toThrow(/not valid JSON/);
    expect(parseSource('x.txt', '{ not json').kind).toBe('text');
    expect(parseSource('x', '{"segments": [{"text": "a"}]}').kind).toBe('transcript');
  });

  it('derives output names from source names, unique within the job', () => {
    expect(
      outputNames(
        ['https://h/docs/report.txt', 'https://h/other/report.txt', 'https://h/t/interview%20one.json?sig=1', 'https://h/', 'svc://in/notes'],
        ['am', 'ti'],
      ),
    ).toEqual([
      ['report.am.txt', 'report.ti.txt'],
      ['report-2.am.txt', 'report-2.ti.txt'],
      ['interview_one.am.json', 'interview_one.ti.json'],
      ['file-4.am.txt', 'file-4.ti.txt'],
      ['notes.am.txt', 'notes.ti.txt'],
    ]);
  });
});

describe('per-unit error codes', () => {
  it('are codes of the error registry (docs/errors.md lists them)', async () => {
    const { ERROR_REGISTRY } = await import('../platform/errors/error-registry.js');
    const { TRANSLATION_UNIT_ERRORS } = await import('../platform/db/translation-records.js');
    for (const code of TRANSLATION_UNIT_ERRORS) expect(ERROR_REGISTRY[code]).toMatchObject({ type: 'translation_unit_error', status: 200 });
  });
});
