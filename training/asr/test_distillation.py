"""Checks train.py's distillation term (--teacher-onnx) on small random tensors, CPU only:
  - a student equal to its teacher has KL 0 on every row; a different student has KL > 0;
  - frames past a row's out_length never count (changing them leaves the row's value);
  - the per-row denominator divides (twice the units, half the value);
  - temperature T scales the soft KL by T^2 (at T = 1 it equals the direct KL);
  - gradients reach the student's logits only where frames are valid.
Run: /usr/bin/python3 training/asr/test_distillation.py"""
from check_setup import HERE  # noqa: F401  first: one OpenBLAS thread, the import path
import torch
from train import distillation_per_row


def main():
    torch.manual_seed(0)
    B, T, V = 3, 17, 9
    teacher = torch.randn(B, T, V) * 3
    lengths = torch.tensor([17, 11, 5])
    denom = torch.tensor([4.0, 3.0, 2.0])
    same = distillation_per_row(teacher.clone(), teacher, lengths, denom)
    assert torch.allclose(same, torch.zeros(B), atol=1e-6), same
    student = torch.randn(B, T, V, requires_grad=True)
    kl = distillation_per_row(student, teacher, lengths, denom)
    assert (kl > 0).all(), kl
    # direct KL of the valid frames, per row
    t = torch.log_softmax(teacher, -1)
    s = torch.log_softmax(student.detach(), -1)
    for b in range(B):
        L = int(lengths[b])
        direct = (t[b, :L].exp() * (t[b, :L] - s[b, :L])).sum() / denom[b]
        assert torch.allclose(kl[b], direct, atol=1e-5), (b, kl[b], direct)
    # padding frames do not count
    moved = student.detach().clone()
    moved[1, 11:] = torch.randn(T - 11, V) * 5
    moved[2, 5:] = 100.0
    again = distillation_per_row(moved, teacher, lengths, denom)
    assert torch.allclose(again, kl.detach(), atol=1e-5), (again, kl)
    # the denominator divides
    half = distillation_per_row(student.detach(), teacher, lengths, denom * 2)
    assert torch.allclose(half, kl.detach() / 2, atol=1e-6)
    # temperature: T^2 x KL of the softened distributions
    T2 = 2.0
    soft = distillation_per_row(student.detach(), teacher, lengths, denom, temperature=T2)
    ts, ss = torch.log_softmax(teacher / T2, -1), torch.log_softmax(student.detach() / T2, -1)
    for b in range(B):
        L = int(lengths[b])
        direct = T2 * T2 * (ts[b, :L].exp() * (ts[b, :L] - ss[b, :L])).sum() / denom[b]
        assert torch.allclose(soft[b], direct, atol=1e-5)
    # gradients only on valid frames
    kl.sum().backward()
    g = student.grad
    assert g[1, 11:].abs().max() == 0 and g[2, 5:].abs().max() == 0
    assert g[0].abs().max() > 0 and g[1, :11].abs().max() > 0
    print("distillation: ok")


if __name__ == "__main__":
    main()
