"""Files that cannot be linted: each is one TCL900 finding, and the file next to it is still linted.

Exit status: TCL900 is a finding like any other (1); a missing path on the command line is a
usage error (2); a bug of ours in a rule is an internal error (2), and the run still goes on.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import CLONE_DETACH, run_torchcopylint, write

from torchcopylint import engine

GOOD_FINDING = "good.py:5:12: TCL005"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    """A directory with one good (flagged) file; each test adds a bad one. cwd is there."""
    write(tmp_path / "good.py", CLONE_DETACH)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def tcl900_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if ": TCL900 " in line]


def assert_one_file_error(result, path: str, *fragments: str) -> None:
    errors = tcl900_lines(result.stdout)
    assert len(errors) == 1, result.stdout
    assert errors[0].startswith(f"{path}:"), errors
    for fragment in fragments:
        assert fragment in errors[0], errors
    assert GOOD_FINDING in result.stdout, "the good file next to the bad one was not linted"
    assert result.exit_code == 1, result


class Subprocess:
    """A CompletedProcess with the attribute names of the in-process result."""

    def __init__(self, completed) -> None:
        self.exit_code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    def __repr__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


def lint(tree: Path, *args: str, timeout: float = 60) -> Subprocess:
    """In a subprocess with a timeout: a bad input must neither hang nor crash the interpreter."""
    return Subprocess(run_torchcopylint(*args, cwd=tree, timeout=timeout))


@pytest.mark.parametrize("named", [False, True], ids=["walked", "named"])
def test_syntax_error(tree: Path, named: bool):
    write(tree / "bad.py", "import torch\n\n\ndef f(x:\n    return x.clone().detach()\n")
    result = lint(tree, *(["bad.py", "good.py"] if named else ["."]))
    assert_one_file_error(result, "bad.py", "file does not parse")
    line, column = tcl900_lines(result.stdout)[0].split(":")[1:3]
    assert int(line) >= 4 and int(column) >= 1


def test_not_utf8(tree: Path):
    write(tree / "latin1.py", "import torch\n# café\ny = x.clone().detach()\n".encode("latin-1"))
    assert_one_file_error(lint(tree, "."), "latin1.py", "not valid UTF-8")


def test_a_declared_encoding_is_read_and_a_fix_writes_it_back_in_it(tree: Path):
    # PEP 263: Python reads this file as GBK, so the linter does too (course code in Chinese often is).
    source = "# -*- coding: gbk -*-\nimport torch\n\n\ndef f():\n    # 复制\n    return x.clone().detach()\n"
    write(tree / "gbk.py", source.encode("gbk"))
    result = lint(tree, "gbk.py")
    assert result.exit_code == 1 and "gbk.py:7:12: TCL005" in result.stdout and not tcl900_lines(result.stdout)
    assert lint(tree, "--fix", "gbk.py").exit_code == 0
    assert (tree / "gbk.py").read_bytes() == source.replace("x.clone().detach()", "x.detach().clone()").encode("gbk")
    # Bytes that are not valid in the declared encoding are still one file error, naming it.
    write(tree / "bad_gbk.py", b"# coding: gbk\nimport torch\n# \x80\xff\ny = x.clone().detach()\n")
    assert_one_file_error(lint(tree, "bad_gbk.py", "good.py"), "bad_gbk.py", "not valid gbk")


def test_null_byte(tree: Path):
    write(tree / "nul.py", b"import torch\ny = x.clone().detach()\x00\n")
    assert_one_file_error(lint(tree, "."), "nul.py", "does not parse")


def test_nested_too_deeply_does_not_crash_the_run(tree: Path):
    # libcst's native parser overflows the C stack on this (a segfault, not an exception).
    write(tree / "deep.py", "import torch\nx = " + "(" * 3000 + "a.clone()" + ")" * 3000 + "\n")
    result = lint(tree, ".")
    assert_one_file_error(result, "deep.py", "too many nested parentheses")


def test_brackets_in_strings_do_not_count_as_nesting(tree: Path):
    source = "import torch\nOPEN = " + repr("(" * 500) + "\n\n\ndef f():\n    return x.clone().detach()\n"
    write(tree / "strings.py", source)
    result = lint(tree, "strings.py")
    assert result.exit_code == 1 and "strings.py:6:12: TCL005" in result.stdout, result
    assert not tcl900_lines(result.stdout)


@pytest.mark.skipif(sys.platform == "win32" or (hasattr(os, "geteuid") and os.geteuid() == 0),
                    reason="root (or Windows) reads files whatever their mode")
def test_unreadable_file(tree: Path):
    bad = write(tree / "secret.py", CLONE_DETACH)
    bad.chmod(0)
    try:
        assert_one_file_error(lint(tree, "."), "secret.py", "cannot read file")
    finally:
        bad.chmod(0o644)


def test_read_error_simulated(tree: Path, monkeypatch, cli):
    # The same path as chmod 000, reachable as root: reading the file fails with EACCES.
    write(tree / "secret.py", CLONE_DETACH)
    real_read_bytes = Path.read_bytes

    def read_bytes(self):
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert_one_file_error(cli("--no-cache", "."), "secret.py", "cannot read file: Permission denied")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("named", [False, True], ids=["walked", "named"])
def test_fifo_is_not_read(tree: Path, named: bool):
    # Unreadable even as root: opening a FIFO without a writer would block forever.
    os.mkfifo(tree / "pipe.py")
    result = lint(tree, *(["pipe.py", "good.py"] if named else ["."]), timeout=30)
    assert_one_file_error(result, "pipe.py", "not a regular file")


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
@pytest.mark.parametrize("named", [False, True], ids=["walked", "named"])
def test_broken_symlink(tree: Path, named: bool):
    (tree / "dangling.py").symlink_to(tree / "gone.py")
    result = lint(tree, *(["dangling.py", "good.py"] if named else ["."]))
    assert_one_file_error(result, "dangling.py", "broken symbolic link")


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
@pytest.mark.parametrize("named", [False, True], ids=["walked", "named"])
def test_file_symlink_loop(tree: Path, named: bool):
    (tree / "loop_a.py").symlink_to("loop_b.py")
    (tree / "loop_b.py").symlink_to("loop_a.py")
    result = lint(tree, *(["loop_a.py", "good.py"] if named else ["."]), timeout=30)
    errors = tcl900_lines(result.stdout)
    assert [line.split(":")[0] for line in errors] == (["loop_a.py"] if named else ["loop_a.py", "loop_b.py"])
    assert all("symbolic link loop" in line for line in errors), errors
    assert GOOD_FINDING in result.stdout and result.exit_code == 1


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_directory_symlink_loop_does_not_hang(tree: Path):
    (tree / "sub").mkdir()
    (tree / "sub" / "up").symlink_to("..", target_is_directory=True)
    (tree / "self").symlink_to(".", target_is_directory=True)
    result = lint(tree, ".", timeout=30)
    assert result.exit_code == 1, result
    assert result.stdout.count("TCL005") == 1, result.stdout  # good.py once, not once per way to reach it
    assert not tcl900_lines(result.stdout)


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges on Windows")
def test_symlinked_file_is_linted_once(tree: Path):
    (tree / "alias.py").symlink_to("good.py")
    result = lint(tree, ".")
    assert result.stdout.count("TCL005") == 1, result.stdout


def test_huge_file_is_reported_and_skipped(tree: Path, monkeypatch, cli):
    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 1000)
    write(tree / "generated.py", CLONE_DETACH + "# padding\n" * 200)
    result = cli(".")
    assert_one_file_error(result, "generated.py", "too large", "limit 1000 bytes", "skipped")
    assert "TCL005" not in [line.split()[1] for line in result.stdout.splitlines() if "generated.py" in line]


def test_huge_file_message_in_mib(tree: Path, monkeypatch, cli):
    monkeypatch.setattr(engine, "MAX_FILE_BYTES", 1024 * 1024)
    write(tree / "generated.py", "x = 1\n" * (400 * 1024))
    result = cli(".")
    assert_one_file_error(result, "generated.py", "(2.3 MiB, limit 1.0 MiB)")


def test_directory_named_like_a_python_file_is_walked(tree: Path, cli):
    write(tree / "pkg.py" / "inner.py", CLONE_DETACH)
    result = cli(".")
    assert result.exit_code == 1
    assert "pkg.py/inner.py:5:12: TCL005" in result.stdout
    assert not tcl900_lines(result.stdout)


def test_missing_path_exits_2_and_lints_nothing(tree: Path):
    result = lint(tree, "good.py", "missing.py")
    assert result.exit_code == 2, result
    assert "error: path does not exist: missing.py" in result.stderr
    assert "Traceback" not in result.stderr


def test_several_bad_files_each_reported_once(tree: Path):
    write(tree / "a_syntax.py", "import torch\nx.clone(\n")
    write(tree / "b_latin1.py", "# é\nx.clone()\n".encode("latin-1"))
    write(tree / "c_nul.py", b"x.clone()\x00\n")
    result = lint(tree, ".")
    assert [line.split(":")[0] for line in tcl900_lines(result.stdout)] == ["a_syntax.py", "b_latin1.py", "c_nul.py"]
    assert GOOD_FINDING in result.stdout and result.exit_code == 1


def test_bad_files_in_every_output_format(tree: Path):
    import json

    write(tree / "bad.py", "import torch\nx.clone(\n")
    findings = json.loads(lint(tree, "--output-format", "json", ".").stdout)
    errors = [f for f in findings if f["code"] == "TCL900"]
    assert len(errors) == 1 and errors[0]["path"] == "bad.py" and errors[0]["name"] == "file-error"
    assert errors[0]["url"] is None
    assert lint(tree, "--output-format", "github", ".").stdout.startswith("::error file=bad.py,")


def test_exit_zero_with_only_file_errors(tree: Path):
    write(tree / "bad.py", "import torch\nx.clone(\n")
    result = lint(tree, "--exit-zero", "bad.py")
    assert result.exit_code == 0 and "TCL900" in result.stdout


def test_a_crashing_rule_is_an_internal_error_and_the_run_goes_on(tree: Path, monkeypatch, cli):
    from torchcopylint.rules import ALL_RULES

    rule = next(rule for rule in ALL_RULES if rule.code == "TCL005")
    original = type(rule).check

    def check(self, facts):
        if facts.path.endswith("boom.py"):
            raise KeyError("simulated bug")
        return original(self, facts)

    monkeypatch.setattr(type(rule), "check", check)
    write(tree / "boom.py", CLONE_DETACH)
    result = cli(".")
    assert result.exit_code == 2, result
    assert GOOD_FINDING in result.stdout, "the other file was not linted"
    assert "internal error" in result.stderr and "boom.py" in result.stderr and "simulated bug" in result.stderr


def test_fix_skips_bad_files_and_fixes_the_good_one(tree: Path):
    write(tree / "bad.py", "import torch\nx.clone().detach(\n")
    before = (tree / "bad.py").read_bytes()
    result = lint(tree, "--fix", ".")
    assert result.exit_code == 1  # the TCL900 remains
    assert (tree / "bad.py").read_bytes() == before
    assert "x.detach().clone()" in (tree / "good.py").read_text()


READ_LOOP = '''\
import select


def read_events(process):
    buffer = ""
    while True:
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        if not ready:
            continue
        buffer += process.stdout.read(8192)
        while "\\n" in buffer:
            line, buffer = buffer.split("\\n", 1)
            if not line:
                continue
            if line.startswith("a"):
                if line.startswith("ab"):
                    buffer += "x"
            elif line.startswith("b"):
                buffer += "y"
            elif line.startswith("c"):
                buffer += "z"
'''


@pytest.mark.skipif(sys.platform != "linux", reason="the memory limit is set with Linux's RLIMIT_AS")
def test_a_buffer_split_into_itself_in_a_loop_is_analysed_in_bounded_memory(tree: Path):
    # fresh111: `line, buffer = buffer.split("\n", 1)` in a loop made the new part its own whole's whole, and
    # the walk down the parts of a written storage never ended (23.6 GB, then the process died). The run
    # has 1.5 GB here: a regression fails with an internal error instead of taking the machine.
    import resource
    import subprocess

    write(tree / "reader.py", READ_LOOP)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))

    completed = subprocess.run([sys.executable, "-m", "torchcopylint", "check", "--no-cache", "reader.py"],
                               cwd=tree, capture_output=True, text=True, timeout=120, preexec_fn=limited)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "All checks passed!" in completed.stdout
