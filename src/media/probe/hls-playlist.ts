/** What a probe learns from an HLS playlist. */
export interface HlsFacts {
  /** Sum of the segments' durations; null for a live playlist. */
  readonly durationSeconds: number | null;
  readonly isLive: boolean;
}

export interface HlsVariant {
  readonly uri: string;
  readonly video: boolean;
}

export function isHlsPlaylist(text: string): boolean {
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('#EXTM3U');
}

/** The first variant of a master playlist (null for a media playlist). */
export function firstVariant(text: string): HlsVariant | null {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith('#EXT-X-STREAM-INF:')) continue;
    const uri = lines.slice(i + 1).find((l) => l !== '' && !l.startsWith('#'));
    if (uri === undefined) return null;
    const video = /RESOLUTION=|CODECS="[^"]*(avc1|hvc1|hev1|vp09|av01)/i.test(line);
    return { uri, video };
  }
  return null;
}

/** A media playlist: VOD when it ends with #EXT-X-ENDLIST (or says PLAYLIST-TYPE:VOD), else live. */
export function mediaPlaylistFacts(text: string): HlsFacts {
  const ended = /^#EXT-X-ENDLIST\b/m.test(text) || /^#EXT-X-PLAYLIST-TYPE:\s*VOD\b/m.test(text);
  if (!ended) return { durationSeconds: null, isLive: true };
  let total = 0;
  for (const match of text.matchAll(/^#EXTINF:\s*([0-9.]+)/gm)) total += Number(match[1]);
  return { durationSeconds: Math.round(total * 1000) / 1000, isLive: false };
}
