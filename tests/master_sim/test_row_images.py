"""binlog_row_image: the columns of before and after images, as seed 001's tables (and seed
003, WL#5092) give them, written by the real master in ROW format."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from master_sim.master import Master
from server_sim.binlog.events import Rows_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import FLAVORS, MYSQL_80, Flavor

IMAGE_TABLE = "CREATE TABLE img (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b INT, doc BLOB, note TEXT) ENGINE=InnoDB"
IMAGE_ROW = "INSERT INTO img (a, b, doc, note) VALUES (1, 1, 'd', 'n')"
WRITE = "INSERT INTO img (a, doc) VALUES (2, 'x')"  # specifies a and doc; id is generated
UPDATE = "UPDATE img SET b = 5, doc = 'y' WHERE id = 1"  # specifies b and doc
DELETE = "DELETE FROM img WHERE id = 1"
EVENT_SQL = {"write": WRITE, "update": UPDATE, "delete": DELETE}
ALL = ["id", "a", "b", "doc", "note"]


@pytest.fixture
def run_rows(tmp_path: Path) -> Iterator:
    """Run a schema and one statement in ROW format; return the statement's row events."""
    masters: list[Master] = []

    def run(schema: list[str], sql: str, row_image: str = "FULL", flavor: Flavor = MYSQL_80) -> list[Rows_log_event]:
        master = Master(flavor, {"binlog_format": "ROW", "binlog_row_image": row_image}, tmp_path / f"m{len(masters)}.binlog", seed=1)
        masters.append(master)
        for statement in schema:
            assert master.submit("setup", statement).error is None
        start = master.writer.position
        result = master.submit("con1", sql, 1)
        assert result.error is None, result.error
        master.finish()
        return [p.event for p in read_binlog(master.binlog_path) if p.position >= start and isinstance(p.event, Rows_log_event)]

    yield run
    for master in masters:
        master.close()


def columns(bits: list[bool], names: list[str]) -> list[str] | None:
    """The names of the columns an image carries; None for an image the event has not."""
    return [name for name, present in zip(names, bits) if present] if bits else None


# Seed 001's three tables (write, update, delete event) x binlog_row_image, on
# img (id AUTO_INCREMENT PRIMARY KEY, a, b, doc BLOB, note TEXT): the before image and
# the after image, as columns of img. "-" in the seed is None here.
IMAGE_TABLES = [
    # event, binlog_row_image, before image, after image
    ("write", "MINIMAL", None, ["id", "a", "doc"]),  # the specified columns and the autoincrement column
    ("write", "NOBLOB", None, ["id", "a", "b", "doc"]),  # ... and every non-blob column
    ("write", "FULL", None, ALL),
    ("update", "MINIMAL", ["id"], ["b", "doc"]),  # PKE; the specified columns
    ("update", "NOBLOB", ["id", "a", "b"], ["id", "a", "b", "doc"]),  # PKE + non-blob; specified + non-blob
    ("update", "FULL", ALL, ALL),
    ("delete", "MINIMAL", ["id"], None),
    ("delete", "NOBLOB", ["id", "a", "b"], None),
    ("delete", "FULL", ALL, None),
]


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize(
    ("event", "row_image", "before", "after"),
    IMAGE_TABLES,
    ids=[f"{event} event, {row_image}" for event, row_image, *_ in IMAGE_TABLES],
)
def test_image_columns_per_binlog_row_image(run_rows, event: str, row_image: str, before: list[str] | None, after: list[str] | None, flavor: str) -> None:
    events = run_rows([IMAGE_TABLE, IMAGE_ROW], EVENT_SQL[event], row_image, FLAVORS[flavor])
    assert len(events) == 1 and len(events[0].rows) == 1
    rows_event = events[0]
    assert (columns(rows_event.columns_before, ALL), columns(rows_event.columns_after, ALL)) == (before, after)
    row = rows_event.rows[0]
    assert (len(row.before) if row.before is not None else None) == (len(before) if before else None)
    assert (len(row.after) if row.after is not None else None) == (len(after) if after else None)


# The primary-key equivalent: the PK; else the first UNIQUE key whose columns are all NOT
# NULL; else every column. A MINIMAL before image is exactly the PKE.
PKE_TABLES = [
    (
        "PK",
        "CREATE TABLE p (v INT, u INT NOT NULL, k INT, UNIQUE KEY (u), PRIMARY KEY (k))",
        ["v", "u", "k"],
        ["k"],
    ),
    (
        "no PK: the first UNIQUE key with all columns NOT NULL",
        "CREATE TABLE p (v INT, n INT, c1 INT NOT NULL, c2 INT NOT NULL, w INT NOT NULL, UNIQUE KEY (n), UNIQUE KEY (c1, c2), UNIQUE KEY (w))",
        ["v", "n", "c1", "c2", "w"],
        ["c1", "c2"],
    ),
    (
        "no PK: a UNIQUE key with a nullable column is no PKE, so every column",
        "CREATE TABLE p (v INT, c1 INT NOT NULL, c2 INT, UNIQUE KEY (c1, c2))",
        ["v", "c1", "c2"],
        ["v", "c1", "c2"],
    ),
    ("no key: every column", "CREATE TABLE p (v INT, w INT)", ["v", "w"], ["v", "w"]),
]


@pytest.mark.parametrize("event", ["update", "delete"])
@pytest.mark.parametrize(("create", "names", "pke"), [row[1:] for row in PKE_TABLES], ids=[row[0] for row in PKE_TABLES])
def test_minimal_before_image_is_the_primary_key_equivalent(run_rows, create: str, names: list[str], pke: list[str], event: str) -> None:
    values = ", ".join(str(number) for number in range(1, len(names) + 1))
    sql = f"UPDATE p SET {names[0]} = 100" if event == "update" else "DELETE FROM p"
    (rows_event,) = run_rows([create, f"INSERT INTO p VALUES ({values})"], sql, "MINIMAL")
    assert columns(rows_event.columns_before, names) == pke


BLOB_ROWS = [
    # seed 003's BLOBS requirements: (requirement, schema, statement, image, MINIMAL/NOBLOB carry the blob)
    ("R1 blob in the PKE is in the before image", "CREATE TABLE bl (a INT, doc BLOB)", "DELETE FROM bl", "before", True),
    ("R2 blob outside the PKE is not in the before image", "CREATE TABLE bl (a INT PRIMARY KEY, doc BLOB)", "DELETE FROM bl", "before", False),
    ("R3 blob written is in the after image", "CREATE TABLE bl (a INT PRIMARY KEY, doc BLOB)", "UPDATE bl SET doc = 'new'", "after", True),
    ("R4 blob not written is not in the after image", "CREATE TABLE bl (a INT PRIMARY KEY, doc BLOB, b INT)", "UPDATE bl SET b = 9", "after", False),
]


@pytest.mark.parametrize("row_image", ["MINIMAL", "NOBLOB"])
@pytest.mark.parametrize(("create", "sql", "image", "carried"), [row[1:] for row in BLOB_ROWS], ids=[row[0] for row in BLOB_ROWS])
def test_blob_columns(run_rows, create: str, sql: str, image: str, carried: bool, row_image: str) -> None:
    insert = "INSERT INTO bl (a, doc) VALUES (1, 'old')"
    (rows_event,) = run_rows([create, insert], sql, row_image)
    bits = rows_event.columns_before if image == "before" else rows_event.columns_after
    assert bits[1] is carried  # doc is the second column


@pytest.mark.parametrize(
    ("sql", "after"),
    [
        ("INSERT INTO ai (v) VALUES (7)", ["id", "v"]),
        ("INSERT INTO ai (id, v) VALUES (5, 7)", ["id", "v"]),
        ("INSERT INTO ai (w) VALUES (7)", ["id", "w"]),
    ],
    ids=["autoincrement generated", "autoincrement given", "autoincrement generated, another column given"],
)
def test_minimal_write_carries_the_autoincrement_column(run_rows, sql: str, after: list[str]) -> None:
    (rows_event,) = run_rows(["CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY, v INT, w INT)"], sql, "MINIMAL")
    assert columns(rows_event.columns_after, ["id", "v", "w"]) == after


@pytest.mark.parametrize(
    ("sql", "changed_rows"),
    [
        ("UPDATE img SET b = 1 WHERE id = 1", 0),
        ("UPDATE img SET b = b, a = a", 0),
        ("UPDATE img SET b = 2", 1),
    ],
    ids=["same value: no row", "assigning columns themselves: no row", "one of two rows changes: one row"],
)
def test_an_update_logs_only_the_rows_it_changes(run_rows, sql: str, changed_rows: int) -> None:
    schema = [IMAGE_TABLE, IMAGE_ROW, "INSERT INTO img (a, b) VALUES (2, 2)"]
    events = run_rows(schema, sql)
    assert sum(len(event.rows) for event in events) == changed_rows


@pytest.mark.parametrize(
    ("flavor", "write_after", "update_after"),
    [("mysql-8.0", ["a"], ["b"]), ("mariadb-10.11", ["a", "b", "c"], ["a", "b", "c"])],
    ids=["mysql-8.0: the after image as MINIMAL selects", "mariadb-10.11: every column in the after image too"],
)
def test_minimal_images_of_a_table_without_primary_key(run_rows, flavor: str, write_after: list[str], update_after: list[str]) -> None:
    schema = ["CREATE TABLE np (a INT, b INT, c INT)"]
    (write,) = run_rows(schema, "INSERT INTO np (a) VALUES (1)", "MINIMAL", FLAVORS[flavor])
    (update,) = run_rows([*schema, "INSERT INTO np VALUES (1, 1, 1)"], "UPDATE np SET b = 2", "MINIMAL", FLAVORS[flavor])
    names = ["a", "b", "c"]
    assert columns(write.columns_after, names) == write_after
    assert (columns(update.columns_before, names), columns(update.columns_after, names)) == (names, update_after)


DEFAULTS_TABLE = (
    "CREATE TABLE fd (id INT PRIMARY KEY, s VARCHAR(10) DEFAULT 'a', ts DATETIME DEFAULT CURRENT_TIMESTAMP,"
    " tu DATETIME DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP, n INT, m INT) ENGINE=InnoDB"
)
DEFAULTS_NAMES = ["id", "s", "ts", "tu", "n", "m"]
# The write set a MINIMAL after image carries, with the columns the server fills itself:
# a function default on insert, ON UPDATE CURRENT_TIMESTAMP on update, and with ON
# DUPLICATE KEY UPDATE both, whichever path the row takes (MariaDB's oracle records these).
FUNCTION_DEFAULT_ROWS = [
    ("insert: the function default", "INSERT INTO fd (id, s) VALUES (2, 'c')", ["id", "s", "ts"]),
    ("insert: a listed column given DEFAULT", "INSERT INTO fd (id, s, n) VALUES (2, DEFAULT, 1)", ["id", "s", "ts", "n"]),
    ("update: the ON UPDATE column", "UPDATE fd SET s = 'd'", ["s", "tu"]),
    ("update assigning the ON UPDATE column", "UPDATE fd SET tu = '2001-01-01 00:00:00'", ["tu"]),
    ("on duplicate key update, insert path", "INSERT INTO fd (id, s) VALUES (2, 'e') ON DUPLICATE KEY UPDATE n = 1", ["id", "s", "ts", "tu", "n"]),
]


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize(("sql", "after"), [row[1:] for row in FUNCTION_DEFAULT_ROWS], ids=[row[0] for row in FUNCTION_DEFAULT_ROWS])
def test_minimal_after_image_carries_the_columns_the_server_fills(run_rows, sql: str, after: list[str], flavor: str) -> None:
    schema = [DEFAULTS_TABLE, "INSERT INTO fd (id) VALUES (1)"]
    (rows_event,) = run_rows(schema, sql, "MINIMAL", FLAVORS[flavor])
    assert columns(rows_event.columns_after, DEFAULTS_NAMES) == after


# After a duplicate key the server works on the conflicting row with every column
# (write_record: use_all_columns). MySQL logs that write set, for the row and the
# statement's later rows; MariaDB logs the statement's own write set throughout.
EVERY = DEFAULTS_NAMES
DUPLICATE_ROWS = [
    (
        "REPLACE of the row: updated in place",
        "REPLACE INTO fd (id, n) VALUES (1, 2)",
        {"mysql-8.0": [("Update", EVERY)], "mariadb-10.11": [("Update", ["id", "ts", "n"])]},
    ),
    (
        "on duplicate key update, update path, then an insert",
        "INSERT INTO fd (id, n) VALUES (3, 3), (1, 3), (4, 4) ON DUPLICATE KEY UPDATE n = 9",
        {
            "mysql-8.0": [("Write", ["id", "ts", "tu", "n"]), ("Update", EVERY), ("Write", EVERY)],
            "mariadb-10.11": [("Write", ["id", "ts", "tu", "n"]), ("Update", ["id", "ts", "tu", "n"]), ("Write", ["id", "ts", "tu", "n"])],
        },
    ),
    (
        "REPLACE: an insert, then the update in place, then an insert",
        "REPLACE INTO fd (id) VALUES (3), (1), (4)",
        {
            "mysql-8.0": [("Write", ["id", "ts"]), ("Update", EVERY), ("Write", EVERY)],
            "mariadb-10.11": [("Write", ["id", "ts"]), ("Update", ["id", "ts"]), ("Write", ["id", "ts"])],
        },
    ),
]


@pytest.mark.parametrize("flavor", sorted(FLAVORS))
@pytest.mark.parametrize(("sql", "expected"), [row[1:] for row in DUPLICATE_ROWS], ids=[row[0] for row in DUPLICATE_ROWS])
def test_minimal_after_image_of_a_row_that_met_a_duplicate_key(run_rows, sql: str, expected: dict[str, list[tuple[str, list[str]]]], flavor: str) -> None:
    events = run_rows([DEFAULTS_TABLE, "INSERT INTO fd (id, n) VALUES (1, 1)"], sql, "MINIMAL", FLAVORS[flavor])
    kinds = [(type(event).__name__.split("_")[0], columns(event.columns_after, DEFAULTS_NAMES)) for event in events]
    assert kinds == expected[flavor]
