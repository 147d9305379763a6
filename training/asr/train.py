#!/usr/bin/env python3
"""Trains one compact CTC model on sets made by prepare_data.py, time-boxed, on one CPU thread.

Recipe chosen to leave the CTC blank plateau quickly on a CPU (see
/work/shared/notes/model-training.md): 25 output frames a second over character (Ethiopic
syllable / Latin letter) units, a linear learning-rate warm-up then cosine decay over the time
box, the first epoch sorted shortest-first (then length-bucketed random batches), SpecAugment
switched on after the warm-up, batches bounded by total frames.

--synth-max-share caps the share of synthetic utterances (sets named synth_*) in every batch:
surplus synthetic utterances of a batch sit that epoch out (the next epoch draws new batches).
--bootstrap-steps N leaves the first N batches of the first (shortest-first) epoch uncapped: the
short synthetic clips that lead that epoch are what gets a CTC model off the blank plateau
quickly on a CPU (without them small-am-v2's first try sat on it for 1,000 steps).
--init-onnx MODEL_DIR resumes from committed weights: the CtcNet is rebuilt from a shipped model
folder's model.onnx (onnx_weights.py; its vocabulary and shape win over --dim/--blocks/--kernel;
--right-context R moves its depthwise taps to R frames of look-ahead, model.realign_taps),
so fine-tuning needs no git-ignored checkpoint. Export folded the first two BatchNorms into their
convolutions; those two stay frozen as identities (eval mode) during training, so step 0 computes
exactly the shipped function; the block BatchNorms keep their shipped statistics and train as usual.
The first epoch is then length-bucketed random, not shortest-first.
Sets named nonspeech_* (prepare_nonspeech.py) hold non-speech with EMPTY targets: CTC with target
length 0 (all frames blank). --nonspeech-share caps their share of every batch as
--synth-max-share does for synthetic speech; as a --valid set, a nonspeech_* set reports invented
letters per minute (greedy) instead of CER. --nonspeech-weight W multiplies the loss of empty-target
rows (per 4 output frames, see the loss) by W: once a model is mostly blank on non-speech, the few frames
where it still emits a letter weigh little beside a batch's speech rows.
--teacher-onnx MODEL_DIR distils a shipped model into the one trained (frame-level knowledge
distillation, as for CTC students of the same frame rate): the teacher (same vocabulary, same 40 ms
output frames; any look-ahead) reads each batch BEFORE SpecAugment, in eval mode without gradients,
and the loss becomes (1 - w) x CTC + w x KL(teacher || student) at temperature T (times T^2), the
KL summed over a row's valid frames and divided by the same per-row denominator as CTC (target units),
so both terms are per unit. --kd-weight w; --kd-temperature T; rows of non-speech sets and of sets
listed in --kd-skip (say the telephone copies, which the teacher never heard) take CTC alone.
--aux-sets NAME[:repeat],... (multitask, issue 33) trains the same encoder on another language's
speech through its OWN output layer (a 1x1 convolution over the encoder states onto that set's
letters; prepare_english.py's en_so_train): every --aux-every-th step is a batch of those sets alone,
its CTC loss (per target unit, as the main rows) times --aux-weight; the rest of the run is as
without it. The extra layer is saved in the checkpoint (aux_state, aux_tokens) and never exported:
the exported model is the main language's, with its vocabulary and shape unchanged. No teacher reads
those rows, and no held-out set scores them (the main --select set picks best.pt).
--trainable PREFIX,... trains only the parameters whose names start with one of the prefixes (say
`blocks.9,out`: the last block and the output layer); the rest is frozen, its BatchNorms in eval mode
(their running statistics stay the shipped ones), so rows of a new kind (non-speech) cannot move
what the frozen layers compute for speech.
--select SET keeps best.pt, the checkpoint with the lowest greedy CER on SET (all of it), so a
run is chosen on held-out speakers only.
Sets stored raw (prepare_data.py / prepare_nonspeech.py --raw-features) are normalised at batch time
(feature_norm.py): per utterance, as REST reads audio, or, for a --running-norm-share of the rows drawn
per batch, with the live stream's running statistics (--stream-stats: the prior the gateway uses), so
one model is trained for both paths; the teacher always reads its rows normalised per utterance (what
it was trained on). A run takes raw sets or normalised sets, never both. With a running share, every
valid set is also scored running-normalised (as SET@running) and --select picks on the mean of SET's
and SET@running's CER.

--device cpu|cuda|auto (default cpu; auto: cuda when torch sees one) trains on a GPU with the same
recipe: batches are built, normalised and SpecAugmented on the CPU as before, then moved; the
teacher and the --aux-sets layer move with the model; checkpoints are saved on the CPU (export.py and
--init read them anywhere). No GPU was lent to the sessions that wrote this, so the cuda path has
not been run (test_train_device.py checks the cpu path and, where torch sees a GPU, that a cuda
run's first steps match the cpu run's).

Seeded (torch, numpy, random); the number of steps depends on the time box and machine speed,
and the log prints it. Writes work/runs/<name>/{checkpoint.pt,log.jsonl} (a checkpoint every
--checkpoint-minutes and at the end); --keep-checkpoints also keeps each periodic one as
checkpoint-<step>.pt, for average_checkpoints.py.

Usage: nice -n 10 /usr/bin/python3 training/asr/train.py --name small-am-v1 --lang am \
         --sets alffa_train:2,synth_am_train --dim 256 --blocks 8 --minutes 20 --seed 1
"""
import argparse
import json
import math
import os
import random
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: BLAS threads too
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import cer, from_units, to_units  # noqa: E402
from model import CtcNet  # noqa: E402
import feature_norm  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ.get("TRAINING_WORK_DIR") or os.path.join(os.path.dirname(HERE), "work")  # training/work (git-ignored)
BLANK = "<blank>"
SPACE = "|"
PUNCT = "።፣"


def load(name):
    """A work set: {feats, texts, ids, raw}; raw sets hold unnormalised log-mel features."""
    d = torch.load(os.path.join(WORK, name + ".pt"))
    d["raw"] = d.get("normalize") == "none"
    return d


def eval_norm(d, stats=None):
    """How frame_logits must normalise a set's features: None (stored normalised), per utterance (raw),
    or running with `stats` (raw only)."""
    if not d["raw"]:
        if stats is not None:
            raise SystemExit("running normalisation needs a set stored with --raw-features")
        return None
    if stats is None:
        return feature_norm.per_utterance
    return lambda x, lengths: feature_norm.running(x, lengths, stats)


def target_text(text, strip_punct):
    if strip_punct:
        for p in PUNCT:
            text = text.replace(p, "")
        text = " ".join(text.split())
    return text


def encode(text, index):
    return [index[SPACE] if ch == " " else index[ch] for ch in text if (ch == " " or ch in index)]


def greedy(logits, length, tokens):
    ids = logits[:length].argmax(-1).tolist()
    out, prev = [], -1
    for i in ids:
        if i != prev and i != 0:
            out.append(" " if tokens[i] == SPACE else tokens[i])
        prev = i
    return "".join(out).strip()


def cap_synthetic(batch_list, is_synth, share, rng, stochastic=False):
    """Drops the surplus synthetic utterances of each batch so that at most `share` of its
    utterances are synthetic (at least one real utterance kept; all-synthetic batches go).
    Also used with is_synth = "non-speech" for --nonspeech-share, with stochastic=True: a batch's
    room share * real / (1 - share) is rounded up with probability equal to its fraction (rng), so
    the share is reached on average where rounding down (the synthetic cap, v2) gives small batches none."""
    out = []
    for b in batch_list:
        real = [j for j in b if not is_synth[j]]
        if not real:
            continue
        synth = [j for j in b if is_synth[j]]
        exact = share * len(real) / (1 - share) if share < 1 else float(len(synth))
        room = int(exact)
        if stochastic and rng.random() < exact - room:
            room += 1
        if len(synth) > room:
            synth = [synth[k] for k in sorted(rng.choice(len(synth), room, replace=False))]
        out.append(real + synth)
    return out


def trainable_rows(targets, lengths, rule, empty_ok):
    """Indices of the rows CTC can train: a target that fits the row's output frames (4x subsampled
    `lengths`) by `rule` ("feasible": one frame per unit plus a blank between repeats, CTC's own limit;
    "2L+1": a blank around every unit), and non-empty unless empty_ok[i] (non-speech rows)."""
    out_lengths = (((lengths - 1) // 2) // 2) + 1
    if rule == "feasible":
        need = [len(t) + sum(1 for x, y in zip(t, t[1:]) if x == y) for t in targets]
    else:
        need = [2 * len(t) + 1 for t in targets]
    return [i for i in range(len(targets)) if (0 < len(targets[i]) or empty_ok[i]) and need[i] <= out_lengths[i]]


def batches(lengths, max_frames, rng, sort_first):
    order = np.argsort(lengths, kind="stable") if sort_first else None
    if order is None:
        # bucket: shuffle, then sort within chunks of 64 by length so padding stays small
        perm = rng.permutation(len(lengths))
        order = np.concatenate([sorted(perm[i:i + 64], key=lambda j: lengths[j]) for i in range(0, len(perm), 64)])
    out, cur, longest = [], [], 0
    for j in order:
        longest2 = max(longest, lengths[j])
        if cur and longest2 * (len(cur) + 1) > max_frames:
            out.append(cur)
            cur, longest2 = [], lengths[j]
        cur.append(int(j))
        longest = longest2
    if cur:
        out.append(cur)
    if not sort_first:
        rng.shuffle(out)
    return out


def spec_augment(x, lengths, rng):
    """x [B, T, F] in place: 2 frequency masks (<= 12 channels), time masks (<= 25 frames each,
    one per 1.5 s, at most 10% of the row in total)."""
    B, T, F = x.shape
    for b in range(B):
        L = int(lengths[b])
        for _ in range(2):
            w = int(rng.integers(0, 13))
            f0 = int(rng.integers(0, F - w + 1))
            x[b, :L, f0:f0 + w] = 0
        n = 1 + L // 150
        for _ in range(n):
            w = int(rng.integers(0, min(25, max(1, L // (10 * n))) + 1))
            if w == 0 or L - w <= 0:
                continue
            t0 = int(rng.integers(0, L - w))
            x[b, t0:t0 + w, :] = 0


def collate(feats, idx, targets):
    rows = [feats[i].to(torch.float32) for i in idx]
    lengths = torch.tensor([r.shape[0] for r in rows], dtype=torch.int64)
    x = torch.zeros(len(rows), int(lengths.max()), rows[0].shape[1])
    for k, r in enumerate(rows):
        x[k, :r.shape[0]] = r
    tg = [torch.tensor(targets[i], dtype=torch.int64) for i in idx]
    return x, lengths, torch.cat(tg), torch.tensor([len(t) for t in tg], dtype=torch.int64)


def distillation_per_row(student_logits, teacher_logits, out_lengths, denom, temperature=1.0):
    """KL(teacher || student) of the frame posteriors at `temperature` (times temperature^2, so the
    gradient's scale does not depend on it), summed over each row's valid frames (out_lengths) and
    divided by the row's `denom` (the CTC term's: target units). Both logits [B, T', V]. Returns [B]."""
    t_logp = torch.log_softmax(teacher_logits / temperature, -1)
    s_logp = torch.log_softmax(student_logits / temperature, -1)
    frame_kl = (t_logp.exp() * (t_logp - s_logp)).sum(-1) * (temperature * temperature)
    valid = CtcNet.mask(out_lengths, student_logits.shape[1])[:, 0]
    return (frame_kl * valid).sum(1) / denom


def letters_per_minute(data, hyps):
    """Invented letters (non-space characters of the greedy output) per minute of non-speech."""
    minutes = sum(f.shape[0] for f in data["feats"][:len(hyps)]) / 100 / 60
    return sum(len(h.replace(" ", "")) for h in hyps) / max(minutes, 1e-9)


def pick_device(name):
    """--device: cpu, cuda, or auto (cuda when torch sees one)."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA device")
    return torch.device(name)


def frame_logits(model, feats, norm=None):
    """Each utterance's logits [frames, vocab] (its valid frames only, on the CPU), in batches of 8, no
    gradients, on the model's device. norm(x, lengths) normalises raw features (eval_norm); None: they
    are stored normalised."""
    out = []
    device = next(model.parameters()).device
    with torch.no_grad():
        for i in range(0, len(feats), 8):
            idx = list(range(i, min(i + 8, len(feats))))
            x, lengths, _, _ = collate(feats, idx, [[0]] * len(feats))
            if norm is not None:
                x = norm(x, lengths)
            logits, out_len = model(x.to(device), lengths.to(device))
            logits, out_len = logits.cpu(), out_len.cpu()
            out += [logits[k, :int(out_len[k])] for k in range(len(idx))]
    return out


def evaluate(model, data, tokens, lang, limit=40, units="syllable", train_mode=None):
    model.eval()
    texts = data["texts"][:limit]
    hyps = [from_units(greedy(lg, lg.shape[0], tokens), units) for lg in frame_logits(model, data["feats"][:limit], data.get("norm"))]
    (train_mode or model.train)()
    if data.get("nonspeech"):
        return letters_per_minute(data, hyps), hyps
    return cer(texts, hyps, lang), hyps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--lang", required=True, choices=["am", "om", "ti"])
    ap.add_argument("--sets", required=True, help="comma list of work sets, NAME[:repeat]")
    ap.add_argument("--valid", default=None, help="comma list of held-out sets to monitor")
    ap.add_argument("--strip-punct", action="store_true")
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--kernel", type=int, default=11)
    ap.add_argument("--right-context", type=int, default=None,
                    help="frames each block's depthwise conv looks ahead (model.py); default symmetric. "
                         "With --init-onnx the shipped taps are realigned to it (model.realign_taps)")
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--max-frames", type=int, default=8000, help="padded input frames per batch")
    ap.add_argument("--minutes", type=float, required=True)
    ap.add_argument("--checkpoint-minutes", type=float, default=3)
    ap.add_argument("--keep-checkpoints", action="store_true", help="also keep every periodic checkpoint as checkpoint-<step>.pt")
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many steps as well (0: the time box alone)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", choices=["cpu", "cuda", "auto"], default="cpu", help="where the model trains (cuda: one GPU)")
    ap.add_argument("--synth-max-share", type=float, default=1.0, help="most synthetic utterances per batch (share)")
    ap.add_argument("--bootstrap-steps", type=int, default=0, help="first-epoch batches exempt from --synth-max-share")
    ap.add_argument("--select", default=None, help="valid set whose greedy CER picks best.pt")
    ap.add_argument("--units", choices=["syllable", "decomposed"], default="syllable",
                    help="CTC output units: Ethiopic syllables, or consonant + vowel-order mark (common.decompose); "
                         "decomposed output is recomposed before scoring")
    ap.add_argument("--length-filter", choices=["2L+1", "feasible"], default="2L+1",
                    help="drop utterances whose output frames are fewer than 2 x target + 1 (the v1/v2 recipe), "
                         "or only those CTC cannot align (target + repeats; needed for the longer decomposed targets)")
    ap.add_argument("--init", default=None, help="start from work/runs/<run>/checkpoint.pt (same vocabulary and shape)")
    ap.add_argument("--init-onnx", default=None, help="start from a shipped model folder's model.onnx + vocab.txt (onnx_weights.py)")
    ap.add_argument("--nonspeech-share", type=float, default=1.0, help="most non-speech clips (sets nonspeech_*) per batch (share)")
    ap.add_argument("--nonspeech-weight", type=float, default=1.0,
                    help="loss weight of empty-target rows (non-speech) against speech rows")
    ap.add_argument("--teacher-onnx", default=None, help="distil this shipped model folder (same vocabulary and frame rate)")
    ap.add_argument("--kd-weight", type=float, default=0.5, help="share of the distillation term in the loss")
    ap.add_argument("--kd-temperature", type=float, default=1.0)
    ap.add_argument("--kd-skip", default="", help="comma list of sets whose rows take CTC alone (non-speech sets always do)")
    ap.add_argument("--aux-sets", default=None, help="multitask: comma list of another language's work sets, NAME[:repeat]")
    ap.add_argument("--aux-every", type=int, default=3, help="every N-th step is an --aux-sets batch")
    ap.add_argument("--aux-weight", type=float, default=1.0, help="weight of the --aux-sets CTC loss")
    ap.add_argument("--trainable", default=None, help="comma list of parameter-name prefixes to train (the rest frozen)")
    ap.add_argument("--running-norm-share", type=float, default=0.0,
                    help="raw sets: share of rows normalised with the live stream's running statistics")
    ap.add_argument("--stream-stats", default=None, help="stream-stats.json of the running normalisation (with --running-norm-share)")
    a = ap.parse_args()

    torch.set_num_threads(a.threads)
    device = pick_device(a.device)
    torch.manual_seed(a.seed)
    np.random.seed(a.seed)
    random.seed(a.seed)
    rng = np.random.default_rng(a.seed)
    run_dir = os.path.join(WORK, "runs", a.name)
    os.makedirs(run_dir, exist_ok=True)
    log = open(os.path.join(run_dir, "log.jsonl"), "w")

    def note(**kv):
        kv["t_min"] = round((time.time() - t0) / 60, 2)
        print(json.dumps(kv, ensure_ascii=False), flush=True)
        log.write(json.dumps(kv, ensure_ascii=False) + "\n")
        log.flush()

    t0 = time.time()
    feats, texts, synth, nonspeech, kd_rows = [], [], [], [], []
    kd_skip = {x for x in a.kd_skip.split(",") if x}
    raw_sets = {}
    for spec in a.sets.split(","):
        name, _, rep = spec.partition(":")
        d = load(name)
        raw_sets[name] = d["raw"]
        for _ in range(int(rep or 1)):
            feats += d["feats"]
            texts += [to_units(target_text(t, a.strip_punct), a.units) for t in d["texts"]]
            synth += [name.startswith("synth_")] * len(d["feats"])
            nonspeech += [name.startswith("nonspeech_")] * len(d["feats"])
            kd_rows += [not name.startswith("nonspeech_") and name not in kd_skip] * len(d["feats"])
    if len(set(raw_sets.values())) > 1:
        raise SystemExit(f"sets stored raw and normalised cannot train together: {json.dumps(raw_sets)}")
    raw = next(iter(raw_sets.values()))
    stats = None
    if a.running_norm_share > 0:
        if not raw or not a.stream_stats:
            raise SystemExit("--running-norm-share needs sets stored with --raw-features and --stream-stats")
        stats = feature_norm.load_stream_stats(a.stream_stats)
    chars = sorted({ch for t in texts for ch in t if ch != " "})
    tokens = [BLANK, SPACE] + chars
    onnx_init = None
    if a.init_onnx:
        from onnx_weights import load_ctcnet
        from onnx_weights import KEEP
        onnx_model, onnx_tokens, onnx_init = load_ctcnet(
            a.init_onnx, dropout=a.dropout, right_context=KEEP if a.right_context is None else a.right_context)
        unknown = sorted(set(chars) - set(onnx_tokens))
        if unknown:  # encode() drops them; say so
            note(event="warning", unknown_units=len(unknown), examples="".join(unknown[:20]))
        tokens = onnx_tokens
    index = {t: i for i, t in enumerate(tokens)}
    targets = [encode(t, index) for t in texts]
    lengths = np.array([f.shape[0] for f in feats])
    keep = trainable_rows(targets, lengths, a.length_filter, nonspeech)
    feats = [feats[i] for i in keep]
    targets = [targets[i] for i in keep]
    synth = np.array([synth[i] for i in keep], dtype=bool)
    nonspeech = np.array([nonspeech[i] for i in keep], dtype=bool)
    kd_rows = np.array([kd_rows[i] for i in keep], dtype=bool)
    lengths = lengths[keep]
    valid = {}
    for v in (a.valid.split(",") if a.valid else []):
        d = load(v)
        valid[v] = {"feats": d["feats"], "texts": [target_text(t, a.strip_punct) for t in d["texts"]],
                    "nonspeech": v.startswith("nonspeech_"), "norm": eval_norm(d)}
        if stats is not None:  # the same set as the live stream normalises it
            valid[v + "@running"] = dict(valid[v], norm=eval_norm(d, stats))
    hours = lengths.sum() / 100 / 3600
    note(event="data", raw_features=raw, running_norm_share=a.running_norm_share, units=a.units, target_units=int(sum(len(t) for t in targets)), utterances=len(feats), dropped=len(texts) - len(keep), hours=round(float(hours), 2), vocab=len(tokens),
         nonspeech_clips=int(nonspeech.sum()), nonspeech_hours=round(float(lengths[nonspeech].sum() / 100 / 3600), 2))

    if onnx_init:
        model = onnx_model
        note(event="init_onnx", **onnx_init)
    else:
        model = CtcNet(len(tokens), dim=a.dim, blocks=a.blocks, kernel=a.kernel, dropout=a.dropout, right_context=a.right_context)
    frozen = [model.bn1, model.bn2] if onnx_init else []  # folded into sub1/sub2 by export: identities
    if a.trainable:
        prefixes = tuple(x for x in a.trainable.split(",") if x)
        for n_, p_ in model.named_parameters():
            p_.requires_grad_(n_.startswith(prefixes))
        frozen += [m for n_, m in model.named_modules()
                   if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.Dropout)) and not n_.startswith(prefixes)]
        note(event="trainable", prefixes=list(prefixes),
             params=sum(p_.numel() for p_ in model.parameters() if p_.requires_grad))

    def train_mode():
        model.train()
        for m in frozen:
            m.eval()
    if a.init:
        init = torch.load(os.path.join(WORK, "runs", a.init, "checkpoint.pt"), map_location="cpu")
        if init["tokens"] != tokens:
            raise SystemExit(f"--init {a.init}: vocabulary differs")
        model.load_state_dict(init["state"])
        note(event="init", run=a.init, step=init["step"], train_minutes=round(init["train_minutes"], 2))
    teacher = None
    if a.teacher_onnx:
        from onnx_weights import load_ctcnet
        teacher, teacher_tokens, teacher_info = load_ctcnet(a.teacher_onnx)
        if teacher_tokens != tokens:
            raise SystemExit(f"--teacher-onnx {a.teacher_onnx}: vocabulary differs from the student's")
        for p_ in teacher.parameters():
            p_.requires_grad_(False)
        note(event="teacher", **teacher_info, kd_weight=a.kd_weight, kd_temperature=a.kd_temperature,
             kd_rows=int(kd_rows.sum()), kd_skip=sorted(kd_skip))
    model.to(device)
    if teacher is not None:
        teacher.to(device)
    params = sum(p.numel() for p in model.parameters())
    note(event="model", params=params, config=model.config, device=str(device))
    aux = None
    if a.aux_sets:  # multitask: another language's rows through their own output layer on the shared encoder
        aux_feats, aux_texts = [], []
        for spec in a.aux_sets.split(","):
            name, _, rep_ = spec.partition(":")
            d = load(name)
            if d["raw"] != raw:
                raise SystemExit(f"--aux-sets {name}: stored {'raw' if d['raw'] else 'normalised'}, unlike --sets")
            for _ in range(int(rep_ or 1)):
                aux_feats += d["feats"]
                aux_texts += d["texts"]
        aux_tokens = [BLANK, SPACE] + sorted({ch for t in aux_texts for ch in t if ch != " "})
        aux_index = {t: i for i, t in enumerate(aux_tokens)}
        aux_targets = [encode(t, aux_index) for t in aux_texts]
        aux_len = np.array([f.shape[0] for f in aux_feats])
        aux_keep = trainable_rows(aux_targets, aux_len, a.length_filter, [False] * len(aux_targets))
        aux = {"feats": [aux_feats[i] for i in aux_keep], "targets": [aux_targets[i] for i in aux_keep],
               "lengths": aux_len[aux_keep], "tokens": aux_tokens, "queue": [], "steps": 0, "seconds": 0.0,
               "head": torch.nn.Conv1d(model.config["dim"], len(aux_tokens), 1).to(device)}
        note(event="aux_data", sets=a.aux_sets, utterances=len(aux_keep), dropped=len(aux_feats) - len(aux_keep),
             hours=round(float(aux["lengths"].sum()) / 100 / 3600, 2), vocab=len(aux_tokens), every=a.aux_every, weight=a.aux_weight)
    trained = [p_ for p_ in model.parameters() if p_.requires_grad] + ([] if aux is None else list(aux["head"].parameters()))
    opt = torch.optim.AdamW(trained, lr=a.lr, weight_decay=1e-3, betas=(0.9, 0.98))
    budget = a.minutes * 60
    step, epoch, last_ckpt, done = 0, 0, time.time(), False
    train_mode()
    audio_seconds = 0.0
    best = {"cer": float("inf"), "step": None}
    mix = {"utts": 0, "synth_utts": 0, "secs": 0.0, "synth_secs": 0.0, "max_share": 0.0}
    boot = {"utts": 0, "synth_utts": 0, "secs": 0.0, "synth_secs": 0.0, "max_share": 0.0}
    nonspeech_seen = {"utts": 0, "max_share": 0.0}
    running_seen = 0

    def on_cpu(state):
        return {k: v.detach().cpu() for k, v in state.items()}

    def save(tag):
        torch.save({"state": on_cpu(model.state_dict()), "config": model.config, "tokens": tokens, "lang": a.lang,
                    "strip_punct": a.strip_punct, "units": a.units, "step": step, "epoch": epoch, "train_minutes": (time.time() - t_train) / 60,
                    "args": vars(a), "hours": float(hours), "params": params, "init_onnx": onnx_init,
                    **({} if aux is None else {"aux_state": on_cpu(aux["head"].state_dict()), "aux_tokens": aux["tokens"]})},
                   os.path.join(run_dir, f"{tag}.pt"))

    def aux_step():
        """One batch of the --aux-sets through the encoder and their own output layer; returns its loss."""
        if not aux["queue"]:
            aux["queue"] = batches(aux["lengths"], a.max_frames, rng, sort_first=False)
        idx = aux["queue"].pop()
        x, xl, y, yl = collate(aux["feats"], idx, aux["targets"])
        if raw:
            x, _ = feature_norm.normalize_rows(x, xl, None, None)
        if step >= a.warmup:
            spec_augment(x, xl, rng)
        x, xl, y, yl = x.to(device), xl.to(device), y.to(device), yl.to(device)
        states, ol = model.encode(x, xl)
        logp = torch.log_softmax(CtcNet.head(aux["head"], states), -1).transpose(0, 1)
        per_utt = torch.nn.functional.ctc_loss(logp, y, ol, yl, blank=0, reduction="none", zero_infinity=True)
        loss = a.aux_weight * (per_utt / yl.clamp_min(1)).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 5.0)
        opt.step()
        aux["steps"] += 1
        aux["seconds"] += float(xl.sum()) / 100
        return float(loss)

    def validate(event, limit):
        """Scores every held-out set on its first limit(name, set) utterances, logs it as `event`, and
        saves best.pt when the --select set's CER is the lowest yet."""
        scores = {}
        for v, d in valid.items():
            c, hyps = evaluate(model, d, tokens, a.lang, limit=limit(v, d), units=a.units, train_mode=train_mode)
            scores[v] = c
            note(event=event, set=v, step=step, **{"letters_per_min" if d["nonspeech"] else "cer": round(c, 4)},
                 example=hyps[0][:80], ref=d["texts"][0][:80])
        picked = [scores[v] for v in (a.select, f"{a.select}@running") if v in scores]
        if picked and sum(picked) / len(picked) < best["cer"]:
            c = sum(picked) / len(picked)
            best.update(cer=c, step=step)
            save("best")
            note(event="best", set=a.select, step=step, cer=round(c, 4))

    t_train = time.time()
    if a.init or a.init_onnx:  # the starting point on the held-out sets (logged; not a best.pt candidate)
        for v, d in valid.items():
            c, _ = evaluate(model, d, tokens, a.lang, limit=1000, units=a.units, train_mode=train_mode)
            note(event="start", set=v, step=0, **{"letters_per_min" if d["nonspeech"] else "cer": round(c, 4)})
        t_train = time.time()
    while not done:
        epoch_batches = batches(lengths, a.max_frames, rng, sort_first=(epoch == 0 and not a.init_onnx))
        if a.synth_max_share < 1.0:
            free = a.bootstrap_steps if epoch == 0 else 0
            epoch_batches = epoch_batches[:free] + cap_synthetic(epoch_batches[free:], synth, a.synth_max_share, rng)
        if a.nonspeech_share < 1.0:
            epoch_batches = cap_synthetic(epoch_batches, nonspeech, a.nonspeech_share, rng, stochastic=True)
        for idx in epoch_batches:
            elapsed = time.time() - t_train
            if elapsed >= budget or (a.max_steps and step >= a.max_steps):
                done = True
                break
            warm = min(1.0, (step + 1) / a.warmup)
            lr = a.lr * warm * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, elapsed / budget))))
            for g in opt.param_groups:
                g["lr"] = lr
            if aux is not None and step % a.aux_every == a.aux_every - 1:
                aux_loss = aux_step()
                step += 1
                if step % 25 == 0:
                    note(event="aux_step", step=step, aux_loss=round(aux_loss, 3), lr=round(lr, 6))
                if time.time() - t_train >= budget:
                    done = True
                    break
            x, xl, y, yl = collate(feats, idx, targets)
            kd_mask = torch.from_numpy(kd_rows[idx])
            distil = teacher is not None and bool(kd_mask.any())
            x_teacher = x
            if raw:  # the student's rows: per utterance, or running for a drawn share; the teacher's: per utterance
                running_rows = torch.from_numpy(rng.random(len(idx)) < a.running_norm_share) if stats is not None else None
                x, x_teacher = feature_norm.normalize_rows(x, xl, running_rows, stats)
                running_seen += 0 if running_rows is None else int(running_rows.sum())
            if distil:
                with torch.no_grad():  # the teacher reads its rows before SpecAugment (padding-invariant: same logits as in the batch)
                    teacher_logits, _ = teacher(x_teacher[kd_mask].to(device), xl[kd_mask].to(device))
            if step >= a.warmup:
                spec_augment(x, xl, rng)
            x, xl, y, yl, kd_mask = x.to(device), xl.to(device), y.to(device), yl.to(device), kd_mask.to(device)
            logits, ol = model(x, xl)
            logp = torch.log_softmax(logits, -1).transpose(0, 1)
            per_utt = torch.nn.functional.ctc_loss(logp, y, ol, yl, blank=0, reduction="none", zero_infinity=True)
            # speech: per target unit (CTCLoss "mean"); empty targets: per 4 output frames (about
            # one syllable's worth of frames), so a long non-speech clip does not outweigh a batch
            denom = torch.where(yl > 0, yl, torch.div(ol, 4, rounding_mode="floor")).clamp_min(1)
            per_row = per_utt / denom * torch.where(yl > 0, 1.0, a.nonspeech_weight)
            kd_value = None
            if distil:
                row_kl = distillation_per_row(logits[kd_mask], teacher_logits, ol[kd_mask], denom[kd_mask], a.kd_temperature)
                kd_value = float(row_kl.mean())
                kl = torch.zeros_like(per_row).masked_scatter(kd_mask, row_kl)
                per_row = torch.where(kd_mask, (1 - a.kd_weight) * per_row + a.kd_weight * kl, per_row)
            loss = per_row.mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 5.0)
            opt.step()
            audio_seconds += float(xl.sum()) / 100
            ns = int(synth[idx].sum())
            acc = boot if epoch == 0 and step < a.bootstrap_steps else mix
            acc["utts"] += len(idx)
            acc["synth_utts"] += ns
            acc["secs"] += float(xl.sum()) / 100
            acc["synth_secs"] += float(lengths[idx][synth[idx]].sum()) / 100
            acc["max_share"] = max(acc["max_share"], ns / len(idx))
            nonspeech_seen["utts"] += int(nonspeech[idx].sum())
            nonspeech_seen["max_share"] = max(nonspeech_seen["max_share"], float(nonspeech[idx].mean()))
            step += 1
            if step % 25 == 0:
                note(event="step", step=step, epoch=epoch, loss=round(float(loss), 3), lr=round(lr, 6),
                     x_realtime=round(audio_seconds / (time.time() - t_train), 1),
                     **({} if kd_value is None else {"kd": round(kd_value, 3)}))
            if time.time() - last_ckpt >= a.checkpoint_minutes * 60:
                last_ckpt = time.time()
                save("checkpoint")
                if a.keep_checkpoints:
                    save(f"checkpoint-{step}")
                validate("valid", lambda v, d: 1000 if v.split("@")[0] == a.select or d["nonspeech"] else 40)
        epoch += 1
    save("checkpoint")
    if a.keep_checkpoints:
        save(f"checkpoint-{step}")
    validate("final", lambda v, d: 1000)
    for tag, m in (("mix", mix), ("mix_bootstrap", boot)):
        note(event=tag, steps=a.bootstrap_steps if tag == "mix_bootstrap" else step - a.bootstrap_steps,
             synthetic_utterance_share=round(m["synth_utts"] / max(m["utts"], 1), 3),
             synthetic_audio_share=round(m["synth_secs"] / max(m["secs"], 1e-9), 3),
             max_synthetic_share_in_a_batch=round(m["max_share"], 3))
    note(event="nonspeech_mix", utterance_share=round(nonspeech_seen["utts"] / max(mix["utts"] + boot["utts"], 1), 3),
         max_share_in_a_batch=round(nonspeech_seen["max_share"], 3))
    note(event="running_norm", rows=running_seen, share=round(running_seen / max(mix["utts"] + boot["utts"], 1), 3))
    if aux is not None:
        note(event="aux_done", steps=aux["steps"], audio_hours_seen=round(aux["seconds"] / 3600, 2))
    note(event="done", steps=step, audio_hours_seen=round(audio_seconds / 3600, 2), epochs=epoch, train_minutes=round((time.time() - t_train) / 60, 2),
         best_step=best["step"], best_cer=None if best["step"] is None else round(best["cer"], 4))


if __name__ == "__main__":
    main()
