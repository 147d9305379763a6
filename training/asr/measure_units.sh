#!/bin/sh
# Output units chosen by measurement (issue 14 item 3): Ethiopic syllables vs consonant + vowel
# order (common.decompose: the row's first-order letter, then a vowel-order mark; the sixth order
# unmarked). Two runs of the small-am-v2 recipe that differ only in --units: same data (the
# speaker split: alffa_spk_train + 5 perturbed copies + synthetic <= 40% of a batch), seed,
# architecture and a 12-minute box each on one core, one after the other; checkpoint picked on
# the val groups; decomposed output recomposed to syllables before scoring. Both runs keep every
# utterance CTC can align (--length-filter feasible): the v2 rule (2 x target + 1 frames) would
# drop a third of the real utterances for the 1.47x longer decomposed targets. Then both exported
# and scored through the gateway runtime (evaluate.ts, greedy, model-card scoring) with RTF.
# Run from the repository root after prepare_data.py --lang am --seed 1 --split speaker.
# --train-only: the two runs only; --skip-train: export and score existing runs.
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
P="nice -n 10 /usr/bin/python3"
L=training/work/logs
R=training/asr/results
MIN=${UNITS_MINUTES:-12}
mkdir -p $L
/usr/bin/python3 training/asr/test_units.py > $L/test-units.log
if [ "$1" != "--skip-train" ]; then
  for U in syllable decomposed; do
    $P training/asr/train.py --name units-$U --lang am --units $U --length-filter feasible \
      --sets alffa_spk_train,alffa_spk_train_aug,synth_am_train_spk --synth-max-share 0.4 \
      --valid alffa_spk_val --select alffa_spk_val --bootstrap-steps 150 \
      --dim 256 --blocks 10 --kernel 13 --dropout 0 --lr 0.003 --warmup 300 --max-frames 8000 \
      --minutes $MIN --checkpoint-minutes 3 --seed 1 --threads 1 > $L/units-$U.log 2>&1
  done
fi
[ "$1" = "--train-only" ] && exit 0
for U in syllable decomposed; do
  /usr/bin/python3 training/asr/export.py --run units-$U --checkpoint best --out training/work/models/units-$U \
    --description "units measurement: $U (not shipped)" 2>&1 | grep -v -i warn
  nice -n 10 npx tsx training/asr/evaluate.ts --model training/work/models/units-$U --units $U \
    --set alffa_spk_val --set alffa_spk_test --out $R/units-$U.json
  cp training/work/runs/units-$U/log.jsonl $R/units-$U-train-log.jsonl
done
/usr/bin/python3 training/asr/summarise_units.py > $R/units-summary.json
