"""A test function that returns nothing: what its clone changes shows in the tensors it holds as it
returns, compared between the code as written and as fixed."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.rnn = nn.GRU(4, 6)

    def forward(self, tokens):
        out, hidden = self.rnn(self.embed(tokens))
        return out, hidden


def test_padding_does_not_change_the_state():
    encoder = Encoder()
    tokens = torch.zeros(5, 1, dtype=torch.long)
    tokens[:3, 0] = torch.tensor([1, 2, 3])
    padded = tokens.clone()  # expect: TCL001
    _, first = encoder(tokens)
    _, second = encoder(padded)
    assert torch.allclose(first, second)
