/**
 * What the speaker-model frame writers share (speaker-frames.ts: MFCCs for the i-vectors,
 * speaker-fbank.ts: fbank for the embedding network): their command line
 * `OUT_PREFIX COUNT [GROUP...] [--speechocean SIDE] [--librispeech SIDE] [--augment N] [--seed N] [--no-clean]`,
 * the speakers' utterances as heard (clean and through seeded random channels, in a fixed order, so
 * a frame file is reproducible), and the output pair OUT_PREFIX.bin (float32 [frames][dim]) and
 * OUT_PREFIX.json ({ dim, utterances: [{ group, start, frames }] }).
 */
import { writeFileSync } from 'node:fs';
import { groupClips, loadGroupClips } from '../common/diarization-conversations.js';
import { extraSpeakerClips, extraSpeakerSplit, type HeldOutSide } from '../common/realistic-conversations.js';
import { throughRandomChannel } from '../common/simulated-channel.js';

export interface SpeakerSources {
  readonly prefix: string;
  /** The ALFFA groups named on the command line (the extra speakers are groups of their own). */
  readonly alffaGroups: readonly string[];
  readonly sources: readonly { readonly group: string; readonly clips: () => Promise<Float32Array[]> }[];
  /** Channel copies of every utterance, each through a random simulated channel. */
  readonly augment: number;
  /** The clean utterance too (false: channel copies only, as held-out evaluation frames). */
  readonly clean: boolean;
  /** The first channel's seed; each copy takes the next. */
  readonly seed: number;
}

/** Parses the command line (throws `usage` when it is wrong) and loads the named ALFFA groups' clips. */
export async function speakerSources(args: readonly string[], usage: string, defaultSeed: number): Promise<SpeakerSources> {
  const argv = [...args];
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    if (i < 0) return undefined;
    const value = argv[i + 1];
    argv.splice(i, 2);
    return value;
  };
  const soSide = flag('--speechocean') as 'train' | HeldOutSide | undefined;
  const lsSide = flag('--librispeech') as 'train' | HeldOutSide | undefined;
  const augment = Number(flag('--augment') ?? 0);
  const seed = Number(flag('--seed') ?? defaultSeed);
  const clean = !argv.includes('--no-clean');
  if (!clean) argv.splice(argv.indexOf('--no-clean'), 1);
  const [prefix, countText, ...groups] = argv;
  const count = Number(countText);
  if (prefix === undefined || !(count > 0)) throw new Error(usage);
  await loadGroupClips(groups, count);
  const sources: { group: string; clips: () => Promise<Float32Array[]> }[] = groups.map((g) => ({ group: g, clips: async () => groupClips(g, count) }));
  const split = extraSpeakerSplit();
  if (soSide !== undefined) for (const s of split.speechocean[soSide]) sources.push({ group: `so${s}`, clips: () => extraSpeakerClips('speechocean', s) });
  if (lsSide !== undefined) for (const s of split.librispeech[lsSide]) sources.push({ group: `ls${s}`, clips: () => extraSpeakerClips('librispeech', s) });
  return { prefix, alffaGroups: groups, sources, augment, clean, seed };
}

/** Each source's utterances as heard: per utterance the clean one (unless --no-clean), then its channel copies. */
export async function* heardUtterances(s: SpeakerSources): AsyncGenerator<{ group: string; pcm: Float32Array }> {
  let seed = s.seed;
  for (const { group, clips } of s.sources)
    for (const clip of await clips()) {
      if (s.clean) yield { group, pcm: clip };
      for (let k = 0; k < s.augment; k++) yield { group, pcm: throughRandomChannel(clip, seed++) };
    }
}

/** Collects utterances' frames and writes OUT_PREFIX.bin and OUT_PREFIX.json. */
export class FrameFile {
  readonly #chunks: Float32Array[] = [];
  readonly #utterances: { group: string; start: number; frames: number }[] = [];
  #total = 0;

  constructor(readonly dim: number) {}

  add(group: string, frames: Float32Array): void {
    const n = frames.length / this.dim;
    this.#chunks.push(frames);
    this.#utterances.push({ group, start: this.#total, frames: n });
    this.#total += n;
  }

  utterancesOf(group: string): number {
    return this.#utterances.filter((u) => u.group === group).length;
  }

  write(prefix: string): { utterances: number; frames: number } {
    const all = new Float32Array(this.#total * this.dim);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    writeFileSync(`${prefix}.bin`, all);
    writeFileSync(`${prefix}.json`, JSON.stringify({ dim: this.dim, utterances: this.#utterances }));
    return { utterances: this.#utterances.length, frames: this.#total };
  }
}
