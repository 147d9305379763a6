"""The compact CTC acoustic model: 4x convolutional subsampling of 100 fps log-mel frames
(25 output frames a second, 40 ms each) followed by residual depthwise-separable 1-D
convolution blocks (QuartzNet-like). Every layer's output is zeroed beyond the row's valid
length, so a row gives the same logits whatever zero padding the batch adds (the gateway's
padding-invariance rule, docs/model-format.md).

right_context=None (the default, every shipped model up to small-am-v2) pads each block's
depthwise convolution symmetrically: kernel 13 looks 6 output frames ahead per block. An int r
reads offsets -(kernel-1-r)..r instead, so a block looks r frames (40 ms each) ahead and the
blocks together r x blocks. It is computed as the convolution padded kernel-1-r on both sides with
the output cut to the input's length (exports as one ONNX Conv with pads + a Slice; F.pad exports
as an unfoldable chain); the input is already masked to the valid length, so rows stay
padding-invariant."""
import torch
from torch import nn


def conv_out_len(lengths):
    # Conv1d(kernel 3, stride 2, padding 1): L -> floor((L - 1) / 2) + 1
    return torch.div(lengths - 1, 2, rounding_mode="floor") + 1


def tap_offsets(kernel, right_context):
    """The frame offsets (relative to the output frame) that a depthwise kernel's taps read, in tap
    order: -(kernel-1-r)..r, with r = kernel // 2 for symmetric padding (right_context None)."""
    r = kernel // 2 if right_context is None else right_context
    return list(range(-(kernel - 1 - r), r + 1))


def realign_taps(weight, right_from, right_to):
    """A depthwise weight [dim, 1, kernel] trained with right context `right_from`, moved to right
    context `right_to` (None = symmetric): each tap keeps its frame offset where both layouts read
    that offset; taps at offsets the old layout did not read start at zero, and taps at offsets
    the new layout cannot read (further ahead than right_to) are dropped."""
    kernel = weight.shape[2]
    old = {o: j for j, o in enumerate(tap_offsets(kernel, right_from))}
    out = torch.zeros_like(weight)
    for j, o in enumerate(tap_offsets(kernel, right_to)):
        if o in old:
            out[:, :, j] = weight[:, :, old[o]]
    return out


class Block(nn.Module):
    def __init__(self, dim, kernel, dropout, right_context=None):
        super().__init__()
        if right_context is not None and not 0 <= right_context <= kernel // 2:
            raise ValueError(f"right_context {right_context} outside 0..{kernel // 2}")
        self.cut = right_context is not None  # padding kernel-1-r both sides: keep the first T outputs
        pad = kernel // 2 if right_context is None else kernel - 1 - right_context
        self.dw = nn.Conv1d(dim, dim, kernel, padding=pad, groups=dim, bias=False)
        self.pw = nn.Conv1d(dim, dim, 1, bias=False)
        self.bn = nn.BatchNorm1d(dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask):
        # 1x1 convolution as a matmul: same weights, but BLAS instead of torch's slow CPU conv path
        h = self.dw(x)
        if self.cut:
            h = h[:, :, :x.shape[2]]
        y = torch.matmul(self.pw.weight[:, :, 0], h)
        return (x + self.drop(torch.relu(self.bn(y)))) * mask


class CtcNet(nn.Module):
    def __init__(self, vocab_size, n_mels=80, dim=256, blocks=8, kernel=11, dropout=0.1, right_context=None):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, n_mels=n_mels, dim=dim, blocks=blocks, kernel=kernel, dropout=dropout)
        if right_context is not None:  # absent for symmetric models: their configs stay as they were
            self.config["right_context"] = right_context
        self.sub1 = nn.Conv1d(n_mels, dim, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm1d(dim)
        self.sub2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm1d(dim)
        self.blocks = nn.ModuleList([Block(dim, kernel, dropout, right_context) for _ in range(blocks)])
        self.out = nn.Conv1d(dim, vocab_size, 1)

    @staticmethod
    def mask(lengths, frames):
        return (torch.arange(frames, device=lengths.device)[None, :] < lengths[:, None]).unsqueeze(1).to(torch.float32)

    def forward(self, feats, lengths):
        """feats [B, T, n_mels] float32 (zero beyond each row's length), lengths [B] int64.
        Returns logits [B, T', vocab] and out_lengths [B] int64, T' = ceil(T / 4)."""
        x, l2 = self.encode(feats, lengths)
        return self.head(self.out, x), l2

    @staticmethod
    def head(out, x):
        """An output layer (a 1x1 Conv1d) over encoder states [B, dim, T'] -> logits [B, T', vocab]."""
        return (torch.matmul(out.weight[:, :, 0], x) + out.bias[:, None]).transpose(1, 2)

    def encode(self, feats, lengths):
        """The shared encoder: states [B, dim, T'] (zero beyond each row's length) and out_lengths [B];
        train.py --aux-sets puts a second output layer (another language's units) on them."""
        x = feats.transpose(1, 2) * self.mask(lengths, feats.shape[1])
        l1 = conv_out_len(lengths)
        x = torch.relu(self.bn1(self.sub1(x)))
        x = x * self.mask(l1, x.shape[2])
        l2 = conv_out_len(l1)
        x = torch.relu(self.bn2(self.sub2(x)))
        m = self.mask(l2, x.shape[2])
        x = x * m
        for b in self.blocks:
            x = b(x, m)
        return x, l2
