"""A small pre-norm encoder-decoder transformer written for a clean ONNX export with a KV cache.

Shared SentencePiece vocabulary, one embedding tied to the output projection, sinusoidal positions from a
fixed table. The decoder's attention takes explicit past keys/values so the exported step graph costs one
token; cross-attention keys/values are computed once per sentence (the first decoder step) and fed back.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


def sinusoid_table(max_len, dim):
    pos = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(max_len, dim)
    table[:, 0::2] = torch.sin(pos * div)
    table[:, 1::2] = torch.cos(pos * div)
    return table


class Attention(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))
        self.dropout = dropout

    def split(self, x):  # [B,T,D] -> [B,H,T,Dh]
        b, t, _ = x.shape
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def project_kv(self, x):
        return self.split(self.k(x)), self.split(self.v(x))

    def attend(self, x, k, v, bias):
        """x: queries [B,T,D]; k, v: [B,H,S,Dh]; bias: additive mask broadcastable to [B,H,T,S]."""
        q = self.split(self.q(x)) * (self.head_dim ** -0.5)
        scores = torch.matmul(q, k.transpose(-1, -2)) + bias
        weights = F.dropout(torch.softmax(scores, dim=-1), self.dropout, self.training)
        out = torch.matmul(weights, v).transpose(1, 2)
        b, t = out.shape[0], out.shape[1]
        return self.o(out.reshape(b, t, self.heads * self.head_dim))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden, dropout):
        super().__init__()
        self.up, self.down, self.dropout = nn.Linear(dim, hidden), nn.Linear(hidden, dim), dropout

    def forward(self, x):
        return self.down(F.dropout(F.relu(self.up(x)), self.dropout, self.training))


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden, dropout):
        super().__init__()
        self.norm1, self.attn, self.norm2, self.ff = nn.LayerNorm(dim), Attention(dim, heads, dropout), nn.LayerNorm(dim), FeedForward(dim, hidden, dropout)
        self.dropout = dropout

    def forward(self, x, bias):
        h = self.norm1(x)
        k, v = self.attn.project_kv(h)
        x = x + F.dropout(self.attn.attend(h, k, v, bias), self.dropout, self.training)
        return x + F.dropout(self.ff(self.norm2(x)), self.dropout, self.training)


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden, dropout):
        super().__init__()
        self.norm1, self.self_attn = nn.LayerNorm(dim), Attention(dim, heads, dropout)
        self.norm2, self.cross_attn = nn.LayerNorm(dim), Attention(dim, heads, dropout)
        self.norm3, self.ff = nn.LayerNorm(dim), FeedForward(dim, hidden, dropout)
        self.dropout = dropout

    def forward(self, x, self_bias, past_k, past_v, cross_k, cross_v, cross_bias):
        """Returns the new hidden states and this step's full self-attention keys/values (past + new)."""
        h = self.norm1(x)
        k, v = self.self_attn.project_kv(h)
        if past_k is not None:
            k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
        x = x + F.dropout(self.self_attn.attend(h, k, v, self_bias), self.dropout, self.training)
        x = x + F.dropout(self.cross_attn.attend(self.norm2(x), cross_k, cross_v, cross_bias), self.dropout, self.training)
        return x + F.dropout(self.ff(self.norm3(x)), self.dropout, self.training), k, v


class Seq2Seq(nn.Module):
    def __init__(self, vocab, dim=256, heads=4, hidden=1024, enc_layers=3, dec_layers=3, dropout=0.1, max_len=512, pad_id=0):
        super().__init__()
        self.config = dict(vocab=vocab, dim=dim, heads=heads, hidden=hidden, enc_layers=enc_layers, dec_layers=dec_layers, dropout=dropout, max_len=max_len, pad_id=pad_id)
        self.embed = nn.Embedding(vocab, dim, padding_idx=pad_id)
        nn.init.normal_(self.embed.weight, std=dim ** -0.5)
        self.register_buffer('positions', sinusoid_table(max_len, dim), persistent=False)
        self.encoder = nn.ModuleList(EncoderLayer(dim, heads, hidden, dropout) for _ in range(enc_layers))
        self.decoder = nn.ModuleList(DecoderLayer(dim, heads, hidden, dropout) for _ in range(dec_layers))
        self.enc_norm, self.dec_norm = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.scale, self.dropout = math.sqrt(dim), dropout

    def embed_at(self, ids, start):
        t = ids.shape[1]
        x = self.embed(ids) * self.scale + self.positions[start:start + t].unsqueeze(0)
        return F.dropout(x, self.dropout, self.training)

    @staticmethod
    def pad_bias(mask):  # [B,S] 1/0 -> [B,1,1,S] additive
        return (1.0 - mask.to(torch.float32)).unsqueeze(1).unsqueeze(2) * -1e9

    def encode(self, ids, mask):
        x, bias = self.embed_at(ids, 0), self.pad_bias(mask)
        for layer in self.encoder:
            x = layer(x, bias)
        return self.enc_norm(x)

    def cross_kv(self, memory):
        return [layer.cross_attn.project_kv(memory) for layer in self.decoder]

    def decode(self, ids, enc_mask, cross, past=None):
        """ids [B,T]; cross: per layer (k, v); past: per layer (k, v) or None. Returns logits and presents."""
        start = 0 if past is None else past[0][0].shape[2]
        t = ids.shape[1]
        x = self.embed_at(ids, start)
        total = start + t
        causal = torch.triu(torch.full((t, total), -1e9), diagonal=start + 1).unsqueeze(0).unsqueeze(0)
        cross_bias = self.pad_bias(enc_mask)
        presents = []
        for i, layer in enumerate(self.decoder):
            pk, pv = (None, None) if past is None else past[i]
            x, k, v = layer(x, causal, pk, pv, cross[i][0], cross[i][1], cross_bias)
            presents.append((k, v))
        logits = torch.matmul(self.dec_norm(x), self.embed.weight.t())
        return logits, presents

    def forward(self, src, src_mask, tgt_in):
        memory = self.encode(src, src_mask)
        logits, _ = self.decode(tgt_in, src_mask, self.cross_kv(memory))
        return logits
