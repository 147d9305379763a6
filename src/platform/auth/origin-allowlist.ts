/**
 * Origins are compared as `scheme://host[:port]`, lower-case, default ports dropped.
 * An entry may start its host with `*.` to allow every subdomain (not the bare domain).
 */
export function normalizeOrigin(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return `${url.protocol}//${url.host}`.toLowerCase();
  } catch {
    return null;
  }
}

export function originProblem(entry: string): string | null {
  const candidate = entry.replace('://*.', '://wildcard-placeholder.');
  if (normalizeOrigin(candidate) === null || /\/[^/]/.test(entry.replace(/^[a-z]+:\/\//i, ''))) {
    return `"${entry}" is not an origin such as https://app.example.com or https://*.example.com`;
  }
  return null;
}

export function originAllowed(origin: string, allowlist: readonly string[]): boolean {
  const normalized = normalizeOrigin(origin);
  if (normalized === null) return false;
  for (const entry of allowlist) {
    const wildcard = /^([a-z]+:\/\/)\*\.(.+)$/i.exec(entry.trim());
    if (wildcard) {
      const scheme = wildcard[1]!.toLowerCase();
      const suffix = normalizeOrigin(`${scheme}${wildcard[2]}`)?.slice(scheme.length);
      if (suffix !== undefined && normalized.startsWith(scheme) && normalized.slice(scheme.length).endsWith(`.${suffix}`)) {
        return true;
      }
    } else if (normalizeOrigin(entry) === normalized) {
      return true;
    }
  }
  return false;
}
