/** UTC calendar date `YYYY-MM-DD` of an instant. */
export function utcDate(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(ms).toISOString().slice(0, 10);
}
