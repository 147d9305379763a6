"""Shared pieces of the training pipeline: log-mel features (the exact definition the gateway
uses, src/engines/signal/features/log-mel-features.ts and docs/model-format.md), text normalisation per
language, the homophone merge used for scoring, and CER.

The features here must equal the gateway's: test_features.py checks them against
test/fixtures/features/log-mel-reference.json, which the TypeScript extractor is tested against.
"""
import math
import re
import unicodedata

import numpy as np
import torch

SAMPLE_RATE = 16000
# The feature settings every model trains on; export.py writes them into manifest.json.
FEATURES = {
    "kind": "log_mel",
    "sample_rate": SAMPLE_RATE,
    "n_fft": 400,
    "win_length": 400,
    "hop_length": 160,
    "n_mels": 80,
    "f_min": 0,
    "f_max": 8000,
    "window": "hann",
    "mel_scale": "htk",
    "mel_norm": "none",
    "center": True,
    "power": 2,
    "log_floor": 1e-6,
    "normalize": "per_utterance",
}


def _hz_to_mel(f, scale):
    if scale == "htk":
        return 2595.0 * math.log10(1.0 + f / 700.0)
    f_sp = 200.0 / 3
    if f < 1000:
        return f / f_sp
    return 1000 / f_sp + math.log(f / 1000) / (math.log(6.4) / 27.0)


def _mel_to_hz(m, scale):
    if scale == "htk":
        return 700.0 * (10 ** (m / 2595.0) - 1)
    f_sp = 200.0 / 3
    min_log_mel = 1000 / f_sp
    if m < min_log_mel:
        return m * f_sp
    return 1000 * math.exp((math.log(6.4) / 27.0) * (m - min_log_mel))


def mel_filterbank(p):
    """[n_mels, bins] float64, as melFilterbank() in src/engines/signal/features/log-mel-features.ts."""
    bins = p["n_fft"] // 2 + 1
    nyquist = p["sample_rate"] // 2
    lo = _hz_to_mel(p["f_min"], p["mel_scale"])
    hi = _hz_to_mel(p["f_max"], p["mel_scale"])
    n = p["n_mels"]
    edges = [_mel_to_hz(lo + (hi - lo) * i / (n + 1), p["mel_scale"]) for i in range(n + 2)]
    f = nyquist * np.arange(bins, dtype=np.float64) / (bins - 1)
    bank = np.zeros((n, bins), dtype=np.float64)
    for m in range(n):
        lower, centre, upper = edges[m], edges[m + 1], edges[m + 2]
        down = (f - lower) / (centre - lower)
        up = (upper - f) / (upper - centre)
        scale = 2.0 / (upper - lower) if p.get("mel_norm", "none") == "slaney" else 1.0
        bank[m] = np.maximum(0.0, np.minimum(down, up)) * scale
    return bank


def use_raw_features():
    """Makes every LogMel built on FEATURES (the default) skip the normalisation: work sets stored raw
    (prepare_data.py / prepare_nonspeech.py --raw-features; train.py normalises them at batch time, per
    utterance or running). FEATURES is shared, so this is for a data-preparation process only, called
    before any extraction (export.py writes FEATURES into manifests)."""
    FEATURES["normalize"] = "none"


class LogMel:
    """Log-mel features of 16 kHz mono float audio: returns [frames, n_mels] float32."""

    def __init__(self, p=FEATURES):
        self.p = p
        n_fft, win = p["n_fft"], p.get("win_length", p["n_fft"])
        w = torch.hann_window(win, periodic=True, dtype=torch.float64)
        left = (n_fft - win) // 2
        self.window = torch.nn.functional.pad(w, (left, n_fft - win - left))
        self.bank = torch.from_numpy(mel_filterbank(p))

    def __call__(self, pcm):
        p = self.p
        x = torch.as_tensor(np.asarray(pcm, dtype=np.float32)).to(torch.float64)
        if p.get("center", True):
            pad = p["n_fft"] // 2
            if x.numel() <= pad:  # reflect needs more samples than the pad; tile like numpy reflect
                idx = np.arange(-pad, x.numel() + pad)
                period = max(2 * (x.numel() - 1), 1)
                j = np.mod(idx, period)
                j = np.where(j < x.numel(), j, period - j)
                x = x[torch.from_numpy(j)]
            else:
                x = torch.nn.functional.pad(x[None, None], (pad, pad), mode="reflect")[0, 0]
        frames = x.unfold(0, p["n_fft"], p["hop_length"])  # [T, n_fft]
        spec = torch.fft.rfft(frames * self.window, dim=-1).abs() ** 2
        if p.get("power", 2) == 1:
            spec = spec.sqrt()
        mel = spec @ self.bank.T
        out = torch.log(torch.clamp(mel, min=p["log_floor"]))
        if p.get("normalize", "none") == "per_utterance":
            mean = out.mean(dim=0, keepdim=True)
            std = out.std(dim=0, keepdim=True, unbiased=True) if out.shape[0] > 1 else torch.zeros_like(mean)
            out = (out - mean) / (std + 1e-5)
        return out.to(torch.float32).numpy()


# ---------------------------------------------------------------- text

ETHIOPIC_LETTER = re.compile(r"^[\u1200-\u135A\u1380-\u138F\u2D80-\u2DDF\uAB00-\uAB2F]+$")
LATIN_WORD = re.compile(r"^[A-Za-z']+$")


def homophone_merge(text):
    """ALFFA's letter merge: ሐ/ኀ→ሀ, ሠ→ሰ, ዐ→አ, ፀ→ጸ (same vowel order)."""
    out = []
    for ch in text:
        c = ord(ch)
        if 0x1210 <= c <= 0x1217:
            c = 0x1200 + (c - 0x1210)
        elif 0x1280 <= c <= 0x1286:
            c = 0x1200 + (c - 0x1280)
        elif 0x1220 <= c <= 0x1227:
            c = 0x1230 + (c - 0x1220)
        elif 0x12D0 <= c <= 0x12D6:
            c = 0x12A0 + (c - 0x12D0)
        elif 0x1340 <= c <= 0x1346:
            c = 0x1338 + (c - 0x1340)
        out.append(chr(c))
    return "".join(out)


SENTENCE_END = "።"
COMMA = "፣"


def normalize_ethiopic(text, keep_punct):
    """Words of Ethiopic letters only. Words with digits, Ge'ez numerals or Latin letters are
    dropped (the models emit no numerals; espeak would read them in a way no target spells).
    With keep_punct: ። ፧ ? ! end a sentence (written ።), ፣ ፤ ፥ , are written ፣."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("፡", " ").replace("\u2019", "'")
    if keep_punct:
        text = re.sub(r"[።፧?!፨]+", " ። ", text)
        text = re.sub(r"[፣፤፥,;፦]+", " ፣ ", text)
    else:
        text = re.sub(r"[።፧?!፨፣፤፥,;፦]+", " ", text)
    words = []
    for w in re.split(r"[\s\-/]+", text):
        if keep_punct and w in (SENTENCE_END, COMMA):
            if words and words[-1] not in (SENTENCE_END, COMMA):
                words.append(w)
            continue
        w = re.sub(r"[\"'“”‘’«»()\[\]{}<>.:…*#@_%&+=|~^]", "", w)
        if w:
            words.append(w if ETHIOPIC_LETTER.match(w) else None)
    return words


def normalize_oromo(text):
    """Latin words in their true case, hudhaa as ', no punctuation. Words with digits or other
    scripts are dropped. Returns a list of words (None marks a dropped word)."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"[\u2018\u2019\u02BC\u02BB`´]", "'", text)
    text = re.sub(r"https?://\S+|@\w+|#\w+", " ", text)
    words = []
    for w in re.split(r"[\s\-/.,;:!?\"“”«»()\[\]{}…]+", text):
        w = w.strip("'")
        if w:
            words.append(w if LATIN_WORD.match(w) else None)
    return words


def words_to_target(words, language):
    """Joins normalised words into a target string (space between words; punctuation attached)."""
    out = ""
    for w in words:
        if w in (SENTENCE_END, COMMA):
            out = out.rstrip() + w + " "
        else:
            out += w + " "
    out = out.strip()
    if language == "am":
        out = homophone_merge(out)
    return out


def scoring_form(text, language):
    """What CER compares: no spaces, no punctuation; Ethiopic homophones merged for am and ti
    (ALFFA convention; for ti see the model card)."""
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"[\s።፣፤፥፧,.?!'|]", "", text)
    if language in ("am",):
        text = homophone_merge(text)
    return text


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


def cer(refs, hyps, language):
    errors = total = 0
    for r, h in zip(refs, hyps):
        r, h = scoring_form(r, language), scoring_form(h, language)
        errors += edit_distance(r, h)
        total += len(r)
    return errors / max(total, 1)


# ---------------------------------------------------------------- output units

# Output units (issue 14: "Ethiopic syllables vs consonant + vowel order"). `syllable`: one CTC
# token per Ethiopic syllable (what every shipped model uses). `decomposed`: a syllable of the
# Ethiopic syllabary block U+1200..U+1357 becomes its consonant (the row's first-order letter,
# codepoint - (codepoint - 0x1200) % 8) followed by a vowel-order mark, a private-use character
# U+E000 + order (order = (codepoint - 0x1200) % 8: 0 ä, 1 u, 2 i, 3 a, 4 e, 5 ə/none, 6 o,
# 7 the labialised -wa form or the row's eighth letter). The sixth order (5) is written without
# a mark, as the script's own "bare" consonant, which keeps targets short. Labiovelar rows
# (ቈ ኰ ጐ ...) and the eighth letters (ሇ ቇ ...) are rows of their own by the same arithmetic, so
# every letter of the block round-trips exactly (test_units.py checks the training text);
# punctuation, numerals (U+1360..), ፘ ፙ ፚ and the supplement blocks stay whole tokens.
ORDER_MARK = 0xE000
SIXTH = 5


def _syllabic(c):
    return 0x1200 <= c <= 0x1357


def decompose(text):
    out = []
    for ch in text:
        c = ord(ch)
        if _syllabic(c):
            order = (c - 0x1200) % 8
            out.append(chr(c - order))
            if order != SIXTH:
                out.append(chr(ORDER_MARK + order))
        else:
            out.append(ch)
    return "".join(out)


def recompose(text):
    """Inverse of decompose(); on model output, a mark not after a consonant is dropped and a
    consonant without a mark is read as the sixth order."""
    out = []
    for ch in text:
        c = ord(ch)
        if ORDER_MARK <= c < ORDER_MARK + 8:
            prev = ord(out[-1]) if out else -1
            if _syllabic(prev) and (prev - 0x1200) % 8 == SIXTH:  # a bare consonant: set its order
                out[-1] = chr(prev - SIXTH + (c - ORDER_MARK))
            continue
        out.append(chr(c + SIXTH) if _syllabic(c) and (c - 0x1200) % 8 == 0 else ch)
    return "".join(out)


def to_units(text, units):
    return decompose(text) if units == "decomposed" else text


def from_units(text, units):
    return recompose(text) if units == "decomposed" else text
