#!/usr/bin/python3
"""Writes a tiny random-weight speaker-embedding ONNX model in the layout WeSpeaker and 3D-Speaker
publish for sherpa-onnx (e.g. wespeaker_en_voxceleb_resnet34.onnx, 3dspeaker_speech_campplus_sv_zh-cn_16k-common.onnx):
input `feats` float32 [N, T, 80] (Kaldi fbank, 25 ms / 10 ms), output `embs` float32 [N, D], and the
model metadata sherpa-onnx reads (framework, sample_rate, output_dim, normalize_samples,
feature_normalize_type, language, comment). The network (frame-wise linear + ReLU, a time
convolution, mean and standard-deviation pooling, a linear embedding) has random weights: it
exists to test the feature extraction and the ONNX contract against sherpa-onnx, not to tell
speakers apart.

torch.onnx cannot write metadata_props without the onnx package; training/common/tiny_export.py
appends them to the serialised ModelProto as field 14.

Usage: /usr/bin/python3 training/speakers/export_tiny_wespeaker_style.py --out test/fixtures/speaker-embedding/tiny-wespeaker.onnx
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tiny_export import export_speaker_embedder  # noqa: E402


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


if __name__ == "__main__":
    export_speaker_embedder(TinySpeakerNet, 3, 100, 16, "tiny random-weight test model")
