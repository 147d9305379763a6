#!/bin/sh
# Character 7-gram against word / morpheme n-gram LMs with a character fallback (issue 14), decoding
# small-am-v2's posteriors of the speaker-held-out ALFFA groups: weights and beam tuned on the val
# groups (041, 091, 131) only, the test groups (021, 231) decoded once with each setup's pick.
# About 3 min of builds and 16 min of decoding on one core of the 2-core dev machine.
# Result: training/lm/results/am-word-lm-vs-char.json (docs: models/lm/README.md).
set -e
cd "$(dirname "$0")/../.."
W=training/work/wordlm
mkdir -p $W
# News words whole (ALFFA transcripts keep their morpheme splits), 127 k words, 37 MB.
nice -n 10 /usr/bin/python3 training/lm/build_word_lm.py --order 3 --vocab 200000 --min-counts 1,1,2 \
  --repeat alffa-am-train=5 --out $W/am-word-3gram.bin
# News words split ALFFA-style into morphemes (alffa_segmenter.py), 83 k tokens, 28 MB.
nice -n 10 /usr/bin/python3 training/lm/build_word_lm.py --order 3 --vocab 200000 --min-counts 1,1,2 \
  --repeat alffa-am-train=5 --segment-news --out $W/am-morph-3gram.bin
# The same at order 4 (a 64-bit key holds 4 x 16 bits: 65 k tokens), 35 MB.
nice -n 10 /usr/bin/python3 training/lm/build_word_lm.py --order 4 --vocab 65000 --min-counts 1,1,2,2 \
  --repeat alffa-am-train=5 --segment-news --out $W/am-morph-4gram.bin
nice -n 10 npx tsx training/lm/word-lm-decoding.ts --model models/small-am-v2 --lm models/lm/am-char-7gram.bin \
  --word-lm w3=$W/am-word-3gram.bin,m3=$W/am-morph-3gram.bin,m4=$W/am-morph-4gram.bin \
  --setups char,add:w3,replace:w3,add:m3,replace:m3,add:m4 \
  --weights 0.02,0.05,0.1,0.2,0.3 --replace-weights 0.4,0.5,0.6,0.7,0.8 \
  --out training/lm/results/am-word-lm-vs-char.json
