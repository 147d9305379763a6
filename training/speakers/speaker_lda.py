"""Trains the diarization speaker projection: linear discriminant analysis of window statistics.

    /usr/bin/python3 training/speakers/speaker_lda.py WINDOWS.json OUT.json [--dims 12]

WINDOWS.json comes from training/speakers/speaker-windows.ts. Each group is one speaker. The
projection maximises between-speaker over within-speaker variance (within-scatter regularised by
1e-3 of its mean eigenvalue); output dims = min(--dims, speakers - 1). Deterministic: no random
state. numpy only.
"""
import argparse, json
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument('windows')
parser.add_argument('out')
parser.add_argument('--dims', type=int, default=12)
parser.add_argument('--name', default='speaker-lda-v1')
args = parser.parse_args()

data = json.load(open(args.windows))
groups = sorted(g for g in data if len(data[g]) >= 20)
X = np.concatenate([np.array(data[g], dtype=np.float64) for g in groups])
y = np.concatenate([[g] * len(data[g]) for g in groups])
# At serving time each file's windows are centred on that file's mean window instead.
mu = X.mean(0)
dim = X.shape[1]
Sw = np.zeros((dim, dim))
Sb = np.zeros((dim, dim))
for g in groups:
    Xg = X[y == g]
    mg = Xg.mean(0)
    Sw += (Xg - mg).T @ (Xg - mg)
    Sb += len(Xg) * np.outer(mg - mu, mg - mu)
Sw /= len(X)
Sb /= len(X)
Sw += 1e-3 * np.eye(dim) * np.trace(Sw) / dim
# Symmetric form: whiten by Sw^-1/2, then eigenvectors of the whitened Sb.
evals, evecs = np.linalg.eigh(Sw)
whiten = evecs @ np.diag(evals ** -0.5) @ evecs.T
bvals, bvecs = np.linalg.eigh(whiten @ Sb @ whiten)
order = np.argsort(-bvals)
k = min(args.dims, len(groups) - 1)
P = whiten @ bvecs[:, order[:k]]
for j in range(k):  # a fixed sign per axis, so the file does not flip between runs
    if P[np.argmax(np.abs(P[:, j])), j] < 0:
        P[:, j] = -P[:, j]
json.dump({'name': args.name, 'input_dim': dim, 'output_dim': k, 'speakers': groups, 'windows': int(len(X)),
           'discriminant_ratios': [round(float(v), 4) for v in bvals[order[:k]]],
           'matrix': [[round(float(v), 7) for v in row] for row in P]}, open(args.out, 'w'))
print(f'{len(groups)} speakers, {len(X)} windows, {k} dims, ratios {np.round(bvals[order[:k]], 3)}')
