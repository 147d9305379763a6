#!/bin/sh
# small-am-stream-v2 candidate (issues 30 and 33): the bounded look-ahead model (0.4 s, right_context 1)
# continued from the SHIPPED small-am-stream-v1 weights (train.py --init-onnx reads the right context back
# from the ONNX Conv pads) on the v3 data: the v2 sets (ALFFA training groups clean + perturbed copies,
# espeak-ng synthetic speech at most 40% of a batch), G.711 telephone / level copies of every training
# utterance (alffa_spk_train_tel) and non-speech clips with EMPTY targets (at most 15% of a batch). The
# checkpoint is picked on the val speaker groups (041, 091, 131; greedy CER) only; val and test (021, 231)
# groups are never trained on. Seeded, time-boxed (MINUTES, default 55), both cores.
# Data: the three prepare commands of train_v3.sh, run alone (train_v3.sh without --skip-prepare would also
# train small-am-v3); they are listed in models/small-am-stream-v2/README.md.
# Then: CAND_NAME=small-am-stream-v2 STREAMING=1 DESC="..." sh training/asr/ship_v3.sh (scratch folder).
set -e
export OPENBLAS_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE
L=training/work/logs
mkdir -p $L
nice -n 5 /usr/bin/python3 training/asr/train.py --name small-am-stream-v2 --lang am --init-onnx models/small-am-stream-v1 \
  --sets "alffa_spk_train,alffa_spk_train_aug,alffa_spk_train_tel,synth_am_train_spk,nonspeech_train" --synth-max-share 0.4 \
  --nonspeech-share 0.15 \
  --valid alffa_spk_val,nonspeech_val --select alffa_spk_val \
  --lr 0.0008 --warmup 100 --max-frames 8000 \
  --minutes "${MINUTES:-55}" --checkpoint-minutes 6 --seed 5 --threads 2 > $L/small-am-stream-v2.log 2>&1
