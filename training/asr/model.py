"""The compact CTC acoustic model: 4x convolutional subsampling of 100 fps log-mel frames
(25 output frames a second, 40 ms each) followed by residual depthwise-separable 1-D
convolution blocks (QuartzNet-like). Every layer's output is zeroed beyond the row's valid
length, so a row gives the same logits whatever zero padding the batch adds (the gateway's
padding-invariance rule, docs/model-format.md)."""
import torch
from torch import nn


def conv_out_len(lengths):
    # Conv1d(kernel 3, stride 2, padding 1): L -> floor((L - 1) / 2) + 1
    return torch.div(lengths - 1, 2, rounding_mode="floor") + 1


class Block(nn.Module):
    def __init__(self, dim, kernel, dropout):
        super().__init__()
        self.dw = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim, bias=False)
        self.pw = nn.Conv1d(dim, dim, 1, bias=False)
        self.bn = nn.BatchNorm1d(dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask):
        # 1x1 convolution as a matmul: same weights, but BLAS instead of torch's slow CPU conv path
        y = torch.matmul(self.pw.weight[:, :, 0], self.dw(x))
        return (x + self.drop(torch.relu(self.bn(y)))) * mask


class CtcNet(nn.Module):
    def __init__(self, vocab_size, n_mels=80, dim=256, blocks=8, kernel=11, dropout=0.1):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, n_mels=n_mels, dim=dim, blocks=blocks, kernel=kernel, dropout=dropout)
        self.sub1 = nn.Conv1d(n_mels, dim, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm1d(dim)
        self.sub2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm1d(dim)
        self.blocks = nn.ModuleList([Block(dim, kernel, dropout) for _ in range(blocks)])
        self.out = nn.Conv1d(dim, vocab_size, 1)

    @staticmethod
    def mask(lengths, frames):
        return (torch.arange(frames, device=lengths.device)[None, :] < lengths[:, None]).unsqueeze(1).to(torch.float32)

    def forward(self, feats, lengths):
        """feats [B, T, n_mels] float32 (zero beyond each row's length), lengths [B] int64.
        Returns logits [B, T', vocab] and out_lengths [B] int64, T' = ceil(T / 4)."""
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
        logits = (torch.matmul(self.out.weight[:, :, 0], x) + self.out.bias[:, None]).transpose(1, 2)
        return logits, l2
