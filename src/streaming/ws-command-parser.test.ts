import { describe, expect, it } from 'vitest';
import { parseCommand } from './ws-command-parser.js';
import { RateWindow } from './ws-limits.js';

describe('parseCommand', () => {
  it('reads the five commands, case-insensitively and trimmed', () => {
    expect(parseCommand('TRANSCRIBE')).toEqual({ kind: 'transcribe' });
    expect(parseCommand(' end\n')).toEqual({ kind: 'end' });
    expect(parseCommand('Clear')).toEqual({ kind: 'clear' });
    expect(parseCommand('PING')).toEqual({ kind: 'ping' });
    expect(parseCommand('FORMAT:pcm_s16le_48k')).toEqual({ kind: 'format', format: 'pcm_s16le_48k' });
    expect(parseCommand('format: WEBM_OPUS')).toEqual({ kind: 'format', format: 'webm_opus' });
  });

  it('names what is wrong with anything else', () => {
    expect(parseCommand('FORMAT:mp3')).toMatchObject({ kind: 'invalid', code: 'invalid_field_value' });
    expect(parseCommand('{"type":"end"}')).toMatchObject({ kind: 'invalid', code: 'invalid_command' });
    expect(parseCommand('')).toMatchObject({ kind: 'invalid', code: 'invalid_command' });
  });
});

describe('RateWindow', () => {
  it('allows the limit per one-second window and reports the breached limit', () => {
    const window = new RateWindow(3, 100);
    expect(window.admit(10, 0)).toBeNull();
    expect(window.admit(10, 100)).toBeNull();
    expect(window.admit(10, 200)).toBeNull();
    expect(window.admit(0, 300)).toBe('message_rate_exceeded');
    expect(window.admit(60, 1000)).toBeNull();
    expect(window.admit(60, 1100)).toBe('audio_rate_exceeded');
  });
});
