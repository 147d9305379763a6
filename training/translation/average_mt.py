"""Averages the weights of several train_mt.py checkpoints or snapshots (the last N of a run, by step).

Checkpoint averaging smooths the noise of the last updates of a small-batch run; whether it helps is measured
on dev (evaluate_mt.py), never assumed. The output is a train_mt.py checkpoint (config, weights, step of the
newest input, history with an 'averaged' stage) that export_mt.py and evaluate_mt.py read like any other.
Usage: average_mt.py --run /work/mt-work/run-v2 --last 4 --out /work/mt-work/run-v2/avg4.pt
       average_mt.py --inputs a.pt b.pt --out avg.pt
"""
import argparse
import glob
import os
import re
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from weight_average import mean_state  # noqa: E402


def snapshots(run):
    """snap-<step>.pt files of a run folder, oldest first."""
    found = [(int(re.search(r'snap-(\d+)\.pt$', p).group(1)), p) for p in glob.glob(os.path.join(run, 'snap-*.pt'))]
    return [p for _, p in sorted(found)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--run', help='a train_mt.py --out folder with snap-<step>.pt files')
    ap.add_argument('--last', type=int, default=4, help='how many of the newest snapshots (with --run)')
    ap.add_argument('--inputs', nargs='*', default=[])
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    paths = args.inputs or snapshots(args.run)[-args.last:]
    if len(paths) < 2:
        raise SystemExit(f'need at least two checkpoints to average, found {len(paths)}')
    states = [torch.load(p, map_location='cpu') for p in paths]
    config = states[0]['config']
    if any(s['config'] != config for s in states):
        raise SystemExit('the checkpoints have different model configurations')
    averaged = mean_state([s['model'] for s in states])
    newest = max(states, key=lambda s: s['step'])
    history = newest.get('history', []) + [{'stage': 'averaged', 'steps': 0, 'data': f'mean of the weights at steps '
                                             + ', '.join(str(s['step']) for s in states)}]
    torch.save({'config': config, 'model': averaged, 'step': newest['step'], 'history': history}, args.out)
    print({'averaged': [os.path.basename(p) for p in paths], 'steps': [s['step'] for s in states], 'out': args.out})


if __name__ == '__main__':
    main()
