"""Master/slave table comparison for many runs at once, in one Spark job.

A Spark job has a fixed cost of ~0.6 s while 1000 extra runs add only ~0.3 s, so every
run of a batch goes into one Parquet dataset per side and one query compares them all.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from harness.snapshot import ServerSnapshot, TableSnapshot, canonical, row_key

SIDES = ("master", "slave")
# How master and slave tables are compared: `spark`, all runs in one Spark job (the
# reference, and the fast path for many runs), or `python`, run by run in this process with
# diff_snapshots (no JVM to start: seconds for a few runs).
COMPARE_MODES: tuple[str, ...] = ("spark", "python")
MAX_SAMPLES = 5
# A value longer than this many characters is compared as its first characters, its length
# and its SHA-256, never whole: a 50 MB value would take the JVM's heap. Equal exactly when
# the values are (barring a SHA-256 collision), and the report shows the prefix.
COMPARED_VALUE_LIMIT = 4096
KEYS = ("run_id", "table_name", "row_key")
# `pk_key`: the row's primary-key values, null for a table without one; it lets a row
# changed on the slave be told apart from a row missing on one side and extra on the other.
SCHEMA = pa.schema([(name, pa.string()) for name in (*KEYS, "pk_key")])
# The same schema as Spark reads it: given, Spark does not infer it from the files.
SPARK_SCHEMA = ", ".join(f"{name} STRING" for name in SCHEMA.names)


@dataclass(frozen=True)
class TableDiff:
    """How one table differs between master and slave, with a few rows to show for it.

    `only_on_master` and `only_on_slave` count rows as a multiset: a changed row counts
    once on each side. For a table with a primary key (`key`), `key_matched` says how
    many of those rows are one row changed (its key is on both sides), and
    `column_mismatches` how many of them differ in each column.
    """

    table: str
    missing_on: str | None
    columns: tuple[str, ...]
    only_on_master: int
    only_on_slave: int
    master_samples: tuple[dict[str, object], ...]
    slave_samples: tuple[dict[str, object], ...]
    key: tuple[str, ...] = ()
    key_matched: int = 0
    column_mismatches: dict[str, int] = field(default_factory=dict)

    @property
    def rows_missing(self) -> int:
        """Master rows the slave lacks, a changed row (`key_matched`) not counted."""
        return self.only_on_master - self.key_matched

    @property
    def rows_extra(self) -> int:
        """Slave rows the master lacks, a changed row not counted."""
        return self.only_on_slave - self.key_matched


@dataclass(frozen=True)
class RunDiff:
    """The tables of one run that differ, sorted by name; none when the slave is consistent."""

    tables: tuple[TableDiff, ...] = ()

    @property
    def consistent(self) -> bool:
        return not self.tables


@dataclass
class _Surplus:
    """What one side of a compared table has too many of: row count and sample row keys."""

    rows: int
    samples: list[str]


@dataclass
class _Found:
    """The differences of one compared table, as either comparator finds them."""

    surplus: dict[str, _Surplus] = field(default_factory=dict)
    key_matched: int = 0
    mismatches: dict[int, int] = field(default_factory=dict)  # column position -> rows


@dataclass
class ComparisonBatch:
    """The runs to compare, split into what needs no row comparison and the rows that do.
    Made per run where the run was made, and merged where the runs are compared."""

    settled: dict[str, list[TableDiff]]
    compared: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]]  # columns, key
    rows: dict[str, list[tuple[str, str, str, str | None]]]  # side -> (run, table, row key, pk key)

    def merge(self, other: ComparisonBatch) -> None:
        self.settled |= other.settled
        self.compared |= other.compared
        for side in SIDES:
            self.rows[side].extend(other.rows[side])


def compare_runs(
    spark: SparkSession,
    pairs: Mapping[str, tuple[ServerSnapshot, ServerSnapshot]],
    workdir: Path,
) -> dict[str, RunDiff]:
    """Compare every run's (master, slave) snapshots as multisets of canonical rows.

    Tables present on one side only are settled here; the rows of all other tables go
    through a single Spark job. Spark is not touched when there is no row to compare.
    """
    batch = prepare(pairs)
    found: dict[tuple[str, str], _Found] = {}
    if any(batch.rows[side] for side in SIDES):
        workdir.mkdir(parents=True, exist_ok=True)
        paths = [workdir / f"{side}.parquet" for side in SIDES]
        for side, path in zip(SIDES, paths):
            columns = list(zip(*batch.rows[side])) or [[] for _ in SCHEMA]
            pq.write_table(pa.table(dict(zip(SCHEMA.names, map(list, columns))), schema=SCHEMA), path)
        sides = [spark.read.schema(SPARK_SCHEMA).parquet(str(path)) for path in paths]
        found = collect_found(comparison_query(*sides))
    return assemble(batch, found)


def collect_found(query: DataFrame) -> dict[tuple[str, str], _Found]:
    """The comparison query's answer, per (run, table)."""
    found: dict[tuple[str, str], _Found] = {}
    for row in query.collect():
        table = found.setdefault((row.run_id, row.table_name), _Found())
        if row.side in SIDES:
            table.surplus[row.side] = _Surplus(row.surplus, row.samples)
        else:
            table.key_matched = row.key_matched
            table.mismatches = dict(row.mismatches)
    return found


def diff_snapshots(master: ServerSnapshot, slave: ServerSnapshot) -> RunDiff:
    """One run's comparison without Spark, the same as compare_runs gives: for checking
    a single candidate run quickly, as the shrinker does hundreds of times."""
    batch = prepare({"run": (master, slave)})
    counts = {side: Counter(batch.rows[side]) for side in SIDES}
    differing: dict[tuple[str, str], dict[str, list[tuple[str, str | None, int]]]] = defaultdict(lambda: {side: [] for side in SIDES})
    for row in counts["master"].keys() | counts["slave"].keys():
        surplus = counts["master"][row] - counts["slave"][row]
        if surplus:
            run_id, name, key, pk_key = row
            differing[run_id, name]["master" if surplus > 0 else "slave"].append((key, pk_key, abs(surplus)))
    found = {}
    for table, by_side in differing.items():
        result = found[table] = _Found()
        for side, rows in by_side.items():
            if rows:
                result.surplus[side] = _Surplus(sum(n for _, _, n in rows), sorted(key for key, _, _ in rows)[:MAX_SAMPLES])
        slave_rows = defaultdict(list)
        for key, pk_key, _ in by_side["slave"]:
            if pk_key is not None:
                slave_rows[pk_key].append(key)
        matched = set()
        for master_key, pk_key, _ in by_side["master"]:
            for slave_key in slave_rows.get(pk_key, []):
                matched.add(pk_key)
                master_values, slave_values = json.loads(master_key), json.loads(slave_key)
                for position, value in enumerate(master_values):
                    other = slave_values[position] if position < len(slave_values) else None
                    if _as_text(value) != _as_text(other):
                        result.mismatches[position] = result.mismatches.get(position, 0) + 1
        result.key_matched = len(matched)
    return assemble(batch, found)["run"]


def compare_in_process(pairs: Mapping[str, tuple[ServerSnapshot, ServerSnapshot]]) -> dict[str, RunDiff]:
    """compare_runs without Spark: every run by diff_snapshots, which gives the same diffs."""
    return {run_id: diff_snapshots(master, slave) for run_id, (master, slave) in pairs.items()}


def _as_text(value: object) -> str | None:
    """A canonical value as Spark's from_json reads it into an array of strings."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def prepare(pairs: Mapping[str, tuple[ServerSnapshot, ServerSnapshot]]) -> ComparisonBatch:
    """Settle tables on one side only; key every other table's rows on their common columns."""
    batch = ComparisonBatch({run_id: [] for run_id in pairs}, {}, {side: [] for side in SIDES})
    for run_id, (master, slave) in pairs.items():
        for name in sorted(master.tables.keys() | slave.tables.keys()):
            on_master, on_slave = master.tables.get(name), slave.tables.get(name)
            if on_master is None or on_slave is None:
                batch.settled[run_id].append(_one_sided(name, on_master, on_slave))
                continue
            columns = _common_columns(on_master, on_slave)
            lowered = {column.lower() for column in columns}
            key = on_master.key if all(column.lower() in lowered for column in on_master.key) else ()
            batch.compared[run_id, name] = (columns, key)
            for side, table in zip(SIDES, (on_master, on_slave)):
                batch.rows[side].extend((run_id, name, row, pk) for row, pk in _row_keys(table, columns, key))
    return batch


def assemble(batch: ComparisonBatch, found: Mapping[tuple[str, str], _Found]) -> dict[str, RunDiff]:
    diffs = {run_id: list(tables) for run_id, tables in batch.settled.items()}
    for (run_id, name), result in found.items():
        columns, key = batch.compared[run_id, name]
        master, slave = (result.surplus.get(side, _Surplus(0, [])) for side in SIDES)
        diffs[run_id].append(
            TableDiff(
                table=name,
                missing_on=None,
                columns=columns,
                only_on_master=master.rows,
                only_on_slave=slave.rows,
                master_samples=_samples(master.samples, columns),
                slave_samples=_samples(slave.samples, columns),
                key=key,
                key_matched=result.key_matched,
                column_mismatches={columns[position]: rows for position, rows in sorted(result.mismatches.items()) if rows},
            )
        )
    return {run_id: RunDiff(tuple(sorted(tables, key=lambda diff: diff.table))) for run_id, tables in diffs.items()}


def comparison_query(master: DataFrame, slave: DataFrame) -> DataFrame:
    """`master` and `slave`: a side's rows as (run_id, table_name, row_key, pk_key). Per (run, table, side): rows in surplus on that side and the first few of them by
    key; and per (run, table) with a primary key, side `matched`: how many keys are on
    both sides among those rows and how many of them differ in each column position.

    Group-by-count plus a full outer join is multiset-correct (duplicates count) and the
    fastest method measured; the window keeps samples bounded however large a diff is.
    """
    counts = [
        rows.groupBy(*KEYS).agg(F.count(F.lit(1)).alias(side), F.first("pk_key").alias(f"{side}_pk"))
        for side, rows in zip(SIDES, (master, slave))
    ]
    surplus = F.coalesce(F.col("master"), F.lit(0)) - F.coalesce(F.col("slave"), F.lit(0))
    differing = (
        counts[0]
        .join(counts[1], list(KEYS), "full_outer")
        .select(*KEYS, F.coalesce("master_pk", "slave_pk").alias("pk_key"), surplus.alias("surplus"))
        .where(F.col("surplus") != 0)
        .select(
            *KEYS,
            "pk_key",
            F.when(F.col("surplus") > 0, "master").otherwise("slave").alias("side"),
            F.abs("surplus").alias("surplus"),
        )
    )
    group = ("run_id", "table_name", "side")
    rank = F.row_number().over(Window.partitionBy(*group).orderBy("row_key"))
    per_side = (
        differing.withColumn("rank", rank)
        .groupBy(*group)
        .agg(
            F.sum("surplus").alias("surplus"),
            F.sort_array(F.collect_list(F.when(F.col("rank") <= MAX_SAMPLES, F.col("row_key")))).alias("samples"),
        )
    )
    keyed = differing.where(F.col("pk_key").isNotNull())
    pairs = keyed.where(F.col("side") == "master").select("run_id", "table_name", "pk_key", F.col("row_key").alias("master_row")).join(
        keyed.where(F.col("side") == "slave").select("run_id", "table_name", "pk_key", F.col("row_key").alias("slave_row")),
        ["run_id", "table_name", "pk_key"],
    )
    values = pairs.select(
        "run_id",
        "table_name",
        "pk_key",
        F.posexplode(F.from_json("master_row", "array<string>")).alias("position", "master_value"),
        F.from_json("slave_row", "array<string>").alias("slave_values"),
    )
    mismatch = (~F.col("master_value").eqNullSafe(F.element_at("slave_values", F.col("position") + 1))).cast("long")
    matched = (
        values.groupBy("run_id", "table_name", "position")
        .agg(F.sum(mismatch).alias("rows"), F.countDistinct("pk_key").alias("key_matched"))
        .groupBy("run_id", "table_name")
        .agg(
            F.max("key_matched").alias("key_matched"),
            F.map_from_entries(F.collect_list(F.struct("position", "rows"))).alias("mismatches"),
        )
        .withColumn("side", F.lit("matched"))
    )
    return per_side.unionByName(matched, allowMissingColumns=True)


def _one_sided(name: str, master: TableSnapshot | None, slave: TableSnapshot | None) -> TableDiff:
    """A table that exists on one side only: all its rows are surplus on that side."""
    table = master if master is not None else slave
    assert table is not None
    samples = _samples(sorted({row for row, _ in _row_keys(table, table.columns, ())})[:MAX_SAMPLES], table.columns)
    return TableDiff(
        table=name,
        missing_on="slave" if master is not None else "master",
        columns=table.columns,
        only_on_master=len(table.rows) if master is not None else 0,
        only_on_slave=len(table.rows) if slave is not None else 0,
        master_samples=samples if master is not None else (),
        slave_samples=samples if slave is not None else (),
    )


def _common_columns(master: TableSnapshot, slave: TableSnapshot) -> tuple[str, ...]:
    """The master's columns that the slave also has (MySQL column names ignore case)."""
    on_slave = {column.lower() for column in slave.columns}
    return tuple(column for column in master.columns if column.lower() in on_slave)


def _row_keys(table: TableSnapshot, columns: tuple[str, ...], key: tuple[str, ...]) -> Iterator[tuple[str, str | None]]:
    """Each row's key on `columns` and its primary-key values on `key` (None without a key),
    columns looked up by lower-case name in the table's own order."""
    position = {column.lower(): index for index, column in enumerate(table.columns)}
    names = tuple(column.lower() for column in columns)
    key_names = tuple(column.lower() for column in key)
    indexes = [position[name] for name in names]
    limit = COMPARED_VALUE_LIMIT
    for row in table.rows:
        values = {name: canonical(row[index]) for name, index in zip(names, indexes)}
        text = row_key(values, names)
        if len(text) > limit:  # one length test per row: long values are rare
            values = {name: _bounded(value, limit) for name, value in values.items()}
            text = row_key(values, names)
        yield text, (row_key(values, key_names) if key else None)


def _bounded(value: object, limit: int) -> object:
    """A canonical value of more than `limit` characters as its first `limit` characters,
    its length and its SHA-256: longer than `limit` itself, so never equal to a short value."""
    if not isinstance(value, str) or len(value) <= limit:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{value[:limit]}... ({len(value)} characters, sha256 {digest})"


def _samples(keys: list[str], columns: tuple[str, ...]) -> tuple[dict[str, object], ...]:
    """Rows back from their keys (a JSON list of canonical values in `columns` order)."""
    return tuple(dict(zip(columns, json.loads(key))) for key in keys)
