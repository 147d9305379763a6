#!/usr/bin/python3
"""Writes a random-weight speaker-embedding ONNX model of the size of WeSpeaker's ResNet34
(wespeaker_en_voxceleb_resnet34.onnx as published for sherpa-onnx), in the same layout as
export_tiny_wespeaker_style.py: input `feats` float32 [N, T, 80] (Kaldi fbank), output `embs`
float32 [N, 256], the metadata sherpa-onnx reads. The network is WeSpeaker's ResNet34
(wespeaker/models/resnet.py: 32 base channels, basic blocks 3-4-6-3 with strides 1-2-2-2, temporal
statistics pooling, one 256-dim embedding layer; about 6.6 M parameters). Random weights: it
measures what such a model costs in diarization (bench/public-models-cost.ts --speaker), not who
speaks; never committed.

Usage: /usr/bin/python3 training/speakers/export_resnet34_style.py --out /tmp/resnet34-random.onnx
"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tiny_export import export_speaker_embedder  # noqa: E402


class BasicBlock(nn.Module):
    def __init__(self, inp, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inp, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or inp != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(inp, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNet34(nn.Module):
    def __init__(self, bins=80, channels=32, dim=256):
        super().__init__()
        self.conv1 = nn.Conv2d(1, channels, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        layers, inp = [], channels
        for planes, blocks, stride in [(channels, 3, 1), (channels * 2, 4, 2), (channels * 4, 6, 2), (channels * 8, 3, 2)]:
            for b in range(blocks):
                layers.append(BasicBlock(inp, planes, stride if b == 0 else 1))
                inp = planes
        self.layers = nn.Sequential(*layers)
        self.seg_1 = nn.Linear(2 * (bins // 8) * channels * 8, dim)

    def forward(self, feats):
        x = feats.permute(0, 2, 1).unsqueeze(1)
        x = self.layers(torch.relu(self.bn1(self.conv1(x))))
        x = x.reshape(x.shape[0], -1, x.shape[-1])
        mean = x.mean(dim=-1)
        std = torch.sqrt(torch.var(x, dim=-1) + 1e-7)
        return self.seg_1(torch.cat([mean, std], dim=1))


if __name__ == "__main__":
    export_speaker_embedder(ResNet34, 5, 200, 256, "ResNet34-sized random-weight model")
