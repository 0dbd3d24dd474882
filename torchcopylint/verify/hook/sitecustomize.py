"""Installed by `torchcopylint --verify --run CMD` on PYTHONPATH: rewrites flagged files into probes.

Every Python process the command starts imports this file at startup. It does
nothing unless TORCHCOPYLINT_PROBE_PLAN names a plan. Then it puts a finder in
front of the import system that rewrites only the flagged files (and in them
only the flagged statements); if the process's main script is a flagged file,
it runs the rewritten script itself. Any other sitecustomize is run after.
"""

import os
import sys


def _install():
    plan_path = os.environ.get("TORCHCOPYLINT_PROBE_PLAN")
    if not plan_path:
        return
    import atexit
    import builtins
    import importlib.machinery
    import importlib.util
    import json
    import traceback

    package_root = os.environ.get("TORCHCOPYLINT_PACKAGE_ROOT")
    added = bool(package_root) and package_root not in sys.path
    if added:
        sys.path.insert(0, package_root)
    try:
        from torchcopylint.verify.probes import runtime
        from torchcopylint.verify.rewrite import PROBE_NAME, ProbePoint, rewrite
    finally:
        if added:
            sys.path.remove(package_root)

    with open(plan_path, encoding="utf-8") as handle:
        plan = json.load(handle)
    probes = runtime(plan, os.environ["TORCHCOPYLINT_PROBE_OUT"])
    setattr(builtins, PROBE_NAME, probes)  # also for code run without exec_module: `python -m`, runpy
    points = {path: [ProbePoint(*point) for point in entries] for path, entries in plan["files"].items()}

    def compiled(path):
        with open(path, "rb") as handle:  # decoded as Python does: BOM, coding cookie, newlines
            text, unplaced = rewrite(importlib.util.decode_source(handle.read()), points[path])
        probes.unplaced(unplaced, path)
        return compile(text, path, "exec", dont_inherit=True)

    class ProbeLoader(importlib.machinery.SourceFileLoader):
        def get_code(self, fullname):
            return compiled(os.path.realpath(self.path))  # never cached: the .pyc stays the user's

        def exec_module(self, module):
            module.__dict__[PROBE_NAME] = probes
            super().exec_module(module)

    class ProbeFinder:
        @staticmethod
        def find_spec(fullname, path=None, target=None):
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None or not spec.origin or os.path.realpath(spec.origin) not in points:
                return None
            spec.loader = ProbeLoader(fullname, spec.origin)
            return spec

    sys.meta_path.insert(0, ProbeFinder)

    main_script = os.path.realpath(sys.argv[0]) if sys.argv and sys.argv[0] not in ("", "-c", "-m") else None
    if main_script in points:
        # `python script.py`: run the rewritten script as __main__ now, then leave as Python would.
        import __main__

        sys.path.insert(0, os.path.dirname(main_script))
        __main__.__dict__.update({"__file__": sys.argv[0], PROBE_NAME: probes})
        status = 0
        try:
            exec(compiled(main_script), __main__.__dict__)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, int) and stop.code is not None:
                print(stop.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - report as Python would, with the user's traceback
            traceback.print_exc()
            status = 1
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _chain():
    """Run the sitecustomize this one shadows, if there is one."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.realpath(__file__))
    rest = [entry for entry in sys.path if os.path.realpath(entry or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


_chain()
_install()
