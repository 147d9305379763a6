#!/bin/sh
# Exports small-am-v2 (the checkpoint picked on the val speaker groups: best.pt) into
# models/small-am-v2 and measures it through the gateway runtime. Run from the repository root
# after train_v2.sh. Step 3 tunes LM weight, per-character bonus and beam on the val groups only;
# every test-group figure is untuned. The tuned values then go into the manifest (step 4).
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
R=training/asr/results
M=models/small-am-v2
DESC="Compact convolutional CTC model for Amharic, trained from scratch on the ALFFA speaker-split train groups only (perturbed real speech + at most 40% espeak-ng synthetic per batch), 68 min on one CPU core; CTC prefix beam search with a character 7-gram LM of Amharic news"
# 1. ONNX + vocab + manifest (greedy until step 4)
/usr/bin/python3 training/asr/export.py --run small-am-v2 --checkpoint best --out $M --description "$DESC" 2>&1 | grep -v -i warn
# 2. greedy CER + RTF through the gateway runtime: held-out speaker groups and the synthetic sets
nice -n 10 npx tsx training/asr/evaluate.ts --model $M --set alffa_spk_val --set alffa_spk_test \
  --set synth_am_test_clean --set synth_am_test_aug --out $R/small-am-v2.json
# 3. greedy / beam / beam + 7-gram LM on the speaker groups, weights tuned on val only
nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $M --lm models/lm/am-char-7gram.bin --tune \
  --beams 8,16 --alphas 0.2,0.3,0.4,0.5,0.6,0.8 --betas 0,1,1.5,2,2.5,3,4 --out $R/small-am-v2-spk-heldout.json
# 4. the tuned weights into the manifest (beam by default, the 7-gram LM, "default": true for am)
/usr/bin/python3 training/asr/set_decoding.py --model $M --from $R/small-am-v2-spk-heldout.json \
  --lm ../lm/am-char-7gram.bin --default-model
# 5. the same weights on the subsets: the groups small-am-v1 never heard (091, 021; v1 with its
#    own manifest weights beside it) and the held-out utterances whose sentence no training-group
#    speaker reads (not for v1: it trained on groups 041, 131, 231)
for S in v1-unseen new-sentences; do
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $M --subset $S --out $R/small-am-v2-spk-heldout-$S.json
done
nice -n 10 npx tsx training/asr/held-out-decoding.ts --model models/small-am-v1 --subset v1-unseen --out $R/small-am-v1-spk-heldout-v1-unseen.json
# 6. as served (beam + LM from the manifest): CER and RTF on one core
nice -n 10 npx tsx training/asr/evaluate.ts --model $M --decoding manifest --set alffa_spk_val --set alffa_spk_test \
  --set synth_am_test_clean --out $R/small-am-v2-served.json
# 7. the model card (figures from the JSON above; only --about and --limits are written by hand)
/usr/bin/python3 training/asr/write_card.py --model $M --run small-am-v2 --eval $R/small-am-v2.json \
  --heldout "small-am-v2=$R/small-am-v2-spk-heldout.json" \
  --heldout "small-am-v2=$R/small-am-v2-spk-heldout-v1-unseen.json" \
  --heldout "small-am-v2=$R/small-am-v2-spk-heldout-new-sentences.json" \
  --heldout "small-am-v1 (its manifest: beam 16, alpha 0.4, beta 2.5, tuned on 091)=$R/small-am-v1-spk-heldout-v1-unseen.json" \
  --served $R/small-am-v2-served.json \
  --reproduce "$(printf '%s\n' '/usr/bin/python3 training/common/speaker_split.py   # splits/ (committed)' \
     'sh training/asr/train_v2.sh    # prepare_data.py --split speaker, then train.py (68 min, one core)' \
     'sh training/asr/ship_v2.sh     # export best.pt, evaluate, tune on val, manifest, card')" \
  --about "$(cat training/asr/cards/small-am-v2-about.md)" --limits "$(cat training/asr/cards/small-am-v2-limits.md)"
