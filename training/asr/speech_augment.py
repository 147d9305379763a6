"""Augmentation of speech for prepare_data.py (and the held-out telephone sets of
telephone_heldout.py): band-limited resampling, the channel of synthetic speech (silence,
reverberation, telephone band, noise, level, Opus round trip), and the perturbed copies of real
speech (speed, vocal tract length and tempo perturbation, G.711 phone lines)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import FEATURES, LogMel, SAMPLE_RATE, mel_filterbank  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# ffmpeg: FFMPEG_PATH, one on PATH, or the one the gateway ships (@ffmpeg-installer/ffmpeg)
FFMPEG = (os.environ.get("FFMPEG_PATH") or shutil.which("ffmpeg")
          or os.path.join(HERE, "..", "..", "node_modules", "@ffmpeg-installer", "linux-x64", "ffmpeg"))


def resample(x, sr_in, sr_out):
    """Band-limited resampling through the FFT (a brick-wall low-pass at the lower Nyquist)."""
    if sr_in == sr_out or len(x) == 0:
        return x
    n_out = int(round(len(x) * sr_out / sr_in))
    spec = np.fft.rfft(x.astype(np.float64))
    bins = n_out // 2 + 1
    if bins <= len(spec):
        spec = spec[:bins]
    else:
        spec = np.concatenate([spec, np.zeros(bins - len(spec), dtype=spec.dtype)])
    return (np.fft.irfft(spec, n=n_out) * (n_out / len(x))).astype(np.float32)


def colored_noise(n, rng, kind):
    white = rng.standard_normal(n)
    if kind == "white":
        return white
    spec = np.fft.rfft(white)
    f = np.arange(len(spec)) + 1.0
    spec /= np.sqrt(f) if kind == "pink" else f
    out = np.fft.irfft(spec, n=n)
    return out / (np.std(out) + 1e-9)


def fft_convolve(x, h):
    n = len(x) + len(h) - 1
    size = 1 << (n - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[:len(x)]


def augment(x, rng, telephone_p=0.15, opus_p=0.06, snr=(5, 30)):
    x = x.astype(np.float64)
    # leading / trailing silence
    x = np.concatenate([np.zeros(int(rng.uniform(0, 0.3) * SAMPLE_RATE)), x, np.zeros(int(rng.uniform(0, 0.3) * SAMPLE_RATE))])
    if rng.random() < 0.3:  # reverberation: exponentially decaying noise tail, RT60 0.15..0.6 s
        rt60 = rng.uniform(0.15, 0.6)
        t = np.arange(int(rt60 * SAMPLE_RATE)) / SAMPLE_RATE
        h = rng.standard_normal(len(t)) * np.exp(-6.9 * t / rt60)
        h[0] = 1.0 / rng.uniform(0.2, 0.6)
        y = fft_convolve(x, h)
        x = y * (np.max(np.abs(x)) / (np.max(np.abs(y)) + 1e-9))
    if rng.random() < telephone_p:  # 8 kHz telephone band: 300..3400 Hz, then 8 kHz sampling
        spec = np.fft.rfft(x)
        f = np.fft.rfftfreq(len(x), 1 / SAMPLE_RATE)
        spec[(f < 300) | (f > 3400)] = 0
        x = np.fft.irfft(spec, n=len(x))
        x = resample(resample(x.astype(np.float32), SAMPLE_RATE, 8000), 8000, SAMPLE_RATE).astype(np.float64)
    if rng.random() < 0.5:  # additive noise
        snr = rng.uniform(*snr)
        noise = colored_noise(len(x), rng, rng.choice(["white", "pink", "brown"]))
        power = np.mean(x ** 2) + 1e-12
        x = x + noise * np.sqrt(power / 10 ** (snr / 10))
    x = x / (np.max(np.abs(x)) + 1e-9) * rng.uniform(0.1, 0.95)
    x = x.astype(np.float32)
    if rng.random() < opus_p:  # low-bitrate Opus round trip
        x = opus_round_trip(x, int(rng.choice([6, 8, 12, 16])))
    return x


def opus_round_trip(x, kbps):
    pcm = (np.clip(x, -1, 1) * 32767).astype(np.int16).tobytes()
    enc = subprocess.run([FFMPEG, "-v", "error", "-f", "s16le", "-ar", "16000", "-ac", "1", "-i", "pipe:0",
                          "-c:a", "libopus", "-b:a", f"{kbps}k", "-f", "ogg", "pipe:1"], input=pcm, capture_output=True, check=True).stdout
    dec = subprocess.run([FFMPEG, "-v", "error", "-i", "pipe:0", "-f", "s16le", "-ar", "16000", "-ac", "1", "pipe:1"],
                         input=enc, capture_output=True, check=True).stdout
    y = np.frombuffer(dec, dtype=np.int16).astype(np.float32) / 32768.0
    return y if len(y) > 0 else x


# ---------------------------------------------------------------- perturbation of real speech

def vtlp_filterbank(alpha, p=FEATURES):
    """The mel filterbank read through a vocal-tract-length warp of the frequency axis (Jaitly &
    Hinton 2013): spectrum frequency f counts as f * alpha up to a boundary, then a straight line
    that maps Nyquist to Nyquist. [n_mels, bins] float64."""
    bins = p["n_fft"] // 2 + 1
    nyq = p["sample_rate"] / 2
    f = nyq * np.arange(bins, dtype=np.float64) / (bins - 1)
    f_hi = 4800.0
    cut = f_hi * min(alpha, 1.0) / alpha
    warped = np.where(f <= cut, f * alpha, nyq - (nyq - f_hi * min(alpha, 1.0)) / (nyq - cut) * (nyq - f))
    base = mel_filterbank(p)
    # the filter weight a bin gets is the unwarped filter's weight at the bin's warped frequency
    return np.stack([np.interp(warped, f, base[m]) for m in range(base.shape[0])])


def tempo_frames(feat, rate):
    """Tempo perturbation in the feature domain: resamples the frame sequence by linear
    interpolation (rate > 1 is faster speech, fewer frames); pitch and spectra are kept."""
    n = feat.shape[0]
    m = max(2, int(round(n / rate)))
    pos = np.linspace(0, n - 1, m)
    lo = np.floor(pos).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    w = (pos - lo)[:, None]
    return ((1 - w) * feat[lo] + w * feat[hi]).astype(np.float32)


def perturbed_features(pcm, rng):
    """Log-mel features of `pcm` through a random VTLP filterbank (alpha 0.9..1.1) and, half the
    time, a tempo change of the frames (0.9..1.1); `rng` (a numpy Generator) draws in that order."""
    ext = LogMel()
    ext.bank = torch.from_numpy(vtlp_filterbank(float(rng.uniform(0.9, 1.1))))
    feat = ext(pcm)
    if rng.random() < 0.5:
        feat = tempo_frames(feat, float(rng.uniform(0.9, 1.1)))
    return feat


def perturbed_copy(pcm, k, rng):
    """Copy k (>= 1) of a real utterance: speed (resampling: tempo and pitch), VTLP, tempo,
    channel (reverberation, noise, telephone band, Opus). Returns features [T, n_mels]."""
    speed = [0.9, 1.1, 1.0, 0.9, 1.1, 1.0][(k - 1) % 6]
    x = resample(pcm, SAMPLE_RATE, int(round(SAMPLE_RATE / speed))) if speed != 1.0 else pcm
    if rng.random() < 0.7:
        x = augment(x, rng, telephone_p=0.2, opus_p=0.2, snr=(8, 30))
    return perturbed_features(x, rng)


def g711_round_trip(x, law):
    """Float samples in [-1, 1) through a G.711 encode and decode (ITU-T G.711 as Sun's g711.c,
    the algorithm of bench/telephone-channel.ts): 16-bit linear in, 8-bit code, back to linear."""
    pcm = np.clip(np.round(np.asarray(x, dtype=np.float64) * 32768), -32768, 32767).astype(np.int64)
    if law == "mulaw":
        sign = pcm < 0
        mag = np.minimum(np.abs(pcm), 32635) + 0x84
        exponent = np.clip(np.floor(np.log2(mag)).astype(np.int64) - 7, 0, 7)
        mantissa = (mag >> (exponent + 3)) & 0x0F
        out = (((mantissa << 3) + 0x84) << exponent) - 0x84
        return (np.where(sign, -out, out) / 32768.0).astype(np.float32)
    v = pcm >> 3  # A-law: 13-bit
    neg = v < 0
    v = np.where(neg, -v - 1, v)
    ends = np.array([0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF])
    seg = np.searchsorted(ends, v)  # first segment whose end is >= v
    over = seg >= 8
    seg = np.minimum(seg, 7)
    mant = np.where(seg < 2, v >> 1, v >> seg) & 0x0F
    mant = np.where(over, 0x0F, mant)
    t = mant << 4
    t = np.where(seg == 0, t + 8, (t + 0x108) << np.maximum(seg - 1, 0))
    return (np.where(neg, -t, t) / 32768.0).astype(np.float32)


def telephone_band(x):
    """16 kHz samples as an 8 kHz phone line passes them: 300-3400 Hz, back at 16 kHz."""
    from scipy.signal import butter, firwin, sosfilt
    lp = firwin(161, 3700, window="blackman", fs=SAMPLE_RATE)
    narrow = np.convolve(np.asarray(x, dtype=np.float64), lp, mode="same")[::2]
    narrow = sosfilt(butter(4, 300, btype="high", fs=8000, output="sos"), narrow)
    return narrow


NOISY_KINDS = ("colored", "music", "babble", "other")  # noisy_copy's interference, drawn 35 / 25 / 20 / 20%


def interference(n, rng, babble_pool):
    """`n` samples of one drawn interference kind (NOISY_KINDS) and its name:
      colored (35%): white, pink or brown noise;
      music (25%): nonspeech.py's music (chords, arpeggio, melody, drums or a mix);
      babble (20%): 2-5 utterances of `babble_pool` (float32 arrays), each at unit power from a random
        point, looped to length, summed (the speech of others, which no benchmark condition has);
      other (20%): one of nonspeech.py's hum, tone or impulse families (a call tone whose cadence is off
        for the whole piece is silence: that copy stays clean, a few in a hundred)."""
    import nonspeech
    draw = rng.random()
    kind = "colored" if draw < 0.35 else "music" if draw < 0.6 else "babble" if draw < 0.8 else "other"
    if kind == "colored":
        return colored_noise(n, rng, rng.choice(["white", "pink", "brown"])), kind
    if kind == "music":
        return nonspeech.music(n, rng, ["chords", "arpeggio", "melody", "drums", "mix"][rng.integers(0, 5)]).astype(np.float64), kind
    if kind == "babble":
        noise = np.zeros(n)
        for _ in range(int(rng.integers(2, 6))):
            other = np.asarray(babble_pool[rng.integers(0, len(babble_pool))], dtype=np.float64)
            other = other - np.mean(other)
            other = other / (np.sqrt(np.mean(other ** 2)) + 1e-9)
            piece = np.roll(other, -int(rng.integers(0, max(1, len(other) - 1))))
            noise += np.tile(piece, n // len(piece) + 1)[:n]
        return noise, kind
    return nonspeech.render(["hum", "tone", "impulse"][rng.integers(0, 3)], n, rng)[2].astype(np.float64), kind


def at_snr(speech, noise, snr_db):
    """speech + noise scaled so that speech power over noise power (whole signals) is `snr_db`."""
    return speech + noise * np.sqrt((np.mean(speech ** 2) + 1e-12) / ((np.mean(noise ** 2) + 1e-12) * 10 ** (snr_db / 10)))


def noisy_copy(pcm, rng, babble_pool, snr=(0, 15)):
    """A copy of a real utterance under LOUD interference (candidate 16, issue 33: the noisy copies of
    small-am-v2's recipe stop at 8 dB, and a model fine-tuned since read 5 dB SNR worse): `interference`
    at an SNR drawn from `snr`, a peak level drawn from -30..-1 dBFS in 16 bits, then VTLP and tempo as
    the other copies. Returns (features [T, n_mels], kind)."""
    x = np.asarray(pcm, dtype=np.float64) - np.mean(pcm)
    noise, kind = interference(len(x), rng, babble_pool)
    x = at_snr(x, noise, float(rng.uniform(*snr)))
    x = x / (np.max(np.abs(x)) + 1e-9) * 10 ** (rng.uniform(-30, -1) / 20)
    x = np.round(x * 32767) / 32767
    return perturbed_features(np.clip(x, -1, 1).astype(np.float32), rng), kind


def telephone_copy(pcm, rng):
    """A copy of a real utterance over a phone line (75%: G.711 mu-law or A-law at 8 kHz) or
    wideband (25%), at a drawn level (-40..-1 dBFS peak) in 16 bits; VTLP and tempo as the other
    copies. Returns (features [T, n_mels], channel name)."""
    from scipy.signal import resample_poly
    x = np.asarray(pcm, dtype=np.float64) - np.mean(pcm)  # ALFFA's DC offset is no part of the call
    if rng.random() < 1 / 3:
        snr = rng.uniform(10, 30)
        noise = colored_noise(len(x), rng, rng.choice(["white", "pink", "brown"]))
        x = x + noise * np.sqrt((np.mean(x ** 2) + 1e-12) / 10 ** (snr / 10))
    level = 10 ** (rng.uniform(-40, -1) / 20)
    channel = "wideband"
    if rng.random() < 0.75:
        channel = "mulaw" if rng.random() < 0.5 else "alaw"
        narrow = telephone_band(x)
        narrow = narrow / (np.max(np.abs(narrow)) + 1e-9) * level
        x = resample_poly(g711_round_trip(narrow, channel).astype(np.float64), 2, 1)
    else:
        x = x / (np.max(np.abs(x)) + 1e-9) * level
        x = np.round(x * 32767) / 32767
    return perturbed_features(np.clip(x, -1, 1).astype(np.float32), rng), channel
