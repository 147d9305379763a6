#!/usr/bin/env python3
"""Builds the tiny UNTRAINED test models under test/fixtures/models/ (seeded, deterministic).

They exist to exercise the model contract of docs/model-format.md end to end (manifest
loading, dynamic batch and time axes, lengths, batching in the inference pool, CTC decoding,
language-id plumbing). Their weights are random: they recognise nothing, and nothing may
report accuracy for them.

  tiny-ctc      waveform [batch, samples] + lengths -> logits [batch, frames, 32], stride 320
  tiny-ctc-mel  log-mel  [batch, frames, 80] + lengths -> logits [batch, frames/2, 32]
  tiny-lid      waveform [batch, samples] + lengths -> logits [batch, 3] (am, om, ti)

Every network uses unpadded convolutions and masked pooling, so a valid output frame only
sees valid input: padding a row inside a batch does not change its result.

Usage: /usr/bin/python3 scripts/make-tiny-model.py [out_dir]   (torch 1.13, CPU)
       /usr/bin/python3 scripts/make-tiny-model.py --bench-model <dir>
         writes one UNTRAINED model of realistic size (conv front end + 2-layer BiGRU, 1.3 M
         parameters, the compute profile of the planned small models) for throughput benchmarks; not committed.
"""
import json
import os
import sys

import torch
from torch import nn

SEED = 20240611
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = sys.argv[1] if len(sys.argv) == 2 else os.path.join(ROOT, "test", "fixtures", "models")
sys.path.insert(0, os.path.join(ROOT, "training", "common"))
from common import FEATURES  # noqa: E402

# tiny-ctc-mel's input: the training log-mel features (training/common/common.py) less the settings
# it leaves at the manifest's defaults (mel_norm none, center true, power 2), with a lower floor.
TINY_MEL_FEATURES = {**{k: v for k, v in FEATURES.items() if k not in ("mel_norm", "center", "power")}, "log_floor": 1e-10}

# <blank>, the word delimiter, then a handful of Ethiopic syllables and Latin letters.
VOCAB = ["<blank>", "|"] + list("ሀለሐመሠረሰሸቀበተቸነአከወዘየደገጠጰጸፈፐ") + list("aeiou")
assert len(VOCAB) == 32, len(VOCAB)

# (kernel, stride) of the waveform front end: receptive field 400 samples, stride 320.
WAVE_CONVS = [(10, 5), (8, 4), (4, 4), (4, 4)]


def conv_out_len(lengths, convs):
    for kernel, stride in convs:
        lengths = torch.div(lengths - kernel, stride, rounding_mode="floor") + 1
        lengths = torch.clamp(lengths, min=0)
    return lengths


def valid_mask(lengths, frames):
    steps = torch.arange(frames, device=lengths.device).unsqueeze(0)
    return (steps < lengths.unsqueeze(1)).to(torch.float32)


class WaveFrontEnd(nn.Module):
    def __init__(self, channels=32):
        super().__init__()
        layers = []
        cin = 1
        for kernel, stride in WAVE_CONVS:
            layers += [nn.Conv1d(cin, channels, kernel, stride), nn.GELU()]
            cin = channels
        self.net = nn.Sequential(*layers)

    def forward(self, audio, lengths):
        feats = self.net(audio.unsqueeze(1)).transpose(1, 2)  # [B, F, C]
        return feats, conv_out_len(lengths, WAVE_CONVS)


class TinyWaveCtc(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = WaveFrontEnd()
        self.head = nn.Linear(32, len(VOCAB))

    def forward(self, audio, lengths):
        feats, out_lengths = self.front(audio, lengths)
        return self.head(feats), out_lengths


class TinyMelCtc(nn.Module):
    def __init__(self, n_mels=80):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, 48, kernel_size=3, stride=2)
        self.head = nn.Linear(48, len(VOCAB))

    def forward(self, features, lengths):
        x = torch.relu(self.conv(features.transpose(1, 2))).transpose(1, 2)
        return self.head(x), conv_out_len(lengths, [(3, 2)])


class TinyLid(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = WaveFrontEnd(channels=16)
        self.head = nn.Linear(16, 3)

    def forward(self, audio, lengths):
        feats, out_lengths = self.front(audio, lengths)
        mask = valid_mask(out_lengths, feats.shape[1]).unsqueeze(2)
        pooled = (feats * mask).sum(1) / torch.clamp(out_lengths, min=1).unsqueeze(1).to(torch.float32)
        return self.head(pooled)


def sharpen(model, gain=3.0, blank_bias=None):
    """Scales the random weights so the outputs vary with the input (at default init they
    collapse onto the head's bias), and optionally biases the CTC blank so silence decodes
    to nothing. The networks stay random: they recognise nothing."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, (nn.Conv1d, nn.Linear)):
                module.weight.mul_(gain)
        if blank_bias is not None:
            model.head.bias.zero_()
            model.head.bias[0] = blank_bias
    return model


def export(model, example, path, output_names, dynamic_axes):
    model.eval()
    torch.onnx.export(
        model,
        example,
        path,
        input_names=["audio", "lengths"],
        output_names=output_names,
        dynamic_axes=dynamic_axes,
        opset_version=14,
        do_constant_folding=True,
    )


WAVE_INPUT = {"kind": "waveform", "sample_rate": 16000, "normalize": "zero_mean_unit_var"}
ETHIOPIC_OUTPUT = {"script": "ethiopic", "casing": "none", "punctuation": False}


def ctc_manifest(name, language, description, model_input, output, **extra):
    """manifest.json of a CTC model folder (docs/model-format.md): VOCAB, blank 0, '|' between words, stride 320."""
    return {
        "schema_version": 1,
        "name": name,
        "language": language,
        "description": description,
        "onnx": "model.onnx",
        "input": model_input,
        "io": {"audio": "audio", "lengths": "lengths", "logits": "logits", "out_lengths": "out_lengths"},
        "frame_stride_samples": 320,
        "vocabulary": "vocab.txt",
        "blank_id": 0,
        "word_delimiter": "|",
        "output": output,
        **extra,
    }


def write_folder(name, model, example, manifest, output_names, dynamic_axes, vocab=True):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    export(model, example, os.path.join(folder, "model.onnx"), output_names, dynamic_axes)
    if vocab:
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(VOCAB) + "\n")
    with open(os.path.join(folder, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(os.path.join(folder, "README.md"), "w", encoding="utf-8") as f:
        f.write(
            f"# {name}\n\nUNTRAINED test model built by `scripts/make-tiny-model.py` (seed {SEED}).\n"
            "Random weights: it exercises the model contract and the inference pipeline and\n"
            "recognises nothing. Never ship it or report accuracy for it.\n"
        )


class BenchGruCtc(nn.Module):
    """Compute profile of the planned small models: conv front end (stride 320) + 2-layer BiGRU."""

    def __init__(self, hidden=192):
        super().__init__()
        self.front = WaveFrontEnd(channels=128)
        self.rnn = nn.GRU(128, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, len(VOCAB))

    def forward(self, audio, lengths):
        feats, out_lengths = self.front(audio, lengths)
        x, _ = self.rnn(feats)
        return self.head(x), out_lengths


def write_bench_model(folder):
    torch.manual_seed(SEED)
    model = BenchGruCtc()
    params = sum(p.numel() for p in model.parameters())
    global OUT
    OUT = os.path.dirname(os.path.abspath(folder))
    name = os.path.basename(os.path.abspath(folder))
    write_folder(
        name,
        model,
        (torch.randn(2, 16000) * 0.1, torch.tensor([16000, 12000], dtype=torch.int64)),
        ctc_manifest(
            name,
            "am",
            "UNTRAINED benchmark model (random conv + BiGRU, %d parameters): throughput only, recognises nothing" % params,
            WAVE_INPUT,
            ETHIOPIC_OUTPUT,
        ),
        ["logits", "out_lengths"],
        {"audio": {0: "batch", 1: "samples"}, "lengths": {0: "batch"}, "logits": {0: "batch", 1: "frames"}, "out_lengths": {0: "batch"}},
    )
    print(folder, params, "parameters")


UNTRAINED = "UNTRAINED test model (random weights, seed %d): exercises the pipeline, recognises nothing" % SEED


def main():
    torch.manual_seed(SEED)
    wave_axes = {"audio": {0: "batch", 1: "samples"}, "lengths": {0: "batch"}}
    ctc_axes = dict(wave_axes, logits={0: "batch", 1: "frames"}, out_lengths={0: "batch"})
    example_wave = (torch.randn(2, 16000) * 0.1, torch.tensor([16000, 12000], dtype=torch.int64))

    write_folder(
        "tiny-ctc",
        sharpen(TinyWaveCtc(), blank_bias=2.0),
        example_wave,
        ctc_manifest("tiny-ctc", "am", UNTRAINED, WAVE_INPUT, ETHIOPIC_OUTPUT, decoding={"default": "greedy"}),
        ["logits", "out_lengths"],
        ctc_axes,
    )

    mel_axes = {"audio": {0: "batch", 1: "frames"}, "lengths": {0: "batch"}, "logits": {0: "batch", 1: "out_frames"}, "out_lengths": {0: "batch"}}
    write_folder(
        "tiny-ctc-mel",
        sharpen(TinyMelCtc(), gain=1.0, blank_bias=0.5),
        (torch.randn(2, 101, 80), torch.tensor([101, 80], dtype=torch.int64)),
        ctc_manifest(
            "tiny-ctc-mel",
            "om",
            UNTRAINED,
            TINY_MEL_FEATURES,
            {"script": "latin", "casing": "true_case", "punctuation": True},
        ),
        ["logits", "out_lengths"],
        mel_axes,
    )

    write_folder(
        "tiny-lid",
        sharpen(TinyLid()),
        example_wave,
        {
            "schema_version": 1,
            "kind": "language_id",
            "name": "tiny-lid",
            "description": UNTRAINED,
            "onnx": "model.onnx",
            "input": WAVE_INPUT,
            "io": {"audio": "audio", "lengths": "lengths", "logits": "logits"},
            "labels": ["am", "om", "ti"],
        },
        ["logits"],
        dict(wave_axes, logits={0: "batch"}),
        vocab=False,
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bench-model":
        write_bench_model(sys.argv[2])
    else:
        main()
