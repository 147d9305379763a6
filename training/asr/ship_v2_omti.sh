#!/bin/sh
# Exports small-om-v2 and small-ti-v2 (the checkpoints picked on synth_<lang>_val: best.pt) and
# measures them beside small-om-v1 / small-ti-v1 through the gateway runtime on the v1 synthetic
# test sets (synth_<lang>_test_clean / _test_aug, HornMT lines 1900-2029, text never trained on).
# Run from the repository root after train_v2_omti.sh. Decoding weights (LM weight, per-character
# bonus, beam) are tuned on synth_<lang>_val only; the v1 models keep their manifests' weights.
# A v2 model becomes its language's default (`"default": true`) only if, decoded as served, its
# CER on the test sets taken together is lower than v1's and it is worse on neither
# (compare_omti.py). Only synthetic speech is measured: neither model was measured on people.
# Usage: sh training/asr/ship_v2_omti.sh [--v1-only] [om] [ti]   (default: both languages)
# --v1-only measures the v1 models on the v2 sets only (needs prepare_data.py --recipe v2, not
# the v2 runs); a later run without it reuses those v1 results when they exist. --card-only
# rewrites the model cards from the results already measured (step 6).
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
R=training/asr/results
V1ONLY=0
CARD=0
[ "$1" = "--v1-only" ] && V1ONLY=1 && shift
[ "$1" = "--card-only" ] && CARD=1 && shift
LANGS=${*:-om ti}
v1() {  # v1 on the v2 sets: greedy, decoding with its manifest weights, as served
  LG=$1; V1=models/small-$LG-v1
  TS="--set synth_${LG}_test_clean --set synth_${LG}_test_aug"
  WS="val=synth_${LG}_val,test_clean=synth_${LG}_test_clean,test_aug=synth_${LG}_test_aug"
  [ -f $R/small-$LG-v1-served-v2sets.json ] && return 0
  nice -n 10 npx tsx training/asr/evaluate.ts --model $V1 $TS --out $R/small-$LG-v1-greedy-v2sets.json
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $V1 --work-sets $WS --out $R/small-$LG-v1-synth-heldout.json
  nice -n 10 npx tsx training/asr/evaluate.ts --model $V1 --decoding manifest $TS --out $R/small-$LG-v1-served-v2sets.json
}
for LG in $LANGS; do
  v1 $LG
  [ $V1ONLY = 1 ] && continue
  M=models/small-$LG-v2
  NAME=$([ $LG = om ] && echo Oromo || echo Tigrinya)
  TS="--set synth_${LG}_test_clean --set synth_${LG}_test_aug"
  WS="val=synth_${LG}_val,test_clean=synth_${LG}_test_clean,test_aug=synth_${LG}_test_aug"
  DESC="Compact convolutional CTC model for $NAME (v2 architecture: 10 blocks, kernel 13), espeak-ng synthetic speech only with VTLP and tempo perturbation, 20 min on one CPU core, checkpoint picked on synthetic validation speech; CTC prefix beam search with the character 5-gram LM. Never measured on real speech"
  if [ $CARD = 0 ]; then
  # 1. ONNX + vocab + manifest (greedy until step 3)
  /usr/bin/python3 training/asr/export.py --run small-$LG-v2 --checkpoint best --out $M --description "$DESC" 2>&1 | grep -v -i warn
  # 2. greedy CER + RTF through the gateway runtime (v1: v1() above, the same sets)
  nice -n 10 npx tsx training/asr/evaluate.ts --model $M --set synth_${LG}_val $TS --out $R/small-$LG-v2.json
  # 3. greedy / beam / beam + LM; v2's weights tuned on val only, then into its manifest
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $M --lm models/lm/$LG-char-5gram.bin --tune \
    --work-sets $WS --beams 8,16 --alphas 0.2,0.3,0.5,0.8,1.0,1.2 --betas 0,0.5,1,2,3,4 --out $R/small-$LG-v2-synth-heldout.json
  /usr/bin/python3 training/asr/set_decoding.py --model $M --from $R/small-$LG-v2-synth-heldout.json --lm ../lm/$LG-char-5gram.bin
  # 4. as served (manifest decoding: beam + LM): CER and RTF on one core
  nice -n 10 npx tsx training/asr/evaluate.ts --model $M --decoding manifest $TS --out $R/small-$LG-v2-served.json
  fi
  # 5. the default only if v2 is better than v1 as served on the test sets
  if /usr/bin/python3 training/asr/compare_omti.py --lang $LG > $R/small-$LG-v2-vs-v1.json; then
    [ $CARD = 1 ] || /usr/bin/python3 training/asr/set_decoding.py --model $M --from $R/small-$LG-v2-synth-heldout.json --lm ../lm/$LG-char-5gram.bin --default-model
    STATUS="The default $NAME model since issue 14 (\`\"default\": true\` in its manifest): decoded as served it beat small-$LG-v1 on the synthetic test sets (\`training/asr/results/small-$LG-v2-vs-v1.json\`); small-$LG-v1 stays installed and selectable by name."
  else
    STATUS="**Not the default**: small-$LG-v1 stays the $NAME default, because decoded as served v2 was not better on the synthetic test sets (\`training/asr/results/small-$LG-v2-vs-v1.json\`); select v2 by name."
  fi
  # 6. the model card
  /usr/bin/python3 training/asr/write_card.py --model $M --run small-$LG-v2 --eval $R/small-$LG-v2.json \
    --heldout "small-$LG-v2=$R/small-$LG-v2-synth-heldout.json" \
    --heldout "small-$LG-v1 (its manifest weights)=$R/small-$LG-v1-synth-heldout.json" \
    --served $R/small-$LG-v2-served.json \
    --reproduce "$(printf '%s\n' 'sh training/asr/train_v2_omti.sh   # prepare_data.py --recipe v2, then train.py (20 min per language, one core)' \
       'sh training/asr/ship_v2_omti.sh    # export best.pt, evaluate beside v1, tune on val, manifest, card')" \
    --about "$(sed "s|__DEFAULT__|$STATUS|" training/asr/cards/small-$LG-v2-about.md)" --limits "$(cat training/asr/cards/small-omti-v2-limits.md)"
done
