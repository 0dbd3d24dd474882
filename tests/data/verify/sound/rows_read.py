"""Writes through a NumPy view of one row (TCL006): the claim is that a later read sees the change, so
the elements that read takes are compared with what they held before the write. `normalise_first`
reads the row it wrote (confirmed); `normalise_first_then_take` reads row `k`, another one, which
the write left alone (never confirmed)."""


def normalise_first(imgs):
    sample = imgs[0].numpy()  # expect: TCL006
    sample -= sample.min()
    return imgs[0].sum(), sample


def normalise_first_then_take(imgs, k: int):
    sample = imgs[0].numpy()  # expect: TCL006
    sample -= sample.min()
    return imgs[k], sample
