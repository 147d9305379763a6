"""Checks the consonant + vowel-order decomposition (common.decompose / recompose): every letter
of the Ethiopic syllabary block, the ALFFA transcripts, the am/ti synthetic training text
(HornMT, AfriSenti) and the Amharic news text round-trip exactly, targets as train.py makes them
(normalised, homophones merged) and raw. Also: no decomposed string holds a first-order letter
without its mark, and model-output repairs (stray marks) behave as documented.
Run: /usr/bin/python3 training/asr/test_units.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))  # common.py
from common import ORDER_MARK, decompose, normalize_ethiopic, recompose, words_to_target  # noqa: E402

DATA = os.environ.get("SHARED_DATA", "/work/shared/data")


def check(text, what):
    d = decompose(text)
    assert recompose(d) == text, f"{what}: round trip fails for {text[:80]!r}"
    return len(text), len(d)


block = "".join(chr(c) for c in range(0x1200, 0x1380)) + "".join(chr(c) for c in range(0x1380, 0x13A0))
check(block, "Ethiopic block")
for c in range(0x1200, 0x1358):
    check(chr(c), f"U+{c:04X}")
assert decompose("ለ") == "ለ" + chr(ORDER_MARK), decompose("ለ")
assert decompose("ል") == "ለ"
assert decompose("ሏ") == "ለ" + chr(ORDER_MARK + 7)
assert recompose("ለ" + chr(ORDER_MARK + 2)) == "ሊ"
assert recompose(chr(ORDER_MARK + 2) + "ለ") == "ል"  # a mark with no consonant before it is dropped
assert recompose("ለ" + chr(ORDER_MARK + 2) + chr(ORDER_MARK + 3)) == "ሊ"  # a second mark is dropped
assert recompose("ቈ") == "ቍ" and recompose("ቈ" + chr(ORDER_MARK)) == "ቈ"

texts = {}
texts["alffa"] = [l.split(None, 1)[1].strip() for l in open(os.path.join(DATA, "alffa-am-train", "text"), encoding="utf-8")
                  if len(l.split(None, 1)) == 2]
texts["alffa-all"] = [l.strip() for l in open(os.path.join(DATA, "alffa-am-train", "all-train-transcripts.txt"), encoding="utf-8")]
for lang, code in (("am", "amh"), ("ti", "tir")):
    texts[f"hornmt-{lang}"] = [l.rstrip("\n") for l in open(os.path.join(DATA, "text", "hornmt", code + ".txt"), encoding="utf-8")]
    texts[f"afrisenti-{lang}"] = [l.rstrip("\n") for l in open(os.path.join(DATA, "text", "afrisenti", code + ".txt"), encoding="utf-8")]
news = os.path.join(DATA, "text", "enh", "amh-news.txt")
if os.path.exists(news):
    texts["enh-news"] = [l.rstrip("\n") for l in open(news, encoding="utf-8")]
for name, lines in texts.items():
    chars = units = 0
    for line in lines:
        check(line, name)  # raw text, every character
        words = [w for w in normalize_ethiopic(line, name.endswith("-ti")) if w is not None]
        target = words_to_target(words, "am" if not name.endswith("-ti") else "ti")
        a, b = check(target, name)
        assert all(ord(ch) not in range(0x1200, 0x1358) or (ord(ch) - 0x1200) % 8 == 0 or ch == " "
                   for ch in decompose(target)), name
        chars, units = chars + a, units + b
    print(f"{name}: {len(lines)} lines round-trip; targets {chars} characters -> {units} decomposed units ({units / max(chars, 1):.2f}x)")
print("ok")
