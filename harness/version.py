"""The version `rplharness --version` prints: the installed package's, or, when running
from a source tree that was never installed, the one pyproject.toml declares."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "rplharness"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def version() -> str:
    """The installed distribution's version; pyproject's when it is not installed; `unknown`
    when neither is there (a copy of the package without its metadata)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        return str(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"
