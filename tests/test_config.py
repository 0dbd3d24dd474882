"""[tool.torchcopylint] in the nearest pyproject.toml: select, ignore, per-file-ignores, exclude."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CLEAN, CLONE_DETACH, write

from torchcopylint.config import DEFAULT_EXCLUDE, ConfigError, Settings, find_config, load_settings

TENSOR_COPY = "import torch\n\n\ndef g(t: torch.Tensor):\n    return torch.tensor(t)\n"


def codes(stdout: str) -> list[tuple[str, str]]:
    """(path, code) of each finding line."""
    found = []
    for line in stdout.splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and parts[3].strip().startswith("TCL"):
            found.append((parts[0], parts[3].split()[0]))
    return found


def pyproject(directory: Path, body: str) -> Path:
    return write(directory / "pyproject.toml", "[project]\nname = 'demo'\n\n[tool.torchcopylint]\n" + body)


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    write(tmp_path / "src" / "a.py", CLONE_DETACH)
    write(tmp_path / "src" / "b.py", TENSOR_COPY)
    write(tmp_path / "tests" / "test_a.py", CLONE_DETACH)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- finding the configuration -----------------------------------------------------------------


def test_no_configuration_means_defaults(tmp_path: Path):
    settings = load_settings(None, tmp_path)
    assert settings.select is None and settings.ignore == [] and settings.source is None
    assert list(settings.exclude) == list(DEFAULT_EXCLUDE)


def test_nearest_pyproject_wins(project: Path, cli):
    pyproject(project, 'select = ["TCL005"]\n')
    pyproject(project / "src", 'select = ["TCL008"]\n')
    assert codes(cli("src").stdout) == [("src/b.py", "TCL008")]
    assert find_config((project / "src" / "a.py").resolve()) == (project / "src" / "pyproject.toml").resolve()


def test_pyproject_without_the_table_is_passed_over(project: Path, cli):
    pyproject(project, 'select = ["TCL005"]\n')
    write(project / "src" / "pyproject.toml", "[project]\nname = 'inner'\n")
    assert codes(cli("src").stdout) == [("src/a.py", "TCL005")]


def test_configuration_is_found_from_a_subdirectory_cwd(project: Path, monkeypatch, cli):
    pyproject(project, 'ignore = ["TCL008"]\n')
    monkeypatch.chdir(project / "src")
    assert codes(cli(".").stdout) == [("a.py", "TCL005")]


def test_command_line_select_replaces_configured_select(project: Path, cli):
    pyproject(project, 'select = ["TCL005"]\n')
    assert codes(cli("--select", "TCL008", "src").stdout) == [("src/b.py", "TCL008")]


def test_command_line_ignore_adds_to_configured_ignore(project: Path, cli):
    pyproject(project, 'ignore = ["TCL008"]\n')
    result = cli("--ignore", "TCL005", "src")
    assert result.exit_code == 0 and codes(result.stdout) == []


# --- select, ignore, extend-select ----------------------------------------------------------------


@pytest.mark.parametrize(
    "body, expected",
    [
        ('select = ["TCL005"]', ["TCL005"]),
        ('select = ["TCL00"]', ["TCL005", "TCL008"]),  # a prefix
        ('select = ["tcl008"]', ["TCL008"]),  # any case
        ('select = ["ALL"]\nignore = ["TCL005"]', ["TCL008"]),
        ('select = ["TCL005"]\nextend-select = ["TCL008"]', ["TCL005", "TCL008"]),
        ('ignore = ["TCL"]', []),
        ('ignore = ["TCL00"]\nextend-select = ["TCL008"]', []),  # ignore wins
        ('select = "TCL008"', ["TCL008"]),  # a single string is a list of one
    ],
)
def test_selection(project: Path, cli, body: str, expected: list[str]):
    pyproject(project, body + "\n")
    assert sorted(code for _, code in codes(cli("src").stdout)) == expected


def test_selected_codes_unit():
    settings = Settings(root=Path("."), select=["TCL00"], ignore=["TCL005"], extend_select=["TCL9"])
    assert settings.selected_codes(["TCL001", "TCL005", "TCL008", "TCL900"]) == ["TCL001", "TCL008", "TCL900"]


# --- per-file-ignores --------------------------------------------------------------------------------


def test_per_file_ignores_by_glob(project: Path, cli):
    pyproject(project, '[tool.torchcopylint.per-file-ignores]\n"tests/*" = ["TCL005"]\n')
    assert codes(cli(".").stdout) == [("src/a.py", "TCL005"), ("src/b.py", "TCL008")]


def test_per_file_ignores_by_prefix_and_by_name(project: Path, cli):
    pyproject(project, '[tool.torchcopylint.per-file-ignores]\n"b.py" = ["TCL00"]\n"**/test_*.py" = ["tcl005"]\n')
    assert codes(cli(".").stdout) == [("src/a.py", "TCL005")]


def test_per_file_ignores_are_relative_to_the_configuration(project: Path, monkeypatch, cli):
    pyproject(project, '[tool.torchcopylint.per-file-ignores]\n"src/a.py" = ["TCL005"]\n')
    monkeypatch.chdir(project / "src")
    assert codes(cli(".").stdout) == [("b.py", "TCL008")]


def test_per_file_ignores_keep_other_codes(project: Path, cli):
    write(project / "src" / "both.py", CLONE_DETACH + "\n\ndef g(t: torch.Tensor):\n    return torch.tensor(t)\n")
    pyproject(project, '[tool.torchcopylint.per-file-ignores]\n"src/both.py" = ["TCL008"]\n')
    assert [code for path, code in codes(cli("src").stdout) if path == "src/both.py"] == ["TCL005"]


# --- exclude and extend-exclude --------------------------------------------------------------------


def test_extend_exclude_keeps_the_defaults(project: Path, cli):
    write(project / "build" / "gen.py", CLONE_DETACH)
    pyproject(project, 'extend-exclude = ["tests"]\n')
    found = {path for path, _ in codes(cli(".").stdout)}
    assert found == {"src/a.py", "src/b.py"}


def test_exclude_replaces_the_defaults(project: Path, cli):
    write(project / "build" / "gen.py", CLONE_DETACH)
    pyproject(project, 'exclude = ["src"]\n')
    found = {path for path, _ in codes(cli(".").stdout)}
    assert found == {"build/gen.py", "tests/test_a.py"}


def test_exclude_patterns_with_a_slash_are_anchored_at_the_configuration(project: Path, cli):
    write(project / "src" / "tests" / "test_b.py", CLONE_DETACH)
    pyproject(project, 'extend-exclude = ["/tests", "src/b.py"]\n')
    found = {path for path, _ in codes(cli(".").stdout)}
    assert found == {"src/a.py", "src/tests/test_b.py"}


def test_exclude_globs(project: Path, cli):
    pyproject(project, 'extend-exclude = ["test_*.py", "*/b.py"]\n')
    assert {path for path, _ in codes(cli(".").stdout)} == {"src/a.py"}


# --- invalid configuration: exit 2 with a message naming the file ------------------------------------


@pytest.mark.parametrize(
    "body, message",
    [
        ('selct = ["TCL005"]\n', "unknown option(s) in [tool.torchcopylint]: selct"),
        ("select = 5\n", "select must be a list of strings"),
        ('ignore = ["TCL005", 3]\n', "ignore must be a list of strings"),
        ('per-file-ignores = ["TCL005"]\n', "per-file-ignores must be a table"),
        ('[tool.torchcopylint.per-file-ignores]\n"x.py" = 5\n', "must be a list of strings"),
        ('respect-gitignore = "no"\n', "respect-gitignore must be true or false"),
        ('[tool.torchcopylint.verify]\npythonpath = 3\n', "pythonpath must be a list of strings"),
        ('select = ["TCL005"\n', "cannot read configuration"),  # not TOML
    ],
)
def test_invalid_configuration_exits_2(project: Path, cli, body: str, message: str):
    pyproject(project, body)
    result = cli("src")
    assert result.exit_code == 2, result
    assert message in result.stderr, result.stderr
    assert "pyproject.toml" in result.stderr
    assert result.stdout == ""


def test_invalid_pyproject_is_not_skipped_silently(project: Path):
    pyproject(project, 'select = ["TCL005"]\n')
    write(project / "src" / "pyproject.toml", "this is [not toml\n")
    with pytest.raises(ConfigError, match="src/pyproject.toml"):
        load_settings(None, project / "src")


def test_unknown_code_in_configuration_exits_2(project: Path, cli):
    pyproject(project, 'select = ["XYZ1"]\n')
    result = cli("src")
    assert result.exit_code == 2
    assert "unknown rule selector 'XYZ1'" in result.stderr


def test_single_string_per_file_ignores_is_one_code(project: Path, cli):
    # Not ["T", "C", "L", ...]: a string is one code, not a list of characters.
    pyproject(project, '[tool.torchcopylint.per-file-ignores]\n"src/*" = "TCL008"\n')
    assert codes(cli("src").stdout) == [("src/a.py", "TCL005")]


def test_clean_project_with_configuration_passes(tmp_path: Path, monkeypatch, cli):
    write(tmp_path / "ok.py", CLEAN)
    pyproject(tmp_path, 'select = ["ALL"]\n')
    monkeypatch.chdir(tmp_path)
    result = cli()
    assert result.exit_code == 0 and result.stdout == "All checks passed!\n"


def test_verify_pythonpath_is_read_relative_to_the_configuration(project: Path):
    from torchcopylint.config import load_settings

    pyproject(project, '[tool.torchcopylint.verify]\npythonpath = "vendor"\n')
    settings = load_settings(None, project / "src")
    assert settings.verify["pythonpath"] == ["vendor"]
    assert settings.root == project.resolve()
