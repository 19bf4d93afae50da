"""mysqltest files."""

from __future__ import annotations

from pathlib import Path

from harness.importers.model import Capture, ImportFailure


def import_mysqltest(path: Path) -> Capture:
    raise ImportFailure(f"{path}: mysqltest import is not available")
