import { describe, expect, it } from 'vitest';
import { mediaFacts } from './ffprobe.js';
import { firstVariant, isHlsPlaylist, mediaPlaylistFacts } from './hls-playlist.js';
import { ytdlpError } from './ytdlp.js';

describe('HLS playlists', () => {
  it('sums a VOD playlist and flags a live one', () => {
    expect(isHlsPlaylist('\uFEFF#EXTM3U\n')).toBe(true);
    expect(isHlsPlaylist('<html>')).toBe(false);
    expect(mediaPlaylistFacts('#EXTM3U\n#EXTINF:9.5,\na.ts\n#EXTINF:0.25,\nb.ts\n#EXT-X-ENDLIST\n')).toEqual({ durationSeconds: 9.75, isLive: false });
    expect(mediaPlaylistFacts('#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4,\na.ts\n')).toEqual({ durationSeconds: 4, isLive: false });
    expect(mediaPlaylistFacts('#EXTM3U\n#EXTINF:6,\nlive1.ts\n')).toEqual({ durationSeconds: null, isLive: true });
  });

  it('picks the first variant of a master playlist and tells audio-only from video', () => {
    expect(firstVariant('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2"\n\naudio/index.m3u8\n')).toEqual({
      uri: 'audio/index.m3u8',
      video: false,
    });
    expect(firstVariant('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1280x720\nhd.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nsd.m3u8\n')).toEqual({
      uri: 'hd.m3u8',
      video: true,
    });
    expect(firstVariant('#EXTM3U\n#EXTINF:1,\na.ts\n')).toBeNull();
  });
});

describe('ffprobe output', () => {
  it('reads tags in any case, prefers the container duration, and does not call cover art video', () => {
    const facts = mediaFacts({
      format: { format_name: 'mp3', duration: '12.3456' },
      streams: [
        { codec_type: 'audio', tags: { ARTIST: 'Someone' } },
        { codec_type: 'video', disposition: { attached_pic: 1 } },
      ],
    });
    expect(facts).toEqual({ durationSeconds: 12.346, formatName: 'mp3', hasAudio: true, hasVideo: false, title: null, artist: 'Someone' });
    expect(mediaFacts({ format: { duration: 'N/A' }, streams: [{ codec_type: 'audio', duration: '3.5' }] }).durationSeconds).toBe(3.5);
    expect(mediaFacts({}).durationSeconds).toBeNull();
  });
});

describe("yt-dlp's errors", () => {
  it.each([
    ['ERROR: [youtube] abc: Private video. Sign in if you have been granted access', 'media_unavailable'],
    ['ERROR: [youtube] abc: Sign in to confirm your age', 'media_unavailable'],
    ['ERROR: [youtube] abc: The uploader has not made this video available in your country', 'media_unavailable'],
    ['ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found', 'media_not_found'],
    ['ERROR: [youtube] abc: Video unavailable', 'media_not_found'],
    ['ERROR: Unsupported URL: https://example.com/', 'unsupported_media'],
    ['ERROR: [generic] Unable to download webpage: HTTP Error 403: Forbidden', 'media_unavailable'],
    ['ERROR: unable to download video data: <urlopen error timed out>', 'upstream_error'],
  ])('%s → %s', (stderr, code) => {
    const error = ytdlpError(`WARNING: something\n${stderr}\n`);
    expect(error.code).toBe(code);
    expect(error.param).toBe('url');
  });
});
