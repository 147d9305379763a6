#!/usr/bin/env python3
"""Greedy CER of shipped model folders on held-out work sets with each feature normalisation the
gateway applies: per utterance (REST) and running (a live stream: feature_norm.running with the
model's own stream-stats.json), whole utterances. Non-speech sets (nonspeech_*) report invented
letters a minute instead. The sets must be stored raw (prepare_data.py / prepare_nonspeech.py
--raw-features). An empty transcript reads 100% CER and 0 letters a minute.

Usage: /usr/bin/python3 training/asr/normalisation_cer.py models/small-am-stream-v4 models/small-am-v2 ...
         [--sets alffa_spk_val,alffa_spk_test,nonspeech_val]"""
import argparse
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import feature_norm  # noqa: E402
import train as T  # noqa: E402
from onnx_weights import load_ctcnet  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+", help="model folders with stream-stats.json")
    ap.add_argument("--sets", default="alffa_spk_val,alffa_spk_test,nonspeech_val")
    a = ap.parse_args()
    torch.set_num_threads(1)
    sets = {name: T.load(name) for name in a.sets.split(",")}
    for name, d in sets.items():
        if not d["raw"]:
            raise SystemExit(f"{name} is stored normalised: prepare it with --raw-features")
    for folder in a.models:
        model, tokens, info = load_ctcnet(folder)
        model.eval()
        stats = feature_norm.load_stream_stats(os.path.join(folder, "stream-stats.json"))
        for name, d in sets.items():
            data = {"feats": d["feats"], "texts": [T.target_text(t, False) for t in d["texts"]], "nonspeech": name.startswith("nonspeech_")}
            row = {"model": os.path.basename(os.path.normpath(folder)), "set": name,
                   "figure": "letters_per_min" if data["nonspeech"] else "cer_percent"}
            for label, st in (("per_utterance", None), ("running", stats)):
                value, _ = T.evaluate(model, dict(data, norm=T.eval_norm(d, st)), tokens, info["language"], limit=len(d["feats"]), train_mode=model.eval)
                row[label] = round(value if data["nonspeech"] else 100 * value, 2)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
