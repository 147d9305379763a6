#!/usr/bin/python3
"""Writes a tiny random-weight speaker-embedding ONNX model in the layout WeSpeaker and 3D-Speaker
publish for sherpa-onnx (e.g. wespeaker_en_voxceleb_resnet34.onnx, 3dspeaker_speech_campplus_sv_zh-cn_16k-common.onnx):
input `feats` float32 [N, T, 80] (Kaldi fbank, 25 ms / 10 ms), output `embs` float32 [N, D], and the
model metadata sherpa-onnx reads (framework, sample_rate, output_dim, normalize_samples,
feature_normalize_type, language, comment). The network (frame-wise linear + ReLU, a time
convolution, mean and standard-deviation pooling, a linear embedding) has random weights: it
exists to test the feature extraction and the ONNX contract against sherpa-onnx, not to tell
speakers apart.

torch.onnx cannot write metadata_props without the onnx package; they are appended to the
serialised ModelProto as field 14 (StringStringEntryProto key 1, value 2), which protobuf parsers
merge like any repeated field.

Usage: /usr/bin/python3 training/speakers/export_tiny_wespeaker_style.py --out test/fixtures/speaker-embedding/tiny-wespeaker.onnx
"""
import argparse

import torch
from torch import nn


class TinySpeakerNet(nn.Module):
    def __init__(self, bins=80, hidden=32, dim=16):
        super().__init__()
        self.frame = nn.Linear(bins, hidden)
        self.conv = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.embed = nn.Linear(2 * hidden, dim)

    def forward(self, feats):
        h = torch.relu(self.frame(feats)).transpose(1, 2)
        h = torch.relu(self.conv(h))
        mean = h.mean(dim=2)
        std = torch.sqrt(((h - mean.unsqueeze(2)) ** 2).mean(dim=2) + 1e-5)
        return self.embed(torch.cat([mean, std], dim=1))


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def string_field(num, text):
    data = text.encode("utf-8")
    return varint((num << 3) | 2) + varint(len(data)) + data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    model = TinySpeakerNet().eval()
    torch.onnx.export(model, (torch.randn(1, 100, 80),), a.out, opset_version=14, input_names=["feats"], output_names=["embs"],
                      dynamic_axes={"feats": {0: "N", 1: "T"}, "embs": {0: "N"}})
    meta = {"framework": "wespeaker", "sample_rate": "16000", "output_dim": "16", "normalize_samples": "0",
            "feature_normalize_type": "global-mean", "language": "multilingual", "comment": "tiny random-weight test model"}
    with open(a.out, "ab") as f:
        for key, value in meta.items():
            entry = string_field(1, key) + string_field(2, value)
            f.write(varint((14 << 3) | 2) + varint(len(entry)) + entry)
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters")


if __name__ == "__main__":
    main()
