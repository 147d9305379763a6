#!/bin/sh
# Exports the small-am-v3 candidate (train_v3.sh; best.pt, picked on the val speaker groups) into
# a SCRATCH folder (OUT, default /tmp/am-v3-candidate; not models/) and measures it beside the
# shipped small-am-v2 in the same run:
#  1. held-out speaker groups (val 041/091/131, test 021/231): greedy, beam, beam + 7-gram LM, with
#     small-am-v2's manifest decoding weights for both (held-out-decoding.ts, the card's tool);
#     the same on the new-sentences subset, and all held-out utterances again through an 8 kHz G.711
#     mu-law call (telephone_heldout.py, then --audio-dir: 300-3400 Hz at 8 kHz, the robustness
#     benchmark's channel), to set beside the wideband figures of the same utterances;
#  2. invented letters per minute on the robustness benchmark's non-speech clips with the speech
#     gate off (bench/robustness.ts --runs today --surfaces rest), for each model through a models
#     folder where it is the Amharic default (SPEECH_COUNT held-out utterances per speech condition too). The bench writes
#     bench/results/robustness.json: this script keeps a copy of that file and puts it back after.
# LM_ALPHA / LM_BETA put the candidate's own LM weights (tuned on val by step 2b) in its manifest instead of v2's.
# BLANK_BIAS=D exports the candidate with D added to its blank's output bias (chosen on val by blank_bias.py).
# EXPORT_ONLY=1 stops after exporting the candidate.
# Run from the repository root after train_v3.sh. NAMES="small-am-v3" measures the candidate only
# (small-am-v2's figures already in $OUT/results: they do not depend on the candidate);
# NAMES="small-am-v2" measures the baseline only (no candidate needed: step 1 skipped); any shipped Amharic model
# can be named beside them (NAMES="small-am-stream-v1 small-am-stream-v2" with CAND_NAME=small-am-stream-v2).
set -e
export OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
OUT=$(realpath -m "${OUT:-/tmp/am-v3-candidate}")
CAND_NAME=${CAND_NAME:-small-am-v3}  # the candidate's folder and model name (small-am-stream-v2: the streaming candidate)
M=$OUT/$CAND_NAME
R=$OUT/results
mkdir -p $R
DESC=${DESC:-"Compact convolutional CTC model for Amharic (candidate v3): small-am-v2 fine-tuned from its shipped weights on the v2 sets plus G.711 telephone/level copies of the real speech and non-speech clips with empty targets (at most 15% of every batch); CTC prefix beam search with a character 7-gram LM of Amharic news"}
NAMES=${NAMES:-small-am-v2 $CAND_NAME}
RUN=${RUN:-$CAND_NAME}  # the run whose best.pt is the candidate (interpolate.py writes one too)
CAND=0; case " $NAMES " in *" $CAND_NAME "*) CAND=1 ;; esac
# $1: a name of NAMES: the candidate, a folder already in $OUT (an ensemble built there by ensemble.py), or a shipped model
model_dir() { if [ "$1" = "$CAND_NAME" ]; then echo $M; elif [ -f "$OUT/$1/manifest.json" ]; then echo $OUT/$1; else echo models/$1; fi; }
# 1. ONNX + vocab + manifest; decoding block (beam 16, LM alpha/beta) as small-am-v2's manifest
if [ $CAND = 1 ]; then
/usr/bin/python3 training/asr/export.py --run $RUN --checkpoint best --out $M --name $CAND_NAME --description "$DESC" \
  --blank-bias "${BLANK_BIAS:-0}" 2>&1 | grep -v -i warn
# a candidate with a bounded look-ahead (STREAMING=1) also gets its step graph and the shipped feature statistics
if [ "${STREAMING:-0}" = 1 ]; then
  /usr/bin/python3 training/asr/export_streaming.py $M 2>&1 | grep -v -i warn
  cp models/small-am-v2/stream-stats.json $M/
fi
cp training/work/runs/$RUN/export.json training/work/runs/$RUN/log.jsonl $OUT/
/usr/bin/python3 - "$M/manifest.json" models/small-am-v2/manifest.json <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1], encoding="utf-8"))
v2 = json.load(open(sys.argv[2], encoding="utf-8"))
m["decoding"], m["lm"] = v2["decoding"], v2["lm"]
m["default"] = False  # a candidate is never a default until its manifest is changed on purpose
for key, env in (("alpha", "LM_ALPHA"), ("beta", "LM_BETA")):  # weights tuned on val (step 2b of an earlier run)
    if os.environ.get(env):
        m["lm"][key] = float(os.environ[env])
json.dump(m, open(sys.argv[1], "w", encoding="utf-8"), ensure_ascii=False, indent=2)
open(sys.argv[1], "a").write("\n")
PY
ln -sfn "$(pwd)/models/lm" $OUT/lm  # the manifest's ../lm/am-char-7gram.bin, as in models/
fi
[ "${EXPORT_ONLY:-0}" = 1 ] && exit 0  # the candidate's folder only (ship_v6.sh tunes its LM weights before measuring)
# 2. held-out CER, both models, the same decoder settings
TEL=training/work/audio/heldout-telephone-mulaw
[ -d $TEL ] || nice -n 10 /usr/bin/python3 training/asr/telephone_heldout.py --law mulaw --out $TEL
for NAME in $NAMES; do
  DIR=$(model_dir $NAME)
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $DIR --lm models/lm/am-char-7gram.bin \
    --out $R/$NAME-spk-heldout.json > $R/$NAME-spk-heldout.log 2>&1
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $DIR --lm models/lm/am-char-7gram.bin --subset new-sentences \
    --out $R/$NAME-spk-heldout-new-sentences.json > $R/$NAME-spk-heldout-new-sentences.log 2>&1
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $DIR --lm models/lm/am-char-7gram.bin --audio-dir $TEL \
    --out $R/$NAME-spk-heldout-telephone-mulaw.json > $R/$NAME-spk-heldout-telephone-mulaw.log 2>&1
  # the synthetic held-out sets of v2's card (HornMT lines 1900-2029, text never trained on)
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $DIR --lm models/lm/am-char-7gram.bin \
    --work-sets synth_clean=synth_am_test_clean,synth_aug=synth_am_test_aug --out $R/$NAME-synth-heldout.json > $R/$NAME-synth-heldout.log 2>&1
done
# 2b. the candidate with decoding weights tuned for it on val only (test untuned)
case " $NAMES " in *" $CAND_NAME "*)
  nice -n 10 npx tsx training/asr/held-out-decoding.ts --model $M --lm models/lm/am-char-7gram.bin --tune \
    --beams 16 --alphas 0.3,0.4,0.5,0.6,0.8 --betas 1,1.5,2,2.5,3,4 --out $R/$CAND_NAME-spk-heldout-tuned.json \
    > $R/$CAND_NAME-spk-heldout-tuned.log 2>&1 ;;
esac
# 3. non-speech, gate off. The robustness bench serves each language's default model, so every model is measured
# through a models folder of its own where it is the Amharic default: the other folders linked, any other Amharic
# default (small-am-v2 until 2026-12-03, small-am-v6 since) copied with "default": false
default_models_dir() {  # $1: a name of NAMES; prints the models folder to serve
  D=$OUT/models-$1
  rm -rf $D && mkdir -p $D
  /usr/bin/python3 - models "$(model_dir $1)" "$1" $D <<'PY'
import json, os, shutil, sys
models, chosen, name, out = sys.argv[1:5]
def write(path, default):
    m = json.load(open(path, encoding="utf-8")); m["default"] = default
    json.dump(m, open(path, "w", encoding="utf-8"), ensure_ascii=False, indent=2); open(path, "a").write("\n")
for folder in sorted(os.listdir(models)):
    src = os.path.join(os.path.abspath(models), folder)
    if folder == name or not os.path.isdir(src):
        continue
    manifest = os.path.join(src, "manifest.json")
    m = json.load(open(manifest, encoding="utf-8")) if os.path.exists(manifest) else {}
    if m.get("default") is True and m.get("language") == "am":
        shutil.copytree(src, os.path.join(out, folder)); write(os.path.join(out, folder, "manifest.json"), False)
    else:
        os.symlink(src, os.path.join(out, folder))
shutil.copytree(os.path.abspath(chosen), os.path.join(out, name), symlinks=True); write(os.path.join(out, name, "manifest.json"), True)
PY
  echo $D
}
[ -f bench/data/robustness/manifest.json ] || nice -n 10 npx tsx bench/robustness-corpus.ts > $R/robustness-corpus.log 2>&1
B=bench/results/robustness.json
cp $B $R/robustness.json.before
for NAME in $NAMES; do
  DIRS=$(default_models_dir $NAME)
  MODELS_DIR=$DIRS nice -n 10 npx tsx bench/robustness.ts --surfaces rest --runs today --count 0 --sentences 0 \
    > $R/$NAME-robustness.log 2>&1 || true
  cp $B $R/$NAME-robustness.json
  cp $R/robustness.json.before $B
  # the same gateway on SPEECH_COUNT (default 6, at most the corpus's 30) held-out utterances per speech condition
  # (noise, music, telephone): non-speech training must not make the model drop speech
  SC=${SPEECH_COUNT:-6}
  MODELS_DIR=$DIRS nice -n 10 npx tsx bench/robustness.ts --surfaces rest --runs today --count $SC --sentences 0 --minutes 0 \
    > $R/$NAME-robustness-speech$SC.log 2>&1 || true
  cp $B $R/$NAME-robustness-speech$SC.json
  cp $R/robustness.json.before $B
done
# 4. one table of the figures above (results/summary.txt)
/usr/bin/python3 - $R $NAMES <<'PY' | tee $R/summary.txt
import json, os, sys
R, names = sys.argv[1], sys.argv[2:]
def fig(path, s, k):
    if not os.path.exists(path): return "-"
    f = json.load(open(path))["sets"][s]["figures"][k]["cer"]
    return f"{100 * f:.1f}"
print("model | set | greedy | beam+LM | new-sentences beam+LM | telephone mu-law greedy | telephone mu-law beam+LM")
for n in names:
    for s in ("val", "test"):
        b = f"{R}/{n}-spk-heldout"
        print(f"{n} | {s} | {fig(b + '.json', s, 0)} | {fig(b + '.json', s, 2)} | {fig(b + '-new-sentences.json', s, 2)} | "
              f"{fig(b + '-telephone-mulaw.json', s, 0)} | {fig(b + '-telephone-mulaw.json', s, 2)}")
for n in names:
    p = f"{R}/{n}-robustness.json"
    if os.path.exists(p):
        a = json.load(open(p))["summary"]["nonSpeech"]["ALL"]["rest-today"]
        print(f"{n}: non-speech, gate off (REST): {a['lettersPerMinute']} letters/min, {a['emptyPercent']}% of clips empty, {a['clips']} clips")
PY
