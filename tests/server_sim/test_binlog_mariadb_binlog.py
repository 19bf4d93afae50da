"""`rplharness binlog show` prints what `mariadb-binlog` prints, line for line, on the same
files: every binlog the bundled suite writes under MariaDB 10.11 and binlogs a real
MariaDB 10.11 server writes (ROW and STATEMENT, binlog_checksum=NONE, log_bin_compress),
with -vv --base64-output=decode-rows, -v and the BINLOG statements of AUTO. The only
differences are the ones docs/binlog-show.md lists; none applies to these files, so
nothing is normalised: mariadb-binlog runs with TZ=UTC (the list's first entry), and
mariadb-binlog decodes every file without an error or a warning."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from tests.support import ALL_TYPES_ROWS, ALL_TYPES_TABLE, ROOT, MariaDBBinlogs

pytestmark = pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog is not installed")

OPTIONS = (["-vv", "--base64-output=decode-rows"], ["-v", "--base64-output=decode-rows"], ["--base64-output=decode-rows"], ["-v"])
# Statements whose Query events carry session settings that change from one to the next.
SESSION_STATEMENTS = (
    "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT, s VARCHAR(20), d DATETIME) ENGINE=InnoDB",
    "CREATE TABLE m (id INT PRIMARY KEY, v DOUBLE) ENGINE=MyISAM",
    "SET @v = 5, @s = 'it''s \\\\ text', @e = '', @r = 0.25e0, @dec = -12.345, @n = NULL",
    "INSERT INTO a (v, s) VALUES (@v, @s)",
    "INSERT INTO a (v, s) VALUES (@n, @e)",
    "INSERT INTO a (v) VALUES (@r), (@dec)",
    "INSERT INTO a (v) VALUES (LAST_INSERT_ID())",
    "INSERT INTO m VALUES (1, RAND())",
    "SET SESSION time_zone = '+01:00'",
    "INSERT INTO a (v, d) VALUES (1, NOW())",
    "SET SESSION sql_mode = ''",
    "INSERT INTO m VALUES (2, 3)",
    "SET SESSION auto_increment_increment = 3",
    "INSERT INTO a (v) VALUES (7)",
    "SET foreign_key_checks = 0, unique_checks = 0, sql_auto_is_null = 1",
    "SET NAMES latin1",
    "INSERT INTO m VALUES (4, 4)",
    "SET autocommit = 0",
    "INSERT INTO a (v) VALUES (8)",
    "COMMIT",
    "CREATE DATABASE other",
    "CREATE TABLE other.t (id INT PRIMARY KEY)",
    "INSERT INTO other.t VALUES (1)",
    "COMMIT",
    "DROP DATABASE other",
)
# ENUM and SET values: 1- and 2-byte indexes, 1- to 8-byte bitmasks.
ENUM_SET = (
    "CREATE TABLE es (id INT PRIMARY KEY, e ENUM('a','b','c'), e2 ENUM("
    + ",".join(f"'m{i}'" for i in range(300))
    + "), s SET('x','y','z'), s3 SET("
    + ",".join(f"'p{i}'" for i in range(20))
    + "), s8 SET("
    + ",".join(f"'q{i}'" for i in range(40))
    + ")) ENGINE=InnoDB",
    "INSERT INTO es VALUES (1, 'b', 'm257', 'z,x', 'p0,p19', 'q39,q1'), (2, NULL, 'm0', '', 'p8', 'q0')",
    "UPDATE es SET e = 'c', s = 'y' WHERE id = 1",
    "DELETE FROM es WHERE id = 2",
)
# A statement of several row events: rows over the 8 KB a row event holds.
BIG_INSERT = ("CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(2000)) ENGINE=InnoDB", "INSERT INTO big SELECT seq, REPEAT('p', 2000) FROM seq_1_to_20", "DELETE FROM big")


def _agree(path: Path, options: list[str]) -> None:
    theirs = subprocess.run(["mariadb-binlog", *options, str(path)], capture_output=True, check=False, timeout=60, env={**os.environ, "TZ": "UTC"})
    assert (theirs.returncode, theirs.stderr.decode()) == (0, ""), path.name
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["binlog", "show", *options, str(path)]) == 0
    assert out.getvalue().splitlines() == theirs.stdout.decode("utf-8", "replace").splitlines(), (path.name, options)


@pytest.fixture(scope="module")
def suite_binlogs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    out = tmp_path_factory.mktemp("suite")
    main(["run", str(ROOT / "scenarios" / "suites"), "--flavor", "mariadb-10.11", "--compare", "python", "--out", str(out)])
    binlogs = sorted((out / "binlogs").glob("*.binlog"))
    assert len(binlogs) > 100
    return binlogs


def test_every_suite_binlog_prints_as_mariadb_binlog_prints_it(suite_binlogs: list[Path]) -> None:
    for path in suite_binlogs:
        _agree(path, OPTIONS[0])


@pytest.mark.parametrize("options", OPTIONS[1:], ids=" ".join)
def test_row_format_suite_binlogs_print_alike_at_every_verbosity(suite_binlogs: list[Path], options: list[str]) -> None:
    row_binlogs = [path for path in suite_binlogs if "binlog_format_ROW" in path.name]
    assert len(row_binlogs) > 20
    for path in row_binlogs:
        _agree(path, options)


@pytest.mark.parametrize(
    ("statements", "settings"),
    [
        ((ALL_TYPES_TABLE, *ALL_TYPES_ROWS), {"binlog_format": "ROW"}),
        ((ALL_TYPES_TABLE, *ALL_TYPES_ROWS), {"binlog_format": "ROW", "binlog_checksum": "NONE"}),
        ((ALL_TYPES_TABLE, *ALL_TYPES_ROWS), {"binlog_format": "ROW", "log_bin_compress": "ON"}),
        ((ALL_TYPES_TABLE, *ALL_TYPES_ROWS), {"binlog_format": "ROW", "binlog_row_metadata": "FULL"}),
        (SESSION_STATEMENTS, {"binlog_format": "STATEMENT"}),
        (SESSION_STATEMENTS, {"binlog_format": "MIXED", "log_bin_compress": "ON", "log_bin_compress_min_len": "10"}),
        (SESSION_STATEMENTS, {"binlog_format": "ROW"}),
        (BIG_INSERT, {"binlog_format": "ROW"}),
        (ENUM_SET, {"binlog_format": "ROW"}),
        (ENUM_SET, {"binlog_format": "ROW", "binlog_row_metadata": "FULL"}),
    ],
    ids=["row", "row-checksum-none", "row-compressed", "row-metadata-full", "statement", "mixed-compressed", "session-row", "big-insert", "enum-set", "enum-set-metadata-full"],
)
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_real_mariadb_binlogs_print_as_mariadb_binlog_prints_them(
    mariadb_binlogs: MariaDBBinlogs, statements: tuple[str, ...], settings: dict[str, str], options: list[str]
) -> None:
    _agree(mariadb_binlogs.binlog(statements, **settings), options)


def test_text_columns_of_every_charset_print_their_bytes_as_mariadb_binlog_prints_them(tmp_path: Path) -> None:
    """The simulated MariaDB master writes a latin1 CHAR(10) as 10 bytes with latin1 values,
    a utf8mb4 VARCHAR(10) as 40 with UTF-8 ones, a utf8mb3 VARCHAR(100) as 300 (a two-byte
    length), as the real master does; mariadb-binlog reads them, and `binlog show` agrees."""
    main(["run", str(ROOT / "scenarios" / "oracle" / "column-charsets.yaml"), "--flavor", "mariadb-10.11", "--compare", "python", "--out", str(tmp_path)])
    path = tmp_path / "binlogs" / "column-charsets__binlog_format_ROW.binlog"
    theirs = subprocess.run(["mariadb-binlog", "-vv", "--base64-output=decode-rows", str(path)], capture_output=True, check=True, timeout=60).stdout
    for expected in (
        b"@2='h\xe9llo' /* STRING(10) meta=65034 ",  # latin1: é is one byte
        b"@2='na\xc3\xafve \xce\xa9' /* VARSTRING(40) meta=40 ",  # utf8mb4
        b"@3='\xe9t\xe9' /* STRING(3) meta=65027 ",  # latin1 COLLATE latin1_general_ci in a utf8mb4 table
        b"/* VARSTRING(300) meta=300 ",  # utf8mb3 VARCHAR(100)
        b"@2='\xe0\xe9\xee\xf5\xfc\x80' /* STRING(10) ",  # the euro sign is latin1's 0x80
    ):
        assert expected in theirs, expected
    for options in OPTIONS:
        _agree(path, options)
