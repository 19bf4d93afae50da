"""compare_runs: multiset comparison of master and slave tables, many runs per Spark job."""

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from pyspark.sql import SparkSession

from harness.compare import RunDiff, TableDiff, compare_runs
from harness.snapshot import ServerSnapshot, TableSnapshot, canonical

COLUMNS = ("id", "name")


def table(name: str, columns: tuple[str, ...], *rows: tuple[object, ...]) -> TableSnapshot:
    return TableSnapshot(name, columns, tuple(rows))


def server(*tables: TableSnapshot) -> ServerSnapshot:
    return ServerSnapshot({t.table.lower(): t for t in tables})


def only_diff(result: dict[str, RunDiff], run_id: str = "r") -> TableDiff:
    (diff,) = result[run_id].tables
    return diff


def test_identical_tables_are_consistent(spark: SparkSession, tmp_path: Path) -> None:
    snap = server(table("t1", COLUMNS, (1, "a"), (2, "b")), table("t2", ("x",), (None,)))
    result = compare_runs(spark, {"r": (snap, snap)}, tmp_path)
    assert result == {"r": RunDiff()}
    assert result["r"].consistent


def test_changed_value_is_one_row_on_each_side(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", COLUMNS, (1, "a"), (2, "b")))
    slave = server(table("t1", COLUMNS, (1, "a"), (2, "B")))
    result = compare_runs(spark, {"r": (master, slave)}, tmp_path)
    assert not result["r"].consistent
    assert only_diff(result) == TableDiff(
        table="t1",
        missing_on=None,
        columns=COLUMNS,
        only_on_master=1,
        only_on_slave=1,
        master_samples=({"id": 2, "name": "b"},),
        slave_samples=({"id": 2, "name": "B"},),
    )


def test_duplicates_count_as_a_multiset(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("nokey", COLUMNS, (1, "a"), (1, "a"), (1, "a"), (2, "b")))
    slave = server(table("nokey", COLUMNS, (1, "a"), (2, "b"), (2, "b")))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert (diff.only_on_master, diff.only_on_slave) == (2, 1)
    assert diff.master_samples == ({"id": 1, "name": "a"},)
    assert diff.slave_samples == ({"id": 2, "name": "b"},)


def test_nulls_equal_nulls_but_not_zero(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", COLUMNS, (1, None), (None, None)), table("t2", ("v",), (None,)))
    slave = server(table("t1", COLUMNS, (1, None), (None, None)), table("t2", ("v",), (0,)))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert diff.table == "t2"
    assert diff.master_samples == ({"v": None},)
    assert diff.slave_samples == ({"v": 0},)


def test_slave_extra_column_is_ignored(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", COLUMNS, (1, "a")))
    slave = server(table("t1", ("name", "extra", "id"), ("a", 99, 1)))
    assert compare_runs(spark, {"r": (master, slave)}, tmp_path)["r"].consistent


def test_slave_fewer_columns_compares_the_common_ones(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", ("id", "name", "note"), (1, "a", "x"), (2, "b", "y")))
    same = server(table("t1", ("id", "name"), (1, "a"), (2, "b")))
    changed = server(table("t1", ("id", "name"), (1, "a"), (2, "c")))
    result = compare_runs(spark, {"same": (master, same), "changed": (master, changed)}, tmp_path)
    assert result["same"].consistent
    diff = only_diff(result, "changed")
    assert diff.columns == ("id", "name")
    assert diff.master_samples == ({"id": 2, "name": "b"},)
    assert diff.slave_samples == ({"id": 2, "name": "c"},)


def test_column_names_match_case_insensitively(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("T1", ("ID", "Name"), (1, "a"), (2, "b")))
    same = server(table("t1", ("name", "id"), ("b", 2), ("a", 1)))
    changed = server(table("t1", ("name", "id"), ("b", 2), ("z", 1)))
    result = compare_runs(spark, {"same": (master, same), "changed": (master, changed)}, tmp_path)
    assert result["same"].consistent
    diff = only_diff(result, "changed")
    assert (diff.table, diff.columns) == ("t1", ("ID", "Name"))
    assert diff.slave_samples == ({"ID": 1, "Name": "z"},)


def test_numbers_compare_by_value_across_types(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", ("id", "amount"), (1, 5), (2, 7)))
    slave = server(table("t1", ("id", "amount"), (1, Decimal("5.00")), (2, Decimal("7.50"))))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert diff.master_samples == ({"id": 2, "amount": 7},)
    assert diff.slave_samples == ({"id": 2, "amount": "7.5"},)


def test_table_missing_on_one_side_needs_no_spark(tmp_path: Path) -> None:
    t1 = table("t1", COLUMNS, (2, "b"), (1, "a"), (1, "a"))
    pairs = {"r": (server(t1), server()), "s": (server(), server(t1))}
    result = compare_runs(None, pairs, tmp_path)  # type: ignore[arg-type]
    samples = ({"id": 1, "name": "a"}, {"id": 2, "name": "b"})
    assert only_diff(result, "r") == TableDiff("t1", "slave", COLUMNS, 3, 0, samples, ())
    assert only_diff(result, "s") == TableDiff("t1", "master", COLUMNS, 0, 3, (), samples)


def test_missing_and_differing_tables_sorted_by_name(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("b", COLUMNS, (1, "a")), table("c", COLUMNS, (1, "a")))
    slave = server(table("a", COLUMNS), table("b", COLUMNS, (1, "x")), table("c", COLUMNS, (1, "a")))
    result = compare_runs(spark, {"r": (master, slave)}, tmp_path)
    assert [(d.table, d.missing_on) for d in result["r"].tables] == [("a", "master"), ("b", None)]


def test_many_runs_in_one_call(spark: SparkSession, tmp_path: Path) -> None:
    pairs = {}
    for n in range(50):
        rows = [(i, f"row{i}") for i in range(n % 7 + 1)]
        master = server(table("t1", COLUMNS, *rows), table("t2", ("v",), (n,)))
        slave_rows = rows[:-1] if n == 31 else rows
        slave_v = n + 1 if n == 7 else n
        slave = server(table("t1", COLUMNS, *slave_rows), table("t2", ("v",), (slave_v,)))
        pairs[f"run-{n}"] = (master, slave)
    result = compare_runs(spark, pairs, tmp_path)
    assert list(result) == list(pairs)
    assert {run for run, diff in result.items() if not diff.consistent} == {"run-7", "run-31"}
    assert only_diff(result, "run-7").table == "t2"
    missing_row = only_diff(result, "run-31")
    assert (missing_row.table, missing_row.only_on_master, missing_row.only_on_slave) == ("t1", 1, 0)
    assert missing_row.master_samples == ({"id": 3, "name": "row3"},)


def test_samples_are_capped_and_sorted(spark: SparkSession, tmp_path: Path) -> None:
    master = server(table("t1", ("id",), *[(i,) for i in range(8, 0, -1)]))
    slave = server(table("t1", ("id",)))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert (diff.only_on_master, diff.only_on_slave) == (8, 0)
    assert diff.master_samples == tuple({"id": i} for i in range(1, 6))
    assert diff.slave_samples == ()


def test_empty_input_needs_no_spark(tmp_path: Path) -> None:
    assert compare_runs(None, {}, tmp_path) == {}  # type: ignore[arg-type]
    empty = server(table("t1", COLUMNS))
    pairs = {"r": (empty, empty), "s": (server(), server())}
    assert compare_runs(None, pairs, tmp_path) == {"r": RunDiff(), "s": RunDiff()}  # type: ignore[arg-type]


def keyed(name: str, columns: tuple[str, ...], key: tuple[str, ...], *rows: tuple[object, ...]) -> TableSnapshot:
    return TableSnapshot(name, columns, tuple(rows), key)


KEYED = ("id", "a", "b")


def test_rows_whose_primary_key_matches_count_their_mismatching_columns(spark: SparkSession, tmp_path: Path) -> None:
    master = server(keyed("t1", KEYED, ("id",), (1, 10, "x"), (2, 20, "y"), (3, 30, "z"), (4, 40, "w")))
    slave = server(keyed("t1", KEYED, ("id",), (1, 10, "x"), (2, 21, "y"), (3, 31, "Z"), (5, 50, "v")))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert (diff.only_on_master, diff.only_on_slave) == (3, 3)
    assert diff.key == ("id",)
    assert diff.key_matched == 2
    assert diff.column_mismatches == {"a": 2, "b": 1}


def test_a_table_without_primary_key_matches_no_rows(spark: SparkSession, tmp_path: Path) -> None:
    master = server(keyed("t1", KEYED, (), (1, 10, "x")))
    slave = server(keyed("t1", KEYED, (), (1, 11, "x")))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert (diff.key, diff.key_matched, diff.column_mismatches) == ((), 0, {})


def test_a_key_column_the_slave_lacks_matches_no_rows(spark: SparkSession, tmp_path: Path) -> None:
    master = server(keyed("t1", KEYED, ("b",), (1, 10, "x")))
    slave = server(keyed("t1", ("id", "a"), ("id",), (1, 11)))
    diff = only_diff(compare_runs(spark, {"r": (master, slave)}, tmp_path))
    assert (diff.key, diff.key_matched) == ((), 0)


AGREEMENT_CASES = {
    "changed-value": (server(table("t1", COLUMNS, (1, "a"), (2, "b"))), server(table("t1", COLUMNS, (1, "a"), (2, "B")))),
    "multiset": (server(table("n", COLUMNS, (1, "a"), (1, "a"), (2, "b"))), server(table("n", COLUMNS, (1, "a"), (2, "b"), (2, "b")))),
    "nulls": (server(table("t2", ("v",), (None,), (0,))), server(table("t2", ("v",), (0,), (0,)))),
    "one-sided": (server(table("t1", COLUMNS, (1, "a"))), server(table("t0", COLUMNS, (1, "a")))),
    "numbers": (server(table("t1", ("id", "v"), (1, 5), (2, 7))), server(table("t1", ("id", "v"), (1, Decimal("5.00")), (2, Decimal("7.5"))))),
    "keyed": (
        server(keyed("t1", KEYED, ("id",), *[(i, i % 3, f"r{i}") for i in range(12)])),
        server(keyed("t1", KEYED, ("id",), *[(i, i % 4, f"r{i}" if i != 5 else None) for i in range(2, 14)])),
    ),
    "same": (server(table("t1", COLUMNS, (1, "a"))), server(table("t1", COLUMNS, (1, "a")))),
}


def test_the_single_run_comparison_agrees_with_spark(spark: SparkSession, tmp_path: Path) -> None:
    from harness.compare import diff_snapshots

    batched = compare_runs(spark, AGREEMENT_CASES, tmp_path)
    for name, (master, slave) in AGREEMENT_CASES.items():
        assert diff_snapshots(master, slave) == batched[name], name


# Temporal values compare exactly: fractional seconds and TIME values beyond a day or
# below zero keep every digit (the server's text, as pymysql and the simulator give them).
@pytest.mark.parametrize(
    ("value", "text"),
    [
        (dt.datetime(2024, 2, 29, 10, 11, 12, 123456), "2024-02-29 10:11:12.123456"),
        (dt.datetime(2024, 2, 29, 10, 11, 12, 100000), "2024-02-29 10:11:12.100000"),
        (dt.datetime(2024, 2, 29, 10, 11, 12), "2024-02-29 10:11:12"),
        (dt.timedelta(hours=838, minutes=59, seconds=59), "838:59:59"),
        (-dt.timedelta(hours=1, microseconds=500000), "-01:00:00.500000"),
        (dt.timedelta(microseconds=1), "00:00:00.000001"),
        (dt.timedelta(0), "00:00:00"),
    ],
)
def test_temporal_values_are_canonical_text(value: object, text: str) -> None:
    assert canonical(value) == text
