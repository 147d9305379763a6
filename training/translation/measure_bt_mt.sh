#!/usr/bin/env bash
# Back-translation measured against plain continued training (issue 12), both from the same checkpoint and
# with the same wall-time budget, run one after the other (never at once) with one thread at nice 5:
#   (a) continue on the parallel data only; (b) continue on parallel + back-translated pairs.
# Dev split only for the choice (first 100 sentences per direction). INIT: a train_mt.py checkpoint, e.g. the
# shipped model rebuilt by rebuild_checkpoint_mt.py. Results: results/bt-*.json. BT_TSV=file reuses earlier pairs.
# Debian's torch calls libblas.so.3: with the reference BLAS there (no libopenblas0-pthread installed) a training step
# took 17 s instead of 1.4 s; OPENBLAS_LIB=<dir holding OpenBLAS's libblas.so.3> puts OpenBLAS first for these runs.
set -euo pipefail
cd "$(dirname "$0")"
WORK=${WORK:-/work/mt-work}
DATA=${DATA:-/work/shared/data}
INIT=${INIT:-$WORK/shipped.pt}
MINUTES=${MINUTES:-13}
BT_AM=${BT_AM:-1600}
BT_TI=${BT_TI:-600}
RATIO=${RATIO:-4}
# OpenBLAS threads: 2 when nothing else runs (2026-11-29, v1's shape, 3,000-token batches, torch on 2 threads,
# two alternating timings each: 2.57-2.61 s a step with 2 OpenBLAS threads, 4.03 s with 1); set
# OPENBLAS_NUM_THREADS=1 when another job shares the 2 cores (oversubscribed BLAS threads slow every step)
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2} OMP_WAIT_POLICY=PASSIVE
if [ -n "${OPENBLAS_LIB:-}" ]; then export LD_LIBRARY_PATH="$OPENBLAS_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
PY="nice -n 5 /usr/bin/python3"
if [ -z "${BT_TSV:-}" ]; then
  BT_TSV="$WORK/bt.tsv"
  $PY backtranslate_mt.py --checkpoint "$INIT" --data "$WORK/data" --shared "$DATA" --out "$BT_TSV" --am "$BT_AM" --ti "$BT_TI" \
    --threads 1 --stats results/bt-data.json 2>&1 | tee "$WORK/bt.log"
fi
$PY train_mt.py --data "$WORK/data" --out "$WORK/run-a" --init "$INIT" --minutes "$MINUTES" --threads 1 2>&1 | tee "$WORK/train-a.log"
$PY train_mt.py --data "$WORK/data" --out "$WORK/run-b" --init "$INIT" --extra "$BT_TSV" --extra-ratio "$RATIO" --minutes "$MINUTES" \
  --threads 1 2>&1 | tee "$WORK/train-b.log"
for run in a b shipped; do
  ckpt="$WORK/run-$run/final.pt"
  if [ "$run" = shipped ]; then ckpt="$INIT"; fi
  $PY evaluate_mt.py --checkpoint "$ckpt" --data "$WORK/data" --split dev --limit 100 --threads 1 \
    --json "results/bt-dev-$run.json"
done
