"""Checks the held-out filter of the news synthetic set (prepare_data.py --news-synth, candidate 12):
  1. letter_shingles ignores spaces and Ethiopic/Latin punctuation, so a held-out sentence written
     with other spacing or a word separator still shares its stretches with the news line;
  2. a news line that quotes 20 letters of a held-out transcript shares a stretch with it, a line
     that shares only 19 does not;
  3. no line of the shared ENH news text that the set could draw from shares a stretch with a val or
     test group transcript once filtered (the filter run on the real files, as news_synth_set runs it).
Run: /usr/bin/python3 training/asr/test_news_filter.py (about 20 s: it reads the 50 MB news text)"""
import os

from check_setup import ROOT  # first: one OpenBLAS thread, the import path
from prepare_data import DATA, SPLITS, letter_shingles, lines_of

held = "ሰላም ለሁሉም ሰዎች በዚህ አገር ይሁን ብለዋል ።"
spaced = "ሰላም፡ለሁሉም፡ሰዎች፡በዚህ፡አገር፡ይሁን፡ብለዋል፡፡"
assert letter_shingles(held) == letter_shingles(spaced), "spacing and punctuation must not matter"
letters = "".join(held.split()).replace("።", "")
assert len(letters) >= 22
quote20 = "ዜና " + letters[:20] + " ተብሏል"
quote19 = "ዜና " + letters[:19] + " ተብሏል"
assert letter_shingles(quote20) & letter_shingles(held), "a 20-letter quote must be caught"
assert not (letter_shingles(quote19) & letter_shingles(held)), "19 letters must pass"

text = dict(l.strip().split(None, 1) for l in open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8")
            if len(l.strip().split(None, 1)) == 2)
ids = [u for k in ("val", "test") for u in open(os.path.join(SPLITS, f"alffa-spk-{k}.txt")).read().split()]
banned = set()
for u in ids:
    banned |= letter_shingles(" ".join(text[u].split()))
news = lines_of(os.path.join(DATA, "text", "enh", "amh-news.txt"))
hit = [l for l in news if letter_shingles(l) & banned]
kept = [l for l in news if l not in set(hit)]
assert not any(letter_shingles(l) & banned for l in kept[:20000])
print(f"ok: {len(ids)} held-out transcripts, {len(news)} news lines, {len(hit)} share a 20-letter stretch and are left out; "
      f"ROOT {os.path.basename(ROOT)}")
