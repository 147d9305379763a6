"""Checks the multitask split of model.CtcNet (train.py --aux-sets) on small random tensors, CPU only:
  - forward is exactly the main output layer over encode (the exported function is unchanged);
  - encode's states are zero past each row's length, and a row's states do not depend on the batch's
    padding (the padding-invariance rule the exported model keeps);
  - a second output layer's CTC loss trains the shared encoder and that layer, never the main output
    layer (so the exported vocabulary's weights move only through the main language's rows).
Run: /usr/bin/python3 training/asr/test_multitask.py"""
from check_setup import HERE  # noqa: F401  first: one OpenBLAS thread, the import path
import torch
from model import CtcNet


def main():
    torch.manual_seed(0)
    net = CtcNet(vocab_size=11, n_mels=80, dim=32, blocks=2, kernel=5, dropout=0.0).eval()
    feats = torch.randn(3, 60, 80)
    lengths = torch.tensor([60, 41, 17])
    for b in range(3):
        feats[b, int(lengths[b]):] = 0
    with torch.no_grad():
        logits, out_len = net(feats, lengths)
        states, states_len = net.encode(feats, lengths)
        again = CtcNet.head(net.out, states)
    assert torch.equal(out_len, states_len)
    assert torch.equal(logits, again), (logits - again).abs().max()
    for b in range(3):
        assert float(states[b, :, int(states_len[b]):].abs().sum()) == 0.0, b
    with torch.no_grad():  # row 2 alone: the same states as inside the padded batch
        alone, alone_len = net.encode(feats[2:3, :17], lengths[2:3])
    assert torch.allclose(alone[0, :, :int(alone_len[0])], states[2, :, :int(states_len[2])], atol=1e-5)

    net.train()
    aux_head = torch.nn.Conv1d(32, 7, 1)
    states, ol = net.encode(feats, lengths)
    logp = torch.log_softmax(CtcNet.head(aux_head, states), -1).transpose(0, 1)
    y = torch.tensor([1, 2, 3, 4, 5, 6, 1, 2, 3])
    yl = torch.tensor([4, 3, 2])
    torch.nn.functional.ctc_loss(logp, y, ol, yl, blank=0).backward()
    assert net.out.weight.grad is None and net.out.bias.grad is None  # the main layer is untouched
    assert float(net.blocks[0].pw.weight.grad.abs().sum()) > 0  # the shared encoder learns
    assert float(net.sub1.weight.grad.abs().sum()) > 0
    assert float(aux_head.weight.grad.abs().sum()) > 0
    print("multitask checks passed")


if __name__ == "__main__":
    main()
