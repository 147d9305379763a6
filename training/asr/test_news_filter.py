"""Checks the held-out filter of the news synthetic set (prepare_data.py --news-synth, candidate 12),
held_out_free, which applies the LM corpus's rule (training/lm/build_char_lm.py):
  1. a news line quoting 20 letters of a held-out sentence is dropped, also with other spacing, the
     word separator and another homophone letter; a line sharing only 19 letters is kept;
  2. on the real files: a news line that carries a real val-group transcript is dropped, and the lines
     drawn by the news set's own seed keep none that shares a stretch with a held-out transcript.
Run: /usr/bin/python3 training/asr/test_news_filter.py (about 10 s: it reads the 50 MB news text)"""
import os

from check_setup import ROOT  # noqa: F401 (first: one OpenBLAS thread, the import path)
import numpy as np
from prepare_data import DATA, SPLITS, held_out_free, lines_of  # puts training/lm on the path
from build_char_lm import scoring, stretches  # noqa: E402

held = "ሰላም ለሁሉም ሰዎች በዚህ አገር ይሁን ብለዋል ።"
letters = "".join(held.split()).replace("።", "")
assert len(letters) >= 22
cases = {
    "ዜና " + letters[:20] + " ተብሏል": False,  # 20 letters quoted: dropped
    "ዜና ሰላም፡ለሁሉም፡ሰዎች፡በዚህ፡አገር፡ይሁን፡ብለዋል ተብሏል": False,  # the word separator instead of spaces
    "ዜና " + letters[:20].replace("ሰ", "ሠ") + " ተብሏል": False,  # a homophone letter (ሠ for ሰ)
    "ዜና " + letters[:19] + " ተብሏል": True,  # 19 letters: kept
    "የዛሬው ዜና ስለ ኢኮኖሚ እድገት ይናገራል": True,
}
kept = held_out_free(list(cases), [held])
for line, keep in cases.items():
    assert (line in kept) == keep, f"{'dropped' if keep else 'kept'}: {line}"

text = dict(l.strip().split(None, 1) for l in open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8")
            if len(l.strip().split(None, 1)) == 2)
ids = [u for k in ("val", "test") for u in open(os.path.join(SPLITS, f"alffa-spk-{k}.txt")).read().split()]
held_texts = [" ".join(text[u].split()) for u in ids]
news = [l for l in lines_of(os.path.join(DATA, "text", "enh", "amh-news.txt")) if len(l.split()) >= 3]
carrier = news[0] + " " + held_texts[0]
assert held_out_free([news[0], carrier], held_texts) == [news[0]], "a real val transcript inside a news line must go"
# the draw news_synth_set makes (seed 1): every kept line is free of every held-out stretch
picked = [news[int(i)] for i in np.random.default_rng(1 + 7000).choice(len(news), 18000, replace=False)]
free = held_out_free(picked, held_texts)
banned = set().union(*(stretches(scoring(t)) for t in held_texts))
assert not any(stretches(scoring(l)) & banned for l in free), "the raw scoring form must find nothing either"
print(f"ok: {len(ids)} held-out transcripts; of 18,000 drawn news lines {len(picked) - len(free)} share a stretch and are left out")
