#!/usr/bin/env bash
# Rebuilds models/translate-am-en-ti-v1 from ../shared/data (seeded). About 90 minutes on 2 CPU cores.
# OpenBLAS threads are pinned to 1 and OpenMP waits passively: on a shared 2-core machine the default
# (busy-waiting BLAS and OpenMP threads) made each training step 4-9x slower.
set -euo pipefail
cd "$(dirname "$0")"
WORK=${WORK:-/tmp/mt-work}
DATA=${DATA:-/work/shared/data}
MODEL=../../translate-am-en-ti-v1
MINUTES=${MINUTES:-80}
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
PY=/usr/bin/python3
$PY prepare_mt.py --data "$DATA" --out "$WORK/data"
$PY train_mt.py --data "$WORK/data" --out "$WORK/run" --minutes "$MINUTES" 2>&1 | tee "$WORK/train.log"
$PY export_mt.py --checkpoint "$WORK/run/final.pt" --data "$WORK/data" --out "$MODEL"
$PY evaluate_mt.py --checkpoint "$WORK/run/final.pt" --data "$WORK/data" --split test --json "$WORK/test-greedy.json"
$PY evaluate_mt.py --checkpoint "$WORK/run/final.pt" --data "$WORK/data" --split dev --json "$WORK/dev-greedy.json"
$PY evaluate_mt.py --checkpoint "$WORK/run/final.pt" --data "$WORK/data" --split test --heldout-out "$MODEL/heldout" --json "$WORK/heldout-greedy.json"
$PY evaluate_mt.py --checkpoint "$WORK/run/final.pt" --data "$WORK/data" --split test --heldout-out "$MODEL/heldout" --beam 4 --json "$WORK/heldout-beam.json"
$PY write_mt_card.py --model "$MODEL" --test-greedy "$WORK/test-greedy.json" --heldout-greedy "$WORK/heldout-greedy.json" \
  --heldout-beam "$WORK/heldout-beam.json" --dev-greedy "$WORK/dev-greedy.json" --train-log "$WORK/train.log"
cp "$WORK/"*.json results/ 2>/dev/null || true
