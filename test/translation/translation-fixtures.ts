/**
 * The repository's models/ folder: a gateway on it boots the translation engine of
 * TRANSLATION_MODEL (translate-am-en-ti-v1) the way a default deployment does, so these tests
 * translate with the real engine. transcriptFixture is the transcript document they translate.
 */
export { REPO_MODELS_DIR } from '../helpers/translation-model.js';
export { transcriptFixture } from '../helpers/transcript-fixture.js';

export type Json = any;
