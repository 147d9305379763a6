// The shipped translation model as tests and benchmarks find it (the repository's models/ folder,
// as a gateway on the default MODELS_DIR reads it), sample sentences per language and the
// script check of an output.
import { join } from 'node:path';
import { romanizeEthiopic, wordsOf } from '../../src/engines/translation/translation.js';
import { REPO_ROOT } from './fixtures.js';

export const REPO_MODELS_DIR = join(REPO_ROOT, 'models');
export const TRANSLATION_MODEL = 'translate-am-en-ti-v1';
export const TRANSLATION_MODEL_DIR = join(REPO_MODELS_DIR, TRANSLATION_MODEL);

export type Lang = 'en' | 'am' | 'ti';
export const DIRECTIONS: ReadonlyArray<readonly [Lang, Lang]> = [
  ['en', 'am'],
  ['en', 'ti'],
  ['am', 'en'],
  ['am', 'ti'],
  ['ti', 'en'],
  ['ti', 'am'],
];

/** Everyday sentences with the same meaning in each language. */
export const SAMPLES: Readonly<Record<Lang, readonly string[]>> = {
  en: ['The children went to school in the morning.', 'Where is the hospital?', 'We need clean water for the village.'],
  am: ['ልጆቹ ጠዋት ወደ ትምህርት ቤት ሄዱ።', 'ሆስፒታሉ የት ነው?', 'ለመንደሩ ንጹህ ውሃ ያስፈልገናል።'],
  ti: ['ቆልዑ ንግሆ ናብ ቤት ትምህርቲ ከዱ።', 'ሆስፒታል ኣበይ ኣሎ?', 'ንዓዲ ጽሩይ ማይ የድልየና እዩ።'],
};

/**
 * The trivial baseline of a translation into English from Ethiopic script: the source's words
 * romanized one by one (what transfer writes for a word its table lacks), so that a score shows
 * what the table adds beyond romanizing.
 */
export const romanizedSource = (text: string): string => wordsOf(text).map(romanizeEthiopic).join(' ');

/** A 20-word English sentence (the benchmark's request). */
export const TWENTY_WORDS = 'The farmers in the village planted maize and sorghum early this year because the rains came before the usual season.';

/** Share of the letters of `text` in the expected script: Ethiopic for am and ti, Latin for en. */
export function scriptShare(text: string, language: Lang): number {
  const ethiopic = (text.match(/[\u1200-\u137F]/gu) ?? []).length;
  const latin = (text.match(/[A-Za-z]/g) ?? []).length;
  const total = ethiopic + latin;
  if (total === 0) return 0;
  return (language === 'en' ? latin : ethiopic) / total;
}

function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, at];
    shift += 7;
  }
}

/**
 * The pieces of a SentencePiece `.model` file in id order, read from its protobuf (ModelProto
 * field 1: repeated SentencePiece, whose field 1 is the piece). Tests use it to write a
 * Marian-style `vocab.json` for a model folder (the gateway reads pieces with src/engines/translation/sentencepiece-pieces.ts).
 */
export function sentencePiecePieces(model: Uint8Array): string[] {
  const pieces: string[] = [];
  const decoder = new TextDecoder();
  let at = 0;
  while (at < model.length) {
    let tag: number;
    [tag, at] = readVarint(model, at);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) [, at] = readVarint(model, at);
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      let length: number;
      [length, at] = readVarint(model, at);
      if (field === 1) {
        const message = model.subarray(at, at + length);
        let inner = 0;
        while (inner < message.length) {
          let innerTag: number;
          [innerTag, inner] = readVarint(message, inner);
          const innerWire = innerTag & 7;
          if (innerTag >> 3 === 1 && innerWire === 2) {
            let len: number;
            [len, inner] = readVarint(message, inner);
            pieces.push(decoder.decode(message.subarray(inner, inner + len)));
            break;
          }
          if (innerWire === 0) [, inner] = readVarint(message, inner);
          else if (innerWire === 5) inner += 4;
          else if (innerWire === 1) inner += 8;
          else {
            let len: number;
            [len, inner] = readVarint(message, inner);
            inner += len;
          }
        }
      }
      at += length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return pieces;
}
