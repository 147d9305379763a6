/** Collects positional parameters while a statement is built: `add` answers the `$n` to write. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
