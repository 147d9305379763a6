import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ModelSelectionError } from './model-errors.js';
import { loadModelFolder, type LoadedCtcModel, type LoadedLanguageIdModel, type LoadedModel } from './model-loader.js';
import { substituteProblem } from './model-substitutes.js';

/** Languages the gateway knows by name; a model for another code still works, named by its code. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = { am: 'Amharic', om: 'Oromo', ti: 'Tigrinya' };

export const AUTO_LANGUAGE = 'auto';

export interface ModelProblem {
  readonly dir: string;
  readonly message: string;
}

export interface ModelChoice {
  /** A language code, or `auto` (detected later from the audio). */
  readonly language: string;
  /** The model to run; null for `auto` (the detected language's default is used). */
  readonly model: string | null;
}

/**
 * The audio's band as far as the container or stream format states it: `narrowband` when it is
 * sampled at 8 kHz or less (telephone calls: G.711, 8 kHz PCM), else `wideband`. A call stored at
 * 16 kHz reads as wideband: nothing here looks at the spectrum.
 */
export type AudioBand = 'wideband' | 'narrowband';
export const NARROWBAND_MAX_SAMPLE_RATE = 8000;
export const audioBandOf = (sampleRate: number): AudioBand => (sampleRate > 0 && sampleRate <= NARROWBAND_MAX_SAMPLE_RATE ? 'narrowband' : 'wideband');

/** Name of the default model of a language when no manifest says `"default": true`. */
export const conventionalDefault = (language: string): string => `small-${language}-v1`;

/** A translation model's folder (manifest kind "translation"): served by the translation engine, not a speech model. */
async function isTranslationFolder(folder: string): Promise<boolean> {
  try {
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as { kind?: unknown };
    return manifest.kind === 'translation';
  } catch {
    return false;
  }
}

/**
 * The installed models: one per folder with a manifest.json. Each language gets a default
 * model (a manifest with `"default": true`, else `small-<lang>-v1`, else the first by name) and
 * its other models (the spec's table: `small-<lang>-v1` default, `beta-<lang>-v1` other).
 * Folders that fail to load are listed in `problems()` and skipped, so one broken model does
 * not take the others down.
 */
export class ModelRegistry {
  private readonly byName = new Map<string, LoadedModel>();
  private readonly byLanguage = new Map<string, LoadedCtcModel[]>();
  private readonly defaults = new Map<string, LoadedCtcModel>();
  /** A model's `telephone_model` (manifest), where it passed the substitute rules (model-substitutes.ts). */
  private readonly telephone = new Map<string, string>();
  private readonly lid: LoadedLanguageIdModel | null;

  private constructor(
    readonly dir: string | null,
    models: readonly LoadedModel[],
    private readonly loadProblems: ModelProblem[],
  ) {
    let lid: LoadedLanguageIdModel | null = null;
    for (const model of [...models].sort((a, b) => a.name.localeCompare(b.name))) {
      if (this.byName.has(model.name)) {
        this.loadProblems.push({ dir: model.dir, message: `duplicate model name ${model.name}; ${this.byName.get(model.name)!.dir} is used` });
        continue;
      }
      this.byName.set(model.name, model);
      if (model.kind === 'language_id') {
        if (lid === null) lid = model;
        else this.loadProblems.push({ dir: model.dir, message: `a second language-id model; ${lid.name} is used` });
        continue;
      }
      const list = this.byLanguage.get(model.language) ?? [];
      list.push(model);
      this.byLanguage.set(model.language, list);
    }
    this.lid = lid;
    for (const [language, list] of this.byLanguage) {
      const flagged = list.filter((m) => m.manifest.isDefault === true);
      if (flagged.length > 1) {
        this.loadProblems.push({ dir: flagged[1]!.dir, message: `more than one default model for ${language}; ${flagged[0]!.name} is used` });
      }
      const chosen = flagged[0] ?? list.find((m) => m.name === conventionalDefault(language)) ?? list[0]!;
      this.defaults.set(language, chosen);
    }
    for (const model of this.byName.values()) {
      const phone = model.kind === 'ctc' ? (model.manifest.telephoneModel ?? null) : null;
      if (phone === null) continue;
      const problem = phone === model.name ? 'a model cannot be its own telephone model' : substituteProblem(this, model.name, phone);
      if (problem === null) this.telephone.set(model.name, phone);
      else
        this.loadProblems.push({ dir: model.dir, message: `telephone_model ${phone} is not used (${problem}); ${model.name} reads narrow-band audio itself` });
    }
  }

  /** Loads every subfolder of `dir` that has a manifest.json. A missing `dir` gives an empty registry. */
  static async scan(dir: string): Promise<ModelRegistry> {
    const root = resolve(dir);
    const problems: ModelProblem[] = [];
    const models: LoadedModel[] = [];
    let entries: string[] = [];
    try {
      entries = (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name);
    } catch {
      return new ModelRegistry(root, [], problems);
    }
    for (const entry of entries.sort()) {
      const folder = join(root, entry);
      const hasManifest = await stat(join(folder, 'manifest.json')).then(
        (s) => s.isFile(),
        () => false,
      );
      if (!hasManifest || (await isTranslationFolder(folder))) continue;
      try {
        models.push(await loadModelFolder(folder));
      } catch (error) {
        problems.push({ dir: folder, message: (error as Error).message });
      }
    }
    return new ModelRegistry(root, models, problems);
  }

  /** A registry over models loaded elsewhere (tests, tools). */
  static of(models: readonly LoadedModel[]): ModelRegistry {
    return new ModelRegistry(null, models, []);
  }

  problems(): readonly ModelProblem[] {
    return this.loadProblems;
  }

  /** Every model, CTC and language-id, by name. */
  all(): readonly LoadedModel[] {
    return [...this.byName.values()];
  }

  get(name: string): LoadedModel | undefined {
    return this.byName.get(name);
  }

  /** Language codes that have at least one CTC model: am, om, ti first, others after by code. */
  languages(): string[] {
    const known = Object.keys(LANGUAGE_NAMES);
    const codes = [...this.byLanguage.keys()];
    return [...known.filter((c) => codes.includes(c)), ...codes.filter((c) => !known.includes(c)).sort()];
  }

  /** CTC models of a language, the default first, then by name. */
  modelsFor(language: string): LoadedCtcModel[] {
    const list = this.byLanguage.get(language) ?? [];
    const chosen = this.defaults.get(language);
    return chosen ? [chosen, ...list.filter((m) => m !== chosen)] : [];
  }

  /**
   * DEFAULT_MODELS: each named language's default becomes the named model, over the folders'
   * `default` flags. Throws, changing nothing, when a name is not a speech model of its language.
   */
  chooseDefaults(choices: ReadonlyMap<string, string>): void {
    const chosen = new Map<string, LoadedCtcModel>();
    for (const [language, name] of choices) {
      const model = this.byName.get(name);
      if (model?.kind !== 'ctc' || model.language !== language) {
        const offered = (this.byLanguage.get(language) ?? []).map((m) => m.name).sort();
        throw new Error(
          `DEFAULT_MODELS ${language}=${name}: ${model === undefined ? 'no model of that name' : `not a speech model of language ${language}`} (${language} models: ${offered.join(', ') || 'none'})`,
        );
      }
      chosen.set(language, model);
    }
    for (const [language, model] of chosen) this.defaults.set(language, model);
  }

  /** TELEPHONE_MODELS=off: every model reads narrow-band audio itself. */
  disableTelephoneModels(): void {
    this.telephone.clear();
  }

  /** The model that reads `model`'s narrow-band audio when nobody named a model (manifest `telephone_model`), or null. */
  telephoneModelOf(model: string): string | null {
    return this.telephone.get(model) ?? null;
  }

  defaultModel(language: string): LoadedCtcModel | null {
    return this.defaults.get(language) ?? null;
  }

  isDefault(model: LoadedModel): boolean {
    return model.kind === 'ctc' && this.defaults.get(model.language) === model;
  }

  languageIdModel(): LoadedLanguageIdModel | null {
    return this.lid;
  }

  /** `language=auto` can be served when any language has a model (detection needs at least one). */
  autoDetect(): boolean {
    return this.byLanguage.size > 0;
  }

  /**
   * The spec's model rules for POST /v1/transcriptions:
   * 1. `model` with `language=auto` → kind model_with_auto (INVALID_FIELD, param `model`);
   * 2. a model that is not one of the language's → unsupported_model (message lists the language's models);
   * 3. a language without models → unsupported_language (message lists the languages, `auto` included);
   * 4. no model → the language's default; for `narrowband` audio, the default's telephone model
   *    where its manifest names one (a named model is always the one that runs).
   * An empty `model` string counts as omitted.
   */
  resolve(language: string, model?: string | null, band: AudioBand = 'wideband'): ModelChoice {
    const requested = model === undefined || model === null || model === '' ? null : model;
    if (language === AUTO_LANGUAGE) {
      if (requested !== null) {
        throw new ModelSelectionError('model_with_auto', "'model' cannot be combined with language 'auto'; name the language or leave out the model.", 'model');
      }
      if (!this.autoDetect()) throw this.unsupportedLanguage(language);
      return { language, model: null };
    }
    const chosen = this.defaults.get(language);
    if (!chosen) throw this.unsupportedLanguage(language);
    if (requested === null) return { language, model: (band === 'narrowband' ? this.telephone.get(chosen.name) : undefined) ?? chosen.name };
    const models = this.modelsFor(language);
    if (!models.some((m) => m.name === requested)) {
      throw new ModelSelectionError(
        'unsupported_model',
        `Model '${requested}' is not available for language '${language}'. Available models: ${models.map((m) => m.name).join(', ')}.`,
        'model',
      );
    }
    return { language, model: requested };
  }

  private unsupportedLanguage(language: string): ModelSelectionError {
    const available = this.languages();
    const list = available.length > 0 ? [...available, AUTO_LANGUAGE].join(', ') : 'none (no models are installed)';
    return new ModelSelectionError('unsupported_language', `Language '${language}' is not supported. Available languages: ${list}.`, 'language');
  }
}
