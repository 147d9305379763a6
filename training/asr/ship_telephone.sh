#!/bin/sh
# Telephone models (issue 33's telephone target; manifest `telephone_model`, docs/model-format.md):
# candidate 14 (train_v3.sh CANDIDATE=14: small-am-v2 fine-tuned on G.711 calls of the training
# speech) exported as small-am-v2-telephone, and joined with small-am-v5-ensemble's member b
# (candidate 12) as small-am-v5-telephone, each with a streaming step graph, stream statistics of
# calls and a confidence calibration fitted on calls, into a SCRATCH folder (OUT, default
# /tmp/am-telephone; not models/). The choices were made on the val groups over a mu-law call only:
#   - the single model's LM weights: held-out-decoding.ts --tune on the val calls (step 2);
#   - the pair's share of candidate 14 (SHARE): the lowest val-call CER of beam 16 + LM at
#     small-am-v5-ensemble's weights over 0.3 / 0.4 / 0.5 / 0.6 (step 3; SWEEP=0 skips the sweep).
# Then every model is measured beside the shipped ones in the same run (step 5): val and test groups,
# wideband and over the call, new sentences over the call; non-speech over the call with the gate off.
# Run from the repository root after train_v3.sh CANDIDATE=14.
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
OUT=$(realpath -m "${OUT:-/tmp/am-telephone}")
R=$OUT/results
mkdir -p $R
TEL=training/work/audio/heldout-telephone-mulaw
TRAIN_TEL=training/work/audio/train-telephone-mulaw
LM=models/lm/am-char-7gram.bin
DECODE="nice -n 10 npx tsx training/asr/held-out-decoding.ts --lm $LM"
[ -d $TEL ] || nice -n 10 /usr/bin/python3 training/asr/telephone_heldout.py --law mulaw --out $TEL
[ -d $TRAIN_TEL ] || nice -n 10 /usr/bin/python3 training/asr/telephone_heldout.py --law mulaw --sets train --out $TRAIN_TEL
ln -sfn "$(pwd)/models/lm" $OUT/lm  # the manifests' ../lm/am-char-7gram.bin, as in models/

# $1 folder, $2 ALPHA, $3 BETA: the decoding block of small-am-v2 (beam 16, the 7-gram LM) with these weights, never a default
set_decoding() {
  /usr/bin/python3 - "$1/manifest.json" models/small-am-v2/manifest.json "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
v2 = json.load(open(sys.argv[2], encoding="utf-8"))
m["decoding"], m["lm"] = v2["decoding"], dict(v2["lm"], alpha=float(sys.argv[3]), beta=float(sys.argv[4]))
m["default"] = False
json.dump(m, open(sys.argv[1], "w", encoding="utf-8"), ensure_ascii=False, indent=2)
open(sys.argv[1], "a").write("\n")
PY
}

# 1. candidate 14 as small-am-v2-telephone; candidate 12 out of small-am-v5-ensemble
V2T=$OUT/small-am-v2-telephone
/usr/bin/python3 training/asr/export.py --run small-am-v3c14 --checkpoint best --out $V2T --name small-am-v2-telephone \
  --description "Compact convolutional CTC model for Amharic over the telephone: small-am-v2 fine-tuned on G.711 mu-law and A-law calls (8 kHz, 300-3400 Hz) of its training speech and on non-speech clips with empty targets; the model small-am-v2 hands 8 kHz audio to (telephone_model); CTC prefix beam search with a character 7-gram LM of Amharic news" \
  2>&1 | grep -v -i warn
cp training/work/runs/small-am-v3c14/export.json $R/small-am-v2-telephone-export.json
/usr/bin/python3 training/asr/ensemble.py --member b models/small-am-v5-ensemble $OUT/small-am-v3c12 2>&1 | grep -v -i warn

# 2. the single model's LM weights, tuned on the val calls
set_decoding $V2T 0.5 2.5
$DECODE --model $V2T --tune --sets val --audio-dir $TEL --beams 16 --alphas 0.3,0.4,0.5,0.6,0.8 --betas 1.5,2,2.5,3,4 \
  --out $R/small-am-v2-telephone-tune-val-telephone.json > $R/small-am-v2-telephone-tune-val-telephone.log 2>&1
ALPHA=${ALPHA:-$(node -e "const r=require('$R/small-am-v2-telephone-tune-val-telephone.json');console.log(r.weights.alpha)")}
BETA=${BETA:-$(node -e "const r=require('$R/small-am-v2-telephone-tune-val-telephone.json');console.log(r.weights.beta)")}
set_decoding $V2T $ALPHA $BETA

# 3. the pair's share, on the val calls at small-am-v5-ensemble's LM weights (0.3 / 2.5)
if [ "${SWEEP:-1}" = 1 ]; then
  for W in 0.3 0.4 0.5 0.6; do
    /usr/bin/python3 training/asr/ensemble.py $V2T $OUT/small-am-v3c12 $OUT/share-$W --weight $W --name small-am-v5-telephone \
      --description scratch 2>&1 | grep -v -i warn
    set_decoding $OUT/share-$W 0.3 2.5
    $DECODE --model $OUT/share-$W --sets val --audio-dir $TEL --alpha 0.3 --beta 2.5 --beam 16 \
      --out $R/share-$W-val-telephone.json > $R/share-$W-val-telephone.log 2>&1
  done
fi
SHARE=${SHARE:-$(node -e "
const fs=require('fs');let best=null;
for (const w of ['0.3','0.4','0.5','0.6']) { const f='$R/share-'+w+'-val-telephone.json'; if (!fs.existsSync(f)) continue;
  const cer=JSON.parse(fs.readFileSync(f,'utf8')).sets.val.figures.find(r=>r.decoder.includes('LM')).cer;
  if (best===null||cer<best[1]) best=[w,cer]; }
console.log(best[0])")}
V5T=$OUT/small-am-v5-telephone
/usr/bin/python3 training/asr/ensemble.py $V2T $OUT/small-am-v3c12 $V5T --weight $SHARE --name small-am-v5-telephone \
  --description "Two compact convolutional CTC models for Amharic over the telephone served as one (weighted geometric mean of their frame posteriors, $SHARE and $(node -e "console.log((1-$SHARE).toFixed(1))")): small-am-v2-telephone and small-am-v3c12 (small-am-v5-ensemble's second member); the model small-am-v5-ensemble hands 8 kHz audio to (telephone_model); CTC prefix beam search with a character 7-gram LM of Amharic news" \
  2>&1 | grep -v -i warn
set_decoding $V5T 0.3 2.5
echo "small-am-v2-telephone LM alpha $ALPHA beta $BETA; small-am-v5-telephone share $SHARE" | tee $R/choice.txt

# 4. step graphs, stream statistics of calls (training speakers), confidence calibration fitted on calls (val groups)
for M in $V2T $V5T; do
  /usr/bin/python3 training/asr/export_streaming.py $M 2>&1 | grep -v -i warn
  nice -n 10 npx tsx training/asr/stream-statistics.ts --model $M --audio-dir $TRAIN_TEL
  nice -n 10 npx tsx bench/confidence-calibration.ts --model $M --channel mulaw --per-group 25 --write > $R/$(basename $M)-calibration.log 2>&1
  cp bench/results/confidence-calibration.json $R/$(basename $M)-calibration.json
  /usr/bin/python3 - "$M/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
m["confidence_calibration"] = "confidence-calibration.json"
json.dump(m, open(sys.argv[1], "w", encoding="utf-8"), ensure_ascii=False, indent=2)
open(sys.argv[1], "a").write("\n")
PY
done

# 5. held-out figures beside the shipped models, one run: wideband, over the call, new sentences over the call
for M in models/small-am-v2 models/small-am-v5-ensemble $V2T $V5T; do
  N=$(basename $M)
  $DECODE --model $M --out $R/$N-wideband.json > $R/$N-wideband.log 2>&1
  $DECODE --model $M --audio-dir $TEL --out $R/$N-telephone-mulaw.json > $R/$N-telephone-mulaw.log 2>&1
  $DECODE --model $M --audio-dir $TEL --subset new-sentences --out $R/$N-telephone-mulaw-new-sentences.json > $R/$N-telephone-mulaw-new-sentences.log 2>&1
  # non-speech over the call, the gate off (the acoustic model and decoder alone) and Silero as served
  nice -n 10 npx tsx bench/file-speech-gate.ts --model $M --channel mulaw --conditions clean --gates off,silero --per-group 10 \
    --out telephone-$N > $R/$N-nonspeech-telephone.log 2>&1
  cp bench/results/telephone-$N.json $R/$N-file-speech-gate-telephone.json
done
echo "results in $R"
