"""Synthetic non-speech for acoustic-model training (issue 33), written here in numpy (not the
robustness benchmark's TypeScript generators, so the benchmark's clips are neither copied nor
rendered by the same code): the kinds it measures, each with its own randomised parameters.

  noise: white (Gaussian), pink (1/f power by FFT shaping), brown (leaky integrator, leak drawn);
  hum: 50 or 60 Hz mains with drawn harmonic amplitudes (odd ones stronger), a slow amplitude
    wander and a small frequency drift;
  tone: call-progress tones (North American dial/ringback/busy/reorder, ETSI 425 Hz dial/ringback/
    busy/congestion, UK ringback and busy, Japanese 400 Hz ringback) from a random point of their
    cadence, and DTMF digits of drawn length, gap and twist;
  music: chords (organ-like), arpeggios (plucked), a melody (vibrato), drums (kick sweep, noise
    snare, hi-hat), or a mix of two to four of them, in a drawn key and tempo;
  impulse: clicks (1-3 sample spikes), pops (decaying low thumps), keyboard typing (resonant
    noise bursts in typing rhythm);
plus, for a third of the clips, a second family underneath, and for tones and impulses a line-noise
floor. Levels: RMS in dBFS (noise, hum, music; tones while sounding), peak for impulses.
"""
import numpy as np
from scipy.signal import lfilter

RATE = 16000
FAMILIES = ("noise", "hum", "tone", "music", "impulse")

# (frequencies, cadence [(on seconds, off seconds), ...]); cadence None: continuous
CALL_TONES = {
    "dial-na": ((350, 440), None),
    "ringback-na": ((440, 480), [(2.0, 4.0)]),
    "busy-na": ((480, 620), [(0.5, 0.5)]),
    "reorder-na": ((480, 620), [(0.25, 0.25)]),
    "dial-etsi": ((425,), None),
    "ringback-etsi": ((425,), [(1.0, 4.0)]),
    "busy-etsi": ((425,), [(0.5, 0.5)]),
    "congestion-etsi": ((425,), [(0.2, 0.3), (0.2, 0.3), (0.2, 0.9)]),
    "ringback-uk": ((400, 450), [(0.4, 0.2), (0.4, 2.0)]),
    "busy-uk": ((400,), [(0.375, 0.375)]),
    "ringback-jp": ((400,), [(1.0, 2.0)]),
}
DTMF_LOW = (697, 770, 852, 941)
DTMF_HIGH = (1209, 1336, 1477, 1633)


def rms_db(x):
    return 20 * np.log10(np.sqrt(np.mean(x.astype(np.float64) ** 2)) + 1e-12)


def at_rms(x, dbfs, sounding_only=False):
    v = x[np.abs(x) > 0] if sounding_only else x
    if v.size == 0:
        return x
    return (x * (10 ** (dbfs / 20) / (np.sqrt(np.mean(v.astype(np.float64) ** 2)) + 1e-12))).astype(np.float32)


def at_peak(x, dbfs):
    p = np.max(np.abs(x))
    return x if p == 0 else (x * (10 ** (dbfs / 20) / p)).astype(np.float32)


# ---------------------------------------------------------------- noise

def white(n, rng):
    return rng.standard_normal(n).astype(np.float32)


def pink(n, rng):
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1] if n > 1 else 1
    return np.fft.irfft(spec / np.sqrt(f), n).astype(np.float32)


def brown(n, rng):
    """Leaky integration of white noise (y[i] = leak * y[i-1] + w[i]), leak drawn in 0.99..0.999."""
    y = lfilter([1.0], [1.0, -rng.uniform(0.99, 0.999)], rng.standard_normal(n))
    return (y - y.mean()).astype(np.float32)


# ---------------------------------------------------------------- hum, tones

def hum(n, rng, mains):
    t = np.arange(n) / RATE
    drift = mains * (1 + rng.uniform(-0.002, 0.002))
    out = np.zeros(n)
    for k in range(1, 10):
        a = rng.uniform(0.3, 1.0) if k == 1 else rng.uniform(0, 0.6 if k % 2 else 0.25) / k ** 0.5
        out += a * np.sin(2 * np.pi * drift * k * t + rng.uniform(0, 2 * np.pi))
    out *= 1 + rng.uniform(0.02, 0.15) * np.sin(2 * np.pi * rng.uniform(0.1, 0.8) * t + rng.uniform(0, 2 * np.pi))
    return out.astype(np.float32)


def _ramped(gate):
    """A 0/1 gate with 4 ms linear ramps at its edges."""
    k = int(0.004 * RATE)
    return np.convolve(gate.astype(np.float64), np.ones(k) / k, mode="same")


def call_tone(n, rng, name):
    freqs, cadence = CALL_TONES[name]
    t = np.arange(n) / RATE
    v = sum(np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)) for f in freqs)
    if cadence is None:
        return v.astype(np.float32)
    period = sum(a + b for a, b in cadence)
    phase = (t + rng.uniform(0, period)) % period
    gate = np.zeros(n, dtype=bool)
    start = 0.0
    for on, off in cadence:
        gate |= (phase >= start) & (phase < start + on)
        start += on + off
    return (v * _ramped(gate)).astype(np.float32)


def dtmf(n, rng):
    out = np.zeros(n)
    at = int(rng.uniform(0.05, 0.6) * RATE)
    while at < n:
        dur = int(rng.uniform(0.05, 0.16) * RATE)
        lo, hi = DTMF_LOW[rng.integers(0, 4)], DTMF_HIGH[rng.integers(0, 3 if rng.random() < 0.9 else 4)]
        twist = 10 ** (rng.uniform(-3, 3) / 20)
        t = np.arange(min(dur, n - at)) / RATE
        burst = np.sin(2 * np.pi * lo * t) + twist * np.sin(2 * np.pi * hi * t)
        gate = _ramped(np.ones(len(t), dtype=bool)) if len(t) > 200 else np.ones(len(t))
        out[at:at + len(t)] += burst * gate
        at += dur + int(rng.uniform(0.05, 0.2) * RATE) + (int(rng.uniform(0.5, 2) * RATE) if rng.random() < 0.12 else 0)
    return out.astype(np.float32)


# ---------------------------------------------------------------- music

def _note(n_len, f, harmonics, rng, attack=0.02, release=0.08, decay=0.0, vibrato=0.0):
    t = np.arange(n_len) / RATE
    phase = 2 * np.pi * f * (t + (vibrato / (2 * np.pi * 5)) * (1 - np.cos(2 * np.pi * 5 * t))) if vibrato else 2 * np.pi * f * t
    v = np.zeros(n_len)
    for k, a in enumerate(harmonics, 1):
        if k * f < 7500:
            v += a * np.sin(k * phase) * (np.exp(-t * decay * k) if decay else 1)
    env = np.minimum(1, t / attack) * np.minimum(1, (n_len - np.arange(n_len)) / (release * RATE))
    return v * env


def _add(out, at, x):
    if at >= len(out):
        return
    m = min(len(x), len(out) - at)
    out[at:at + m] += x[:m]


def music(n, rng, kind):
    hz = lambda midi: 440 * 2 ** ((midi - 69) / 12)  # noqa: E731
    scale = [[0, 2, 4, 5, 7, 9, 11], [0, 2, 3, 5, 7, 8, 10], [0, 2, 4, 7, 9], [0, 3, 5, 7, 10]][rng.integers(0, 4)]
    root = int(rng.integers(45, 58))
    beat = 60 / rng.uniform(70, 150)
    out = np.zeros(n)
    if kind in ("chords", "mix"):
        organ = [1, 0.5, 0.3, 0.2][:int(rng.integers(2, 5))]
        span = int(rng.uniform(2, 4) * beat * RATE)
        for at in range(0, n, span):
            deg = int(rng.integers(0, len(scale)))
            notes = [root + scale[(deg + j) % len(scale)] + 12 * ((deg + j) // len(scale)) for j in (0, 2, 4)]
            for m in notes:
                _add(out, at, 0.4 * _note(span, hz(m), organ, rng, attack=0.03, release=0.1))
    if kind in ("arpeggio", "mix") and (kind == "arpeggio" or rng.random() < 0.6):
        step = int(beat / rng.choice([2, 4]) * RATE)
        notes = [root + 12 + scale[j % len(scale)] + 12 * (j // len(scale)) for j in (0, 2, 4, 7)]
        seq = notes + notes[-2:0:-1]
        for i, at in enumerate(range(0, n, step)):
            _add(out, at, 0.5 * _note(int(0.4 * RATE), hz(seq[i % len(seq)]), [1, 0.6, 0.4, 0.25, 0.15], rng, attack=0.003, release=0.05, decay=4))
    if kind in ("melody", "mix") and (kind == "melody" or rng.random() < 0.7):
        at = 0
        m = root + 12 + scale[int(rng.integers(0, len(scale)))]
        while at < n:
            ln = int(rng.uniform(0.15, 0.8) * RATE)
            if rng.random() < 0.85:
                m = int(np.clip(m + rng.choice([-2, -1, 1, 2, 3, -3]), root + 5, root + 28))
                _add(out, at, 0.6 * _note(ln, hz(m), [1 / k ** 1.2 for k in range(1, 9)], rng, attack=0.02, release=0.06, vibrato=0.005))
            at += ln
    if kind in ("drums", "mix") and (kind == "drums" or rng.random() < 0.7):
        step = int(beat / 2 * RATE)
        pattern = [["k", "h", "s", "h"], ["k", "h", "k", "h"], ["k", "h", "h", "h", "s", "h", "h", "h"]][rng.integers(0, 3)]
        for i, at in enumerate(range(0, n, step)):
            hit = pattern[i % len(pattern)]
            if hit == "k":
                t = np.arange(int(0.3 * RATE)) / RATE
                f = 50 + 100 * np.exp(-t * 30)
                x = np.sin(2 * np.pi * np.cumsum(f) / RATE) * np.exp(-t * 10)
            elif hit == "s":
                t = np.arange(int(0.2 * RATE)) / RATE
                x = (0.7 * rng.standard_normal(len(t)) + 0.4 * np.sin(2 * np.pi * 190 * t)) * np.exp(-t * 18)
            else:
                t = np.arange(int(0.05 * RATE)) / RATE
                x = 0.3 * np.diff(rng.standard_normal(len(t) + 1)) * np.exp(-t * 70)
            _add(out, at, x)
    return out.astype(np.float32)


# ---------------------------------------------------------------- impulses

def clicks(n, rng):
    out = np.zeros(n)
    at = int(rng.uniform(0.05, 0.8) * RATE)
    while at < n:
        width = int(rng.integers(1, 4))
        sign = rng.choice([-1, 1])
        amp = rng.uniform(0.2, 1)
        for k in range(width):
            if at + k < n:
                out[at + k] = sign * amp * (1 if k == 0 else -0.6 / k)
        at += int(rng.uniform(0.1, 1.8) * RATE)
    return out.astype(np.float32)


def pops(n, rng):
    out = np.zeros(n)
    at = int(rng.uniform(0.05, 1) * RATE)
    while at < n:
        t = np.arange(int(rng.uniform(0.015, 0.07) * RATE)) / RATE
        decay = rng.uniform(35, 130)
        x = np.sin(np.minimum(np.pi, 2 * np.pi * rng.uniform(40, 160) * t)) * np.exp(-t * decay) + 0.3 * np.exp(-t * decay / 2)
        _add(out, at, rng.uniform(0.3, 1) * rng.choice([-1, 1]) * x)
        at += int(rng.uniform(0.3, 3) * RATE)
    return out.astype(np.float32)


def _key(f, length, rng):
    """A decaying noise burst through a two-pole resonator at f Hz (r = 0.97)."""
    r = 0.97
    exc = np.zeros(length * 3)
    exc[:length] = rng.standard_normal(length) * np.exp(-np.arange(length) / (length / 3))
    return 0.1 * lfilter([1.0], [1.0, -2 * r * np.cos(2 * np.pi * f / RATE), r * r], exc)


def keyboard(n, rng):
    out = np.zeros(n)
    at = int(rng.uniform(0.05, 0.6) * RATE)
    while at < n:
        end = at + int(rng.uniform(0.8, 4) * RATE)
        while at < min(end, n):
            space = rng.random() < 0.15
            f = rng.uniform(500, 1100) if space else rng.uniform(1400, 5000)
            amp = rng.uniform(0.7, 1) if space else rng.uniform(0.3, 0.8)
            _add(out, at, amp * _key(f, int(rng.uniform(0.003, 0.01) * RATE), rng))
            _add(out, at + int(rng.uniform(0.04, 0.12) * RATE), 0.4 * amp * _key(f * 1.1, int(0.004 * RATE), rng))
            at += int(rng.uniform(0.08, 0.3) * RATE)
        at += int(rng.uniform(0.3, 2.5) * RATE)
    return out.astype(np.float32)


# ---------------------------------------------------------------- clips

def render(family, n, rng):
    """(kind, level in dBFS, samples) of one family, level drawn."""
    if family == "noise":
        kind = ["white", "pink", "brown"][rng.integers(0, 3)]
        level = rng.uniform(-70, -20)
        return kind, level, at_rms({"white": white, "pink": pink, "brown": brown}[kind](n, rng), level)
    if family == "hum":
        mains = 50 if rng.random() < 0.5 else 60
        level = rng.uniform(-65, -25)
        return f"hum-{mains}", level, at_rms(hum(n, rng, mains), level)
    if family == "tone":
        level = rng.uniform(-35, -12)
        if rng.random() < 0.35:
            return "dtmf", level, at_rms(dtmf(n, rng), level, sounding_only=True)
        name = list(CALL_TONES)[rng.integers(0, len(CALL_TONES))]
        return name, level, at_rms(call_tone(n, rng, name), level, sounding_only=True)
    if family == "music":
        kind = ["chords", "arpeggio", "melody", "drums", "mix"][rng.integers(0, 5)]
        level = rng.uniform(-40, -15)
        return f"music-{kind}", level, at_rms(music(n, rng, kind), level)
    kind = ["clicks", "pops", "keyboard"][rng.integers(0, 3)]
    level = rng.uniform(-35, -1)
    return kind, level, at_peak({"clicks": clicks, "pops": pops, "keyboard": keyboard}[kind](n, rng), level)


def clip(index, seed):
    """Clip `index` of a set with `seed`: (kind description, seconds, samples float32 in [-1, 1])."""
    rng = np.random.default_rng([seed, index])
    family = FAMILIES[index % len(FAMILIES)]
    seconds = round(float(rng.uniform(1.5, 12)), 2)
    n = int(seconds * RATE)
    kind, level, x = render(family, n, rng)
    x = x.astype(np.float64)
    desc = f"{kind}@{level:.0f}"
    if rng.random() < 0.33:  # a second, different family underneath, 0..20 dB lower
        other = [f for f in FAMILIES if f != family][rng.integers(0, len(FAMILIES) - 1)]
        k2, _, y = render(other, n, rng)
        x += y * 10 ** (-rng.uniform(0, 20) / 20)
        desc += f"+{k2}"
    if family in ("tone", "impulse") and rng.random() < 0.7:  # line-noise floor
        x += at_rms(white(n, rng), rng.uniform(-85, -65))
    return desc, seconds, np.clip(x, -1, 1).astype(np.float32)
