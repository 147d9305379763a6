"""What the tiny random-weight export scripts share (training/asr/export_wav2vec2_style.py,
training/speakers/export_tiny_wespeaker_style.py, training/translation/export_tiny_*_style.py): the
options every one takes, torch seeded from them, and the protobuf wire format they write by hand
(torch.onnx's metadata, a SentencePiece model) without the onnx or sentencepiece packages.
"""
import argparse

import torch


def export_arguments(seed):
    """A parser with --out (required) and --seed (`seed` by default); the script adds its own options."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=seed)
    return ap


def parse_seeded(ap):
    """Parses the command line and seeds torch with --seed, so a script writes the same files on every run."""
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    return a


def varint(n):
    """A protobuf base-128 varint."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    """A protobuf field: wire type 0 (varint), 2 (length-delimited bytes) or 5 (4 bytes)."""
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 2:
        return key + varint(len(payload)) + payload
    if wire == 5:
        return key + payload
    raise ValueError(wire)


def append_onnx_metadata(path, meta):
    """Appends `meta` (str -> str) to the serialised ModelProto at `path` as metadata_props (field 14,
    StringStringEntryProto key 1, value 2), which protobuf parsers merge like any repeated field:
    torch.onnx cannot write them without the onnx package."""
    with open(path, "ab") as f:
        for key, value in meta.items():
            f.write(field(14, 2, field(1, 2, key.encode("utf-8")) + field(2, 2, value.encode("utf-8"))))


def export_speaker_embedder(model_class, seed, frames, output_dim, comment):
    """The main of a speaker-embedding export script: reads --out and --seed (`seed` by default), seeds
    torch, builds `model_class()` and exports it in the layout WeSpeaker and 3D-Speaker publish for
    sherpa-onnx: input `feats` float32 [N, T, 80] (traced with T = `frames`), output `embs` float32
    [N, output_dim], and the metadata sherpa-onnx reads; prints the parameter count."""
    a = parse_seeded(export_arguments(seed))
    model = model_class().eval()
    torch.onnx.export(model, (torch.randn(1, frames, 80),), a.out, opset_version=14, input_names=["feats"], output_names=["embs"],
                      dynamic_axes={"feats": {0: "N", 1: "T"}, "embs": {0: "N"}})
    append_onnx_metadata(a.out, {"framework": "wespeaker", "sample_rate": "16000", "output_dim": str(output_dim),
                                 "normalize_samples": "0", "feature_normalize_type": "global-mean",
                                 "language": "multilingual", "comment": comment})
    print(f"{a.out}: {sum(p.numel() for p in model.parameters())} parameters")
