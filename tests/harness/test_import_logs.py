"""`rplharness import general|slow`: both servers' log formats read into the same steps,
the database, prepared statements, reads kept or dropped, the start order of slow-log
entries, schema files, splitting, and bad input refused with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.importers.build import build_scenarios
from harness.importers.general_log import import_general_log
from harness.importers.model import ImportFailure
from harness.importers.schema_file import read_schema_file
from harness.importers.slow_log import import_slow_log
from scenarios.loader import load_scenario

MARIADB_HEADER = (
    "/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:\n"
    "Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\n"
    "Time\t\t    Id Command\tArgument\n"
)
MYSQL_HEADER = (
    "/usr/sbin/mysqld, Version: 8.0.36 (MySQL Community Server - GPL). started with:\n"
    "Tcp port: 3306  Unix socket: /var/run/mysqld/mysqld.sock\n"
    "Time                 Id Command    Argument\n"
)
# The same traffic as each server logs it: two connections, a multi-line INSERT, an
# SQL-level PREPARE/EXECUTE, a read, and con 6 waiting for con 5's row lock.
GENERAL_MARIADB = MARIADB_HEADER + (
    "261125 15:48:28\t     5 Connect\troot@localhost on shop using Socket\n"
    "\t\t     5 Query\tSET NAMES utf8mb4\n"
    "\t\t     5 Query\tCREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB\n"
    "\t\t     5 Query\tINSERT INTO t VALUES (1, 'a\n"
    "b'), (2, 'x')\n"
    "\t\t     5 Query\tPREPARE s FROM 'INSERT INTO t VALUES (?, UUID())'\n"
    "\t\t     5 Prepare\tINSERT INTO t VALUES (?, UUID())\n"
    "\t\t     5 Query\tEXECUTE s USING @a\n"
    "\t\t     5 Execute\tINSERT INTO t VALUES (3, UUID())\n"
    "\t\t     5 Query\tDEALLOCATE PREPARE s\n"
    "\t\t     6 Connect\troot@localhost as anonymous on  using TCP/IP\n"
    "\t\t     6 Init DB\tshop\n"
    "\t\t     5 Query\tBEGIN\n"
    "\t\t     5 Query\tUPDATE t SET v='z' WHERE id=1\n"
    "\t\t     6 Query\tUPDATE t SET v='w' WHERE id=1\n"
    "261125 15:48:29\t     5 Query\tCOMMIT\n"
    "\t\t     5 Query\tSELECT * FROM t\n"
    "\t\t     6 Quit\t\n"
)
GENERAL_MYSQL = MYSQL_HEADER + "".join(
    f"2026-01-05T10:00:00.{index:06d}Z\t{line}" if line[:1] == " " else line
    for index, line in enumerate(GENERAL_MARIADB.removeprefix(MARIADB_HEADER).replace("261125 15:48:28", "").replace("261125 15:48:29", "").replace("\t\t     ", "    ").replace("\t     ", "    ").splitlines(keepends=True))
)
EXPECTED_STEPS = [
    ("conn5", "INSERT INTO t VALUES (1, 'a\nb'), (2, 'x')"),
    ("conn5", "INSERT INTO t VALUES (3, UUID())"),
    ("conn5", "BEGIN"),
    ("conn5", "UPDATE t SET v='z' WHERE id=1"),
    ("conn6", "UPDATE t SET v='w' WHERE id=1"),
    ("conn5", "COMMIT"),
]
SLOW_ENTRY_MARIADB = "# User@Host: root[root] @ localhost []\n# Thread_id: {id}  Schema: shop  QC_hit: No\n# Query_time: {qt}  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n# Rows_affected: 0  Bytes_sent: 11\nSET timestamp={ts};\n{sql};\n"
# con 6 started at second 100, waited 1.2 s for con 5's COMMIT (second 101), completed last.
SLOW_MARIADB = MARIADB_HEADER + "# Time: 261125 15:48:28\n" + "".join(
    SLOW_ENTRY_MARIADB.format(id=thread, qt=qt, ts=ts, sql=sql)
    for thread, qt, ts, sql in [
        (5, "0.02", 100, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB"),
        (5, "0.0005", 100, "INSERT INTO t VALUES (1, 'a\nb'), (2, 'x')"),
        (5, "0.0001", 100, "PREPARE s FROM 'INSERT INTO t VALUES (?, UUID())'"),
        (5, "0.0001", 100, "INSERT INTO t VALUES (3, UUID())"),
        (5, "0.0001", 100, "BEGIN"),
        (5, "0.0002", 100, "UPDATE t SET v='z' WHERE id=1"),
        (5, "0.0001", 101, "COMMIT"),
        (6, "1.200575", 100, "UPDATE t SET v='w' WHERE id=1"),
        (5, "0.0001", 101, "SELECT * FROM t"),
    ]
)
SLOW_ENTRY_MYSQL = "# Time: {end}\n# User@Host: root[root] @ localhost []  Id:     {id}\n# Query_time: {qt}  Lock_time: 0.000010 Rows_sent: 0  Rows_examined: 0\n{use}SET timestamp={ts};\n{sql};\n"
SLOW_MYSQL = MYSQL_HEADER + "".join(
    SLOW_ENTRY_MYSQL.format(end=f"2026-01-05T10:00:{end}Z", id=thread, qt=qt, ts=1767607200 + int(float(end)), sql=sql, use=use)
    for end, thread, qt, sql, use in [
        ("00.020000", 5, "0.020000", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB", "use shop;\n"),
        ("00.021000", 5, "0.000500", "INSERT INTO t VALUES (1, 'a\nb'), (2, 'x')", ""),
        ("00.022000", 5, "0.000100", "INSERT INTO t VALUES (3, UUID())", ""),
        ("00.023000", 5, "0.000100", "BEGIN", ""),
        ("00.024000", 5, "0.000200", "UPDATE t SET v='z' WHERE id=1", ""),
        ("01.225000", 5, "0.000100", "COMMIT", ""),
        ("01.225500", 6, "1.200000", "UPDATE t SET v='w' WHERE id=1", ""),
        ("01.226000", 5, "0.000100", "SELECT * FROM t", ""),
    ]
)


def write(directory: Path, name: str, text: str | bytes) -> Path:
    path = directory / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("importer", "text"),
    [
        (import_general_log, GENERAL_MARIADB),
        (import_general_log, GENERAL_MYSQL),
        (import_slow_log, SLOW_MARIADB),
        (import_slow_log, SLOW_MYSQL),
    ],
    ids=["general-mariadb", "general-mysql", "slow-mariadb", "slow-mysql"],
)
def test_both_servers_logs_give_the_same_scenario(tmp_path: Path, importer, text: str) -> None:
    capture = importer(write(tmp_path, "capture.log", text))
    [imported] = build_scenarios(capture, tmp_path / "out", "capture")
    imported.write()
    scenario = load_scenario(imported.path)
    assert scenario.master_schema == ("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",)
    assert [(step.session, step.sql) for step in scenario.steps] == EXPECTED_STEPS
    assert scenario.tolerate_errors
    assert {statement.database for statement in capture.statements} == {"shop"}
    assert capture.dropped["read-only"] >= 1 and not capture.skipped
    assert any("conn6" in guess for guess in capture.guesses)
    assert imported.text().startswith(f"# Imported by `rplharness import {capture.kind}` from")


@pytest.mark.parametrize(("keep_reads", "steps"), [(False, 6), (True, 8)])
def test_reads_are_kept_only_when_asked(tmp_path: Path, keep_reads: bool, steps: int) -> None:
    capture = import_general_log(write(tmp_path, "g.log", GENERAL_MARIADB), keep_reads=keep_reads)
    assert len(capture.statements) == steps + 1  # the CREATE TABLE goes to the schema
    assert ("read-only" in capture.kept) is keep_reads


@pytest.mark.parametrize(
    ("importer", "text", "message"),
    [
        (import_general_log, SLOW_MARIADB, "capture.log:4: this is a slow query log"),
        (import_slow_log, GENERAL_MARIADB, "capture.log:4: this is a general query log"),
        (import_general_log, b"\x00\x01binlog\xfe\x00", "capture.log:1: binary data"),
        (import_slow_log, b"\xfebin\x00\x00", "capture.log:1: binary data"),
        (import_general_log, MARIADB_HEADER, "no general query log entries"),
        (import_general_log, "hello world\n", "capture.log:1: not a general query log line"),
    ],
    ids=["slow-as-general", "general-as-slow", "garbage-general", "garbage-slow", "header-only", "prose"],
)
def test_input_that_is_not_the_kind_given_is_refused(tmp_path: Path, importer, text: str | bytes, message: str) -> None:
    with pytest.raises(ImportFailure, match=message):
        importer(write(tmp_path, "capture.log", text))


@pytest.mark.parametrize(
    ("importer", "text", "line"),
    [
        (import_general_log, GENERAL_MARIADB.split("b'), (2")[0], 7),
        (import_slow_log, SLOW_MARIADB.split("b'), (2")[0], 16),
    ],
    ids=["general", "slow"],
)
def test_a_log_cut_inside_a_string_skips_the_cut_statement_with_its_line(tmp_path: Path, importer, text: str, line: int) -> None:
    capture = importer(write(tmp_path, "cut.log", text))
    [skipped] = capture.skipped
    assert skipped.origin.line == line and "cut inside" in skipped.reason
    assert capture.statements[0].sql.startswith("CREATE TABLE")


def test_execute_whose_expansion_is_missing_is_listed(tmp_path: Path) -> None:
    text = GENERAL_MARIADB.replace("\t\t     5 Execute\tINSERT INTO t VALUES (3, UUID())\n", "")
    capture = import_general_log(write(tmp_path, "g.log", text))
    assert [(skip.origin.line, "no Execute line" in skip.reason) for skip in capture.skipped] == [(11, True)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("\t\t     6 Init DB\tshop", "\t\t     6 Init DB\tother"),
        ("UPDATE t SET v='w' WHERE id=1", "UPDATE other.t SET v='w' WHERE id=1"),
    ],
    ids=["session-database", "qualified-table"],
)
def test_sessions_on_two_databases_are_refused(tmp_path: Path, old: str, new: str) -> None:
    text = GENERAL_MARIADB.replace(old, new)
    capture = import_general_log(write(tmp_path, "g.log", text))
    with pytest.raises(ImportFailure, match="databases other, shop"):
        build_scenarios(capture, tmp_path, "g")


def test_max_steps_cuts_where_no_transaction_is_open(tmp_path: Path) -> None:
    capture = import_general_log(write(tmp_path, "g.log", GENERAL_MARIADB))
    files = build_scenarios(capture, tmp_path, "g", max_steps=4)
    assert [len(imported.scenario.steps) for imported in files] == [2, 4]
    assert [imported.scenario.name for imported in files] == ["g-part1", "g-part2"]


MYSQLDUMP = """-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*M!100616 SET @OLD_NOTE_VERBOSITY=@@NOTE_VERBOSITY, NOTE_VERBOSITY=0 */;

--
-- Table structure for table `t`
--

DROP TABLE IF EXISTS `t`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `t` (
  `id` int(11) NOT NULL,
  `v` varchar(20) DEFAULT 'a;b',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
/*!40101 SET character_set_client = @saved_cs_client */;
/*!50003 SET @saved_sql_mode       = @@sql_mode */ ;
DELIMITER ;;
/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.v = 'x' */;;
DELIMITER ;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
"""


def test_a_mysqldump_schema_is_read_as_the_server_executes_it(tmp_path: Path) -> None:
    statements = read_schema_file(write(tmp_path, "schema.sql", MYSQLDUMP), "mariadb-10.11")
    assert statements == [
        "DROP TABLE IF EXISTS `t`",
        "CREATE TABLE `t` (\n  `id` int(11) NOT NULL,\n  `v` varchar(20) DEFAULT 'a;b',\n  PRIMARY KEY (`id`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
        "CREATE DEFINER=`root`@`localhost` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.v = 'x'",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("CREATE TABLE t (a INT);\nCREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t;\n", "schema.sql:2: ERROR 1235"),
        ("CREATE TABLE t (a INT);\nCREATE TABLE (a INT);\n", "schema.sql:2: ERROR 1064"),
        ("CREATE TABLE t (a VARCHAR(3) DEFAULT 'ab\n", "schema.sql:1: statement cut inside"),
        ("-- nothing\n/*!40101 SET NAMES utf8 */;\n", "no schema statements"),
    ],
    ids=["unmodelled", "unparsable", "truncated", "empty"],
)
def test_a_schema_file_the_simulator_cannot_take_is_refused_with_its_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ImportFailure, match=message):
        read_schema_file(write(tmp_path, "schema.sql", text), "mariadb-10.11")


def test_import_command_writes_a_scenario_that_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write(tmp_path, "shop.log", GENERAL_MARIADB)
    schema = write(tmp_path, "schema.sql", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM;\n")
    assert main(["import", "general", str(log), "-o", str(tmp_path / "out"), "--schema", str(schema)]) == 0
    printed = capsys.readouterr().out
    assert "shop.log: 7 steps in 1 scenario file(s)" in printed and "dropped:" in printed
    scenario = load_scenario(tmp_path / "out" / "shop.yaml")
    assert scenario.master_schema == ("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=MyISAM",)
    assert main(["run", str(tmp_path / "out"), "--compare", "python", "--out", str(tmp_path / "run")]) in (0, 1)


def test_import_command_reports_a_bad_file_and_writes_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, "good.log", GENERAL_MARIADB)
    bad = write(tmp_path, "bad.log", b"\x00garbage")
    assert main(["import", "general", str(bad), str(good), "-o", str(tmp_path / "out")]) == 2
    assert "bad.log:1: binary data" in capsys.readouterr().err
    assert (tmp_path / "out" / "good.yaml").exists()


@pytest.mark.parametrize(
    ("kind", "name", "content", "code", "message"),
    [
        ("general", "cut.log", GENERAL_MARIADB.split("b'), (2")[0], 0, "cut.log:7: statement cut inside"),
        ("general", "slow.log", SLOW_MARIADB, 2, "slow.log:4: this is a slow query log"),
        ("slow", "general.log", GENERAL_MYSQL, 2, "general.log:4: this is a general query log"),
        ("slow", "garbage.log", bytes(range(256)), 2, "garbage.log:1: binary data"),
        ("mysqltest", "odd.test", "CREATE TABLE t (a INT);\n--frobnicate\nINSERT INTO t VALUES (1);\n", 0, "odd.test:2: mysqltest command 'frobnicate'"),
        ("general", "missing.log", None, 2, "missing.log: cannot read"),
    ],
    ids=["truncated", "slow-as-general", "general-as-slow", "garbage", "unknown-mtr-command", "missing"],
)
def test_bad_input_gets_a_message_with_file_and_line_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, name: str, content: str | bytes | None, code: int, message: str
) -> None:
    path = tmp_path / name if content is None else write(tmp_path, name, content)
    assert main(["import", kind, str(path), "-o", str(tmp_path / "out")]) == code
    printed = capsys.readouterr()
    assert message in printed.out + printed.err and "Traceback" not in printed.out + printed.err
