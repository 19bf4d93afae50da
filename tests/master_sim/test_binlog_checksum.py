"""`binlog_checksum` as a scenario setting: the master's file carries CRC32 on every event
or on none (the Format_description keeps one either way, as MariaDB's files do), the
replica reads it either way, and a SET of it while the binlog is open is refused: the
server would rotate to a new file, which the simulator does not model."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from server_sim.binlog.binary.header import HEADER_LENGTH, unpack_header
from server_sim.binlog.file import BinlogReader
from tests.support import run_command, scenario_file

SCENARIO = """\
name: checksum
settings:
  binlog_checksum: {checksum}
matrix:
  binlog_format: [STATEMENT, ROW]
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10)) ENGINE=InnoDB
steps:
  - {{session: con1, sql: "INSERT INTO t VALUES (1, 'one'), (2, 'two')"}}
  - {{session: con1, sql: "UPDATE t SET b = 'deux' WHERE a = 2"}}
  - {{session: con1, sql: "SET GLOBAL binlog_checksum = CRC32", error: ER_NOT_SUPPORTED_YET}}
expect:
  - verdict: consistent
"""


def _event_sizes_fit(data: bytes, checksum: bool) -> bool:
    """Whether the events after the Format_description, walked by their sizes, end where
    the file does, each at least a header (and a checksum, with one)."""
    position = 4 + unpack_header(data, 4).event_size
    while position < len(data):
        header = unpack_header(data, position)
        if header.event_size < HEADER_LENGTH + (4 if checksum else 0):
            return False
        position += header.event_size
    return position == len(data)


@pytest.mark.parametrize("flavor", ["mysql-8.0", "mariadb-10.11"])
@pytest.mark.parametrize("checksum", ["CRC32", "NONE"])
def test_the_master_writes_the_checksum_the_setting_names(tmp_path: Path, flavor: str, checksum: str) -> None:
    path = scenario_file(tmp_path, SCENARIO.format(checksum=checksum))
    code, report = run_command(tmp_path / "out", str(path), "--flavor", flavor, "--compare", "python")
    assert code == 0, report
    for run in report["runs"]:
        binlog = Path(run["binlog"])
        with BinlogReader(binlog) as reader:
            assert reader.ctx.checksum is (checksum == "CRC32")
            assert len(list(reader.events())) > 5
        assert _event_sizes_fit(binlog.read_bytes(), checksum == "CRC32")
        if flavor == "mariadb-10.11" and shutil.which("mariadb-binlog"):
            shown = subprocess.run(["mariadb-binlog", "-vv", "--base64-output=decode-rows", str(binlog)], capture_output=True, text=True, check=False)
            assert shown.returncode == 0 and "ERROR" not in shown.stderr, shown.stderr
            assert ("CRC32 0x" in shown.stdout.split("Gtid list")[-1]) is (checksum == "CRC32")
