/**
 * Where an export in the layout transformers.js and Optimum publish on the Hugging Face hub keeps
 * its ONNX files (docs/public-models.md): `onnx/<stem><suffix>.onnx` first, else
 * `<stem><suffix>.onnx` at the top, the suffix that of the chosen variant as transformers.js names
 * its dtypes. The one rule the CTC importer (asr) and the translation importer both follow.
 */

/** File suffix of each ONNX variant, named as transformers.js names its dtypes. */
export const HUB_ONNX_VARIANTS: Readonly<Record<string, string>> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

/** A model folder's name as the gateway accepts it: lower-case letters, digits, . _ - (at most 64). */
export const MODEL_FOLDER_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The file suffix of `variant`; an unknown variant is refused with the error `fail` makes, naming the known ones. */
export function hubOnnxSuffix(variant: string, fail: (detail: string) => Error): string {
  const suffix = HUB_ONNX_VARIANTS[variant];
  if (suffix === undefined) throw fail(`variant ${JSON.stringify(variant)} is not one of ${Object.keys(HUB_ONNX_VARIANTS).join(', ')}`);
  return suffix;
}

/** The paths looked for, in order, for the ONNX file `stem` of a variant's `suffix`. */
export const hubOnnxCandidates = (stem: string, suffix: string): string[] => [`onnx/${stem}${suffix}.onnx`, `${stem}${suffix}.onnx`];

/** The first of `hubOnnxCandidates(stem, suffix)` among `files` (paths relative to the folder), else null. */
export function findHubOnnx(files: readonly string[], stem: string, suffix: string): string | null {
  return hubOnnxCandidates(stem, suffix).find((path) => files.includes(path)) ?? null;
}
