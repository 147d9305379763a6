import { EngineError } from '../../runtime/engine-error.js';

/** The spec's model-selection rules broken (mapped by the error registry's ENGINE_ERROR_CODES). */
export type ModelSelectionKind = 'model_with_auto' | 'unsupported_model' | 'unsupported_language';

/**
 * A request named a language/model combination the registry cannot serve. `param` is the
 * offending request field; the HTTP layer turns it into the error envelope.
 */
export class ModelSelectionError extends EngineError {
  constructor(kind: ModelSelectionKind, message: string, param: 'language' | 'model') {
    super(kind, message, { param });
    this.name = 'ModelSelectionError';
  }
}

/** A model folder that cannot be used (bad manifest, missing file, vocabulary mismatch). */
export class ModelFolderError extends EngineError {
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super('model_failed', `${dir}: ${message}`);
    this.name = 'ModelFolderError';
  }
}
