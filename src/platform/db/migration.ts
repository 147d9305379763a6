/** One schema change: applied once, in order, inside a transaction; never edited once shipped. */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}
