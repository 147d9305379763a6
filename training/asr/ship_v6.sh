#!/bin/sh
# small-am-v6 (issue 33, 2026-12-03): candidate 15 (train_v3.sh CANDIDATE=15: small-am-v2-telephone trained on
# small-am-v2's whole wideband data plus the telephone copies and non-speech) exported into a SCRATCH folder (OUT,
# default /tmp/am-v6; not models/) as a single-model Amharic default candidate:
#   1. exported with small-am-v2's decoding block, then its LM weights tuned on the wideband val groups only;
#   2. measured beside small-am-v2 in one run by ship_v3.sh (held-out groups wideband, new sentences, over a call,
#      synthetic; the robustness benchmark's non-speech with the gate off and SPEECH_COUNT utterances per speech
#      condition, each model as the Amharic default of a models folder of its own);
#   3. its streaming step graph checked against model.onnx, small-am-v2's stream statistics (the same front end),
#      a confidence calibration fitted on the wideband val groups, and `telephone_model: small-am-v2-telephone`
#      (8 kHz input keeps reading on the model made for calls, docs/model-format.md *Telephone models*).
# Run from the repository root after `CANDIDATE=15 MINUTES=40 sh training/asr/train_v3.sh --skip-prepare`.
# Installing is by hand: copy $OUT/small-am-v6 into models/ and move `"default": true` to it from small-am-v2.
# The same steps serve a later single-model candidate: CAND_NAME (its folder and name), RUN (train_v3.sh's run),
# BASELINES (the shipped models measured beside it, default small-am-v2) and DESC; e.g. candidate 16:
#   CAND_NAME=small-am-v7 RUN=small-am-v3c16 BASELINES="small-am-v2 small-am-v6" OUT=/tmp/am-v7 DESC="..." \
#     sh training/asr/ship_v6.sh
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
OUT=$(realpath -m "${OUT:-/tmp/am-v6}")
CAND_NAME=${CAND_NAME:-small-am-v6}
M=$OUT/$CAND_NAME
R=$OUT/results
RUN=${RUN:-small-am-v3c15}
mkdir -p $R
LM=models/lm/am-char-7gram.bin
export DESC=${DESC:-"Compact convolutional CTC model for Amharic: small-am-v2 fine-tuned on G.711 calls (small-am-v2-telephone), then on small-am-v2's whole training data (clean and perturbed ALFFA train groups, espeak-ng speech), telephone/level copies and non-speech clips with empty targets; CTC prefix beam search with a character 7-gram LM of Amharic news"}

# 1. a first export at small-am-v2's weights, then the weights tuned on val (wideband)
CAND_NAME=$CAND_NAME RUN=$RUN OUT=$OUT STREAMING=1 EXPORT_ONLY=1 sh training/asr/ship_v3.sh > $R/export.log 2>&1 || true
[ -f $M/manifest.json ] || { echo "export failed: $R/export.log"; exit 1; }
nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $M --lm $LM --tune --sets val --beams 16 \
  --alphas 0.3,0.4,0.5,0.6,0.8 --betas 1.5,2,2.5,3,4 --out $R/$CAND_NAME-tune-val.json > $R/$CAND_NAME-tune-val.log 2>&1
ALPHA=${ALPHA:-$(node -e "console.log(require('$R/$CAND_NAME-tune-val.json').weights.alpha)")}
BETA=${BETA:-$(node -e "console.log(require('$R/$CAND_NAME-tune-val.json').weights.beta)")}
echo "$CAND_NAME LM alpha $ALPHA beta $BETA (tuned on the wideband val groups)" | tee $R/choice.txt

# 2. everything beside the baselines, one run
CAND_NAME=$CAND_NAME RUN=$RUN OUT=$OUT STREAMING=1 LM_ALPHA=$ALPHA LM_BETA=$BETA SPEECH_COUNT=${SPEECH_COUNT:-30} \
  NAMES="${BASELINES:-small-am-v2} $CAND_NAME" sh training/asr/ship_v3.sh

# 3. the live stream's graph, calibration and telephone model
/usr/bin/python3 training/asr/test_streaming_export.py $M 2>&1 | grep -v -i warn | tee $R/$CAND_NAME-streaming-export.log
nice -n 10 npx tsx bench/confidence-calibration.ts --model $M --per-group 25 --write > $R/$CAND_NAME-calibration.log 2>&1
cp bench/results/confidence-calibration.json $R/$CAND_NAME-calibration.json
/usr/bin/python3 - "$M/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
m["confidence_calibration"] = "confidence-calibration.json"
m["telephone_model"] = "small-am-v2-telephone"
json.dump(m, open(sys.argv[1], "w", encoding="utf-8"), ensure_ascii=False, indent=2)
open(sys.argv[1], "a").write("\n")
PY
echo "$CAND_NAME in $M; results in $R"
