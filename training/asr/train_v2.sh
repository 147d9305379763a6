#!/bin/sh
# small-am-v2 (issue 14): trained from scratch on the speaker-split train groups only
# (splits/alffa-spk-train.txt; never on the val groups 041/091/131 or the test groups 021/231),
# with perturbed copies of the real speech (speed 0.9/1.1, VTLP, tempo, noise, reverberation,
# telephone band, Opus) and synthetic espeak-ng speech capped at 40% of every batch; the
# checkpoint is picked on the val groups only. One core, seeded, time-boxed.
# Run from the repository root. Then: sh training/asr/ship_v2.sh
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
P="nice -n 10 /usr/bin/python3"
L=training/work/logs
mkdir -p $L
[ "$1" = "--skip-prepare" ] || $P training/asr/prepare_data.py --lang am --seed 1 --split speaker > $L/prepare-am-spk.log 2>&1
$P training/asr/train.py --name small-am-v2 --lang am \
  --sets alffa_spk_train,alffa_spk_train_aug,synth_am_train_spk --synth-max-share 0.4 \
  --valid alffa_spk_val,synth_am_test_clean --select alffa_spk_val \
  --bootstrap-steps 150 \
  --dim 256 --blocks 10 --kernel 13 --dropout 0 --lr 0.003 --warmup 300 --max-frames 8000 \
  --minutes 68 --checkpoint-minutes 6 --seed 1 --threads 1 > $L/small-am-v2.log 2>&1
