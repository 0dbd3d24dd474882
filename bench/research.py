"""Lint (and `--verify`) public research repositories and print what was found, per repository.

    python bench/research.py --checkout --root DIR             # clone every listed repository at its commit
    python bench/research.py --root DIR                        # every listed repository, static
    python bench/research.py --root DIR --verify --json after.json   # with verdicts, everything saved
    python bench/research.py DIR [DIR ...] --python /path/to/python  # any folders
    python bench/research.py --diff before.json after.json     # findings gained/lost, verdicts changed
    python bench/research.py --table after.json                # the tables again, from a saved run

Each repository is linted on its own, from its own root (`cd DIR && torchcopylint check .`),
as its user would: the tool finds that repository's root and configuration, and paths in the
output are relative to it. The tool runs in a subprocess (`torchcopylint` on PATH, or
`PY -m torchcopylint` with `--python PY`); this script imports neither torch nor the project.

The repositories and their commits are listed in `research-repos.toml` next to this script
(`--list` for another list); each one lives in `<root>/<owner>__<name>`, the root given with
`--root` or `$TORCHCOPYLINT_RESEARCH_ROOT`.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Optional

DEFAULT_LIST = Path(__file__).resolve().parent / "research-repos.toml"
ROOT_VARIABLE = "TORCHCOPYLINT_RESEARCH_ROOT"
DEFAULT_REMOTE = "https://github.com/{name}.git"
STATUSES = ("confirmed", "not reached", "refuted", "unverified", "no verdict")

# Unverified evidence -> a short reason, first match wins. The evidence texts come from
# torchcopylint/verify; a text no pattern knows is cut at its first detail (see short_reason).
REASONS: list[tuple[str, str]] = [
    # TCL003: the step code's own failure comes first; the replay's note after it decides nothing.
    (r"whether through the flagged call could not be told", "TCL003: the flagged call's part could not be told"),
    (r"^the step code: (?:[\w ,()=-]+: )?(\w+Error)", r"TCL003 step code: \1"),
    (r"^the step code: (?:stand-ins: )?needs `", "TCL003 step code: an argument nothing explains"),
    (r"No module named '?([\w.]+)'?", r"No module named \1"),
    (r"attempted relative import", "relative import with no known parent package"),
    (r"needs an argument", "needs an argument it could not make"),
    (r"module-level", "module-level code"),
    (r"no input shape fits", "no input shape fits"),
    (r"could not construct", "could not construct the class"),
    (r"could not find the classes", "generator/discriminator classes not found"),
    (r"timed out", "timeout"),
    (r"not reached with the made-up inputs", "line not reached with made-up inputs"),
    (r"failed before the (line|write)", "the code failed before the line"),
    (r"sys\.exit", "the code called sys.exit"),
    (r"no experiment for", "no experiment for this rule"),
    (r"is not an nn\.Module", "class is not an nn.Module"),
    (r"no floating-point tensor", "no floating-point tensor to compare"),
    (r"has no fix to compare", "no fix to compare with"),
    (r"could not import what the code needs: (\w+Error)", r"import failed: \1"),
    (r"the experiment failed: (\w+)", r"experiment failed: \1"),
    (r"torch is not importable", "torch is not importable"),
    (r"no result from the verification process", "no result from the verification process"),
]


def short_reason(evidence: str) -> str:
    for pattern, replacement in REASONS:
        match = re.search(pattern, evidence)
        if match:
            return match.expand(replacement)
    head = re.split(r"[:(\[`]", evidence, maxsplit=1)[0].strip()
    return (head or evidence)[:60]


def listed_repositories(listing: Path) -> list[dict[str, str]]:
    """The `[[repo]]` tables of a list: name ("owner/name"), commit, category."""
    with listing.open("rb") as handle:
        repos = tomllib.load(handle).get("repo", [])
    for repo in repos:
        if "/" not in repo.get("name", "") or not repo.get("commit"):
            raise ValueError(f"{listing}: every [[repo]] needs name = \"owner/name\" and a commit: {repo}")
    return repos


def folder_name(repo: dict[str, str]) -> str:
    """Where a listed repository is checked out under the root: `owner__name`."""
    return repo["name"].replace("/", "__", 1)


def research_root(given: Optional[Path]) -> Path:
    if given is not None:
        return given
    if os.environ.get(ROOT_VARIABLE):
        return Path(os.environ[ROOT_VARIABLE])
    raise SystemExit(f"say where the repositories are checked out: --root DIR (or ${ROOT_VARIABLE})")


def checkout(repos: list[dict[str, str]], root: Path, remote: str = DEFAULT_REMOTE) -> list[str]:
    """Bring every listed repository to `root/<owner>__<name>` at its commit (a shallow fetch of
    that one commit; a folder already there at that commit is left alone). Returns the problems."""
    problems = []
    root.mkdir(parents=True, exist_ok=True)
    for repo in repos:
        folder = root / folder_name(repo)
        git = ["git", "-C", str(folder)]
        head = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True)
        if folder.is_dir() and head.returncode == 0 and head.stdout.strip() == repo["commit"]:
            continue
        steps = [] if (folder / ".git").exists() else [["git", "init", "-q", str(folder)]]
        steps += [git + ["fetch", "-q", "--depth", "1", remote.format(name=repo["name"]), repo["commit"]],
                  git + ["-c", "advice.detachedHead=false", "checkout", "-q", "--force", "FETCH_HEAD"]]
        print(f"{repo['name']} @ {repo['commit'][:12]} ...", file=sys.stderr, flush=True)
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                problems.append(f"{repo['name']}: {' '.join(step[3:5])} failed: {done.stderr.strip()[-300:]}")
                break
    return problems


def tool_command(python: Optional[str]) -> list[str]:
    return [python, "-m", "torchcopylint"] if python else ["torchcopylint"]


def lint_repository(directory: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One run of the tool over `directory`: its findings, exit status, time and stderr tail."""
    command = tool_command(args.python) + ["check", "--no-cache", "--exit-zero", "--output-format", "json"]
    if args.verify:
        command += ["--verify"] + (["--verify-timeout", str(args.verify_timeout)] if args.verify_timeout else [])
    if args.jobs is not None:
        command += ["-j", str(args.jobs)]
    command += args.extra + ["."]
    started = time.perf_counter()
    try:
        completed = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=args.timeout)
        returncode, stdout, stderr = completed.returncode, completed.stdout, completed.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, stdout = None, ""
        stderr = (expired.stderr or b"").decode("utf-8", "replace") if isinstance(expired.stderr, bytes) \
            else (expired.stderr or "")
    except OSError as error:  # no such interpreter or command
        returncode, stdout, stderr = -1, "", str(error)
    seconds = time.perf_counter() - started
    findings, problem = [], None
    if returncode is None:
        problem = f"timed out after {args.timeout} s"
    elif returncode == -1 and not stdout:
        problem = f"could not start the tool: {stderr}"
    elif returncode != 0:
        problem = f"exit status {returncode}"
    try:
        records = json.loads(stdout) if stdout.strip() else []
    except json.JSONDecodeError as error:
        records, problem = [], problem or f"output is not JSON ({error})"
    for record in records:
        verdict = record.get("verdict") or {}
        findings.append({
            "path": record["path"],
            "cell": record.get("cell"),  # notebooks, once the tool reads them
            "line": record["line"],
            "column": record.get("column"),
            "code": record["code"],
            "message": record["message"],
            "status": verdict.get("status", "no verdict") if args.verify else None,
            "evidence": verdict.get("evidence"),
        })
    return {
        "dir": directory.name,
        "command": " ".join(command),
        "seconds": round(seconds, 1),
        "problem": problem,
        "stderr_tail": stderr[-2000:] if (problem or args.verify) else stderr[-500:],
        "findings": findings,
        "files": count_files(directory),
    }


def count_files(directory: Path) -> dict[str, int]:
    return {suffix: sum(1 for _ in directory.rglob(f"*{suffix}")) for suffix in (".py", ".ipynb")}


# ---------------------------------------------------------------- third-party imports

def source_text(path: Path) -> str:
    """A .py file's text; a notebook's code cells joined, magics and shell escapes blanked."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return text
    cells = json.loads(text).get("cells", [])
    code = "\n".join("".join(cell.get("source", "")) if isinstance(cell.get("source"), list)
                     else cell.get("source", "") for cell in cells if cell.get("cell_type") == "code")
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())


def import_time_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run when the file is imported: module level, outside function bodies,
    and not inside a `try` that handles the ImportError (an optional dependency)."""
    try:
        tree = ast.parse(source_text(path))
    except (OSError, SyntaxError, ValueError, AttributeError):
        return []
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.Try):
                if not any(handler.type is None or "Error" in ast.unparse(handler.type)
                           or "Exception" in ast.unparse(handler.type) for handler in node.handlers):
                    visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, (ast.If, ast.With, ast.For, ast.While)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
            elif isinstance(node, ast.ClassDef):
                visit(node.body)

    visit(tree.body)
    return found


def module_files(base: Path, parts: list[str]) -> list[Path]:
    """The files importing `parts` (dotted, from folder `base`) runs, or [] when it is not there."""
    files, folder = [], base
    for index, part in enumerate(parts):
        if (folder / part / "__init__.py").exists():
            files.append(folder / part / "__init__.py")
            folder = folder / part
        elif (folder / f"{part}.py").exists() and index == len(parts) - 1:
            files.append(folder / f"{part}.py")
        elif (folder / part).is_dir():  # a namespace package
            folder = folder / part
        else:
            return files if index else []
    return files or [folder]


def third_party_imports(file: Path, root: Path) -> set[str]:
    """Top-level names of the installed-or-not modules that importing `file` needs, following the
    repository's own modules (sibling scripts, packages, relative imports) transitively."""
    pending = [file] + [folder / "__init__.py" for folder in file.parents
                        if (folder == root or root in folder.parents) and (folder / "__init__.py").exists()]
    seen: set[Path] = set()
    names: set[str] = set()
    while pending:
        current = pending.pop()
        if current in seen or not current.is_file():
            continue
        seen.add(current)
        folders = [current.parent] + [f for f in current.parent.parents if f == root or root in f.parents]
        for node in import_time_imports(current):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = current.parent
                for _ in range(node.level - 1):
                    base = base.parent
                parts = node.module.split(".") if node.module else []
                for alias in node.names:
                    pending += module_files(base, parts + [alias.name]) or module_files(base, parts)
                continue
            dotted = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in dotted:
                parts = name.split(".")
                local = next((module_files(folder, parts) for folder in folders if module_files(folder, parts)), [])
                if local:
                    pending += [f for f in local if f.suffix == ".py"]
                    if isinstance(node, ast.ImportFrom):
                        for alias in node.names:
                            package = local[-1].parent if local[-1].name == "__init__.py" else None
                            if package is not None:
                                pending += module_files(package, [alias.name])
                elif parts[0] and parts[0] not in sys.stdlib_module_names:
                    names.add(parts[0])
    return names


def missing_imports(run: dict[str, Any], root: Path, python: Optional[str]) -> dict[str, list[str]]:
    """Per flagged file: the third-party top-level modules its import needs that the target
    interpreter cannot find (module-level imports only; optional ones in `try` are left out)."""
    wanted = {finding["path"]: third_party_imports(root / finding["path"], root) for finding in run["findings"]}
    names = sorted(set().union(*wanted.values())) if wanted else []
    if not names:
        return {path: [] for path in wanted}
    probe = ("import importlib.util, json, sys\n"
             "names = json.loads(sys.argv[1])\n"
             "def found(n):\n"
             "    try:\n        return importlib.util.find_spec(n) is not None\n"
             "    except Exception:\n        return False\n"
             "print(json.dumps([n for n in names if not found(n)]))\n")
    completed = subprocess.run([python or sys.executable, "-c", probe, json.dumps(names)],
                               capture_output=True, text=True, cwd="/")
    absent = set(json.loads(completed.stdout or "[]"))
    return {path: sorted(modules & absent) for path, modules in wanted.items()}


# ---------------------------------------------------------------- tables

def markdown_table(header: list[str], rows: Iterable[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def render_tables(runs: list[dict[str, Any]], verify: bool) -> str:
    out = []
    codes = sorted({finding["code"] for run in runs for finding in run["findings"]})
    rows, total = [], Counter()
    for run in runs:
        per_rule = Counter(finding["code"] for finding in run["findings"])
        total.update(per_rule)
        files = run.get("files", {})
        rows.append([run["dir"], files.get(".py", ""), files.get(".ipynb", ""), run["seconds"]]
                    + [per_rule.get(code, 0) or "" for code in codes] + [sum(per_rule.values())])
    rows.append(["**total**", sum(r.get("files", {}).get(".py", 0) for r in runs),
                 sum(r.get("files", {}).get(".ipynb", 0) for r in runs),
                 round(sum(r["seconds"] for r in runs), 1)]
                + [total.get(code, 0) for code in codes] + [sum(total.values())])
    out += ["### Findings per rule", "",
            markdown_table(["repository", ".py", ".ipynb", "s"] + codes + ["all"], rows), ""]
    problems = [run for run in runs if run["problem"]]
    if problems:
        out += ["### Runs that failed", ""]
        for run in problems:
            tail = run["stderr_tail"].strip().splitlines()[-6:]
            out += [f"- `{run['dir']}`: {run['problem']}", "", "  ```", *("  " + line for line in tail), "  ```"]
        out.append("")
    if not verify:
        return "\n".join(out)

    rows, total = [], Counter()
    for run in runs:
        statuses = Counter(finding["status"] for finding in run["findings"])
        total.update(statuses)
        rows.append([run["dir"]] + [statuses.get(status, 0) or "" for status in STATUSES]
                    + [len(run["findings"])])
    rows.append(["**total**"] + [total.get(status, 0) for status in STATUSES] + [sum(total.values())])
    out += ["### Verdicts per repository", "", markdown_table(["repository", *STATUSES, "all"], rows), ""]

    by_rule: dict[str, Counter] = defaultdict(Counter)
    for run in runs:
        for finding in run["findings"]:
            by_rule[finding["code"]][finding["status"]] += 1
    rows = [[code] + [by_rule[code].get(status, 0) or "" for status in STATUSES] + [sum(by_rule[code].values())]
            for code in sorted(by_rule)]
    out += ["### Verdicts per rule", "", markdown_table(["rule", *STATUSES, "all"], rows), ""]

    reasons: Counter = Counter()
    where: dict[str, Counter] = defaultdict(Counter)
    for run in runs:
        for finding in run["findings"]:
            if finding["status"] == "unverified":
                reason = short_reason(finding["evidence"] or "")
                reasons[reason] += 1
                where[reason][re.split(r"\+|__", run["dir"])[-1]] += 1
    if reasons:
        rows = [[reason, count, ", ".join(f"{repo} {n}" for repo, n in where[reason].most_common())]
                for reason, count in reasons.most_common()]
        out += ["### Unverified, by reason", "", markdown_table(["reason", "findings", "repositories"], rows), ""]

    if any("missing_imports" in run for run in runs):
        installed = [finding for run in runs for finding in run["findings"]
                     if finding["code"] != "TCL900" and not run.get("missing_imports", {}).get(finding["path"])]
        confirmed = sum(1 for finding in installed if finding["status"] == "confirmed")
        share = f"{100 * confirmed / len(installed):.0f}%" if installed else "n/a"
        absent = Counter(module for run in runs for modules in run.get("missing_imports", {}).values()
                         for module in modules)
        out += ["### Files whose third-party imports are installed", "",
                f"{len(installed)} findings in such files, {confirmed} confirmed ({share}). "
                f"Modules not installed (flagged files importing them): "
                + (", ".join(f"{name} {n}" for name, n in absent.most_common()) or "none"), ""]

    decided = [(run["dir"], finding) for run in runs for finding in run["findings"]
               if finding["status"] in ("refuted", "not reached")]
    if decided:
        out += ["### Every refutation and `not reached`", ""]
        out += [f"- {finding['status']}: `{repo}/{location(finding)}:{finding['line']}` {finding['code']} — "
                f"{(finding['evidence'] or '').strip()[:300]}" for repo, finding in decided]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- diff

def keyed(runs: list[dict[str, Any]]) -> dict[tuple, dict[str, Any]]:
    return {(run["dir"], location(finding), finding["line"], finding["code"]): finding
            for run in runs for finding in run["findings"]}


def location(finding: dict[str, Any]) -> str:
    return finding["path"] + (f":cell {finding['cell']}" if finding.get("cell") is not None else "")


def render_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    before, after = keyed(old["runs"]), keyed(new["runs"])
    gained = sorted(set(after) - set(before))
    lost = sorted(set(before) - set(after))
    both = sorted(set(before) & set(after))
    changes = [(key, before[key]["status"], after[key]["status"]) for key in both
               if None not in (before[key]["status"], after[key]["status"])
               and before[key]["status"] != after[key]["status"]]
    failed = sorted({run["dir"] for saved in (old, new) for run in saved["runs"] if run["problem"]})
    if not (gained or lost or changes or failed):
        return "no difference"
    out = [f"Runs that failed in either: {', '.join(failed)}", ""] if failed else []
    per_rule = Counter(key[3] for key in gained), Counter(key[3] for key in lost)
    codes = sorted(set(per_rule[0]) | set(per_rule[1]))
    out += ["### Findings gained and lost", "",
            markdown_table(["rule", "gained", "lost"], [[c, per_rule[0][c], per_rule[1][c]] for c in codes]), ""]
    for title, keys, source in (("Gained", gained, after), ("Lost", lost, before)):
        if keys:
            out += [f"#### {title}", ""]
            out += [f"- `{d}/{p}:{line}` {code} {source[(d, p, line, code)]['message'][:200]}"
                    for d, p, line, code in keys]
            out.append("")
    if changes:
        moves = Counter((old_status, new_status) for _, old_status, new_status in changes)
        out += ["### Verdicts changed", "",
                markdown_table(["before", "after", "findings"], [[a, b, n] for (a, b), n in moves.most_common()]), ""]
        out += [f"- `{d}/{p}:{line}` {code}: {was} → {now}: {(after[(d, p, line, code)]['evidence'] or '')[:200]}"
                for (d, p, line, code), was, now in changes]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- main

def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="repository folders (default: the listed ones)")
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST, help="the repositories and commits (TOML)")
    parser.add_argument("--root", type=Path, help=f"where they are checked out (default ${ROOT_VARIABLE})")
    parser.add_argument("--checkout", action="store_true",
                        help="clone or update every listed repository under --root at its commit, then stop")
    parser.add_argument("--remote", default=DEFAULT_REMOTE, help="URL of a repository, {name} = owner/name")
    parser.add_argument("--verify", action="store_true", help="run with --verify and count the verdicts")
    parser.add_argument("--python", help="run PY -m torchcopylint instead of the torchcopylint on PATH")
    parser.add_argument("-j", "--jobs", type=int, help="passed to the tool as -j")
    parser.add_argument("--verify-timeout", type=float, default=None,
                        help="seconds per experiment (default: the tool's own, as a user gets it)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per repository")
    parser.add_argument("--extra", action="append", default=[], help="one more argument for the tool")
    parser.add_argument("--json", type=Path, help="save every finding here (rewritten after each repository)")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("OLD", "NEW"))
    parser.add_argument("--table", type=Path, metavar="SAVED", help="print the tables of a saved run")
    parser.add_argument("--recheck-imports", action="store_true",
                        help="with --table: recompute which flagged files have their imports installed")
    args = parser.parse_args(argv)

    if args.diff:
        old, new = (json.loads(path.read_text(encoding="utf-8")) for path in args.diff)
        print(render_diff(old, new))
        return 0
    if args.table:
        saved = json.loads(args.table.read_text(encoding="utf-8"))
        if saved["verify"] and args.recheck_imports:
            root = research_root(args.root)
            roots = {folder_name(repo): (root / folder_name(repo)).resolve()
                     for repo in listed_repositories(args.list)}
            for run in saved["runs"]:
                run["missing_imports"] = missing_imports(run, roots[run["dir"]], args.python)
        print(render_tables(saved["runs"], saved["verify"]))
        return 0

    if args.checkout:
        problems = checkout(listed_repositories(args.list), research_root(args.root), args.remote)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if args.dirs:
        dirs = args.dirs
    else:
        root = research_root(args.root)
        dirs = [root / folder_name(repo) for repo in listed_repositories(args.list)]
        absent = [str(directory) for directory in dirs if not directory.is_dir()]
        if absent:
            raise SystemExit("not checked out (run --checkout first): " + ", ".join(absent))
    runs: list[dict[str, Any]] = []
    for directory in dirs:
        directory = directory.resolve()
        print(f"{directory.name} ...", file=sys.stderr, flush=True)
        run = lint_repository(directory, args)
        if args.verify:
            run["missing_imports"] = missing_imports(run, directory, args.python)
        runs.append(run)
        problem = f", {run['problem']}" if run["problem"] else ""
        print(f"  {len(run['findings'])} findings, {run['seconds']} s{problem}", file=sys.stderr, flush=True)
        if args.json:
            args.json.write_text(json.dumps({"verify": args.verify, "runs": runs}, indent=1) + "\n",
                                 encoding="utf-8")
    print(render_tables(runs, args.verify))
    return 0


if __name__ == "__main__":
    sys.exit(main())
