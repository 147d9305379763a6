import type { DocumentSection } from '../../platform/http/llms-text.js';
import { TEXT_TRANSLATION_MAX_CHARS } from './text-translation-routes.js';

/** The /llms-full.txt guide to POST /translate/v1. */
export const TEXT_TRANSLATION_GUIDE: readonly DocumentSection[] = [
  {
    title: 'Text translation',
    body: [
      '`POST /translate/v1` translates a text between English (`en`), Amharic (`am`) and Tigrinya (`ti`), any pair of distinct languages, with the shipped multilingual model (no pivot through English).',
      '',
      'The body is form-encoded (`application/x-www-form-urlencoded`), the API key travels in it:',
      '',
      '```',
      'curl -s $BASE/translate/v1 -d key=$API_KEY --data-urlencode "text=Where is the hospital?" -d src_lang=en -d tgt_lang=am',
      '{"tgt_text":"..."}',
      '```',
      '',
      `- \`text\`: 1 to ${TEXT_TRANSLATION_MAX_CHARS} characters; beyond, 400 \`invalid_field_value\` with \`param: "text"\`.`,
      '- At most `TRANSLATION_MAX_REQUEST_SENTENCES` sentences per text (256 by default); more is 400 `invalid_field_value` with `param: "text"` and the limit in the message.',
      '- The text is cut into sentences at `.` `?` `!` (followed by a space), `።` `፧` and line breaks; each sentence is translated on its own and the translations are joined with one space, line breaks kept. `፣` and `፤` stay inside a sentence.',
      '- Same `src_lang` and `tgt_lang`, or a language outside en, am, ti: 400 `invalid_field_value`. Missing field: 400 `missing_required_field` with `param`. Unknown key: 401 `invalid_api_key`. Over the rate limit: 429 `rate_limit_exceeded` with `retry_after`.',
      "- 500 `service_unavailable`: no translation model is loaded on this server. 503 `server_overloaded`: the translation queue has no room for all of the text's sentences, or the account already holds its share of the queue; retry after `retry_after` seconds (the estimated drain time). Accounts are served round-robin, so another account's backlog delays a text by a few sentences, not by the backlog.",
      "- Each sentence yields at most `ceil(2.5 x its model pieces) + 4` pieces (the manifest's `max_output_ratio` and `max_output_extra`), so an output stays bounded by its input.",
      '- Decoding guards (`TRANSLATION_DECODING_GUARDS`, on by default): no output repeats a letter 5 times, a word or phrase 3 times in a row, or runs past a letter cap set by the source length and the language pair; a sentence the model cannot translate without such a loop is 400 `untranslatable_text` (`param: "text"`, the message names the sentence). Do not retry the same text: rephrase or shorten that sentence.',
      '- Decoding is greedy for this endpoint (latency); file translation jobs use beam search.',
      "- Transfer directions: the directions the model folder lists under `word_transfer` (all six with the bundled model; `TRANSLATION_TRANSFER=off` sends them to the network) are answered from word and phrase tables: a gloss in the source's word order, numbers kept, unknown words kept or (into English) written in Latin letters. It never loops and answers in microseconds, but it is not a fluent translation.",
    ].join('\n'),
  },
];
