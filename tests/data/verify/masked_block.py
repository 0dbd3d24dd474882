"""A course's transformer block: `forward(x, mask)`, called nowhere in this file (the model that stacks
the blocks is another homework's)."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class MaskedBlock(nn.Module):
    def __init__(self, dim, hidden, p=0.1):
        super().__init__()
        self.wq = nn.Linear(dim, dim)
        self.wk = nn.Linear(dim, dim)
        self.wv = nn.Linear(dim, dim)
        self.wc = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim)
        self.ln2 = nn.LayerNorm(dim)
        self.w1 = nn.Linear(dim, hidden)
        self.w2 = nn.Linear(hidden, dim)
        self.dropout = nn.Dropout(p)

    def forward(self, x, mask):
        seq_len, batch_size, embed_dim = x.shape
        x = x.permute((1, 0, 2))
        scores = torch.bmm(self.wq(x), self.wk(x).permute((0, 2, 1))) / math.sqrt(embed_dim)
        attended = torch.bmm(F.softmax(scores + mask, dim=2), self.wv(x))
        S = self.ln1(self.dropout(self.wc(attended) + x))
        x = S.clone()
        S = F.relu(self.w1(S))
        S = self.w2(self.dropout(S))
        S = self.ln2(self.dropout(S) + x)
        return S.permute((1, 0, 2))
