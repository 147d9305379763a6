/**
 * The command line of a benchmark script: `--name value` options and bare `--name` flags.
 * Reads process.argv only.
 */
const args = process.argv.slice(2);

/** The value after `--name`, or `fallback` when the option is absent (or last, with no value). */
export function option(name: string, fallback: string): string {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
}

/** Whether the bare flag `--name` was given. */
export const flag = (name: string): boolean => args.includes(`--${name}`);
