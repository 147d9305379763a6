#!/bin/sh
# small-am-stream-v3 candidate (issues 30 and 33): small-am-stream-v2 (0.4 s look-ahead, right_context 1)
# DISTILLED from the shipped small-am-v2 (2.4 s look-ahead; same vocabulary and 40 ms frames):
# train.py --teacher-onnx, loss 0.5 x CTC + 0.5 x frame KL(teacher || student), per target unit. The
# teacher reads the batch before SpecAugment. Rows of the telephone copies (alffa_spk_train_tel: the
# teacher never heard a telephone and reads it worse than stream-v2) and of the non-speech clips (the
# teacher writes letters for them) take CTC alone. Same data as train_stream_v2.sh (the v2 sets, the
# G.711 telephone / level copies, non-speech clips with EMPTY targets at most 15% of a batch). The
# checkpoint is picked on the val speaker groups (041, 091, 131; greedy CER) only; val and test (021,
# 231) are never trained on. Seeded, time-boxed (MINUTES, default 65), both cores.
# Data: the three prepare commands listed in models/small-am-stream-v2/README.md.
# Then: CAND_NAME=small-am-stream-v3 STREAMING=1 DESC="..." sh training/asr/ship_v3.sh (scratch folder).
set -e
export OPENBLAS_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE
L=training/work/logs
mkdir -p $L
nice -n 5 /usr/bin/python3 training/asr/train.py --name small-am-stream-v3 --lang am --init-onnx models/small-am-stream-v2 \
  --teacher-onnx models/small-am-v2 --kd-weight "${KD_WEIGHT:-0.5}" --kd-skip alffa_spk_train_tel \
  --sets "alffa_spk_train,alffa_spk_train_aug,alffa_spk_train_tel,synth_am_train_spk,nonspeech_train" --synth-max-share 0.4 \
  --nonspeech-share 0.15 \
  --valid alffa_spk_val,nonspeech_val --select alffa_spk_val \
  --lr 0.0005 --warmup 100 --max-frames 8000 \
  --minutes "${MINUTES:-65}" --checkpoint-minutes 6 --seed 7 --threads 2 > $L/small-am-stream-v3.log 2>&1
