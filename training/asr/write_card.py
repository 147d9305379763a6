#!/usr/bin/env python3
"""Writes models/<name>/README.md (the model card) from what was measured: the export record
(work/runs/<run>/export.json: training args, steps, minutes, parameters) and evaluate.ts's JSON
(CER per held-out set, real-time factor). Nothing in a card is typed in by hand except --about
and --limits.

Usage: /usr/bin/python3 training/asr/write_card.py --model models/small-am-v1 --run small-am-v1 \
         --eval training/asr/results/small-am-v1.json --about "..." --limits "..."
       [--heldout "LABEL=results/x.json" ...]  (held-out-decoding.ts results: a table of greedy,
         beam and beam + LM per speaker-group set, and the LM's share of the gain)
       [--served results/x-served.json]  (evaluate.ts --decoding manifest: CER and RTF as served)
       [--reproduce "commands"]  (replaces the generated reproduce block)
"""
import argparse
import json
import os

SET_DESCRIPTIONS = {
    "alffa_val": "ALFFA Amharic, real read news speech: the 100 utterances with the highest ids (held out from every model)",
    "alffa_spk_val": "ALFFA Amharic, real read news speech of speaker groups 041, 091, 131 (validation: the checkpoint and the decoding weights were picked here); no utterance of these speakers was trained on",
    "alffa_spk_test": "ALFFA Amharic, real read news speech of speaker groups 021, 231 (test: nothing was tuned here); no utterance of these speakers was trained on",
    "synth_am_test_clean": "synthetic Amharic (espeak-ng default voice, no augmentation), HornMT lines 1900-2029 (text never trained on)",
    "synth_am_test_aug": "synthetic Amharic with the training augmentations (voices, speed, pitch, noise, reverb, telephone band, Opus), HornMT lines 1900-2029",
    "synth_om_test_clean": "synthetic Oromo (espeak-ng default voice, no augmentation), HornMT lines 1900-2029 (text never trained on)",
    "synth_om_test_aug": "synthetic Oromo with the training augmentations, HornMT lines 1900-2029",
    "synth_ti_test_clean": "synthetic Tigrinya (espeak-ng default voice, no augmentation), HornMT lines 1900-2029 (text never trained on)",
    "synth_ti_test_aug": "synthetic Tigrinya with the training augmentations, HornMT lines 1900-2029",
    "synth_om_val": "synthetic Oromo, HornMT lines 1800-1899 (taken out of the v2 training text): 60 clean + 60 augmented utterances; the checkpoint and the decoding weights were picked here",
    "synth_ti_val": "synthetic Tigrinya, HornMT lines 1800-1899 (taken out of the v2 training text): 60 clean + 60 augmented utterances; the checkpoint and the decoding weights were picked here",
}

LANG_NAMES = {"am": "Amharic", "om": "Oromo", "ti": "Tigrinya"}

SOURCES = {
    "alffa": "- **ALFFA_PUBLIC Amharic** (getalp), MIT licence: 900 of the 1,000 shared read-speech utterances "
             "(1.4 h) as real training speech; the ALFFA train transcript list (minus the 100 validation sentences) as text for synthetic speech.",
    "alffa-spk": "- **ALFFA_PUBLIC Amharic** (getalp), MIT licence: the 758 utterances (71 min) of the 15 training speaker groups "
                 "(`training/common/splits/alffa-spk-train.txt`) as real training speech, clean and in 5 perturbed copies; the ALFFA train "
                 "transcript list minus every sentence read by the validation and test groups as text for synthetic speech.",
    "enh": "- **ENH Amharic news corpus** (geezorg), CC0 1.0: the text of the character 7-gram LM the gateway decodes with "
           "(`models/lm/am-char-7gram.bin`, with ALFFA transcripts (MIT), HornMT and AfriSenti (CC BY 4.0); see small-am-v1's card for its build).",
    "hornmt": "- **HornMT** (Lesan AI), CC BY 4.0: news sentences, lines 0-1899 as text for synthetic training speech; lines 1900-2029 only in the synthetic held-out sets.",
    "afrisenti": "- **AfriSenti SemEval-2023**, CC BY 4.0: tweets as text for synthetic training speech.",
    "espeak": "- **espeak-ng** 1.51 (Debian), GPL-3.0: the speech synthesiser that voiced the text (the `am` and `om` voices of Debian's package).",
    "espeak-ti": "- **espeak-ng** 1.51 (Debian), GPL-3.0, with the Tigrinya voice data compiled from the TigrinyaNLP espeak-ng fork's rules (GPL-3.0, data only): the speech synthesiser that voiced the text.",
}


def heldout_section(specs, served_path):
    """Markdown: greedy / beam / beam + LM per held-out speaker set, from held-out-decoding.ts JSON."""
    if not specs and not served_path:
        return ""
    synthetic = specs and all("work_sets" in json.load(open(x.partition("=")[2], encoding="utf-8")) for x in specs)
    if synthetic:
        lines = ["## Decoding on the synthetic held-out sets", "",
                 "Scored by `training/asr/held-out-decoding.ts --work-sets` (the gateway's feature code,",
                 "onnxruntime-node and its CTC decoders; spaces and punctuation removed). There is no real speech",
                 "of this language here: every set is espeak-ng speech of text never trained on. Decoding weights",
                 "(LM weight alpha, per-character bonus beta, beam) were tuned on `val` (HornMT lines 1800-1899)",
                 "only; the test figures are untuned.", "",
                 "| model | subset | set | utterances | greedy | beam, no LM | beam + LM | gain: beam alone / the LM (points) |",
                 "|---|---|---|---|---|---|---|---|"]
    else:
        lines = ["## Speakers it never heard", "",
             "Scored by `training/asr/held-out-decoding.ts` (the gateway's feature code, onnxruntime-node and",
             "its CTC decoders; spaces and punctuation removed, ALFFA homophone merge). Decoding weights (LM",
             "weight alpha, per-character bonus beta, beam) were tuned on the validation groups only; test",
             "figures are untuned. `new-sentences` keeps the held-out utterances whose sentence no training",
             "speaker reads (ALFFA speakers read overlapping sentence lists).", "",
             "| model | subset | set (groups) | utterances | greedy | beam, no LM | beam + LM | gain: beam alone / the LM (points) |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for spec in specs:
        label, _, path = spec.partition("=")
        r = json.load(open(path, encoding="utf-8"))
        for name, s in r["sets"].items():
            f = {x["decoder"].split(" ")[0] if "LM" not in x["decoder"] else "lm": x for x in s["figures"]}
            g, b, l = f["greedy"]["cer"], f["beam"]["cer"], f["lm"]["cer"] if "lm" in f else None
            gain = f"{(g - b) * 100:+.1f} / {(b - l) * 100:+.1f}" if l is not None else "-"
            lines.append(f"| {label.split(' (')[0]} | {r['subset']} | {name} ({', '.join(s['groups'])}) | {s['utterances']} | {g * 100:.1f}% | "
                         f"{b * 100:.1f}% | {'**%.1f%%**' % (l * 100) if l is not None else '-'} | {gain} |")
        w = r["weights"]
        notes.append(f"- {label}, {r['subset']}: beam {w['beam']}, alpha {w['alpha']}, beta {w['beta']} ({w['tuned_on']}); LM "
                     f"`{os.path.basename(r['lm']['file']) if r.get('lm') else '-'}`; `{r['command']}`")
    lines.append("")
    lines += notes
    lines.append("")
    if served_path:
        sv = json.load(open(served_path, encoding="utf-8"))
        d = sv.get("decoding", {})
        lines.append(f"As served (evaluate.ts `--decoding manifest`: {d.get('kind')} {d.get('beamWidth', '')}"
                     f"{' + LM' if d.get('lm') else ''}, through the inference pool, one request at a time): "
                     + "; ".join(f"`{n}` {x['cer'] * 100:.1f}% CER, RTF {x['rtf']:.3f}" for n, x in sv["sets"].items())
                     + f"; overall RTF **{sv['rtf']:.3f}** on one core.")
        lines.append("")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--about", required=True)
    ap.add_argument("--limits", required=True)
    ap.add_argument("--heldout", action="append", default=[], help="LABEL=held-out-decoding.ts JSON")
    ap.add_argument("--served", default=None, help="evaluate.ts --decoding manifest JSON")
    ap.add_argument("--reproduce", default=None)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    exp = json.load(open(os.path.join(os.path.dirname(here), "work", "runs", a.run, "export.json")))
    ev = json.load(open(a.eval))
    man = json.load(open(os.path.join(a.model, "manifest.json"), encoding="utf-8"))
    lang = man["language"]
    args = exp["args"]
    cfg = exp["config"]
    onnx_bytes = os.path.getsize(os.path.join(a.model, "model.onnx"))
    sets = args["sets"]
    init = f" --init {args['init']}" if args.get("init") else ""
    cmd = (f"nice -n 10 /usr/bin/python3 training/asr/train.py --name {args['name']}{init} --lang {args['lang']} "
           f"--sets {sets}{' --valid ' + args['valid'] if args.get('valid') else ''}{' --strip-punct' if args['strip_punct'] else ''} "
           f"--dim {args['dim']} --blocks {args['blocks']} --kernel {args['kernel']} --lr {args['lr']} --warmup {args['warmup']} "
           f"--max-frames {args['max_frames']} --minutes {args['minutes']:g} --checkpoint-minutes {args['checkpoint_minutes']:g} --seed {args['seed']}")
    sources = []
    if "alffa_spk" in sets:
        sources.append(SOURCES["alffa-spk"])
    elif "alffa" in sets or lang == "am":
        sources.append(SOURCES["alffa"])
    v2_synth = "_train_v2" in sets
    hornmt = SOURCES["hornmt"]
    if v2_synth:
        hornmt = hornmt.replace("lines 0-1899 as text for synthetic training speech;",
                                "lines 0-1799 as text for synthetic training speech; lines 1800-1899 only in the validation set (`synth_%s_val`);" % lang)
    sources += [hornmt, SOURCES["afrisenti"], SOURCES["espeak-ti" if lang == "ti" else "espeak"]]

    rows = []
    for name, r in ev["sets"].items():
        rows.append(f"| `{name}` | {SET_DESCRIPTIONS.get(name, name)} | {r['utterances']} | {r['audio_seconds'] / 60:.1f} min | "
                    f"**{r['cer'] * 100:.1f}%**{' (%.1f%% ignoring case)' % (r['cer_ignoring_case'] * 100) if 'cer_ignoring_case' in r else ''} | {r['rtf']:.3f} |")
    marks = [f"`{n}`: {r['sentence_marks']['output']} ። in the output, {r['sentence_marks']['reference']} in the references"
             for n, r in ev["sets"].items() if 'sentence_marks' in r and lang == "ti"]
    marks_line = ("Sentence marks (greedy output vs references): " + "; ".join(marks) + ".\n") if marks else ""
    heldout = heldout_section(a.heldout, a.served)
    if man["decoding"]["default"] == "beam":
        lm = man.get("lm")
        decoding_line = (f"decoded by CTC prefix beam search ({man['decoding']['beam_width']})"
                         + (f" with the character {lm['order']}-gram LM `{lm['file']}` (alpha {lm['alpha']}, beta {lm['beta']}; manifest)" if lm else ""))
    else:
        decoding_line = "decoding `greedy` by default"
    if man.get("lm") and lang == "am":
        sources.append(SOURCES["enh"])
    if a.reproduce:
        reproduce = a.reproduce
    else:
        reproduce = f"""nice -n 10 /usr/bin/python3 training/asr/prepare_data.py --lang {lang} --seed 1   # --lang am also builds the ALFFA sets
{cmd}
/usr/bin/python3 training/asr/export.py --run {a.run} --out models/{man['name']} --description "{man['description']}"
npx tsx training/asr/evaluate.ts --model models/{man['name']} {' '.join('--set ' + s for s in ev['sets'])} --out training/asr/results/{man['name']}.json"""
    real_aug = ""
    if "alffa_spk_train_aug" in sets:
        real_aug = """Real speech: every training utterance once clean and in 5 perturbed copies
(`prepare_data.py --split speaker`, seeded): speed 0.9 / 1.1 / 1.0 by resampling (tempo and pitch
together), vocal tract length perturbation (the mel filterbank read through a piecewise-linear
frequency warp, alpha 0.9-1.1, every copy), tempo 0.9-1.1 by resampling the feature frames (pitch
kept, half the copies), and in 70% of the copies a channel: reverberation (30%), 8 kHz telephone
band (20%), noise at 8-30 dB SNR (50%), low-bitrate Opus round trip (20%). SpecAugment (2
frequency masks, time masks) on every batch after the warm-up. Synthetic utterances are at most
{share:.0%} of the utterances of every batch (`--synth-max-share`).

""".format(share=args.get("synth_max_share", 1.0))
    synth_v2 = ("; then, on the features, vocal tract length perturbation (the mel filterbank through a random "
                "frequency warp, alpha 0.9-1.1, every utterance) and tempo 0.9-1.1 (half of them); SpecAugment on every batch "
                "after the warm-up") if v2_synth else ""
    examples = []
    for name, r in ev["sets"].items():
        for ex in r["examples"][:2]:
            examples.append(f"- `{name}`\n  - reference: {ex['ref']}\n  - output:    {ex['hyp']}")
    out = f"""# {man['name']}

{man['description']}

{a.about}

| | |
|---|---|
| language | {LANG_NAMES[lang]} (`{lang}`) |
| output | {man['output']['script']} script, casing `{man['output']['casing']}`, punctuation {'emitted (sentence-final ። and ፣)' if man['output']['punctuation'] else 'not emitted'} |
| units | {exp['vocab_size']} CTC tokens (`vocab.txt`: `<blank>`, `|` word delimiter, then the characters seen in training) |
| architecture | log-mel 80 x 100 fps → 2 strided Conv1d (4x subsampling, 25 frames/s, 40 ms) → {cfg['blocks']} residual depthwise-separable Conv1d blocks (width {cfg['dim']}, kernel {cfg['kernel']}, BatchNorm, ReLU) → linear CTC head; every layer masked to the row's valid length (padding-invariant) |
| parameters | {exp['params']:,} |
| ONNX size | {onnx_bytes / 1e6:.2f} MB (float32, opset 13) |
| input | `features` float32 [batch, time, 80] log-mel computed by the gateway from `manifest.json` (`input` block), `lengths` int64 [batch] |
| output | `logits` float32 [batch, frames, {exp['vocab_size']}], `out_lengths` int64 [batch]; {decoding_line} |
| training | {exp['train_minutes'] + ev.get('earlier_train_minutes', 0):g} min{' (%g + %g min continuation from its checkpoint)' % (ev['earlier_train_minutes'], exp['train_minutes']) if 'earlier_train_minutes' in ev else ''} on {'one CPU thread' if args.get('threads', 1) == 1 else '%d CPU threads' % args['threads']} (`torch.set_num_threads({args.get('threads', 1)})`, `nice -n 10`) of a shared 2-core x86-64 VM, no GPU;{' started from the shipped ' + os.path.basename(str(args['init_onnx'])) + ' (`--init-onnx`);' if args.get('init_onnx') else ''} {exp['step'] + ev.get('earlier_steps', 0)} steps, {exp['epoch']}{' (+ the first run)' if 'earlier_steps' in ev else ''} full passes over {exp['hours']} h of (repeated) training audio; seed {args['seed']} |
| real-time factor | **{ev['rtf']:.3f}** on one core (onnxruntime-node, 1 intra-op thread, features included, one request at a time) |

## Evaluation

Measured by `training/asr/evaluate.ts` through the gateway's own runtime (model loader,
inference pool, log-mel features, greedy CTC decoder). CER = edits / reference characters after
removing spaces and punctuation{', with ALFFA homophone letters merged (ሐ/ኀ→ሀ, ሠ→ሰ, ዐ→አ, ፀ→ጸ) on both sides' if lang == 'am' else ''}.
Greedy decoding, no language model. The trivial baseline, an empty transcript, scores 100% on every set.

| set | what | utterances | audio | CER | RTF |
|---|---|---|---|---|---|
{chr(10).join(rows)}

{marks_line}
Examples (first utterances of each set):

{chr(10).join(examples)}

{heldout}## Training data and licences

{chr(10).join(sources)}

{real_aug}Synthetic speech: word windows of 1-16 words cut from the text, voiced with random espeak-ng
voice variants, speed 110-230 wpm, pitch 15-90, then augmented (silence padding, reverberation
30%, 8 kHz telephone band 15%, white/pink/brown noise at 5-30 dB SNR 50%, gain, low-bitrate Opus
round trip 6%){synth_v2}. Words with digits, Ge'ez numerals or another script are dropped from the text
before synthesis, so the model never emits numerals.

## Reproduce

```
{reproduce}
```

The run is seeded, but it is time-boxed (`--minutes`): the number of steps, and so the weights,
depend on the machine's speed.

## What it cannot do

{a.limits}
"""
    with open(os.path.join(a.model, "README.md"), "w", encoding="utf-8") as f:
        f.write(out)
    print(f"wrote {os.path.join(a.model, 'README.md')}")


if __name__ == "__main__":
    main()
