"""The probes that run inside the user's program under `--verify --run`.

Loaded by the import hook (hook/sitecustomize.py) in every Python process the
command starts. A probe records facts and never changes results: any failure
inside a probe is recorded and swallowed, and the statement runs as written.
At exit each process writes what it saw to a JSON file in the probe directory.
"""

from __future__ import annotations

import ast
import atexit
import json
import os
import sys
import time
import weakref
from typing import Any, Optional

# Seconds between two dumps while the program runs (a forked worker exits without atexit).
DUMP_INTERVAL = 1.0


class ProbeRuntime:
    def __init__(self, plan: dict, output_directory: str) -> None:
        self.plan = plan  # {"probes": {id: {...}}, "diagnoses": {index: {...}}, "stop_when_decided": bool}
        self.output_directory = output_directory
        # per diagnosis index: {"executions": n, "confirmed": n, "refuted": n, "evidence": str, "failures": [...]}
        self.observations: dict[str, dict] = {}
        self.memory: dict[str, Any] = {}
        self._globals: dict = {}
        self._compiled: dict[str, Any] = {}
        self._last_dump = 0.0
        atexit.register(self.dump)
        if hasattr(os, "register_at_fork"):
            # A forked child starts with the parent's observations: it must report only its own.
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self.observations = {}
        self.memory = {}
        self._last_dump = 0.0

    def unplaced(self, probe_ids: list[int], path: str) -> None:
        """Probes the rewriter could not put on their line: their diagnoses stay undecided, and say why."""
        for probe_id in probe_ids:
            probe = self.plan["probes"].get(str(probe_id))
            if probe is not None:
                observation = self._observation(str(probe["diagnosis"]))
                observation["failures"].append(f"no probe could be placed at line {probe.get('line')} of {path}")

    # ------------------------------------------------------------------ entry points

    def before(self, probe_id: int, frame_locals: dict) -> None:
        self._run(probe_id, frame_locals, sys._getframe(1).f_globals)

    def after(self, probe_id: int, frame_locals: dict) -> None:
        self._run(probe_id, frame_locals, sys._getframe(1).f_globals)

    def _run(self, probe_id: int, frame_locals: dict, frame_globals: dict) -> None:
        probe = self.plan["probes"].get(str(probe_id))
        if probe is None:
            return
        index = str(probe["diagnosis"])
        observation = self._observation(index)
        observation["reached"] += 1
        decided_before = observation["confirmed"] + observation["refuted"]
        self._globals = frame_globals
        try:
            handler = getattr(self, "_" + probe["role"])
            handler(probe, frame_locals, observation, index)
        except Exception as error:  # noqa: BLE001 - a probe must never break the program
            if len(observation["failures"]) < 3:
                observation["failures"].append(f"{type(error).__name__}: {error}"[:200])
        now = time.monotonic()
        first_decision = not decided_before and observation["confirmed"] + observation["refuted"]
        if first_decision or now - self._last_dump > DUMP_INTERVAL:
            self._last_dump = now
            self.dump()
        if self.plan.get("stop_when_decided") and self._all_decided():
            self.dump()
            os._exit(0)

    def _observation(self, index: str) -> dict:
        return self.observations.setdefault(index, {
            "reached": 0, "executions": 0, "confirmed": 0, "refuted": 0,
            "confirmed_evidence": "", "refuted_evidence": "", "failures": []})

    def _all_decided(self) -> bool:
        return all(self.observations.get(str(index), {}).get("confirmed") or
                   self.observations.get(str(index), {}).get("refuted")
                   for index in self.plan["diagnoses"])

    # ------------------------------------------------------------------ helpers

    def _value(self, expression: str, frame_locals: dict) -> Any:
        """The value of a name, attribute or subscript in the user's frame. Anything with a call
        is not evaluated: running it again could change the program (random numbers, I/O)."""
        code = self._compiled.get(expression)
        if code is None:
            tree = ast.parse(expression, mode="eval")
            if any(isinstance(node, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.Lambda))
                   for node in ast.walk(tree)):
                raise ValueError(f"`{expression}` contains a call; not evaluated again, to keep the program's results")
            code = self._compiled[expression] = compile(tree, "<torchcopylint probe>", "eval")
        return eval(code, self._globals, frame_locals)  # noqa: S307 - the user's own names

    def _decide(self, observation: dict, confirmed: bool, evidence: str) -> None:
        observation["executions"] += 1
        outcome = "confirmed" if confirmed else "refuted"
        observation[outcome] += 1
        if not observation[f"{outcome}_evidence"]:
            observation[f"{outcome}_evidence"] = evidence

    # ------------------------------------------------------------------ roles

    def _copy_made(self, probe, frame_locals, observation, index):
        """TCL001 after `y = x.clone()`: remember both tensors and their version counters."""
        source = frame_locals.get(probe["source"])
        copy = frame_locals.get(probe["copy"])
        if source is None or copy is None:
            return
        self.memory[index] = (weakref.ref(source), source._version, weakref.ref(copy), copy._version)

    def _copy_read(self, probe, frame_locals, observation, index):
        """TCL001 at the last read of the copy: was either storage written since the clone?"""
        remembered = self.memory.pop(index, None)
        if remembered is None:
            return
        source_ref, source_version, copy_ref, copy_version = remembered
        source, copy = source_ref(), copy_ref()
        written = (source is not None and source._version != source_version) or \
                  (copy is not None and copy._version != copy_version)
        self._decide(observation, not written,
                     "the source was written in place before the copy was read: the clone is needed" if written
                     else "neither the source nor the copy was written in place between the clone and its read")

    def _alias_made(self, probe, frame_locals, observation, index):
        """TCL002 after `y = x`: remember the alias and its (shared) version counter."""
        alias = frame_locals.get(probe["alias"])
        if alias is not None:
            self.memory[index] = (weakref.ref(alias), alias._version, alias.detach().flatten()[:4].tolist())

    def _alias_read(self, probe, frame_locals, observation, index):
        remembered = self.memory.pop(index, None)
        if remembered is None:
            return
        alias_ref, version, first_values = remembered
        alias = alias_ref()
        if alias is None:
            return
        written = alias._version != version
        now = alias.detach().flatten()[:4].tolist()
        self._decide(observation, written,
                     f"the storage was written in place before the read (first values {first_values} -> {now})"
                     if written else "the alias was read unchanged")

    def _discriminator_call(self, probe, frame_locals, observation, index):
        """TCL003 before `D(fake)`: note the generator's gradients, to compare at the D step."""
        generator = self._value(probe["generator"], frame_locals)
        parameters = [p for p in generator.parameters() if p.requires_grad]
        self.memory[index] = [(p, None if p.grad is None else p.grad.detach().clone()) for p in parameters]

    def _discriminator_step(self, probe, frame_locals, observation, index):
        remembered = self.memory.pop(index, None)
        if remembered is None:
            return
        reached = [p for p, before in remembered
                   if p.grad is not None and (before is None or not bool((p.grad == before).all()))]
        size = sum(p.grad.numel() * p.grad.element_size() for p in reached)
        self._decide(observation, bool(reached),
                     f"{len(reached)} generator parameters ({size:,} bytes of gradients) received gradients "
                     f"from the discriminator's backward" if reached else "no generator gradient changed")

    def _leaf_write(self, probe, frame_locals, observation, index):
        """TCL004 before the write: is the target a leaf that requires grad, in grad mode?"""
        import torch

        target = self._value(probe["target"], frame_locals)
        leaf = bool(getattr(target, "is_leaf", False)) or getattr(target, "_base", None) is not None and \
            bool(target._base.is_leaf)
        requires = bool(getattr(target, "requires_grad", False))
        grad = torch.is_grad_enabled()
        self._decide(observation, leaf and requires and grad,
                     f"is_leaf={leaf}, requires_grad={requires}, grad mode {'on' if grad else 'off'}")

    def _clone_detach(self, probe, frame_locals, observation, index):
        """TCL005 before `x.clone().detach()`: does x require grad here (so a node is recorded)?"""
        import torch

        value = self._value(probe["source"], frame_locals)
        records = bool(getattr(value, "requires_grad", False)) and torch.is_grad_enabled()
        self._decide(observation, records, "the clone records CloneBackward (input requires grad)" if records
                     else "nothing is recorded here (no grad)")

    def _copy_construct(self, probe, frame_locals, observation, index):
        """TCL008 before `torch.tensor(t)`: is t a tensor at run time?"""
        import torch

        value = self._value(probe["source"], frame_locals)
        is_tensor = isinstance(value, torch.Tensor)
        self._decide(observation, is_tensor, f"`{probe['source']}` is a {type(value).__name__}")

    def _detached_made(self, probe, frame_locals, observation, index):
        """TCL006 after `y = x.detach()`: snapshot x's values."""
        original = frame_locals.get(probe["source"])
        if original is not None:
            self.memory[index] = (weakref.ref(original), original.detach().clone())

    def _detached_written(self, probe, frame_locals, observation, index):
        remembered = self.memory.pop(index, None)
        if remembered is None:
            return
        original_ref, before = remembered
        original = original_ref()
        if original is None:
            return
        named = frame_locals.get(probe["source"])
        if named is not None and named is not original and memory_of(named) != memory_of(original):
            # The name was rebound before the write (a restart's step loop): what it is read as from
            # then on is another tensor, which the write leaves alone.
            self._decide(observation, False, f"`{probe['source']}` named another tensor when the write ran")
            return
        changed = int((original.detach() != before).sum())
        self._decide(observation, changed > 0, f"the write changed {changed} values of `{probe['source']}`")

    def _accumulated(self, probe, frame_locals, observation, index):
        """TCL007 after the accumulation: how big is the graph the accumulator holds?"""
        root, *attributes = probe["accumulator"].split(".")  # a local, or module state (`self.history`)
        value = frame_locals.get(root)
        for attribute in attributes:
            value = getattr(value, attribute, None)
        tensors = value if isinstance(value, (list, tuple)) else list(value.values()) if isinstance(value, dict) \
            else [value]
        nodes = _graph_nodes(tensors)
        sizes, roots = self.memory.get(index, ([], []))
        if roots and not any(root in nodes for root in roots):
            sizes = []  # `total = 0` ran again: a new accumulation, which says nothing of the last one's graph
        sizes.append(len(nodes))
        self.memory[index] = (sizes, [getattr(t, "grad_fn", None) for t in tensors if getattr(t, "grad_fn", None)])
        if len(sizes) >= 3:
            growing = sizes[-1] > sizes[0] > 0
            self._decide(observation, growing, f"graph nodes held after each iteration: {sizes[:6]}")
            self.memory[index] = (sizes[-1:], self.memory[index][1])

    # ------------------------------------------------------------------ output

    def dump(self) -> None:
        path = os.path.join(self.output_directory, f"probe-{os.getpid()}.json")
        try:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(self.observations, handle)
        except OSError:
            pass


def _graph_nodes(tensors: list, limit: int = 100_000) -> set:
    # verify/watching.py's walk_graph, without importing torch into every process the project starts.
    seen = set()
    pending = [getattr(t, "grad_fn", None) for t in tensors]
    while pending and len(seen) < limit:
        node = pending.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        pending.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
    return seen


_runtime: Optional[ProbeRuntime] = None


def runtime(plan: dict, output_directory: str) -> ProbeRuntime:
    global _runtime  # one per process: every rewritten module shares it
    if _runtime is None:
        _runtime = ProbeRuntime(plan, output_directory)
    return _runtime


def memory_of(value: Any) -> Any:
    """Where a tensor's elements live (two views of one tensor share it); the object itself otherwise."""
    try:
        return value.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001 - not a tensor, or one with no storage of its own
        return id(value)
