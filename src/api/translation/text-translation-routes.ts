import { Type } from '@sinclair/typebox';
import { ApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { named } from '../../platform/http/named-schema.js';
import { TRANSLATION_LANGUAGES, type TranslationEngine, type TranslationLanguage } from '../../engines/translation/translation.js';
import { FORM_KEY_READ } from '../route-access.js';

const Language = Type.Union(TRANSLATION_LANGUAGES.map((l) => Type.Literal(l)));

/** Longest `text` accepted, in characters (Unicode code points); longer texts get 400 `invalid_field_value`. */
export const TEXT_TRANSLATION_MAX_CHARS = 5000;

const TextTranslationForm = Type.Object({
  key: Type.String({ description: 'The API key (sent in the form, not a header)' }),
  text: Type.String({
    minLength: 1,
    maxLength: TEXT_TRANSLATION_MAX_CHARS,
    description: `The text to translate: at most ${TEXT_TRANSLATION_MAX_CHARS} characters; split into sentences (. ? ! ። ፧ and line breaks), translated and joined again`,
  }),
  src_lang: Language,
  tgt_lang: Language,
});

const TextTranslationResult = named('TextTranslation', Type.Object({ tgt_text: Type.String() }));

/** POST /translate/v1: synchronous text translation; the key travels in the form body. */
export function textTranslationRoutes(engine: TranslationEngine | null): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/translate/v1',
      operationId: 'translateText',
      summary: 'Translate a text between en, am and ti',
      description:
        'Form-encoded body with `key`, `text`, `src_lang`, `tgt_lang` (any pair of distinct languages among en, am, ti). ' +
        `\`text\` holds at most ${TEXT_TRANSLATION_MAX_CHARS} characters (400 \`invalid_field_value\`, param \`text\`, beyond). ` +
        'The text is split into sentences (Ethiopic punctuation kept), translated greedily by the shipped am/en/ti model with the sentences of concurrent requests batched together, and joined again (line breaks kept). ' +
        "Directions the model folder lists under `word_transfer` are answered by word or phrase transfer instead of the network (with the shipped model all six, since its network scores far below its tables on held-out text; `TRANSLATION_TRANSFER=off` sends them to the network): each word or short phrase the direction's table knows is replaced by its most frequent translation, in the source's word order, numbers and punctuation kept (Ethiopic and Latin sentence marks mapped), words the table lacks kept or, into English, written in Latin letters. This is a gloss, not a fluent translation, and it never loops (docs/translation-models.md, *Transfer directions*). " +
        'A text of more sentences than `TRANSLATION_MAX_REQUEST_SENTENCES` (256 by default) is 400 `invalid_field_value` (param `text`). ' +
        "Accounts share the engine round-robin; a text is admitted only when all of its sentences fit in the queue's room and in the account's share of it (`TRANSLATION_MAX_QUEUED_PER_ACCOUNT`), else 503 `server_overloaded` with `retry_after` (the estimated drain time). " +
        'Each sentence yields at most `ceil(max_output_ratio x source pieces) + max_output_extra` pieces of the model (2.5 and 4 for the shipped model). ' +
        'Decoding guards (`TRANSLATION_DECODING_GUARDS`, on by default) keep every output free of loops (a letter 5 times, a word or phrase 3 times in a row) and within a letter cap set by the source; a sentence the model cannot translate soundly is 400 `untranslatable_text` (param `text`, the sentence named; not retryable). ' +
        'Errors use the unified envelope; requests count against the key rate limits like every endpoint. ' +
        'Answers 500 `service_unavailable` when no translation model is loaded.',
      tags: ['Text translation'],
      ...FORM_KEY_READ,
      body: { kind: 'form', schema: TextTranslationForm },
      responses: {
        200: { description: 'Translation', schema: TextTranslationResult },
        503: {
          description: 'server_overloaded: the translation queue has no room for the text now (`retry_after` says when)',
          headers: { 'Retry-After': 'Seconds to wait' },
        },
      },
      handler: async ({ body, signal, principal }) => {
        if (body.src_lang === body.tgt_lang) {
          throw new ApiError('invalid_field_value', { message: "'tgt_lang' must differ from 'src_lang'.", param: 'tgt_lang' });
        }
        if (engine === null) {
          throw new ApiError('service_unavailable', { message: 'Text translation is not available on this server: no translation engine is configured.' });
        }
        const translated = await engine.translate(body.text, body.src_lang as TranslationLanguage, body.tgt_lang as TranslationLanguage, {
          mode: 'greedy',
          signal,
          tenant: principal?.accountId ?? '',
        });
        return { status: 200, body: { tgt_text: translated } };
      },
    }),
  ];
}
