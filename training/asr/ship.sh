#!/bin/sh
# Exports a trained run into models/<name>/ and evaluates it through the gateway runtime.
# Usage: sh training/asr/ship.sh <name> "<description>"
set -e
NAME=$1
DESC=$2
LANG=$(echo "$NAME" | sed 's/.*-\(am\|om\|ti\)-v1/\1/')
/usr/bin/python3 training/asr/export.py --run "$NAME" --out "models/$NAME" --description "$DESC" 2>&1 | grep -v -i warn
SETS="--set synth_${LANG}_test_clean --set synth_${LANG}_test_aug"
[ "$LANG" = am ] && SETS="--set alffa_val $SETS"
nice -n 10 npx tsx training/asr/evaluate.ts --model "models/$NAME" $SETS --out "training/asr/results/$NAME.json" 2>&1 | grep -v -i warn
