"""Checks blank_bias.py's rule and decoding on small tensors, CPU only:
  - a bias on the blank turns frames where a letter barely won into blanks, and leaves sure letters;
  - choose() keeps the fewest letters a minute within the CER tolerance, ties to the smaller bias,
    and never picks a row past the tolerance however few letters it has.
Run: /usr/bin/python3 training/asr/test_blank_bias.py"""
from check_setup import HERE  # noqa: F401  first: one OpenBLAS thread, the import path
import torch
from blank_bias import choose, decode


def main():
    tokens = ["<blank>", "|", "ሀ", "ለ"]
    # frames: sure ሀ (margin 5), unsure ለ (margin 0.5), blank
    lg = torch.tensor([[0.0, -9, 5.0, -9], [0.0, -9, -9, 0.5], [3.0, -9, -9, -9]])
    assert decode([lg], 0.0, tokens, "syllable") == ["ሀለ"]
    assert decode([lg], 1.0, tokens, "syllable") == ["ሀ"]
    assert decode([lg], 6.0, tokens, "syllable") == [""]
    assert torch.equal(lg[:, 0], torch.tensor([0.0, 0.0, 3.0]))  # the caller's logits are not changed
    rows = [{"bias": 0.0, "val_cer": 0.300, "letters_per_min": 3.0},
            {"bias": 1.0, "val_cer": 0.301, "letters_per_min": 2.0},
            {"bias": 1.5, "val_cer": 0.302, "letters_per_min": 2.0},
            {"bias": 2.0, "val_cer": 0.310, "letters_per_min": 0.5}]
    assert choose(rows, 0.25)["bias"] == 1.0
    assert choose(rows, 1.0)["bias"] == 2.0
    assert choose(rows, 0.0)["bias"] == 0.0
    print("blank bias: ok")


if __name__ == "__main__":
    main()
