/** `raw` as an absolute URL, or null when it is none (what callers turn into their own 400 or 422). */
export function tryUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
