"""TCL009's and TCL012's pages, executed: what the rules say fails does fail, and what they call clean runs.

Every example on rules/TCL009.md and rules/TCL012.md is a runnable module ending with
the module-level call that reaches the flagged line. Each is executed under torch:

- a TCL009 `flagged` example raises `RuntimeError: Can't call numpy() on Tensor that
  requires grad` at one of the lines it declares;
- a TCL012 `flagged` example binds a non-leaf where a leaf was meant: it raises
  `ValueError: can't optimize a non-leaf Tensor`, or PyTorch warns that the `.grad` of
  a non-leaf is read (it stays None), or (an `nn.Parameter` copied in a module) the
  module holds a non-leaf tensor attribute that `.parameters()` does not contain. Examples whose copy happens only on a GPU
  (`.cuda()`, `.to(device)`) run only where CUDA is available;
- every `clean` and `fixed` example runs to the end without an exception or that warning.
"""

from __future__ import annotations

import sys
import traceback
import types
import warnings

import pytest

torch = pytest.importorskip("torch")

from torchcopylint.pages import Example, page_examples  # noqa: E402

NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad"
NON_LEAF_ERROR = "can't optimize a non-leaf Tensor"
NON_LEAF_GRAD_WARNING = "is not a leaf Tensor is being accessed"
CODES = ("TCL009", "TCL012")


def _cases(kind: str, code: str = "") -> list:
    return [pytest.param(c, example, id=f"{c}-{kind}-L{example.line}")
            for c in CODES if not code or c == code
            for example in page_examples(c) if example.kind == kind]


def _filename(code: str, example: Example) -> str:
    return f"<{code} {example.kind} example, rules/{code}.md line {example.line}>"


def _needs_gpu(example: Example) -> bool:
    """Made on a GPU (`.cuda()`, `device="cuda"`) or copied only there (`.to(device)`)."""
    return "cuda" in example.source


def _runs_only_on_gpu(example: Example) -> bool:
    return ".cuda()" in example.source or 'device="cuda"' in example.source


def _transformers_standin() -> types.ModuleType:
    """The two hub classes the TCL009 page's tokenizer examples import, made here (nothing is
    downloaded, transformers need not be installed): a tokenizer whose ids and mask are int64
    tensors, as a real one's are, and an encoder with trainable parameters, whose hidden states
    require grad in grad mode, as a real one's do."""
    module = types.ModuleType("transformers")

    class AutoTokenizer:
        @classmethod
        def from_pretrained(cls, name: str) -> "AutoTokenizer":
            return cls()

        def __call__(self, texts, padding=True, return_tensors="pt") -> dict:
            words = [text.split() for text in texts]
            width = max(len(each) for each in words)
            ids = [[sum(map(ord, w)) % 100 + 1 for w in each] + [0] * (width - len(each)) for each in words]
            mask = [[1] * len(each) + [0] * (width - len(each)) for each in words]
            return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)}

    class AutoModel(torch.nn.Module):
        @classmethod
        def from_pretrained(cls, name: str) -> "AutoModel":
            return cls()

        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(101, 8)

        def forward(self, input_ids, attention_mask=None):
            return (self.embed(input_ids) * attention_mask.unsqueeze(-1),)

    module.AutoTokenizer, module.AutoModel = AutoTokenizer, AutoModel
    return module


def _lightning_standin() -> types.ModuleType:
    """What the TCL009 page's Lightning example uses of `pytorch_lightning` (which need not be installed):
    a LightningModule is a torch module, and the trainer's validation runs each `validation_step` with
    grad mode off, as Lightning's evaluation loop does."""
    module = types.ModuleType("pytorch_lightning")

    class Trainer:
        def validate(self, model, dataloaders):
            with torch.no_grad():
                return [model.validation_step(batch, index) for index, batch in enumerate(dataloaders)]

    module.LightningModule, module.Trainer = torch.nn.Module, Trainer
    return module


STANDINS = {"transformers": _transformers_standin, "pytorch_lightning": _lightning_standin}


def _run(code: str, example: Example, messages: list | None = None) -> list[str]:
    """Execute the example as a module of its own; the warnings it gave (also put in `messages`,
    which keeps them when the example raises)."""
    messages = [] if messages is None else messages
    compiled = compile(example.source, _filename(code, example), "exec")
    namespace = {"__name__": f"{code.lower()}_example_L{example.line}", "__builtins__": __builtins__}
    torch.manual_seed(0)
    used = [name for name in STANDINS if f"from {name} import" in example.source or f"import {name}" in example.source]
    saved = {name: sys.modules.get(name) for name in used}
    for name in used:
        sys.modules[name] = STANDINS[name]()
    with warnings.catch_warnings(record=True) as caught, torch.enable_grad():
        warnings.simplefilter("always")
        try:
            exec(compiled, namespace)  # noqa: S102 - the project's own documentation examples
        finally:
            torch.set_grad_enabled(True)
            messages.extend(str(w.message) for w in caught)
            for name, module in saved.items():
                if module is not None:
                    sys.modules[name] = module
                else:
                    sys.modules.pop(name, None)
    return messages


def _run_keeping_namespace(code: str, example: Example) -> dict:
    compiled = compile(example.source, _filename(code, example), "exec")
    namespace = {"__name__": f"{code.lower()}_example_L{example.line}", "__builtins__": __builtins__}
    torch.manual_seed(0)
    exec(compiled, namespace)  # noqa: S102 - the project's own documentation examples
    return namespace


def _raising_line(error: BaseException, code: str, example: Example):
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if frame.filename == _filename(code, example)]
    return lines[-1] if lines else None


def test_pages_have_runnable_examples():
    for code in CODES:
        kinds = [example.kind for example in page_examples(code)]
        assert kinds.count("flagged") >= 6 and kinds.count("clean") >= 10, code


@pytest.mark.parametrize("code, example", _cases("flagged", "TCL009"))
def test_tcl009_flagged_example_raises_the_numpy_error(code, example):
    with pytest.raises(RuntimeError) as raised:
        _run(code, example)
    assert NUMPY_ERROR in str(raised.value), str(raised.value)
    line = _raising_line(raised.value, code, example)
    assert line in example.lines, f"raised at line {line}, the page flags lines {example.lines}"


@pytest.mark.parametrize("code, example", _cases("flagged", "TCL012"))
def test_tcl012_flagged_example_loses_its_leaf(code, example):
    if _needs_gpu(example) and not torch.cuda.is_available():
        pytest.skip("the copy is made only on a GPU; on the CPU `.to(device)` returns the leaf itself")
    caught: list[str] = []
    if "nn.Parameter(" in example.source and "self." in example.source:
        namespace = _run_keeping_namespace(code, example)
        modules = [value for value in namespace.values() if isinstance(value, torch.nn.Module)]
        unregistered = [value for module in modules for value in vars(module).values()
                        if isinstance(value, torch.Tensor) and value.requires_grad and not value.is_leaf
                        and not any(value is p for p in module.parameters())]
        assert unregistered, "every tensor attribute that requires grad is a registered parameter"
        return
    try:
        _run(code, example, caught)
    except ValueError as error:
        assert NON_LEAF_ERROR in str(error), str(error)
        return
    except TypeError as error:
        assert "NoneType" in str(error), str(error)  # `w -= lr * w.grad` with `w.grad` None
    assert any(NON_LEAF_GRAD_WARNING in message for message in caught), \
        f"neither the optimizer's error nor the non-leaf .grad warning: {caught}"


def test_tcl012_manual_update_reads_a_none_gradient():
    """The hand-written update of the scaled-init example: the warning, then the TypeError."""
    example = next(e for e in page_examples("TCL012") if e.kind == "flagged" and "* 0.01" in e.source)
    caught: list[str] = []
    with pytest.raises(TypeError):
        _run("TCL012", example, caught)
    assert any(NON_LEAF_GRAD_WARNING in message for message in caught), caught


@pytest.mark.parametrize("code, example", _cases("clean") + _cases("fixed"))
def test_clean_and_fixed_examples_run(code, example):
    if _runs_only_on_gpu(example) and not torch.cuda.is_available():
        pytest.skip("the example runs on a GPU")
    caught = _run(code, example)
    assert not any(NON_LEAF_GRAD_WARNING in message for message in caught), caught
