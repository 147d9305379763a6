/**
 * Caption cues from transcript segments, under the line and timing rules of broadcast captioning
 * (EBU-TT-D / BBC subtitle guidelines): at most two lines of at most 42 characters, a cue shown
 * for at least 5/6 s and at most 7 s, two frames (80 ms) between cues, lines broken at word
 * boundaries and preferably after punctuation, one speaker per cue.
 *
 * Word times are the segment's `words` (the CTC alignment of the decoded path) when they spell
 * its text word for word; a segment without them (or whose text was edited after recognition)
 * falls back to times interpolated by each word's letters' share of the segment. A word longer
 * than a line is cut into line-long pieces that share its time by letters. Pure. A live session
 * builds cues turn by turn (`continuation`) and never changes a cue it sent; the caption file of
 * the finished job is built from all its segments at once, so a cue before a pause may there be
 * held longer (up to the minimum duration) than it was live.
 */
export interface CaptionSegment {
  readonly start_ms: number;
  readonly end_ms: number;
  readonly text: string;
  readonly speaker?: string | null;
  /** The words of `text` with their times (job-records.ts SegmentWord); absent: interpolated. */
  readonly words?: readonly { readonly word: string; readonly start_ms: number; readonly end_ms: number }[];
}

export interface CaptionCue {
  /** 1-based, in display order. */
  readonly index: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly lines: readonly string[];
  readonly speaker: string | null;
}

export interface CaptionRules {
  readonly maxLineChars: number;
  readonly maxLines: number;
  readonly minCueMs: number;
  readonly maxCueMs: number;
  readonly minGapMs: number;
}

export const BROADCAST_CAPTION_RULES: CaptionRules = { maxLineChars: 42, maxLines: 2, minCueMs: 833, maxCueMs: 7000, minGapMs: 80 };

/** Word endings where a cue or a line reads best when it ends (Ethiopic and Latin punctuation). */
const CLAUSE_END = /[።፣፤፥፦፧፨?!.,;:]$/u;
const SENTENCE_END = /[።፧?!.]$/u;

export interface TimedWord {
  readonly text: string;
  readonly startMs: number;
  readonly endMs: number;
}

/** Where a live session's next batch of cues continues: numbering, and no cue before the last one sent ended. */
export interface CaptionContinuation {
  readonly firstIndex: number;
  readonly previousEndMs: number | null;
}

export function buildCaptionCues(
  segments: readonly CaptionSegment[],
  rules: CaptionRules = BROADCAST_CAPTION_RULES,
  continuation: CaptionContinuation = { firstIndex: 1, previousEndMs: null },
): CaptionCue[] {
  const drafts: Omit<CaptionCue, 'index'>[] = [];
  for (const segment of segments) {
    const words = timeWords(segment, rules.maxLineChars);
    let start = 0;
    while (start < words.length) {
      const end = takeCue(words, start, rules);
      const cueWords = words.slice(start, end);
      drafts.push({
        startMs: cueWords[0]!.startMs,
        endMs: cueWords[cueWords.length - 1]!.endMs,
        lines: breakLines(
          cueWords.map((w) => w.text),
          rules,
        ),
        speaker: segment.speaker ?? null,
      });
      start = end;
    }
  }
  return settleTiming(drafts, rules, continuation.previousEndMs).map((cue, i) => ({ ...cue, index: continuation.firstIndex + i }));
}

/** A segment's words with times: its own `words` when they spell its text, else spread by letters; words longer than a line are split. */
function timeWords(segment: CaptionSegment, maxLineChars: number): TimedWord[] {
  const texts = segment.text.split(/\s+/u).filter((w) => w.length > 0);
  const own = segment.words;
  if (own !== undefined && own.length === texts.length && own.every((w, i) => w.word === texts[i])) {
    return own.flatMap((w) => spreadByLetters(chunk(w.word, maxLineChars), w.start_ms, w.end_ms));
  }
  return spreadByLetters(
    texts.flatMap((w) => chunk(w, maxLineChars)),
    segment.start_ms,
    segment.end_ms,
  );
}

/** Spreads `startMs`..`endMs` over `texts` by their letter counts. */
export function spreadByLetters(texts: readonly string[], startMs: number, endMs: number): TimedWord[] {
  const letters = texts.reduce((sum, w) => sum + [...w].length, 0);
  const span = Math.max(0, endMs - startMs);
  const words: TimedWord[] = [];
  let before = 0;
  for (const text of texts) {
    const length = [...text].length;
    words.push({
      text,
      startMs: Math.round(startMs + (span * before) / letters),
      endMs: Math.round(startMs + (span * (before + length)) / letters),
    });
    before += length;
  }
  return words;
}

function chunk(word: string, size: number): string[] {
  const chars = [...word];
  if (chars.length <= size) return [word];
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/** Index one past the last word of the cue that starts at `start`. */
function takeCue(words: readonly TimedWord[], start: number, rules: CaptionRules): number {
  const capacity = rules.maxLineChars * rules.maxLines;
  let end = start + 1;
  let lastClause = -1;
  while (end < words.length) {
    const candidate = words.slice(start, end + 1);
    const fits =
      breakLines(
        candidate.map((w) => w.text),
        rules,
      ).length <= rules.maxLines;
    const tooLong = words[end]!.endMs - words[start]!.startMs > rules.maxCueMs;
    if (!fits || tooLong) break;
    if (CLAUSE_END.test(words[end - 1]!.text)) lastClause = end;
    if (SENTENCE_END.test(words[end - 1]!.text) && charCount(words.slice(start, end)) >= capacity / 3) return end;
    end += 1;
  }
  // Cut at the last clause end when the cue is full and one lies in its second half.
  if (end < words.length && lastClause > start && charCount(words.slice(start, lastClause)) >= capacity / 2) return lastClause;
  return end;
}

function charCount(words: readonly TimedWord[]): number {
  return words.reduce((sum, w) => sum + [...w.text].length, 0) + Math.max(0, words.length - 1);
}

/** Greedy line filling, balanced for two lines: the break that makes the lines most even wins. */
function breakLines(words: readonly string[], rules: CaptionRules): string[] {
  const joined = words.join(' ');
  if ([...joined].length <= rules.maxLineChars) return [joined];
  if (rules.maxLines >= 2) {
    let best: string[] | null = null;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let cut = 1; cut < words.length; cut += 1) {
      const first = words.slice(0, cut).join(' ');
      const second = words.slice(cut).join(' ');
      const a = [...first].length;
      const b = [...second].length;
      if (a > rules.maxLineChars || b > rules.maxLineChars) continue;
      const score = Math.abs(a - b) - (CLAUSE_END.test(words[cut - 1]!) ? 10 : 0);
      if (score < bestScore) {
        bestScore = score;
        best = [first, second];
      }
    }
    if (best !== null) return best;
  }
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const next = line === '' ? word : `${line} ${word}`;
    if ([...next].length > rules.maxLineChars && line !== '') {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** Minimum duration where the next cue leaves room, the gap between cues, and no overlap. */
function settleTiming(drafts: readonly Omit<CaptionCue, 'index'>[], rules: CaptionRules, previousEndMs: number | null): Omit<CaptionCue, 'index'>[] {
  const cues = drafts.map((c) => ({ ...c }));
  for (let i = 0; i < cues.length; i += 1) {
    const cue = cues[i]!;
    const previousEnd = i > 0 ? cues[i - 1]!.endMs : previousEndMs;
    if (previousEnd !== null && cue.startMs < previousEnd + rules.minGapMs) {
      cue.startMs = Math.min(previousEnd + rules.minGapMs, Math.max(cue.startMs, cue.endMs - 1));
    }
    const nextStart = i + 1 < cues.length ? cues[i + 1]!.startMs : Number.POSITIVE_INFINITY;
    const wanted = Math.max(cue.endMs, cue.startMs + rules.minCueMs);
    cue.endMs = Math.max(cue.endMs, Math.min(wanted, nextStart - rules.minGapMs));
    if (cue.endMs <= cue.startMs) cue.endMs = cue.startMs + 1;
  }
  return cues;
}
