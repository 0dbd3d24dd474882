"""A lesson on memory: the copy is made to show that it is another tensor, through a read the
linter cannot tell is one of identity (`getattr(copied, "data_ptr")()`). The values the script holds
are the same without the clone, but what it prints is not: --verify must not confirm TCL001."""

import torch

original = torch.arange(6.0).reshape(2, 3)
copied = original.clone()  # expect: TCL001
print("shared" if getattr(copied, "data_ptr")() == original.data_ptr() else "separate")
print(copied.sum())
