"""The slave's applier against seed 003 (WL#5092): index structures R1-R7, BLOBS R1-R4 and
DEFAULT VALUES R1-R2, on both flavors where they differ; plus slave_type_conversions."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.runner import RunRecord, run_variant
from scenarios.model import Scenario, Step
from server_sim.binlog.events import Rows_log_event
from server_sim.binlog.file import read_binlog
from server_sim.flavor import FLAVORS, MARIADB_1011, MYSQL_80

MYSQL, MARIADB = MYSQL_80.name, MARIADB_1011.name


def replicate(
    tmp_path: Path,
    master_schema: list[str],
    steps: list[str],
    slave_schema: list[str] = (),
    flavor: str = MYSQL,
    settings: dict[str, str] | None = None,
    slave_settings: dict[str, str] | None = None,
) -> RunRecord:
    """One run in row format: the master's schema and steps, the slave's own changes."""
    scenario = Scenario(
        "applier",
        None,
        settings={"binlog_format": "ROW", **(settings or {})},
        slave_settings=slave_settings or {},
        master_schema=tuple(master_schema),
        slave_schema=tuple(slave_schema),
        steps=tuple(Step(index, "con1", sql) for index, sql in enumerate(steps, 1)),
    )
    record = run_variant(scenario, scenario.variants()[0], FLAVORS[flavor], tmp_path)
    assert record.error is None, record.error
    assert all(step.error is None for step in record.slave_schema), record.slave_schema
    return record


def slave_rows(record: RunRecord, table: str = "t") -> list[tuple]:
    return list(record.slave_snapshot.tables[table].rows)


def master_rows(record: RunRecord, table: str = "t") -> list[tuple]:
    return list(record.master_snapshot.tables[table].rows)


def slave_error(record: RunRecord) -> int | None:
    return None if record.slave.running else record.slave.error.code


def paths(record: RunRecord) -> list[str]:
    return [path for lookup in record.slave.lookups for path in lookup.paths]


def row_events(record: RunRecord) -> list[Rows_log_event]:
    return [p.event for p in read_binlog(record.binlog) if isinstance(p.event, Rows_log_event)]


# -- Index structures -----------------------------------------------------------------------

KEYED_MASTER = [
    "CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, c INT, PRIMARY KEY (a)) ENGINE=InnoDB",
    "INSERT INTO t VALUES (1, 10, 0), (2, 20, 0), (3, 30, 0)",
]
CHANGES = ["UPDATE t SET c = 1 WHERE a = 2", "DELETE FROM t WHERE a = 3"]


@pytest.mark.parametrize(
    ("flavor", "slave_settings", "expected_paths", "error"),
    [
        pytest.param(MYSQL, {}, ["hash", "hash"], None, id="R1 mysql-8.0: no key in the BI, hash scan over the table"),
        pytest.param(MYSQL, {"slave_rows_search_algorithms": "TABLE_SCAN"}, ["scan", "scan"], None, id="R1 mysql-8.0: TABLE_SCAN only, table scan"),
        pytest.param(MARIADB, {}, [], 1032, id="R1 mariadb-10.11: key b chosen without the BI, default b finds nothing, 1032"),
    ],
)
def test_r1_no_usable_index_in_the_before_image_falls_back_to_a_scan(tmp_path, flavor, slave_settings, expected_paths, error) -> None:
    record = replicate(
        tmp_path,
        KEYED_MASTER,
        CHANGES,
        slave_schema=["ALTER TABLE t DROP PRIMARY KEY, ADD KEY kb (b)"],
        flavor=flavor,
        settings={"binlog_row_image": "MINIMAL"},
        slave_settings=slave_settings,
    )
    assert slave_error(record) == error
    assert paths(record) == expected_paths
    if error is None:
        assert slave_rows(record) == master_rows(record)


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r1_a_table_scan_takes_the_first_row_matching_the_before_image(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT, b INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 1), (1, 1), (2, 2)"],
        ["DELETE FROM t WHERE a = 1 LIMIT 1"],
        flavor=flavor,
    )
    assert slave_error(record) is None
    assert slave_rows(record) == [(1, 1), (2, 2)] == master_rows(record)


@pytest.mark.parametrize(
    ("master_key", "error"),
    [
        pytest.param("PRIMARY KEY (c)", 1032, id="R2: master PK entirely on columns the slave lacks, abort"),
        pytest.param("PRIMARY KEY (b, c)", None, id="R2: master PK partly on shared columns, search by them"),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r2_master_key_on_columns_the_slave_lacks(tmp_path, flavor, master_key, error) -> None:
    record = replicate(
        tmp_path,
        [f"CREATE TABLE t (a INT, b INT NOT NULL, c INT NOT NULL, {master_key}) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 10, 100), (2, 20, 200)"],
        ["UPDATE t SET a = 5 WHERE c = 200"],
        slave_schema=["ALTER TABLE t DROP COLUMN c"],
        flavor=flavor,
        settings={"binlog_row_image": "MINIMAL"},
    )
    assert slave_error(record) == error
    if error is None:
        assert slave_rows(record) == [(1, 10), (5, 20)]


@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r3_a_slave_with_more_columns_always_finds_the_row(tmp_path, flavor, image) -> None:
    record = replicate(
        tmp_path,
        KEYED_MASTER,
        CHANGES,
        slave_schema=["ALTER TABLE t ADD COLUMN d INT DEFAULT 7"],
        flavor=flavor,
        settings={"binlog_row_image": image},
    )
    assert slave_error(record) is None
    assert slave_rows(record) == [(1, 10, 0, 7), (2, 20, 1, 7)]


@pytest.mark.parametrize(
    ("flavor", "error"),
    [
        pytest.param(MYSQL, None, id="R3 mysql-8.0: only the BI's columns are compared"),
        pytest.param(MARIADB, 1032, id="R3 mariadb-10.11: every slave column is compared, the changed extra column misses"),
    ],
)
def test_r3_extra_slave_column_changed_locally_on_a_keyless_slave(tmp_path, flavor, error) -> None:
    record = replicate(
        tmp_path,
        KEYED_MASTER,
        CHANGES,
        slave_schema=["ALTER TABLE t DROP PRIMARY KEY", "ALTER TABLE t ADD COLUMN d INT DEFAULT 7", "UPDATE t SET d = 8"],
        flavor=flavor,
    )
    assert slave_error(record) == error


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r4_the_slave_uses_its_own_index_when_the_bi_has_its_columns(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        KEYED_MASTER,
        CHANGES,
        slave_schema=["ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (b)"],
        flavor=flavor,
    )
    assert slave_error(record) is None
    assert paths(record) == ["pk", "pk"]
    assert sorted(slave_rows(record)) == sorted(master_rows(record))


@pytest.mark.parametrize(
    ("slave_schema", "expected_paths"),
    [
        pytest.param([], ["pk", "pk"], id="R4: the slave's primary key"),
        pytest.param(["ALTER TABLE t DROP PRIMARY KEY, ADD UNIQUE KEY ub (b)"], ["pk", "pk"], id="R4: a unique NOT NULL key stands in for the primary key"),
        pytest.param(["ALTER TABLE t DROP PRIMARY KEY, ADD KEY kb (b)"], ["key", "key"], id="R4: a non-unique key, walked and compared"),
    ],
)
def test_r4_index_paths_with_a_full_before_image_on_mysql_index_and_table_scan(tmp_path, slave_schema, expected_paths) -> None:
    record = replicate(tmp_path, KEYED_MASTER, CHANGES, slave_schema=slave_schema, slave_settings={"slave_rows_search_algorithms": "INDEX_SCAN,TABLE_SCAN"})
    assert slave_error(record) is None
    assert paths(record) == expected_paths


@pytest.mark.parametrize("image", ["FULL", "MINIMAL", "NOBLOB"])
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r5_same_index_structure_always_applies(tmp_path, flavor, image) -> None:
    record = replicate(tmp_path, KEYED_MASTER, [*CHANGES, "UPDATE t SET a = a + 10"], flavor=flavor, settings={"binlog_row_image": image})
    assert slave_error(record) is None
    assert slave_rows(record) == master_rows(record)
    assert set(paths(record)) == {"pk"}


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r6_a_stricter_slave_key_may_stop_replication_with_1062(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 10)"],
        ["INSERT INTO t VALUES (2, 10)"],
        slave_schema=["ALTER TABLE t ADD UNIQUE KEY ub (b)"],
        flavor=flavor,
    )
    assert slave_error(record) == 1062


@pytest.mark.parametrize(
    ("exec_mode", "error", "rows"),
    [
        pytest.param("STRICT", 1062, None, id="R7: STRICT stops on the duplicate"),
        pytest.param("IDEMPOTENT", None, [(1, 11), (3, 30)], id="R7: IDEMPOTENT overwrites the duplicate and skips the missing row"),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_r7_idempotent_mode(tmp_path, flavor, exec_mode, error, rows) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 10), (2, 20)"],
        ["INSERT INTO t VALUES (3, 30)", "UPDATE t SET b = 11 WHERE a = 1", "DELETE FROM t WHERE a = 2"],
        slave_schema=["INSERT INTO t VALUES (3, 99)", "DELETE FROM t WHERE a = 2"],
        flavor=flavor,
        slave_settings={"slave_exec_mode": exec_mode},
    )
    assert slave_error(record) == error
    if rows is not None:
        assert slave_rows(record) == rows
        assert any("skipped (IDEMPOTENT)" in warning for warning in record.slave.warnings)


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_a_unique_key_with_a_null_in_the_before_image_is_walked_like_a_plain_key(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT, b INT, UNIQUE KEY ua (a)) ENGINE=MyISAM", "INSERT INTO t VALUES (NULL, 1), (NULL, 2)"],
        ["DELETE FROM t WHERE b = 2"],
        flavor=flavor,
        slave_settings={"slave_rows_search_algorithms": "INDEX_SCAN,TABLE_SCAN"} if flavor == MYSQL else {},
    )
    assert slave_error(record) is None
    assert slave_rows(record) == [(None, 1)]
    assert paths(record) == ["key"]


@pytest.mark.parametrize(
    ("flavor", "slave_settings", "expected_paths"),
    [
        pytest.param(MYSQL, {}, ["hash", "hash"], id="mysql-8.0: one hash scan, each row read matches one image"),
        pytest.param(MYSQL, {"slave_rows_search_algorithms": "TABLE_SCAN"}, ["scan", "scan"], id="mysql-8.0 TABLE_SCAN: a scan per image"),
        pytest.param(MARIADB, {}, ["scan", "scan"], id="mariadb-10.11: a scan per image"),
    ],
)
def test_identical_before_images_find_one_row_each(tmp_path, flavor, slave_settings, expected_paths) -> None:
    """The applier changes each row before it searches for the next, so the second of two
    identical before images no longer matches the row the first one changed."""
    master = ["CREATE TABLE t (id INT NOT NULL, v INT) ENGINE=MyISAM", "INSERT INTO t VALUES (3, 1), (3, 1)"]
    record = replicate(tmp_path, master, ["UPDATE t SET id = id + 1"], flavor=flavor, slave_settings=slave_settings)
    assert slave_rows(record) == master_rows(record) == [(4, 1), (4, 1)]
    assert paths(record) == expected_paths


def test_mariadb_picks_the_most_selective_non_unique_key(tmp_path) -> None:
    record = replicate(
        tmp_path,
        [
            "CREATE TABLE t (a INT, b INT, c INT, KEY ka (a), KEY kb (b)) ENGINE=MyISAM",
            "INSERT INTO t VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 4, 4)",
        ],
        ["UPDATE t SET c = 0 WHERE b = 3"],
        flavor=MARIADB,
    )
    assert slave_error(record) is None
    assert slave_rows(record) == master_rows(record)
    assert [lookup.key for lookup in record.slave.lookups] == ["kb"]  # 1 row per b value, 2 per a value


# -- BLOBS (logging side) --------------------------------------------------------------------

BLOB_TABLE = "CREATE TABLE t (id INT NOT NULL, pb VARCHAR(8) NOT NULL, bl BLOB, n INT, PRIMARY KEY (id)) ENGINE=InnoDB"


def images(record: RunRecord) -> list[tuple[str, list[bool], list[bool]]]:
    return [(event.type_name, list(event.columns_before), list(event.columns_after)) for event in row_events(record)]


@pytest.mark.parametrize(
    ("image", "before"),
    [
        pytest.param("MINIMAL", [True, False, False, False], id="R1/R2 MINIMAL: BI is the PK; the blob outside it is not logged"),
        pytest.param("NOBLOB", [True, True, False, True], id="R1/R2 NOBLOB: BI is the PK and the non-blob columns"),
        pytest.param("FULL", [True, True, True, True], id="R1/R2 FULL: every column"),
    ],
)
def test_blobs_r1_r2_before_image(tmp_path, image, before) -> None:
    record = replicate(tmp_path, [BLOB_TABLE, "INSERT INTO t VALUES (1, 'p', 'blob', 0)"], ["DELETE FROM t WHERE id = 1"], settings={"binlog_row_image": image})
    assert images(record)[-1][1] == before


@pytest.mark.parametrize("image", ["MINIMAL", "NOBLOB", "FULL"])
def test_blobs_r1_a_blob_in_the_pke_is_always_in_the_before_image(tmp_path, image) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (tx TEXT, n INT) ENGINE=InnoDB", "INSERT INTO t VALUES ('x', 0)"],
        ["DELETE FROM t WHERE n = 0"],
        settings={"binlog_row_image": image},
    )
    assert images(record)[-1][1] == [True, True]  # no key: the PKE is every column, the blob included


@pytest.mark.parametrize(
    ("image", "after"),
    [
        pytest.param("MINIMAL", [False, False, True, False], id="R3 MINIMAL: the updated blob is logged, nothing else"),
        pytest.param("NOBLOB", [True, True, True, True], id="R3 NOBLOB: the updated blob and the non-blob columns"),
        pytest.param("FULL", [True, True, True, True], id="R3 FULL: every column"),
    ],
)
def test_blobs_r3_an_updated_blob_is_in_the_after_image(tmp_path, image, after) -> None:
    record = replicate(tmp_path, [BLOB_TABLE, "INSERT INTO t VALUES (1, 'p', 'blob', 0)"], ["UPDATE t SET bl = 'new' WHERE id = 1"], settings={"binlog_row_image": image})
    assert images(record)[-1][2] == after


@pytest.mark.parametrize(
    ("image", "after"),
    [
        pytest.param("MINIMAL", [False, False, False, True], id="R4 MINIMAL: an unchanged blob is not in the AI"),
        pytest.param("NOBLOB", [True, True, False, True], id="R4 NOBLOB: an unchanged blob is not in the AI"),
        pytest.param("FULL", [True, True, True, True], id="R4 FULL: the blob is logged anyway"),
    ],
)
def test_blobs_r4_an_unchanged_blob_is_left_out_of_the_after_image(tmp_path, image, after) -> None:
    record = replicate(tmp_path, [BLOB_TABLE, "INSERT INTO t VALUES (1, 'p', 'blob', 0)"], ["UPDATE t SET n = 1 WHERE id = 1"], settings={"binlog_row_image": image})
    assert images(record)[-1][2] == after
    assert slave_rows(record) == master_rows(record) == [(1, "p", b"blob", 1)]


# -- DEFAULT VALUES --------------------------------------------------------------------------


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_default_values_r1_example_1_extra_slave_fields_get_the_slave_default(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t1 (a INT, b INT)"],
        ["INSERT INTO t1 VALUES (1, 1)"],
        slave_schema=["ALTER TABLE t1 ADD COLUMN c INT DEFAULT 100"],
        flavor=flavor,
    )
    assert slave_rows(record, "t1") == [(1, 1, 100)]


@pytest.mark.parametrize(
    ("flavor", "key", "slave_a"),
    [
        pytest.param(MYSQL, "", 900, id="R1 example 2 mysql-8.0: a takes the slave's default"),
        pytest.param(MARIADB, ", PRIMARY KEY (b)", 900, id="R1 example 2 mariadb-10.11 with a primary key: a takes the slave's default"),
        pytest.param(MARIADB, "", 100, id="R1 example 2 mariadb-10.11 without a primary key: the after image is always full"),
    ],
)
def test_default_values_r1_example_2_fields_missing_from_the_ai_get_the_slave_default(tmp_path, flavor, key, slave_a) -> None:
    b = "b INT NOT NULL" if key else "b INT"
    record = replicate(
        tmp_path,
        [f"CREATE TABLE t1 (a INT DEFAULT 100, {b}{key})"],
        ["INSERT INTO t1 (b) VALUES (1)"],
        slave_schema=["DROP TABLE t1", f"CREATE TABLE t1 (a INT DEFAULT 900, {b}{key})"],
        flavor=flavor,
        settings={"binlog_row_image": "MINIMAL"},
    )
    assert master_rows(record, "t1") == [(100, 1)]
    assert slave_rows(record, "t1") == [(slave_a, 1)]


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_default_values_r2_updates_keep_slave_values_of_columns_missing_from_the_ai(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT, c INT)", "INSERT INTO t VALUES (1, 1, 1)"],
        ["UPDATE t SET b = 2 WHERE a = 1"],
        slave_schema=["UPDATE t SET c = 5"],
        flavor=flavor,
        settings={"binlog_row_image": "MINIMAL"},
    )
    assert slave_rows(record) == [(1, 2, 5)]


@pytest.mark.parametrize(
    ("flavor", "warned"),
    [
        pytest.param(MYSQL, True, id="mysql-8.0: every absent column without a default warns 1364"),
        pytest.param(MARIADB, False, id="mariadb-10.11: only columns beyond the master's width warn"),
    ],
)
def test_a_not_null_column_without_default_absent_from_a_minimal_write(tmp_path, flavor, warned) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT DEFAULT 3)"],
        ["INSERT INTO t (a) VALUES (1)"],
        slave_schema=["DROP TABLE t", "CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT NOT NULL)"],
        flavor=flavor,
        settings={"binlog_row_image": "MINIMAL"},
    )
    assert slave_rows(record) == [(1, 0)]
    assert any("Field 'b' doesn't have a default value" in warning for warning in record.slave.warnings) is warned


@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_an_extra_not_null_slave_column_without_default_gets_the_implicit_default_and_1364(tmp_path, flavor) -> None:
    record = replicate(
        tmp_path,
        ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY)"],
        ["INSERT INTO t VALUES (1)"],
        slave_schema=["ALTER TABLE t ADD COLUMN s VARCHAR(5) NOT NULL"],
        flavor=flavor,
    )
    assert slave_rows(record) == [(1, "")]
    assert any("Field 's' doesn't have a default value" in warning for warning in record.slave.warnings)


# -- slave_type_conversions ------------------------------------------------------------------


_ENUM_300 = "ENUM(" + ",".join(f"'m{i}'" for i in range(300)) + ")"


@pytest.mark.parametrize(
    ("master_type", "slave_type", "conversions", "error", "value"),
    [
        pytest.param("INT", "INT", "", None, 300, id="same type: always applied"),
        pytest.param("TINYINT", "INT", "", 1677, None, id="wider slave type, conversions empty: 1677"),
        pytest.param("TINYINT", "INT", "ALL_NON_LOSSY", None, 100, id="wider slave type, ALL_NON_LOSSY: applied"),
        pytest.param("TINYINT", "INT", "ALL_LOSSY", 1677, None, id="wider slave type, ALL_LOSSY only: 1677"),
        pytest.param("INT", "TINYINT", "ALL_NON_LOSSY", 1677, None, id="narrower slave type, ALL_NON_LOSSY only: 1677"),
        pytest.param("INT", "TINYINT", "ALL_LOSSY", None, 127, id="narrower slave type, ALL_LOSSY: the value is clipped"),
        pytest.param("VARCHAR(10)", "VARCHAR(3)", "ALL_LOSSY,ALL_NON_LOSSY", None, "abc", id="shorter string, ALL_LOSSY: the value is cut"),
        pytest.param("INT", "VARCHAR(10)", "ALL_LOSSY,ALL_NON_LOSSY", 1677, None, id="different kinds of type: never converted"),
        # An ENUM or SET travels as its number: a slave list of the same pack length takes
        # the member at that number, whatever its text (Field::compatible_field_size).
        pytest.param("ENUM('a','b')", "ENUM('x','y','z')", "", None, "y", id="ENUM to ENUM: applied by index"),
        pytest.param("ENUM('a','b')", "ENUM('b','a')", "", None, "a", id="ENUM to a reordered ENUM: another text"),
        pytest.param("ENUM('a','b')", "ENUM('a')", "", None, "", id="ENUM to an ENUM without that index: the error value"),
        pytest.param("ENUM('a','b')", _ENUM_300, "", 1677, None, id="ENUM to an ENUM of 2 bytes, conversions empty: 1677"),
        pytest.param("SET('a','b')", "SET('x','y','z')", "", None, "y", id="SET to SET: applied by bitmask"),
        pytest.param("ENUM('a','b')", "SET('a','b')", "ALL_LOSSY,ALL_NON_LOSSY", 1677, None, id="ENUM to SET: never converted"),
        pytest.param("ENUM('a','b')", "VARCHAR(10)", "ALL_LOSSY,ALL_NON_LOSSY", 1677, None, id="ENUM to VARCHAR: never converted"),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_slave_type_conversions(tmp_path, flavor, master_type, slave_type, conversions, error, value) -> None:
    literal = {"INT": "300", "TINYINT": "100", "VARCHAR(10)": "'abcdef'"}.get(master_type, "'b'")
    record = replicate(
        tmp_path,
        [f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {master_type})"],
        [f"INSERT INTO t VALUES (1, {literal})"],
        slave_schema=["DROP TABLE t", f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {slave_type})"],
        flavor=flavor,
        slave_settings={"slave_type_conversions": conversions},
    )
    assert slave_error(record) == error
    if error is None:
        assert slave_rows(record) == [(1, value)]
    else:
        # The event has no member list: the master's ENUM or SET is named without one (show_sql_type).
        shown = master_type.split("(")[0].lower() if master_type.startswith(("ENUM", "SET")) else master_type.lower()
        assert record.slave.error.message.startswith(f"Could not execute Write_rows event on table test.t; Column 1 of table 'test.t' cannot be converted from type '{shown}' to type '{slave_type.lower()}'")


# The same temporal type with other fractional digits (rpl_conv_type_from_same_data_type):
# fewer on the slave is lossy (ALL_LOSSY; the slave rounds as MySQL, truncates as MariaDB),
# more is non-lossy, and a master column without any counts as the same type.
@pytest.mark.parametrize(
    ("master_type", "slave_type", "conversions", "error", "mysql", "mariadb"),
    [
        pytest.param("DATETIME(6)", "DATETIME", "", 1677, None, None, id="fewer digits, conversions empty: 1677"),
        pytest.param("DATETIME(6)", "DATETIME", "ALL_NON_LOSSY", 1677, None, None, id="fewer digits, ALL_NON_LOSSY only: 1677"),
        pytest.param("DATETIME(6)", "DATETIME(2)", "ALL_LOSSY", None, "2024-02-29 10:11:12.660000", "2024-02-29 10:11:12.650000", id="fewer digits, ALL_LOSSY: rounded or truncated"),
        pytest.param("DATETIME(3)", "DATETIME(6)", "", 1677, None, None, id="more digits, conversions empty: 1677"),
        pytest.param("DATETIME(3)", "DATETIME(6)", "ALL_NON_LOSSY", None, "2024-02-29 10:11:12.657000", "2024-02-29 10:11:12.656000", id="more digits, ALL_NON_LOSSY: applied"),
        pytest.param("DATETIME", "DATETIME(6)", "", None, "2024-02-29 10:11:13", "2024-02-29 10:11:12", id="master without digits: the same type"),
        pytest.param("TIME(6)", "TIME", "", 1677, None, None, id="TIME, fewer digits, conversions empty: 1677"),
        pytest.param("DATETIME(6)", "TIMESTAMP(6)", "ALL_LOSSY,ALL_NON_LOSSY", 1677, None, None, id="DATETIME to TIMESTAMP: never converted"),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_slave_type_conversions_of_fractional_seconds(tmp_path, flavor, master_type, slave_type, conversions, error, mysql, mariadb) -> None:
    literal = "'-01:02:03.656789'" if master_type.startswith("TIME") else "'2024-02-29 10:11:12.656789'"
    record = replicate(
        tmp_path,
        [f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {master_type})"],
        [f"INSERT INTO t VALUES (1, {literal})"],
        slave_schema=["DROP TABLE t", f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {slave_type})"],
        flavor=flavor,
        slave_settings={"slave_type_conversions": conversions},
    )
    assert slave_error(record) == error
    if error is None:
        ((_, value),) = slave_rows(record)
        assert value.isoformat(sep=" ") == (mysql if flavor == MYSQL else mariadb)
    else:
        assert f"cannot be converted from type '{master_type.lower()}' to type '{slave_type.lower()}'" in record.slave.error.message


@pytest.mark.parametrize(
    ("master_column", "slave_column", "conversions", "error", "value"),
    [
        pytest.param("CHAR(10) CHARACTER SET latin1", "CHAR(10) CHARACTER SET latin1", "", None, "héllo", id="latin1 to latin1: the same 10 bytes"),
        pytest.param("CHAR(10) CHARACTER SET latin1", "CHAR(10) CHARACTER SET utf8mb4", "", 1677, None, id="latin1 to utf8mb4: 10 bytes to 40, 1677"),
        pytest.param("VARCHAR(10) CHARACTER SET utf8mb3", "VARCHAR(10) CHARACTER SET utf8mb4", "", 1677, None, id="utf8mb3 to utf8mb4: 30 bytes to 40, 1677"),
        pytest.param("VARCHAR(10) CHARACTER SET utf8mb4", "VARCHAR(10) CHARACTER SET latin1", "", 1677, None, id="utf8mb4 to latin1: 40 bytes to 10, 1677"),
        # The same byte length is the same column to a replica: it stores the bytes as they
        # come, read in its own charset.
        pytest.param("VARCHAR(10) CHARACTER SET utf8mb4", "VARCHAR(40) CHARACTER SET latin1", "", None, "hÃ©llo", id="utf8mb4 to latin1 of as many bytes: the bytes kept"),
    ],
)
@pytest.mark.parametrize("flavor", [MYSQL, MARIADB])
def test_a_replica_compares_text_columns_by_their_byte_length(tmp_path, flavor, master_column, slave_column, conversions, error, value) -> None:
    record = replicate(
        tmp_path,
        [f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {master_column})"],
        ["INSERT INTO t VALUES (1, 'héllo')"],
        slave_schema=["DROP TABLE t", f"CREATE TABLE t (a INT NOT NULL PRIMARY KEY, v {slave_column})"],
        flavor=flavor,
        slave_settings={"slave_type_conversions": conversions},
    )
    assert slave_error(record) == error
    if error is None:
        assert slave_rows(record) == [(1, value)]
