"""Samples from the block with a list of token ids, the way a tokenizer's `encode` gives them."""

from token_block import generate


def sample(model, tokenizer):
    return generate(model, tokenizer.encode("hello"))
