// What the npm-run command lines (lm, models) share: `--name value` flags and the exit code.

/** `--name value` pairs from argv; words that are not flags are skipped. A flag without a value throws. */
export function parseFlags(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`${a} needs a value`);
    out.set(a.slice(2), value);
    i++;
  }
  return out;
}

/**
 * Runs a command's main and sets the process's exit code from it: 1, with the error on stderr
 * (its stack with `showStack`, else its message), when main throws.
 */
export function runCommand(main: (argv: string[]) => Promise<number>, showStack = false): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${showStack ? ((error as Error).stack ?? String(error)) : (error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
