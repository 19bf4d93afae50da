"""`--slave-schema` from a mysqldump / mariadb-dump file: what the reader runs, understands
or refuses (1235 with the line), a real mariadb-dump loaded into a simulated server, and
`replay --start-at-dump-position`."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.dump import DumpError, DumpPosition, read_dump
from harness.oracle.mariadb import find_program
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.slave_sim.test_replay import SIMPLE, write_binlog
from tests.support import ALL_TYPES_ROWS, ALL_TYPES_TABLE, Db, MariaDBBinlogs, slave_tables

MYSQLDUMP_80_HEAD = """\
-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version	8.0.36

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!50503 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;
SET @MYSQLDUMP_TEMP_LOG_BIN = @@SESSION.SQL_LOG_BIN;
SET @@SESSION.SQL_LOG_BIN= 0;

--
-- Position to start replication or point-in-time recovery from
--

-- CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000003', SOURCE_LOG_POS=157;

--
-- Table structure for table `t`
--

DROP TABLE IF EXISTS `t`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `t` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(40) COLLATE utf8mb4_0900_ai_ci DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

LOCK TABLES `t` WRITE;
/*!40000 ALTER TABLE `t` DISABLE KEYS */;
INSERT INTO `t` VALUES (1,'a;b -- not a comment'),(2,'it''s \\' /* nor this */');
/*!40000 ALTER TABLE `t` ENABLE KEYS */;
UNLOCK TABLES;
SET @@SESSION.SQL_LOG_BIN = @MYSQLDUMP_TEMP_LOG_BIN;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2026-01-01 12:00:00
"""


def test_a_mysqldump_80_file_reads_into_the_slaves_statements_and_its_position() -> None:
    dump = read_dump(MYSQLDUMP_80_HEAD, MYSQL_80)
    assert dump.position == DumpPosition("binlog.000003", 157, 24)
    assert [(statement.line, statement.sql.split("\n")[0]) for statement in dump.statements] == [
        (30, "DROP TABLE IF EXISTS `t`"),
        (33, "CREATE TABLE `t` ("),
        (42, "INSERT INTO `t` VALUES (1,'a;b -- not a comment'),(2,'it''s \\' /* nor this */')"),
    ]
    db = Db(flavor=MYSQL_80)
    for statement in dump.statements:
        db.ok(statement.sql)
    assert db.rows("t") == [(1, "a;b -- not a comment"), (2, "it's ' /* nor this */")]


def read(text: str, flavor=MARIADB_1011):
    return read_dump(textwrap.dedent(text), flavor)


@pytest.mark.parametrize(
    ("text", "flavor", "statements"),
    [
        ("/*!40101 SELECT 1 */;", MARIADB_1011, ["SELECT 1"]),
        ("/*!90000 SELECT 1 */;\nSELECT 2;", MYSQL_80, ["SELECT 2"]),
        ("/*!80039 SELECT 1 */;/*!80040 SELECT 2 */;", MYSQL_80, ["SELECT 1"]),
        ("/*M!100100 SELECT 1 */;", MARIADB_1011, ["SELECT 1"]),
        ("/*M!100100 SELECT 1 */;SELECT 2;", MYSQL_80, ["SELECT 2"]),
        ("/*!101118 SELECT 1 */;/*!101119 SELECT 2 */;", MARIADB_1011, ["SELECT 1"]),
        ("/*M!999999\\- enable the sandbox mode */\nSELECT 1;", MARIADB_1011, ["SELECT 1"]),
        ("/*! SELECT 1 */;", MYSQL_80, ["SELECT 1"]),
        ("SELECT 1 # a comment; with a semicolon\n;", MYSQL_80, ["SELECT 1"]),
        ("SELECT 1--1;", MYSQL_80, ["SELECT 1--1"]),
        ("SELECT `a;b` FROM t;", MYSQL_80, ["SELECT `a;b` FROM t"]),
        ("SELECT \"a;\\\"b\";", MYSQL_80, ['SELECT "a;\\"b"']),
        ("DELIMITER ;;\nSELECT 1;;\nDELIMITER ;\nSELECT 2;", MYSQL_80, ["SELECT 1", "SELECT 2"]),
        (
            "DELIMITER ;;\nCREATE TRIGGER g BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END;;\nDELIMITER ;",
            MYSQL_80,
            ["CREATE TRIGGER g BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.a = 1; END"],
        ),
        ("CREATE DATABASE /*!32312 IF NOT EXISTS*/ `shop` /*!40100 DEFAULT CHARACTER SET utf8mb4 */;\nUSE `shop`;", MYSQL_80, []),
        ("LOCK TABLES `a` WRITE, `b` READ LOCAL;\nUNLOCK TABLES;", MYSQL_80, []),
        ("SET NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, time_zone = 'UTC', sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION';", MYSQL_80, []),
        ("CHANGE MASTER TO MASTER_LOG_FILE='bin.000001', MASTER_LOG_POS=4;", MARIADB_1011, []),
    ],
    ids=[
        "versioned", "version-too-new", "version-boundary", "mariadb-only", "mariadb-only-on-mysql", "six-digit-version",
        "sandbox-mode", "unversioned", "hash-comment", "double-dash-without-space", "backtick", "escaped-quote", "delimiter", "compound-trigger",
        "database", "lock-tables", "session-settings", "change-master-statement",
    ],
)
def test_what_the_slave_runs(text: str, flavor, statements: list[str]) -> None:
    assert [statement.sql for statement in read(text, flavor).statements] == statements


@pytest.mark.parametrize(
    ("text", "line", "code", "message"),
    [
        ("SELECT 1;\n\n/*!40101 SET NAMES latin1 */;", 3, 1235, "SET NAMES latin1 (the dump is read as UTF-8)"),
        ("SET TIME_ZONE='+02:00';", 1, 1235, "SET TIME_ZONE='+02:00' (the simulated servers' TIMESTAMPs are in UTC)"),
        ("SET SQL_MODE='ANSI_QUOTES';", 1, 1235, "sql_mode ANSI_QUOTES"),
        ("SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'uuid:1-5';", 1, 1235, "SET GLOBAL gtid_purged"),
        ("SET GLOBAL gtid_slave_pos='0-1-7';", 1, 1235, "SET GLOBAL gtid_slave_pos"),
        ("SET @x = 5;", 1, 1235, "a user variable the dump sets to something else"),
        ("SET sql_mode = @never_saved;", 1, 1235, "a user variable the dump did not save sql_mode in"),
        ("SET TRANSACTION ISOLATION LEVEL READ COMMITTED;", 1, 1235, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        ("CREATE DATABASE a;\nUSE a;\n\nUSE b;", 4, 1235, "a second database `b`"),
        ("CREATE DATABASE a CHARACTER SET utf8mb4 ENCRYPTION='Y';", 1, 1235, "CREATE DATABASE option"),
        ("-- CHANGE MASTER TO MASTER_LOG_FILE='a.000001', MASTER_LOG_POS=4;\nCHANGE MASTER TO MASTER_LOG_FILE='a.000001', MASTER_LOG_POS=9;", 2, 1235, "a second CHANGE MASTER TO (the first is at line 1)"),
        ("DELIMITER ;;\nSELECT 1; SELECT 2;;", 2, 1235, "a statement with ';' inside it"),
        (
            "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\nCREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, b INT);\n"
            "INSERT INTO t VALUES (1, 0), (2, 0);\nINSERT INTO t (b, id) VALUES (5, 0);",
            4, 1235, "NO_AUTO_VALUE_ON_ZERO (a 0 in AUTO_INCREMENT column `id` of `t`)",
        ),
        ("SELECT 'open;\n", 1, 1064, "a string or name opened with ' is not closed"),
        ("SELECT 1;\n/*!40101 SELECT 2;", 2, 1064, "an executable comment /*! is not closed"),
        ("SELECT 1 /* never closed;", 1, 1064, "a comment /* is not closed"),
    ],
    ids=[
        "names-latin1", "time-zone", "sql-mode", "gtid-purged", "gtid-slave-pos", "user-variable", "restore-unsaved",
        "transaction", "second-database", "database-option", "second-position", "two-statements-in-one", "auto-value-zero",
        "open-string", "open-executable-comment", "open-comment",
    ],
)
def test_what_the_reader_refuses_with_its_line(text: str, line: int, code: int, message: str) -> None:
    with pytest.raises(DumpError) as raised:
        read(text)
    assert (raised.value.line, raised.value.error.code) == (line, code)
    assert message in raised.value.error.message


def test_zero_in_an_auto_increment_column_is_loaded_without_no_auto_value_on_zero() -> None:
    """Without the mode the server generates a value for 0, as the simulator does."""
    dump = read("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY);\nINSERT INTO t VALUES (0);\n")
    assert [statement.line for statement in dump.statements] == [1, 2]


@pytest.fixture(scope="module")
def real_dump(mariadb_binlogs: MariaDBBinlogs) -> tuple[str, dict[str, list[tuple]]]:
    """A mariadb-dump --master-data=2 of tables with every type, keys and data, and the
    rows the real server holds."""
    keyed = (
        "CREATE TABLE k (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(10), n INT, UNIQUE KEY uu (u), KEY nn (n)) ENGINE=InnoDB",
        "INSERT INTO k (u, n) VALUES ('a', 1), ('b', NULL), (NULL, 3)",
    )
    mariadb_binlogs.binlog((ALL_TYPES_TABLE, *ALL_TYPES_ROWS, *keyed))
    server = mariadb_binlogs.server
    assert server.admin is not None
    account = [f"--user={server.admin.user}", f"--password={server.admin.password}"]  # the harness's administrator
    command = [find_program("mariadb-dump", "mysqldump"), "--no-defaults", *account, f"--socket={server.socket_path}", "--master-data=2", "--databases", "test"]
    text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rows = {}
    with server.connect("test") as connection, connection.cursor() as cursor:
        for table in ("all_types", "k"):
            cursor.execute(f"SELECT * FROM {table} ORDER BY id")
            rows[table] = [tuple(row) for row in cursor.fetchall()]
    return text, rows


def test_a_real_mariadb_dump_loads_the_servers_rows(real_dump: tuple[str, dict[str, list[tuple]]]) -> None:
    text, rows = real_dump
    dump = read_dump(text, MARIADB_1011)
    assert dump.database == "test" and dump.position is not None and dump.position.log_file.startswith("bin.")
    db = Db(flavor=MARIADB_1011)
    for statement in dump.statements:
        db.ok(statement.sql)
    for table, expected in rows.items():
        assert db.rows(table) == expected  # fractional seconds included


def test_replay_starts_at_the_dumps_position(tmp_path: Path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    create = next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("CREATE TABLE"))
    header = MYSQLDUMP_80_HEAD.split("--\n-- Table structure")[0]
    header = header.replace("binlog.000003", record.binlog.name).replace("SOURCE_LOG_POS=157", f"SOURCE_LOG_POS={create.end_log_pos}")
    tables_part = (
        "DROP TABLE IF EXISTS `t`;\nCREATE TABLE `t` (\n  `a` int NOT NULL,\n  `b` int DEFAULT NULL,\n  `c` varchar(5) DEFAULT 'x',\n"
        "  PRIMARY KEY (`a`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\nLOCK TABLES `t` WRITE;\nINSERT INTO `t` VALUES (9,9,'own');\nUNLOCK TABLES;\n"
    )
    schema = tmp_path / "dump.sql"
    schema.write_text(header + tables_part + "CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO DELETE FROM t;\n")
    arguments = ["replay", str(record.binlog), "--db", str(tmp_path / "slave.duckdb"), "--slave-schema", str(schema), "--start-at-dump-position"]
    assert main(arguments) == 2
    view_line = len((header + tables_part).splitlines()) + 1
    assert f"dump.sql: line {view_line}: error 1235 (ER_NOT_SUPPORTED_YET): This version of MySQL doesn't yet support 'CREATE EVENT" in capsys.readouterr().err
    schema.write_text(header + tables_part)
    assert main(arguments) == 0, capsys.readouterr().err
    assert slave_tables(tmp_path / "slave.duckdb") == {"t": [(2, 12, "x"), (9, 9, "own")]}


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--start-position", "9"], "exclude each other"),
        ([], "no CHANGE MASTER TO position"),
    ],
)
def test_start_at_dump_position_usage_errors(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    schema = tmp_path / "dump.sql"
    schema.write_text("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT);\n")
    assert main(["replay", str(record.binlog), "--db", str(tmp_path / "s.duckdb"), "--slave-schema", str(schema), "--start-at-dump-position", *extra]) == 2
    assert message in capsys.readouterr().err


def test_start_at_dump_position_names_the_dumps_file_when_it_is_another(tmp_path: Path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    schema = tmp_path / "dump.sql"
    schema.write_text(MYSQLDUMP_80_HEAD)
    assert main(["replay", str(record.binlog), "--db", str(tmp_path / "s.duckdb"), "--slave-schema", str(schema), "--start-at-dump-position"]) == 2
    assert f"line 24: the position is in binlog.000003, not {record.binlog.name}" in capsys.readouterr().err


def test_a_statement_the_slave_fails_is_named_with_its_line(tmp_path: Path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    schema = tmp_path / "dump.sql"
    schema.write_text("/*!40101 SET NAMES utf8mb4 */;\nCREATE TABLE u (a INT);\n\nINSERT INTO nowhere VALUES (1);\n")
    assert main(["replay", str(record.binlog), "--db", str(tmp_path / "s.duckdb"), "--slave-schema", str(schema)]) == 2
    assert "dump.sql: line 4: 'INSERT INTO nowhere VALUES (1)': error 1146" in capsys.readouterr().err
