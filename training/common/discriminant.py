"""Linear discriminant analysis of labelled vectors, as the diarization projections are trained.

The projection maximises between-group over within-group scatter: the within-scatter is
regularised by 1e-3 of its mean eigenvalue, whitened (Sw^-1/2, symmetric form), and the whitened
between-scatter's leading eigenvectors are kept; output dims = min(dims, groups - 1). Each axis
gets a fixed sign (its largest component positive) so a retrained file does not flip between
runs. Deterministic: no random state. numpy only.
"""
import numpy as np


def lda(X, y, dims):
    """(P [input_dim, k], discriminant ratios [k]) for vectors X [n, input_dim] with labels y [n]."""
    groups = sorted(set(y))
    mu = X.mean(0)
    d = X.shape[1]
    Sw, Sb = np.zeros((d, d)), np.zeros((d, d))
    for g in groups:
        Xg = X[y == g]
        mg = Xg.mean(0)
        Sw += (Xg - mg).T @ (Xg - mg)
        Sb += len(Xg) * np.outer(mg - mu, mg - mu)
    Sw /= len(X)
    Sb /= len(X)
    Sw += 1e-3 * np.eye(d) * np.trace(Sw) / d
    evals, evecs = np.linalg.eigh(Sw)
    whiten = evecs @ np.diag(evals ** -0.5) @ evecs.T
    bvals, bvecs = np.linalg.eigh(whiten @ Sb @ whiten)
    order = np.argsort(-bvals)
    k = min(dims, len(groups) - 1)
    P = whiten @ bvecs[:, order[:k]]
    for j in range(k):
        if P[np.argmax(np.abs(P[:, j])), j] < 0:
            P[:, j] = -P[:, j]
    return P, bvals[order[:k]]
