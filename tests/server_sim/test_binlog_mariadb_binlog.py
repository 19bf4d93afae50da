"""mariadb-binlog reads every binlog the bundled suite writes under MariaDB 10.11, with no
error or warning, and prints the row values `rplharness binlog show -vv` prints."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from server_sim.binlog.file import read_binlog
from server_sim.binlog.show import show
from tests.support import ROOT

_COMMENT = re.compile(r" /\* .* \*/$")

pytestmark = pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog is not installed")


def _row_lines(text: str) -> list[str]:
    """The ### lines of -vv output, without the type comments (each tool names types its way)."""
    return [_COMMENT.sub("", line).rstrip() for line in text.splitlines() if line.startswith("###")]


@pytest.fixture(scope="module")
def suite_binlogs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("suite")
    main(["run", str(ROOT / "scenarios" / "suites"), "--flavor", "mariadb-10.11", "--compare", "python", "--out", str(out)])
    binlogs = sorted((out / "binlogs").glob("*.binlog"))
    assert len(binlogs) > 100
    return binlogs


def test_mariadb_binlog_decodes_every_suite_binlog_with_our_row_values(suite_binlogs: list[Path]) -> None:
    rows_seen = 0
    for path in suite_binlogs:
        result = subprocess.run(["mariadb-binlog", "-vv", "--base64-output=decode-rows", str(path)], capture_output=True, check=False, timeout=60)
        theirs = result.stdout.decode("utf-8", "replace")
        assert (result.returncode, result.stderr.decode()) == (0, ""), path.name
        ours = _row_lines(show(list(read_binlog(path)), "DECODE-ROWS", 2))
        assert _row_lines(theirs) == ours, path.name
        rows_seen += len(ours)
    assert rows_seen > 1000
