"""Trains the diarization speaker projection: linear discriminant analysis of window statistics.

    /usr/bin/python3 training/speakers/speaker_lda.py WINDOWS.json OUT.json [--dims 12]

WINDOWS.json comes from training/speakers/speaker-windows.ts. Each group is one speaker. The
projection maximises between-speaker over within-speaker variance (within-scatter regularised by
1e-3 of its mean eigenvalue); output dims = min(--dims, speakers - 1). Deterministic: no random
state. numpy only.
"""
import argparse, json, os, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from discriminant import lda  # noqa: E402

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
dim = X.shape[1]
P, ratios = lda(X, y, args.dims)
k = P.shape[1]
json.dump({'name': args.name, 'input_dim': dim, 'output_dim': k, 'speakers': groups, 'windows': int(len(X)),
           'discriminant_ratios': [round(float(v), 4) for v in ratios],
           'matrix': [[round(float(v), 7) for v in row] for row in P]}, open(args.out, 'w'))
print(f'{len(groups)} speakers, {len(X)} windows, {k} dims, ratios {np.round(ratios, 3)}')
