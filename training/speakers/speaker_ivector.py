"""Trains the diarization speaker model: a diagonal GMM-UBM over MFCC frames, a total-variability
matrix (i-vector extractor, trained without speaker labels) over 1.5 s windows, and a linear
discriminant over the windows' i-vectors (the only part that uses speaker labels).

    /usr/bin/python3 training/speakers/speaker_ivector.py FRAMES_PREFIX OUT.json \
        [--ubm-groups all] [--lda-groups 020,097,...] [--eval-groups 021,...] [--components 64] [--rank 40] [--lda-dims 8]

With --model FILE it scores that model (--eval-groups); with --model and --lda-groups it writes FILE's
extractor unchanged plus a speaker discriminant trained on its i-vectors (`projection`,
`projection_mean`; speaker-ivector-v3.json). --skip-stats-lda leaves out the MFCC-statistics comparison.

FRAMES_PREFIX comes from training/speakers/speaker-frames.ts. Seeded (numpy default_rng(0)): a rerun
gives the same file. numpy only. With --eval-groups it prints a same/different-speaker equal error
rate of 1.5 s windows of those groups (cosine after centring and the discriminant) for the
i-vectors and for the MFCC mean/deviation statistics, so the embedding can be compared on speakers
neither part was trained on.
"""
import argparse, json, os, sys, time
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'common'))
from discriminant import lda  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument('frames')
p.add_argument('out')
p.add_argument('--ubm-groups', default='all')
p.add_argument('--lda-groups', default='')
p.add_argument('--eval-groups', default='')
p.add_argument('--components', type=int, default=64)
p.add_argument('--rank', type=int, default=40)
p.add_argument('--lda-dims', type=int, default=8)
p.add_argument('--ubm-iters', type=int, default=20)
p.add_argument('--t-iters', type=int, default=8)
p.add_argument('--window', type=int, default=150)
p.add_argument('--hop', type=int, default=50)
p.add_argument('--name', default='speaker-ivector-v1')
p.add_argument('--deltas', action='store_true')
# Issue 29: score an existing model (its UBM, matrix and feature centre) on --eval-groups, train nothing.
p.add_argument('--model', default='')
p.add_argument('--skip-stats-lda', action='store_true')
args = p.parse_args()
rng = np.random.default_rng(0)
t0 = time.time()

meta = json.load(open(args.frames + '.json'))
D = meta['dim']
X_all = np.fromfile(args.frames + '.bin', dtype=np.float32).reshape(-1, D).astype(np.float64)
utts = meta['utterances']
if args.deltas:
    # Regression deltas over ±2 frames within each utterance (edges repeated), appended.
    dX = np.zeros_like(X_all)
    for u in utts:
        Xu = X_all[u['start']:u['start'] + u['frames']]
        if len(Xu) == 0:
            continue
        P = np.concatenate([Xu[:1], Xu[:1], Xu, Xu[-1:], Xu[-1:]])
        dX[u['start']:u['start'] + u['frames']] = ((P[3:-1] - P[1:-3]) + 2 * (P[4:] - P[:-4])) / 10
    X_all = np.concatenate([X_all, dX], 1)
    D = 2 * D
groups_of = lambda spec: sorted({u['group'] for u in utts}) if spec == 'all' else spec.split(',')
ubm_groups = set(groups_of(args.ubm_groups))
lda_groups = [g for g in groups_of(args.lda_groups)] if args.lda_groups else []
eval_groups = groups_of(args.eval_groups) if args.eval_groups else []

# Serving centres each file's frames on its own mean; training centres on the training mean.
loaded = json.load(open(args.model)) if args.model else None
if loaded is not None:
    ubm_groups = set()
    centre = np.array(loaded['feature_centre'])
    X_all -= centre
    C = loaded['components']
else:
    ubm_rows = np.concatenate([np.arange(u['start'], u['start'] + u['frames']) for u in utts if u['group'] in ubm_groups])
    centre = X_all[ubm_rows].mean(0)
    X_all -= centre
    X = X_all[ubm_rows]
    C = args.components


def loglik(X, w, mu, var):
    """[frames][C] log w_c N(x; mu_c, var_c)."""
    inv = 1.0 / var
    const = np.log(w) - 0.5 * (D * np.log(2 * np.pi) + np.log(var).sum(1) + (mu * mu * inv).sum(1))
    return const + X @ (mu * inv).T - 0.5 * (X * X) @ inv.T


def posteriors(X, w, mu, var):
    ll = loglik(X, w, mu, var)
    m = ll.max(1, keepdims=True)
    g = np.exp(ll - m)
    s = g.sum(1, keepdims=True)
    return g / s, (m[:, 0] + np.log(s[:, 0]))


# --- UBM: k-means++-style seeds, then EM with a variance floor; components split from 1 by doubling.
if loaded is not None:
    w = np.array(loaded['ubm_weights'])
    mu = np.array(loaded['ubm_means'])
    var = np.array(loaded['ubm_variances'])
else:
    w = np.ones(1)
    mu = X.mean(0, keepdims=True)
    var = X.var(0, keepdims=True)
    floor = 0.01 * X.var(0)
while loaded is None and len(w) < C:
    eps = 0.2 * np.sqrt(var)
    mu = np.concatenate([mu - eps, mu + eps])
    var = np.concatenate([var, var])
    w = np.concatenate([w, w]) / 2
    iters = args.ubm_iters if len(w) == C else 6
    for it in range(iters):
        g, ll = posteriors(X, w, mu, var)
        n = g.sum(0) + 1e-10
        mu = (g.T @ X) / n[:, None]
        var = np.maximum((g.T @ (X * X)) / n[:, None] - mu * mu, floor)
        w = n / n.sum()
    print(f'UBM {len(w)} components: avg loglik {ll.mean():.3f} ({time.time() - t0:.0f} s)')


def window_stats(rows_of_utts):
    """Zeroth and whitened centred first-order statistics of windows within utterances."""
    Ns, Fs, owners = [], [], []
    for u in rows_of_utts:
        Xu = X_all[u['start']:u['start'] + u['frames']]
        if len(Xu) < args.window // 2:
            continue
        g, _ = posteriors(Xu, w, mu, var)
        Xw = Xu
        for s in range(0, max(1, len(Xu) - args.window + 1), args.hop):
            gs = g[s:s + args.window]
            n = gs.sum(0)
            f = gs.T @ Xw[s:s + args.window]
            Ns.append(n)
            Fs.append((f - n[:, None] * mu) / np.sqrt(var))
            owners.append(u['group'])
    return np.array(Ns), np.array(Fs), np.array(owners)


def stats_features(rows_of_utts):
    """The previous embedding's input: mean and deviation of the 20 MFCCs per window."""
    out, owners = [], []
    for u in rows_of_utts:
        Xu = X_all[u['start']:u['start'] + u['frames']]
        if len(Xu) < args.window // 2:
            continue
        for s in range(0, max(1, len(Xu) - args.window + 1), args.hop):
            seg = Xu[s:s + args.window]
            out.append(np.concatenate([seg.mean(0), seg.std(0)]))
            owners.append(u['group'])
    return np.array(out), np.array(owners)


if loaded is None:
    N, F, _ = window_stats([u for u in utts if u['group'] in ubm_groups])
    print(f'{len(N)} training windows ({time.time() - t0:.0f} s)')
    R = args.rank
    T = rng.standard_normal((C, D, R)) * 0.1 * np.sqrt(D * C / R) / np.sqrt(D)
else:
    R = loaded['rank']
    T = np.array(loaded['total_variability'])


def extract(N, F, T):
    """Posterior means (and precisions' inverses) of i-vectors: L = I + sum_c N_c T_c'T_c, w = L^-1 sum_c T_c' F_c."""
    TT = np.einsum('cdr,cds->crs', T, T)
    L = np.eye(R)[None] + np.einsum('uc,crs->urs', N, TT)
    b = np.einsum('cdr,ucd->ur', T, F)
    Linv = np.linalg.inv(L)
    return np.einsum('urs,us->ur', Linv, b), Linv


for it in range(args.t_iters if loaded is None else 0):
    W, Linv = extract(N, F, T)
    Eww = Linv + np.einsum('ur,us->urs', W, W)
    A = np.einsum('uc,urs->crs', N, Eww)
    Cm = np.einsum('ucd,ur->cdr', F, W)
    T = np.einsum('cdr,crs->cds', Cm, np.linalg.inv(A))
    print(f'T iteration {it + 1} ({time.time() - t0:.0f} s)')

if loaded is None:
    W_ubm, _ = extract(N, F, T)
    ivec_mean = W_ubm.mean(0)


def ivectors(rows_of_utts):
    N, F, owners = window_stats(rows_of_utts)
    Wv, _ = extract(N, F, T)
    return Wv, owners


def eer(E, ys):
    E = E - E.mean(0)
    E = E / np.linalg.norm(E, axis=1, keepdims=True)
    S = E @ E.T
    same = ys[:, None] == ys[None, :]
    iu = np.triu_indices(len(E), 1)
    s, t = S[iu], same[iu]
    order = np.argsort(-s)
    t = t[order]
    tp = np.cumsum(t) / t.sum()
    fp = np.cumsum(~t) / (~t).sum()
    i = np.argmin(np.abs((1 - tp) - fp))
    return float((1 - tp[i] + fp[i]) / 2)


P = np.array(loaded['projection']) if loaded is not None and 'projection' in loaded else None
P_mean = np.array(loaded['projection_mean']) if P is not None else None
if lda_groups:
    Wl, yl = ivectors([u for u in utts if u['group'] in lda_groups])
    P_mean = Wl.mean(0)
    P, ratios = lda(Wl - P_mean, yl, args.lda_dims)
    print(f'LDA on {len(lda_groups)} groups, {len(Wl)} windows: ratios {np.round(ratios, 3)}')
if eval_groups:
    ev_utts = [u for u in utts if u['group'] in eval_groups]
    We, ye = ivectors(ev_utts)
    print(f'eval: {len(We)} windows of {eval_groups}')
    print(f'  i-vector raw cosine EER {eer(We, ye):.3f}')
    Wc = We - We.mean(0)
    ev, evec = np.linalg.eigh(Wc.T @ Wc / len(Wc))
    for keep in (5, 10, 20):
        top = np.argsort(-ev)[:keep]
        print(f'  i-vector file-PCA {keep} EER {eer(Wc @ evec[:, top], ye):.3f}, whitened {eer(Wc @ evec[:, top] / np.sqrt(ev[top]), ye):.3f}')
    if P is not None:
        print(f'  i-vector + LDA ({P.shape[1]} dims) EER {eer((We - P_mean) @ P, ye):.3f}')
        for keep in (10, 15, 20, 25, 30, 40, 60):
            if keep < P.shape[1]:
                print(f'    first {keep} discriminant dims EER {eer((We - P_mean) @ P[:, :keep], ye):.3f}')
    Se, ys = stats_features(ev_utts)
    print(f'  MFCC stats raw EER {eer(Se, ys):.3f}')
    if lda_groups and not args.skip_stats_lda:
        Sl, yl2 = stats_features([u for u in utts if u['group'] in lda_groups])
        Ps, _ = lda(Sl - Sl.mean(0), yl2, args.lda_dims)
        print(f'  MFCC stats + LDA EER {eer((Se - Se.mean(0)) @ Ps, ys):.3f}')

if loaded is not None:
    if P is None or args.out == '-':
        sys.exit(0)
    # --model with --lda-groups: the loaded extractor unchanged, with a speaker discriminant trained on its i-vectors.
    loaded.update(name=args.name, lda_groups=lda_groups, projection_mean=[round(float(v), 6) for v in P_mean],
                  projection=[[round(float(v), 7) for v in row] for row in P])
    json.dump(loaded, open(args.out, 'w'))
    print(f'wrote {args.out} ({time.time() - t0:.0f} s)')
    sys.exit(0)
model = {
    'name': args.name,
    'kind': 'ivector',
    'feature_dim': D,
    'components': C,
    'rank': R,
    'ubm_groups': sorted(ubm_groups),
    'lda_groups': lda_groups,
    'training_windows': int(len(N)),
    'feature_centre': [round(float(v), 6) for v in centre],
    'ubm_weights': [round(float(v), 8) for v in w],
    'ubm_means': [[round(float(v), 6) for v in row] for row in mu],
    'ubm_variances': [[round(float(v), 6) for v in row] for row in var],
    # [C][D][R], in the UBM-whitened space (statistics divided by the component's deviation).
    'total_variability': [[[round(float(v), 6) for v in r] for r in c] for c in T],
    'ivector_mean': [round(float(v), 6) for v in ivec_mean],
}
if P is not None:
    # Serving: embedding = (i-vector - projection_mean) @ projection, before the file's own centring.
    model['projection_mean'] = [round(float(v), 6) for v in P_mean]
    model['projection'] = [[round(float(v), 7) for v in row] for row in P]
json.dump(model, open(args.out, 'w'))
print(f'wrote {args.out} ({time.time() - t0:.0f} s)')
