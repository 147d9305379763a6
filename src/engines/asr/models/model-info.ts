/** What the gateway can transcribe right now, as discovery and health report it. */
export interface ModelInfo {
  readonly name: string;
  readonly language: string;
  readonly isDefault: boolean;
  readonly loaded: boolean;
  readonly description?: string;
}

export interface LanguageInfo {
  readonly code: string;
  readonly name: string;
  readonly defaultModel: string | null;
}
