"""An attack on a language model's token embeddings, Hugging Face style: the inputs go to
`model.device`, the embeddings come from `model.get_input_embeddings()`, and the attack starts from a
copy of them made in the wrong order (TCL005). A stand-in network answers both, and says so."""

import torch
import torch.nn.functional as F


def embedding_attack(model, input_ids, labels, step=0.01, steps=3):
    input_ids = input_ids.to(model.device)
    embeddings = model.get_input_embeddings()(input_ids)
    perturbed = embeddings.clone().detach().requires_grad_(True)
    for _ in range(steps):
        logits = model(inputs_embeds=perturbed)
        loss = F.cross_entropy(logits, labels.to(model.device))
        (gradient,) = torch.autograd.grad(loss, perturbed)
        perturbed = (perturbed + step * gradient.sign()).detach().requires_grad_(True)
    return perturbed
