import { describe, expect, it } from 'vitest';
import { ResumableSessions } from './resumable-sessions.js';

const WINDOW = 60_000;
const registry = (maxParked = 100) => new ResumableSessions<string>({ windowMs: WINDOW, maxParked });

describe('ResumableSessions', () => {
  it('finds a session by its token for the key that opened it, attached or parked', () => {
    const sessions = registry();
    const a = sessions.register('key_a', 'session-a');
    const b = sessions.register('key_a', 'session-b');
    expect(a.token).toMatch(/^wsr_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(sessions.find(a.token, 'key_a', 0)).toMatchObject({ ok: true, value: 'session-a', parkedAt: null });
    sessions.park(a.handle, 1_000);
    expect(sessions.find(a.token, 'key_a', 30_000)).toMatchObject({ ok: true, value: 'session-a', parkedAt: 1_000 });
    expect(sessions.find(b.token, 'key_a', 30_000)).toMatchObject({ ok: true, value: 'session-b', parkedAt: null });
    expect(sessions.parkedCount).toBe(1);
  });

  it("refuses another key's token, and unknown or malformed tokens", () => {
    const sessions = registry();
    const a = sessions.register('key_a', 'session-a');
    sessions.park(a.handle, 0);
    expect(sessions.find(a.token, 'key_b', 1)).toEqual({ ok: false, reason: 'wrong_key' });
    expect(sessions.find(`wsr_${'A'.repeat(43)}`, 'key_a', 1)).toEqual({ ok: false, reason: 'unknown' });
    expect(sessions.find('not-a-token', 'key_a', 1)).toEqual({ ok: false, reason: 'unknown' });
    // The other key's attempt changed nothing: the owner still resumes.
    expect(sessions.find(a.token, 'key_a', 2)).toMatchObject({ ok: true });
  });

  it('keeps only a hash of the token', () => {
    const sessions = registry();
    const a = sessions.register('key_a', 'session-a');
    expect(a.handle.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(a.handle)).not.toContain(a.token.slice(4));
  });

  it('expires parked sessions at the end of their window, in the order they were parked', () => {
    const sessions = registry();
    const a = sessions.register('key', 'a');
    const b = sessions.register('key', 'b');
    const c = sessions.register('key', 'c');
    sessions.park(a.handle, 0);
    sessions.park(b.handle, 10_000);
    expect(sessions.expire(WINDOW - 1)).toEqual([]);
    expect(sessions.find(a.token, 'key', WINDOW - 1)).toMatchObject({ ok: true });
    // At the window's end the token no longer resumes, even before the sweep runs.
    expect(sessions.find(a.token, 'key', WINDOW)).toEqual({ ok: false, reason: 'unknown' });
    expect(sessions.expire(WINDOW)).toEqual(['a']);
    expect(sessions.expire(WINDOW + 9_999)).toEqual([]);
    expect(sessions.expire(WINDOW + 10_000)).toEqual(['b']);
    // An attached session never expires.
    expect(sessions.expire(10 * WINDOW)).toEqual([]);
    expect(sessions.find(c.token, 'key', 10 * WINDOW)).toMatchObject({ ok: true, value: 'c' });
    expect(sessions.find(b.token, 'key', 0)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('a resumed session gets a fresh window when it is parked again', () => {
    const sessions = registry();
    const a = sessions.register('key', 'a');
    sessions.park(a.handle, 0);
    sessions.attach(a.handle);
    expect(sessions.parkedCount).toBe(0);
    expect(sessions.expire(2 * WINDOW)).toEqual([]);
    sessions.park(a.handle, 2 * WINDOW);
    expect(sessions.expire(3 * WINDOW - 1)).toEqual([]);
    expect(sessions.expire(3 * WINDOW)).toEqual(['a']);
  });

  it('a removed session resumes nothing', () => {
    const sessions = registry();
    const a = sessions.register('key', 'a');
    sessions.park(a.handle, 0);
    sessions.remove(a.handle);
    expect(sessions.find(a.token, 'key', 1)).toEqual({ ok: false, reason: 'unknown' });
    expect(sessions.expire(WINDOW)).toEqual([]);
    expect(sessions.size).toBe(0);
  });

  it('holds at most maxParked parked sessions: the one parked longest is pushed out', () => {
    const sessions = registry(2);
    const handles = ['a', 'b', 'c'].map((v) => sessions.register('key', v));
    expect(sessions.park(handles[0]!.handle, 0)).toEqual([]);
    expect(sessions.park(handles[1]!.handle, 1)).toEqual([]);
    expect(sessions.park(handles[2]!.handle, 2)).toEqual(['a']);
    expect(sessions.parkedCount).toBe(2);
    expect(sessions.find(handles[0]!.token, 'key', 3)).toEqual({ ok: false, reason: 'unknown' });
    expect(sessions.drainParked()).toEqual(['b', 'c']);
    expect(sessions.size).toBe(0);
  });

  it('a window of 0 disables resuming', () => {
    const sessions = new ResumableSessions<string>({ windowMs: 0, maxParked: 10 });
    expect(sessions.enabled).toBe(false);
    const a = sessions.register('key', 'a');
    expect(sessions.find(a.token, 'key', 0)).toEqual({ ok: false, reason: 'unknown' });
  });
});
