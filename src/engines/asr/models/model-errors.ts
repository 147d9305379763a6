/** Codes of the spec's model-selection rules (error registry: INVALID_FIELD 400, UNSUPPORTED_* 422). */
export type ModelSelectionCode = 'INVALID_FIELD' | 'UNSUPPORTED_MODEL' | 'UNSUPPORTED_LANGUAGE';

/**
 * A request named a language/model combination the registry cannot serve. `param` is the
 * offending request field; the HTTP layer turns it into the error envelope.
 */
export class ModelSelectionError extends Error {
  constructor(
    readonly code: ModelSelectionCode,
    message: string,
    readonly param: 'language' | 'model',
  ) {
    super(message);
    this.name = 'ModelSelectionError';
  }
}

/** A model folder that cannot be used (bad manifest, missing file, vocabulary mismatch). */
export class ModelFolderError extends Error {
  readonly code = 'model_error' as const;
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(`${dir}: ${message}`);
    this.name = 'ModelFolderError';
  }
}
