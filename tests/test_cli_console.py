"""What the command line tells the person at the terminal: its version, the modes of the
files it writes, progress, percentages."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

import harness.version
from harness.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _pyproject_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_prints_the_installed_packages_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"rplharness {metadata.version('rplharness')}\n"


def test_version_falls_back_to_pyproject_when_the_package_is_not_installed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(harness.version.metadata, "version", not_installed)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"rplharness {_pyproject_version()}\n"
