#!/usr/bin/env python3
"""Builds the training and held-out sets (features + targets) under training/work/.

  real Amharic (ALFFA): utterances sorted by their numeric id; the 100 highest ids are the
    validation split `alffa_val` (no model trains on them, and their transcripts are kept out
    of the synthetic text too); the rest is `alffa_train`.
  synthetic speech (espeak-ng) per language from HornMT lines 0..1899 + AfriSenti (+ for am the
    ALFFA transcript list minus the validation sentences): `synth_<lang>_train`, short word
    windows (1-16 words) with augmentation: voice variant, speed, pitch, amplitude, noise
    (white/pink/brown, 5-30 dB SNR), reverberation (synthetic RIR), 8 kHz telephone band,
    low-bitrate Opus through ffmpeg, leading/trailing silence.
  synthetic held-out sets from HornMT lines 1900..2029 (text never trained on):
    `synth_<lang>_test_clean` (default voice, no augmentation) and `synth_<lang>_test_aug`.

With --split speaker (small-am-v2 onwards) the ALFFA split is by speaker group instead
(splits/alffa-spk-{train,val,test}.txt, made by speaker_split.py; whole groups held out):
  `alffa_spk_train` (clean), `alffa_spk_train_aug` (--real-copies - 1 perturbed copies of every
    training utterance: speed 0.9/1.1 by resampling, vocal tract length perturbation by warping
    the mel filterbank's frequency axis (alpha 0.9..1.1), tempo by resampling the feature frames
    (0.9..1.1, pitch kept), reverberation, additive noise, 8 kHz telephone band, Opus round trips),
  `alffa_spk_val` / `alffa_spk_test` (held-out groups, audio kept), and `synth_am_train_spk`, whose
    text leaves out every transcript of the val and test groups. The synthetic held-out sets are
    the same as without --split (same seed, same HornMT lines).

With --telephone-copies N (small-am-v3, issue 33) the speaker split also writes
  `alffa_spk_train_tel`: N more copies of every training utterance through a phone line and a
  level change (telephone_copy): 75% over an 8 kHz G.711 call (mu-law or A-law, half each; the
  300-3400 Hz band as bench/telephone-channel.ts makes it: 3.7 kHz windowed-sinc low-pass, every
  second sample, 4th-order Butterworth high-pass at 300 Hz; back to 16 kHz by polyphase
  resampling), 25% wideband; every copy at a drawn peak level of -40..-1 dBFS, rounded to 16 bits
  (quiet calls lose low bits), a third with noise at 10-30 dB SNR before the channel, then VTLP and
  tempo as the other copies. Its own seed: the v2 sets stay byte for byte what they were.
  --telephone-only writes just that set (the other sets already made).

With --telephone-val (candidate 14, issue 33) it writes `alffa_spk_val_tel`: the val groups through
  the held-out telephone condition (telephone_heldout.py --law mulaw: the band, every second sample,
  a mu-law round trip, no level change or noise), back to 16 kHz as the training copies are, so that a
  telephone model picks its checkpoint on what it will be judged on. Alone it writes just that set.

With --noisy-copies N (candidate 16, issue 33) it writes only `alffa_spk_train_noisy`: N more copies of
  every training utterance under loud interference (speech_augment.noisy_copy: 0-15 dB SNR of colored
  noise, nonspeech.py's music, babble of 2-5 other training utterances, or hum/tones/impulses; a drawn
  level; VTLP and tempo), and `alffa_spk_val_noisy` (each val utterance once so, babble from other val
  utterances), a set to watch during training. Its own seeds: the other sets stay as they were.

With --news-synth N (candidate 12, issue 33) the speaker split also writes `synth_am_news_spk`: N
  augmented espeak-ng utterances (as synth_am_train_spk's, plus VTLP/tempo on the features) of word
  windows from the ENH news text (CC0), leaving out every line that shares a 20-letter stretch with a
  val/test group transcript or a held-out HornMT line. --news-only writes just that set.

Held-out sets also keep their audio as 16-bit WAV (work/audio/<set>/<id>.wav) and a
<set>.tsv (id, reference) so that evaluate.ts can run them through the gateway's runtime.

With --recipe v2 for om or ti (small-*-v2): HornMT lines 1800..1899 become the validation text
  (`synth_<lang>_val`: clean + augmented utterances; never trained on), and the training set
  `synth_<lang>_train_v2` adds vocal tract length perturbation and feature-frame tempo to the
  augmentations above. The test sets are byte-for-byte the v1 ones (same seed, made first).

Usage: nice -n 10 /usr/bin/python3 training/asr/prepare_data.py --lang am --seed 1
       nice -n 10 /usr/bin/python3 training/asr/prepare_data.py --lang om --seed 1 --recipe v2 --synth-train 6000
       nice -n 10 /usr/bin/python3 training/asr/prepare_data.py --lang am --seed 1 --split speaker
"""
import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import wave

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: BLAS threads too
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lm"))  # build_char_lm.py
from common import (FEATURES, LogMel, SAMPLE_RATE, normalize_ethiopic, use_raw_features,  # noqa: E402
                    normalize_oromo, words_to_target, SENTENCE_END, COMMA)
from speech_augment import (  # noqa: E402
    FFMPEG, augment, g711_round_trip, noisy_copy, perturbed_copy, perturbed_features, resample, telephone_band,
    telephone_copy)

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(os.path.dirname(HERE), "work")  # training/work (git-ignored)
DATA = os.environ.get("SHARED_DATA", "/work/shared/data")
TI_DATA = os.path.join(DATA, "espeak-ng-data-ti")
HORN = {"am": "amh", "om": "orm", "ti": "tir"}
HORN_TRAIN_LINES = 1900  # lines 0..1899 train; 1900.. held out
HORN_VAL_LINES = 1800  # with --synth-val (om/ti v2): lines 1800..1899 are the validation text
ALFFA_VAL = 100
SPLITS = os.path.join(os.path.dirname(HERE), "common", "splits")

torch.set_num_threads(1)
FEAT = LogMel()


def espeak_env(lang):
    env = dict(os.environ)
    if lang == "ti":
        env["ESPEAK_DATA_PATH"] = TI_DATA
    return env


def variants(lang):
    root = os.path.join(TI_DATA, "espeak-ng-data") if lang == "ti" else "/usr/lib/x86_64-linux-gnu/espeak-ng-data"
    names = os.listdir(os.path.join(root, "voices", "!v"))
    keep = [n for n in names if n in {f"m{i}" for i in range(1, 8)} | {f"f{i}" for i in range(1, 6)}
            | {"klatt", "klatt2", "klatt3", "croak", "whisper", "Andy", "Annie", "Denis", "Lee",
               "edward", "john", "linda", "max", "michel", "paul", "steph", "zac", "iven", "aunty", "boris"}]
    return sorted(keep)


def read_wav_bytes(data):
    with wave.open(io.BytesIO(data)) as w:
        sr = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return pcm, sr


def synth(lang, text, voice, speed, pitch, amp):
    args = ["espeak-ng", "-v", f"{lang}+{voice}" if voice else lang, "-s", str(speed), "-p", str(pitch),
            "-a", str(amp), "--stdout", text]
    data = subprocess.run(args, env=espeak_env(lang), capture_output=True, check=True).stdout
    pcm, sr = read_wav_bytes(data)
    return resample(pcm, sr, SAMPLE_RATE)


def write_wav(path, x):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype(np.int16).tobytes())


def save_set(name, items, keep_audio, perturb=None):
    """items: (id, text, pcm). Writes work/<name>.pt (features float16) and, for held-out sets, WAVs + tsv.
    perturb (a numpy Generator): every utterance's features through a random VTLP filterbank
    (alpha 0.9..1.1) and, half the time, a tempo change of the frames (0.9..1.1)."""
    feats, texts, ids, secs = [], [], [], 0.0
    for uid, text, pcm in items:
        f = FEAT(pcm) if perturb is None else perturbed_features(pcm, perturb)
        feats.append(torch.from_numpy(f).to(torch.float16))
        texts.append(text)
        ids.append(uid)
        secs += len(pcm) / SAMPLE_RATE
        if keep_audio:
            write_wav(os.path.join(WORK, "audio", name, uid + ".wav"), pcm)
    torch.save({"feats": feats, "texts": texts, "ids": ids, "normalize": FEATURES["normalize"]}, os.path.join(WORK, name + ".pt"))
    if keep_audio:
        with open(os.path.join(WORK, name + ".tsv"), "w") as f:
            for uid, text in zip(ids, texts):
                f.write(f"{uid}\t{text}\n")
    print(f"{name}: {len(ids)} utterances, {secs / 60:.1f} min", flush=True)


# ---------------------------------------------------------------- perturbation of real speech

def copies_set(name, rng, copies, train, make_copy, suffix):
    """work/<name>.pt: `copies` copies of every training utterance (id `<id>-<suffix><k>`), each made by
    make_copy(pcm, rng) -> (features, kind); prints the count of each kind."""
    feats, texts, out_ids, secs, kinds = [], [], [], 0.0, {}
    for k in range(copies):
        for u, t, pcm in train:
            f, kind = make_copy(pcm, rng)
            feats.append(torch.from_numpy(f).to(torch.float16))
            texts.append(t)
            out_ids.append(f"{u}-{suffix}{k}")
            secs += f.shape[0] / 100
            kinds[kind] = kinds.get(kind, 0) + 1
    torch.save({"feats": feats, "texts": texts, "ids": out_ids, "normalize": FEATURES["normalize"]}, os.path.join(WORK, name + ".pt"))
    print(f"{name}: {len(out_ids)} utterances, {secs / 60:.1f} min, kinds {json.dumps(kinds)}", flush=True)


def telephone_set(seed, copies, train):
    """`alffa_spk_train_tel`: `copies` telephone/level copies of every training utterance."""
    copies_set("alffa_spk_train_tel", np.random.default_rng(seed + 2000), copies, train, telephone_copy, "t")


def noisy_set(seed, copies, train):
    """`alffa_spk_train_noisy`: `copies` copies of every training utterance under loud interference
    (noisy_copy: 0-15 dB SNR of noise, music, babble of other TRAINING utterances, hum/tones/impulses)."""
    pool = [pcm for _, _, pcm in train]
    copies_set("alffa_spk_train_noisy", np.random.default_rng(seed + 3000), copies, train,
               lambda pcm, rng: noisy_copy(pcm, rng, pool), "n")


def noisy_val_set(seed):
    """`alffa_spk_val_noisy`: every val-group utterance once under loud interference (noisy_copy, its own
    seed; babble from other VAL utterances, so no training speaker is heard): a monitor, not a test."""
    text = alffa_texts()
    ids = open(os.path.join(SPLITS, "alffa-spk-val.txt")).read().split()
    pcms = {u: decode_flac(u) for u in ids}
    rng = np.random.default_rng(seed + 4000)
    feats, texts = [], []
    for u in ids:
        f, _ = noisy_copy(pcms[u], rng, [p for v, p in pcms.items() if v != u])
        feats.append(torch.from_numpy(f).to(torch.float16))
        texts.append(" ".join(text[u].split()))
    torch.save({"feats": feats, "texts": texts, "ids": ids, "normalize": FEATURES["normalize"]},
               os.path.join(WORK, "alffa_spk_val_noisy.pt"))
    print(f"alffa_spk_val_noisy: {len(ids)} utterances", flush=True)


def train_utterances():
    """(id, transcript, pcm) of every utterance of the speaker split's training groups, in the list's order."""
    text = alffa_texts()
    return [(u, " ".join(text[u].split()), decode_flac(u)) for u in open(os.path.join(SPLITS, "alffa-spk-train.txt")).read().split()]


def alffa_texts():
    """ALFFA's transcripts by utterance id (the Kaldi `text` file; lines without a transcript left out)."""
    with open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8") as f:
        return dict(parts for parts in (line.strip().split(None, 1) for line in f) if len(parts) == 2)


def telephone_val_set():
    """`alffa_spk_val_tel`: every val-group utterance over a mu-law call (the held-out telephone condition)."""
    from scipy.signal import resample_poly
    text = alffa_texts()
    items = []
    for u in open(os.path.join(SPLITS, "alffa-spk-val.txt")).read().split():
        call = g711_round_trip(telephone_band(decode_flac(u)), "mulaw")
        wide = np.clip(resample_poly(np.asarray(call, dtype=np.float64), 2, 1), -1, 1).astype(np.float32)
        items.append((u, " ".join(text[u].split()), wide))
    save_set("alffa_spk_val_tel", items, False)


def speaker_split_sets(seed, copies):
    """ALFFA by speaker group (splits/): train (clean + perturbed copies), val and test groups."""
    text = {}
    for line in open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8"):
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            text[parts[0]] = " ".join(parts[1].split())
    ids = {k: [u for u in open(os.path.join(SPLITS, f"alffa-spk-{k}.txt")).read().split()] for k in ("train", "val", "test")}
    for k in ("val", "test"):
        save_set(f"alffa_spk_{k}", [(u, text[u], decode_flac(u)) for u in ids[k]], True)
    train = [(u, text[u], decode_flac(u)) for u in ids["train"]]
    save_set("alffa_spk_train", train, False)
    rng = np.random.default_rng(seed + 1000)
    feats, texts, out_ids, secs = [], [], [], 0.0
    for k in range(1, copies):
        for u, t, pcm in train:
            f = perturbed_copy(pcm, k, rng)
            feats.append(torch.from_numpy(f).to(torch.float16))
            texts.append(t)
            out_ids.append(f"{u}-p{k}")
            secs += f.shape[0] / 100
    torch.save({"feats": feats, "texts": texts, "ids": out_ids, "normalize": FEATURES["normalize"]},
               os.path.join(WORK, "alffa_spk_train_aug.pt"))
    print(f"alffa_spk_train_aug: {len(out_ids)} utterances, {secs / 60:.1f} min", flush=True)
    return {text[u] for u in ids["val"] + ids["test"]}


# ---------------------------------------------------------------- ALFFA

def alffa_items():
    rows = []
    for line in open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8"):
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            rows.append((int(parts[0].split("_")[1]), parts[0], " ".join(parts[1].split())))
    rows.sort()
    return rows[:-ALFFA_VAL], rows[-ALFFA_VAL:]


def decode_audio(path):
    """Any audio file ffmpeg reads, as 16 kHz mono float samples (16-bit precision)."""
    return pcm16(subprocess.run([FFMPEG, "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", str(SAMPLE_RATE), "pipe:1"],
                                capture_output=True, check=True).stdout)


def pcm16(raw):
    return np.frombuffer(raw, dtype=np.int16).astype(np.float32) / 32768.0


def decode_flac(uid):
    path = os.path.join(DATA, "alffa-am-train", "flac", uid + ".flac")
    if not shutil.which("flac"):  # the same 16-bit samples through ffmpeg
        return decode_audio(path)
    cmd = ["flac", "-d", "-s", "-c", "--force-raw-format", "--endian=little", "--sign=signed", path]
    return pcm16(subprocess.run(cmd, capture_output=True, check=True).stdout)


# ---------------------------------------------------------------- synthetic

def lines_of(path):
    return [l.rstrip("\n") for l in open(path, encoding="utf-8")]


def words_of(lang, line, keep_punct):
    if lang == "om":
        return normalize_oromo(line)
    return normalize_ethiopic(line, keep_punct)


def runs(words):
    """Splits at dropped words (None): contiguous runs of usable words."""
    out, cur = [], []
    for w in words:
        if w is None:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        out.append(cur)
    return out


def fragment(run, rng, max_words):
    """A word window; about half of them end where a sentence ends (so ። is seen at the end)."""
    idx = [i for i, w in enumerate(run) if w not in (SENTENCE_END, COMMA)]
    if not idx:
        return None
    n = int(min(max_words, len(idx), 1 + rng.integers(0, 16) if rng.random() < 0.7 else 1 + rng.integers(0, 4)))
    ends_sentence = [i for i, w in enumerate(run) if w == SENTENCE_END]
    if ends_sentence and rng.random() < 0.5:
        end = int(rng.choice(ends_sentence))
        before = [i for i in idx if i < end]
        if not before:
            return None
        start = before[max(0, len(before) - n)]
        piece = run[start:end + 1]
    else:
        k = int(rng.integers(0, len(idx) - n + 1))
        start, stop = idx[k], idx[k + n - 1]
        piece = run[start:stop + 1]
    while piece and piece[0] in (SENTENCE_END, COMMA):
        piece = piece[1:]
    return piece or None


def synth_items(lang, lines, n, aug, prefix, rng, vs):
    """n espeak-ng utterances of word windows drawn from lines: augmented (voice variant, speed,
    pitch, amplitude, then augment()) or in the default voice (at least 3 words)."""
    keep_punct = lang == "ti"
    items = []
    pool = [r for line in lines for r in runs(words_of(lang, line, keep_punct))]
    tries = 0
    while len(items) < n and tries < n * 20:
        tries += 1
        run = pool[int(rng.integers(0, len(pool)))]
        piece = fragment(run, rng, 16 if aug else 12)
        if not piece or (not aug and len([w for w in piece if w not in (SENTENCE_END, COMMA)]) < 3):
            continue
        text = words_to_target(piece, lang)
        spoken = " ".join(piece)
        if aug:
            voice = vs[int(rng.integers(0, len(vs)))] if rng.random() < 0.8 else None
            pcm = synth(lang, spoken, voice, int(rng.integers(110, 230)), int(rng.integers(15, 90)), int(rng.integers(60, 180)))
            pcm = augment(pcm, rng)
        else:
            pcm = synth(lang, spoken, None, 175, 50, 100)
        if len(pcm) < SAMPLE_RATE * 0.3 or len(pcm) > SAMPLE_RATE * 14:
            continue
        items.append((f"{prefix}{len(items):05d}", text, pcm))
    return items


def held_out_free(lines, held_out_texts):
    """The lines that share no 20-letter stretch with any held-out text, by the LM's own held-out rule
    (training/lm/build_char_lm.py: scoring form, i.e. no spaces and homophones merged, so a held-out
    sentence spelled with another homophone letter is still caught)."""
    from build_char_lm import scoring, stretches  # the LM corpus's rule, one definition

    def form(t):  # words as the targets are made (separators and punctuation gone), then the scoring form
        return scoring(" ".join(w for w in normalize_ethiopic(t, False) if w))
    banned = set().union(*(stretches(form(t)) for t in held_out_texts))
    return [l for l in lines if not (stretches(form(l)) & banned)]


def news_synth_set(seed, n, held_out_texts):
    """`synth_am_news_spk` (issue 33, candidate 12): n augmented espeak-ng utterances of word windows
    from the ENH news text (CC0), for text variety beyond the ALFFA prompts. Lines sharing a 20-letter
    stretch with any held-out text (the val and test groups' transcripts, HornMT lines 1900..) are left
    out (held_out_free), on top of the corpus's own filter against the project's test sentences."""
    rng = np.random.default_rng(seed + 7000)
    horn = lines_of(os.path.join(DATA, "text", "hornmt", HORN["am"] + ".txt"))[HORN_TRAIN_LINES:]
    news = [l for l in lines_of(os.path.join(DATA, "text", "enh", "amh-news.txt")) if len(l.split()) >= 3]
    picked = [news[int(i)] for i in rng.choice(len(news), min(len(news), n * 3), replace=False)]
    kept = held_out_free(picked, list(held_out_texts) + horn)
    print(f"news: {len(picked)} lines drawn, {len(picked) - len(kept)} left out (share a held-out stretch)", flush=True)
    save_set("synth_am_news_spk", synth_items("am", kept, n, True, "am-news-", rng, variants("am")), False,
             perturb=np.random.default_rng(seed + 7001))


def synth_sets(lang, seed, n_train, n_test, exclude=None, train_name=None, n_val=0, perturb=False):
    """n_val > 0 (the v2 recipe for om and ti): HornMT lines 1800..1899 leave the training text and
    voice `synth_<lang>_val` (n_val clean + n_val augmented utterances), the set a v2 checkpoint
    and its decoding weights are picked on; perturb: VTLP + tempo on the training features.
    The test sets come first from the same seed, so they are the v1 test sets exactly."""
    rng = np.random.default_rng(seed)
    horn = lines_of(os.path.join(DATA, "text", "hornmt", HORN[lang] + ".txt"))
    train_end = HORN_VAL_LINES if n_val else HORN_TRAIN_LINES
    train_lines = horn[:train_end] + lines_of(os.path.join(DATA, "text", "afrisenti", HORN[lang] + ".txt"))
    test_lines = horn[HORN_TRAIN_LINES:]
    if lang == "am":
        if exclude is None:
            _, val = alffa_items()
            exclude = {t for _, _, t in val}
        val_texts = exclude
        alffa_all = [" ".join(l.split()[1:]) if l.startswith("tr_") else l.strip()
                     for l in open(os.path.join(DATA, "alffa-am-train", "all-train-transcripts.txt"), encoding="utf-8")]
        alffa_all = [t for t in alffa_all if t and t not in val_texts]
        train_lines = train_lines + alffa_all
    vs = variants(lang)
    print(f"{lang}: {len(train_lines)} training lines, {len(test_lines)} held-out lines, variants {vs}", flush=True)

    def make(lines, n, aug, prefix):
        return synth_items(lang, lines, n, aug, prefix, rng, vs)

    save_set(f"synth_{lang}_test_clean", make(test_lines, n_test, False, f"{lang}-clean-"), True)
    save_set(f"synth_{lang}_test_aug", make(test_lines, n_test, True, f"{lang}-aug-"), True)
    if n_val:
        val_lines = horn[HORN_VAL_LINES:HORN_TRAIN_LINES]
        save_set(f"synth_{lang}_val", make(val_lines, n_val, False, f"{lang}-val-clean-") + make(val_lines, n_val, True, f"{lang}-val-aug-"), True)
    save_set(train_name or f"synth_{lang}_train", make(train_lines, n_train, True, f"{lang}-train-"), False,
             perturb=np.random.default_rng(seed + 5000) if perturb else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", required=True, choices=["am", "om", "ti"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--synth-train", type=int, default=3000)
    ap.add_argument("--synth-test", type=int, default=60)
    ap.add_argument("--split", choices=["id", "speaker"], default="id",
                    help="ALFFA split: the v1 id range, or whole speaker groups (splits/)")
    ap.add_argument("--real-copies", type=int, default=6, help="--split speaker: clean + perturbed copies")
    ap.add_argument("--recipe", choices=["v1", "v2"], default="v1",
                    help="om/ti: v2 holds HornMT lines 1800..1899 out as synth_<lang>_val (--synth-val clean + "
                         "augmented utterances) and adds VTLP + tempo to the training features (synth_<lang>_train_v2)")
    ap.add_argument("--synth-val", type=int, default=60)
    ap.add_argument("--telephone-copies", type=int, default=0,
                    help="--split speaker: telephone/level copies of every training utterance (alffa_spk_train_tel)")
    ap.add_argument("--telephone-only", action="store_true", help="write only alffa_spk_train_tel")
    ap.add_argument("--telephone-val", action="store_true",
                    help="write alffa_spk_val_tel (the val groups over a mu-law call); alone, only that set")
    ap.add_argument("--noisy-copies", type=int, default=0,
                    help="--split speaker: copies of every training utterance under 0-15 dB SNR interference "
                         "(alffa_spk_train_noisy) and the val groups once (alffa_spk_val_noisy); only those sets")
    ap.add_argument("--news-synth", type=int, default=0,
                    help="--split speaker: N espeak-ng utterances of ENH news text (synth_am_news_spk)")
    ap.add_argument("--news-only", action="store_true", help="write only synth_am_news_spk")
    ap.add_argument("--raw-features", action="store_true",
                    help="store unnormalised log-mel (train.py normalises at batch time: per utterance or running)")
    a = ap.parse_args()
    if a.raw_features:
        use_raw_features()
    os.makedirs(WORK, exist_ok=True)
    random.seed(a.seed)
    if a.lang == "am" and a.split == "speaker" and a.telephone_val:
        telephone_val_set()
        if a.telephone_copies == 0:
            return
    if a.lang == "am" and a.split == "speaker" and a.noisy_copies > 0:
        noisy_set(a.seed, a.noisy_copies, train_utterances())
        noisy_val_set(a.seed)
        return
    if a.lang == "am" and a.split == "speaker" and a.telephone_copies > 0:
        telephone_set(a.seed, a.telephone_copies, train_utterances())
        if a.telephone_only:
            return
    if a.lang == "am" and a.split == "speaker" and a.news_synth > 0 and a.news_only:
        text = alffa_texts()
        held = [u for k in ("val", "test") for u in open(os.path.join(SPLITS, f"alffa-spk-{k}.txt")).read().split()]
        news_synth_set(a.seed, a.news_synth, {" ".join(text[u].split()) for u in held})
        return
    if a.lang == "am" and a.split == "speaker":
        held_out_texts = speaker_split_sets(a.seed, a.real_copies)
        synth_sets("am", a.seed, a.synth_train, a.synth_test, exclude=held_out_texts, train_name="synth_am_train_spk")
        if a.news_synth > 0:
            news_synth_set(a.seed, a.news_synth, held_out_texts)
        return
    if a.lang == "am":
        train, val = alffa_items()
        save_set("alffa_val", [(uid, text, decode_flac(uid)) for _, uid, text in val], True)
        save_set("alffa_train", [(uid, text, decode_flac(uid)) for _, uid, text in train], False)
    if a.recipe == "v2" and a.lang != "am":
        synth_sets(a.lang, a.seed + {"om": 100, "ti": 200}[a.lang], a.synth_train, a.synth_test,
                   train_name=f"synth_{a.lang}_train_v2", n_val=a.synth_val, perturb=True)
        return
    synth_sets(a.lang, a.seed + {"am": 0, "om": 100, "ti": 200}[a.lang], a.synth_train, a.synth_test)


if __name__ == "__main__":
    main()
