"""MolGAN's `utils.py` in small: at import, the module reads score tables of the user's data
(`data/NP_score.pkl.gz`), which --verify never reads; the blocks that import it never use them."""

import gzip
import pickle

import torch

NP_model = pickle.load(gzip.open("data/NP_score.pkl.gz"))
SA_model = {row[j]: float(row[0]) for row in pickle.load(gzip.open("data/SA_score.pkl.gz"))
            for j in range(1, len(row))}


def natural_product_score(fingerprints):
    return sum(NP_model.get(bit, 0) for bit in fingerprints)


def reward(scores: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(scores)
