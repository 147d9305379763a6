#!/usr/bin/env python3
"""Exports the streaming step graph of a CtcNet model folder (model.py; docs/model-format.md,
"Streaming step graph (optional)"): MODEL_DIR/streaming.onnx, the same weights as model.onnx
(rebuilt by onnx_weights.load_ctcnet), run chunk by chunk with the encoder's left context kept
per stream, so each feature frame passes through the model once plus at most the provisional
tail of the last R = r x blocks output frames (60 for small-am-v2: 10 blocks of kernel 13).

Each block's depthwise kernel k reads input offsets -left..r with left = k-1-r: r is the
config's right_context (model.py), k // 2 for a symmetric model (small-am-v2: k = 13, r = 6).
Why it is exact: sub1 and sub2 (kernel 3, stride 2, padding 1) over an input whose length is a
multiple of 4 produce only outputs whose inputs are all known; each residual block makes output
t final once input t+r is known. So block b (0-based) lags the subsampled stream by r(b+1)
frames and the logits by R = r x blocks frames (small-am-v2: 60 frames, 2.4 s; a causal model,
r = 0, has R = 0: every output is committed and the tail is empty). Committed outputs equal the
full model's whatever follows; the provisional tail is what the full model gives for the frames
so far, since the full model zero-pads (masks) beyond the end exactly as the tail's right
padding does. Positions before the stream's start are masked to zero, as the full model's left
padding is. Caches are taken at the committed boundary, so a provisional value never enters the
state. The features are the model's input as is: the per-utterance normalisation of the
manifest is the caller's business (bench/incremental-encoder.ts measures running normalisation
instead).

Graph (batch B and chunk C dynamic; C a multiple of 4 and at least 4; every row of a batch takes
the same C; small-am-v2: F = 80 mel channels, D = 256 channels, K = 10 blocks, left = r = 6, R = 60,
V = 234 tokens; the graph's shapes fix F, D, K, left + r, R and V):
  inputs
    features        float32 [B, C, F]   normalised log-mel frames of this chunk
    frames_done     int64   [B]         feature frames this stream fed before (a multiple of 4;
                                        0 at the start)
    chunk_lengths   int64   [B]         valid frames of this chunk: C, or C-3..C-1 for a row's
                                        last chunk of a turn (zero-padded to C); such a row's
                                        next caches are not for further use
    cache_features  float32 [B, F, 1]   the stream's last feature frame (zeros at the start)
    cache_sub       float32 [B, D, 1]   its last sub1 output frame (zeros at the start)
    cache_blocks    float32 [B, K, D, left + r] each block's last left + r committed input frames
                                        (zeros at the start)
  outputs
    logits          float32 [B, C/4, V] committed logits of output frames
                                        frames_done/4 - R + t; frames at negative positions
                                        (the first R of a stream) are to be dropped
    tail_logits     float32 [B, R, V]   (R fixed in the graph: the runner reads the delay from it)
                                        provisional logits of output frames
                                        ceil((frames_done + chunk_lengths)/4) - R + t, as if the
                                        turn ended with this chunk (negative positions dropped)
    next_cache_features, next_cache_sub, next_cache_blocks: the caches for the next chunk, same
                                        shapes as the inputs
Committed logits of all chunks followed by the last chunk's tail (positions >= 0) are the full
model's logits over the concatenated features (training/asr/test_streaming_export.py checks it
in onnxruntime-node).

An ensemble folder (ensemble.py: two members in one graph, `ensemble` in its manifest) gets one
step graph for the pair: each member's step runs on the same chunk, and `logits` and `tail_logits`
are joined as its model.onnx joins the members' logits (the weighted geometric or arithmetic mean,
then the blank bias). Its caches are the members' side by side: cache_features is shared (both read
the same features), cache_sub is [B, 2D, 1] (member a's D channels, then b's) and cache_blocks
[B, 2K, D, left + r] (a's K blocks, then b's); the members must agree on D, K, kernel and right
context (so on the delay R). The runner reads the sub cache's channels from the graph.

Usage: /usr/bin/python3 training/asr/export_streaming.py models/small-am-v2
       /usr/bin/python3 training/asr/export_streaming.py models/small-am-v4-ensemble
"""
import json
import os
import sys
import tempfile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_weights import load_ctcnet  # noqa: E402

INPUTS = ["features", "frames_done", "chunk_lengths", "cache_features", "cache_sub", "cache_blocks"]
OUTPUTS = ["logits", "tail_logits", "next_cache_features", "next_cache_sub", "next_cache_blocks"]


class StreamingStep(nn.Module):
    """One chunk of a batch of streams through a CtcNet in eval mode (module docstring)."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.config = net.config
        kernel = net.config["kernel"]
        self.right = net.config.get("right_context", kernel // 2)
        self.left = kernel - 1 - self.right
        self.delay = self.right * len(net.blocks)

    @staticmethod
    def _at(start, frames):
        """[B, 1, frames] absolute positions start[b] + t."""
        return (start[:, None] + torch.arange(frames, device=start.device)[None, :]).unsqueeze(1)

    def _block(self, block, x):
        """A residual block over x [B, D, left + n + r] without padding: n outputs, aligned with x[:, :, left:-r]."""
        y = torch.matmul(block.pw.weight[:, :, 0], F.conv1d(x, block.dw.weight, None, groups=x.shape[1]))
        return x[:, :, self.left:-self.right or None] + torch.relu(block.bn(y))

    def _logits(self, x):
        n = self.net
        return (torch.matmul(n.out.weight[:, :, 0], x) + n.out.bias[:, None]).transpose(1, 2)

    def _tail_logits(self, x, frames_done):
        """The last R frames' logits, [B, R, V] with R fixed in the graph's output shape (the runner reads
        the delay from it): a reshape to constant sizes; when R = 0 (a causal model), an empty
        constant broadcast to the batch."""
        vocab = self.net.config["vocab_size"]
        if self.delay == 0:
            return torch.zeros(1, 0, vocab).expand(frames_done.shape[0], 0, vocab)
        return self._logits(x[:, :, -self.delay:]).reshape(-1, self.delay, vocab)

    def forward(self, features, frames_done, chunk_lengths, cache_features, cache_sub, cache_blocks):
        n, r, c = self.net, self.right, self.left + self.right
        chunk = features.shape[1]
        total = frames_done + chunk_lengths
        x = features.transpose(1, 2) * (self._at(frames_done, chunk) < total[:, None, None]).to(features.dtype)
        # sub1: cached frame + chunk -> C/2 outputs, all final (their inputs are all known)
        x = torch.cat([cache_features, x], 2)
        next_features = x[:, :, -1:]
        h = torch.relu(n.bn1(F.conv1d(x, n.sub1.weight, n.sub1.bias, stride=2)))
        l1 = torch.div(total + 1, 2, rounding_mode="floor")
        h = h * (self._at(torch.div(frames_done, 2, rounding_mode="floor"), h.shape[2]) < l1[:, None, None]).to(h.dtype)
        # sub2: likewise -> C/4 outputs at positions frames_done/4 + t
        h = torch.cat([cache_sub, h], 2)
        next_sub = h[:, :, -1:]
        x = torch.relu(n.bn2(F.conv1d(h, n.sub2.weight, n.sub2.bias, stride=2)))
        # blocks: committed and provisional frames in one pass. Block b's input is its cache (the
        # left + r committed frames before), the k committed and the r*b provisional frames of the
        # layer below, then r zeros (the end of the turn as the full model pads it): its first k
        # outputs are committed (their right context is committed input), the next r(b+1)
        # provisional. Output t of block b sits at position frames_done/4 - r(b+1) + t; positions
        # < 0 are padding before the stream's start, masked to zero as the full model's left padding.
        k = x.shape[2]
        done = torch.div(frames_done, 4, rounding_mode="floor")
        started = (self._at(done - self.delay, k + self.delay) >= 0).to(x.dtype)  # [B, 1, k + R] from position done/4 - R
        ends = [cache_blocks[:, 0, :, :r] * 0] if r else []
        caches = []
        for b, block in enumerate(n.blocks):
            joined = torch.cat([cache_blocks[:, b], x, *ends], 2)
            # the c committed frames before the next chunk (slices count from the end, where lengths are
            # fixed: fewer shape nodes in the graph; `-0 or None` is the end)
            caches.append(joined[:, :, -(c + r * b + r):-(r * b + r) or None])
            x = self._block(block, joined)
            x = x * started[:, :, self.delay - r * (b + 1):]
        return self._logits(x[:, :, :-self.delay or None]), self._tail_logits(x, frames_done), next_features, next_sub, torch.stack(caches, 1)

    def initial_caches(self, batch):
        n = self.net
        d = n.config["dim"]
        return (torch.zeros(batch, n.config["n_mels"], 1), torch.zeros(batch, d, 1),
                torch.zeros(batch, len(n.blocks), d, self.left + self.right))


class EnsembleStreamingStep(nn.Module):
    """The step graph of an ensemble folder: both members' steps on one chunk, outputs joined as the
    ensemble's model.onnx joins them (ensemble.joined), caches side by side (module docstring)."""

    def __init__(self, steps, weights, mean="geometric", blank_bias=0.0, blank_id=0):
        super().__init__()
        shapes = {(s.net.config["dim"], len(s.net.blocks), s.left, s.right) for s in steps}
        if len(shapes) != 1:
            raise ValueError(f"the members' caches differ (dim, blocks, left, right): {sorted(shapes)}")
        self.steps = nn.ModuleList(steps)
        self.weights = [float(w) for w in weights]
        self.mean = mean
        vocab = steps[0].net.config["vocab_size"]
        bias = torch.zeros(vocab)
        bias[blank_id] = blank_bias
        self.register_buffer("bias", bias)
        self.config = steps[0].net.config  # shapes (all members agree)
        self.blocks = len(steps[0].net.blocks)
        self.left, self.right, self.delay = steps[0].left, steps[0].right, steps[0].delay

    def _join(self, parts):
        if self.mean == "geometric":
            mixed = sum(w * F.log_softmax(x, -1) for w, x in zip(self.weights, parts))
        else:
            mixed = torch.log(sum(w * F.softmax(x, -1) for w, x in zip(self.weights, parts)))
        return mixed + self.bias

    def forward(self, features, frames_done, chunk_lengths, cache_features, cache_sub, cache_blocks):
        d, k = self.config["dim"], self.blocks
        outs = [step(features, frames_done, chunk_lengths, cache_features,
                     cache_sub[:, i * d:(i + 1) * d], cache_blocks[:, i * k:(i + 1) * k])
                for i, step in enumerate(self.steps)]
        return (self._join([o[0] for o in outs]), self._join([o[1] for o in outs]), outs[0][2],
                torch.cat([o[3] for o in outs], 1), torch.cat([o[4] for o in outs], 1))

    def initial_caches(self, batch):
        f, s, b = self.steps[0].initial_caches(batch)
        n = len(self.steps)
        return f, s.repeat(1, n, 1), b.repeat(1, n, 1, 1)


def step_module(model_dir):
    """The StreamingStep of a CtcNet folder, or the EnsembleStreamingStep of an ensemble folder."""
    manifest = json.load(open(os.path.join(model_dir, "manifest.json"), encoding="utf-8"))
    ensemble = manifest.get("ensemble")
    if ensemble is None:
        return StreamingStep(load_ctcnet(model_dir)[0]).eval()
    from ensemble import write_member  # (needs onnx; plain folders do not)
    steps = []
    with tempfile.TemporaryDirectory() as tmp:
        for letter in "ab":
            write_member(model_dir, letter, os.path.join(tmp, letter))
            steps.append(StreamingStep(load_ctcnet(os.path.join(tmp, letter))[0]))
    return EnsembleStreamingStep(steps, ensemble["weights"], ensemble.get("mean", "geometric"),
                                 ensemble.get("blank_bias", 0.0), manifest.get("blank_id", 0)).eval()


def export(model_dir, out=None):
    torch.set_num_threads(1)
    step = step_module(model_dir)
    batch, chunk = 2, 48
    feats = torch.randn(batch, chunk, step.config["n_mels"])
    done = torch.tensor([0, 96], dtype=torch.int64)
    lengths = torch.tensor([chunk, chunk - 2], dtype=torch.int64)
    caches = step.initial_caches(batch)
    out = out or os.path.join(model_dir, "streaming.onnx")
    with torch.no_grad():
        torch.onnx.export(
            step, (feats, done, lengths, *caches), out, input_names=INPUTS, output_names=OUTPUTS,
            dynamic_axes={"features": {0: "batch", 1: "chunk"}, "frames_done": {0: "batch"}, "chunk_lengths": {0: "batch"},
                          "cache_features": {0: "batch"}, "cache_sub": {0: "batch"}, "cache_blocks": {0: "batch"},
                          "logits": {0: "batch", 1: "chunk_frames"}, "tail_logits": {0: "batch"},
                          "next_cache_features": {0: "batch"}, "next_cache_sub": {0: "batch"}, "next_cache_blocks": {0: "batch"}},
            opset_version=13, do_constant_folding=True)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: export_streaming.py MODEL_DIR")
    path = export(sys.argv[1])
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
