"""The workload generator: reproducible, within its tunables, and accepted by the simulator."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from harness.runner import run_variant
from scenarios.generator.config import GeneratorConfig
from scenarios.generator.sessions import generate_workload
from scenarios.interleavings import sample_interleavings
from scenarios.model import BINLOG_FORMATS
from scenarios.workload import GeneratedStatement, Workload
from server_sim.errors import ErrorCode
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from server_sim.parser import parse_statement

# Every construct at a high rate, so that a few workloads use each production of the grammar.
DENSE = GeneratorConfig(
    tables=(1, 4),
    sessions=(1, 4),
    statements=12,
    nondeterministic_function_rate=0.3,
    unsafe_variable_rate=0.3,
    unsafe_limit_rate=0.3,
    nontransactional_in_transaction_rate=0.5,
    begin_rate=0.3,
    savepoint_rate=0.4,
    direct_updates_rate=0.5,
    slave_schema_rate=0.5,
    trigger_rate=0.5,
)
SAFE = GeneratorConfig(nondeterministic_function_rate=0, unsafe_variable_rate=0, unsafe_limit_rate=0)
# Errors a real server also raises for generated statements: keys collide on purpose, an
# INSERT ... SELECT may read a NULL for a NOT NULL column, and sessions may deadlock (which
# rolls the transaction back, so a later ROLLBACK TO names a savepoint that is gone).
EXPECTED_ERRORS = {ErrorCode.ER_DUP_ENTRY.code, ErrorCode.ER_BAD_NULL_ERROR.code, ErrorCode.ER_LOCK_DEADLOCK.code, ErrorCode.ER_SP_DOES_NOT_EXIST_SAVEPOINT.code}
TRANSACTION_CONTROL = re.compile(r"^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)\b")


def statements(workload: Workload) -> list[GeneratedStatement]:
    return [statement for steps in workload.sessions.values() for statement in steps]


def dml(workload: Workload) -> list[str]:
    return [statement.sql for statement in statements(workload) if not statement.transaction_control]


@pytest.mark.parametrize(("seed", "index"), [(0, 0), (1, 7), (123456789, 99999)])
def test_a_seed_and_index_always_give_the_same_workload(seed: int, index: int) -> None:
    first = generate_workload(seed, index)
    generate_workload(seed, index + 1)  # other workloads in between change nothing
    random.seed(2)  # nor does the global generator

    assert generate_workload(seed, index) == first


def test_generating_leaves_the_global_random_generator_alone() -> None:
    random.seed(1)
    before = random.getstate()

    generate_workload(0, 0)

    assert random.getstate() == before


@pytest.mark.parametrize(("seed", "index", "other_seed", "other_index"), [(0, 0, 0, 1), (0, 5, 1, 5), (3, 1, 1, 3)])
def test_another_seed_or_index_gives_another_workload(seed: int, index: int, other_seed: int, other_index: int) -> None:
    assert generate_workload(seed, index) != generate_workload(other_seed, other_index)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tables": (0, 2)}, "tables must be a range"),
        ({"tables": (3, 2)}, "tables must be a range"),
        ({"sessions": (1, 5)}, "sessions must be a range"),
        ({"statements": 1, "sessions": (2, 2)}, "must give every session at least one"),
        ({"engine_weights": {"CSV": 1.0}}, "engine_weights"),
        ({"engine_weights": {"InnoDB": 0.0}}, "engine_weights"),
        ({"begin_rate": 1.5}, "begin_rate must be a probability"),
        ({"slave_schema_rate": -0.1}, "slave_schema_rate must be a probability"),
    ],
)
def test_a_config_out_of_bounds_is_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(GeneratorConfig(), **changes)


@pytest.mark.parametrize(("tables", "sessions"), [((1, 1), (1, 1)), ((4, 4), (4, 4)), ((1, 4), (1, 4))])
def test_tables_sessions_and_statements_follow_the_config(tables: tuple[int, int], sessions: tuple[int, int]) -> None:
    config = GeneratorConfig(tables=tables, sessions=sessions, statements=15)
    for index in range(30):
        workload = generate_workload(4, index, config)
        created = [sql for sql in workload.master_schema if sql.startswith("CREATE TABLE")]

        assert tables[0] <= len(created) <= tables[1]
        assert list(workload.sessions) == [f"con{number}" for number in range(1, len(workload.sessions) + 1)]
        assert sessions[0] <= len(workload.sessions) <= sessions[1]
        # Each session may add the COMMIT or ROLLBACK that closes its last transaction.
        assert 15 <= len(statements(workload)) <= 15 + len(workload.sessions)


@pytest.mark.parametrize("index", range(40))
def test_sessions_close_their_transactions_and_use_only_their_own_savepoints(index: int) -> None:
    workload = generate_workload(11, index, DENSE)
    for steps in workload.sessions.values():
        in_transaction, savepoints = False, []
        for statement in steps:
            sql = statement.sql
            if sql in ("BEGIN", "START TRANSACTION"):
                assert not in_transaction, "no implicit commit by a nested BEGIN"
                in_transaction, savepoints = True, []
            elif sql in ("COMMIT", "ROLLBACK"):
                assert in_transaction
                in_transaction = False
            elif sql.startswith("SAVEPOINT "):
                assert in_transaction
                savepoints.append(sql.split()[-1])
            elif sql.startswith(("ROLLBACK TO SAVEPOINT ", "RELEASE SAVEPOINT ")):
                name = sql.split()[-1]
                assert in_transaction and name in savepoints
                kept = savepoints.index(name) + (1 if sql.startswith("ROLLBACK") else 0)
                del savepoints[kept:]  # ROLLBACK TO keeps its savepoint, RELEASE drops it
        assert not in_transaction


@pytest.mark.parametrize("index", range(40))
def test_each_statement_records_the_tables_it_touches(index: int) -> None:
    workload = generate_workload(5, index, DENSE)
    for statement in statements(workload):
        assert statement.transaction_control == bool(TRANSACTION_CONTROL.match(statement.sql))
        named = set(re.findall(r"\bt\d\b", statement.sql))
        assert statement.tables == named
        assert statement.transaction_control != bool(named)


@pytest.mark.parametrize("index", range(40))
def test_memory_tables_hold_no_blob_or_text(index: int) -> None:
    for sql in generate_workload(6, index, GeneratorConfig(engine_weights={"MEMORY": 1.0, "MyISAM": 1.0})).master_schema:
        if "ENGINE=MEMORY" in sql:
            assert " TEXT" not in sql and " BLOB" not in sql


def test_the_schema_mixes_engines_and_keys() -> None:
    schema = " ".join(sql for index in range(30) for sql in generate_workload(2, index).master_schema)

    for part in ("ENGINE=InnoDB", "ENGINE=MyISAM", "ENGINE=MEMORY", "PRIMARY KEY", "UNIQUE KEY", "KEY v", "AUTO_INCREMENT", " TEXT", " BLOB", "DEFAULT", "NOT NULL"):
        assert part in schema


def test_without_unsafe_rates_no_statement_is_unsafe() -> None:
    for index in range(40):
        for sql in dml(generate_workload(8, index, SAFE)):
            assert not re.search(r"RAND\(|UUID\(|SYSDATE\(|USER\(|@@", sql)
            assert " LIMIT " not in sql or re.search(r" ORDER BY (id|k)( DESC)? LIMIT ", sql)


def test_a_multi_table_rate_of_one_joins_every_update_and_delete_to_another_table() -> None:
    config = replace(SAFE, tables=(2, 3), multi_table_rate=1.0)
    for index in range(20):
        for sql in dml(generate_workload(10, index, config)):
            assert not sql.startswith(("UPDATE", "DELETE")) or re.search(r" JOIN |^UPDATE (IGNORE )?t\d, t\d| FROM t\d(, t\d)? USING |^DELETE t\d", sql), sql


def test_a_trigger_rate_gives_every_workload_one_trigger_that_runs() -> None:
    config = replace(SAFE, trigger_rate=1.0)
    for index in range(20):
        workload = generate_workload(11, index, config)
        triggers = [sql for sql in workload.master_schema if sql.startswith("CREATE TRIGGER")]
        assert len(triggers) == 1, workload.master_schema
        assert re.match(r"CREATE TRIGGER t\d_\w+ (BEFORE (INSERT|UPDATE) ON t\d FOR EACH ROW SET NEW\.v = NEW\.v \+ \d|AFTER \w+ ON t\d FOR EACH ROW (UPDATE|DELETE))", triggers[0])
        assert parse_statement(triggers[0]).trigger is not None
    assert not any(sql.startswith("CREATE TRIGGER") for i in range(20) for sql in generate_workload(11, i, replace(SAFE, trigger_rate=0.0)).master_schema)


@pytest.mark.parametrize(
    ("rate", "pattern"),
    [("nondeterministic_function_rate", r"RAND\(|UUID\(|SYSDATE\(|USER\("), ("unsafe_variable_rate", r"@@server_id|@@hostname")],
)
def test_an_unsafe_rate_of_one_puts_the_construct_in_every_statement(rate: str, pattern: str) -> None:
    config = replace(SAFE, multi_table_rate=0.0, **{rate: 1.0})  # a multi-table statement carries none
    for index in range(20):
        for sql in dml(generate_workload(9, index, config)):
            assert re.search(pattern, sql), sql


def test_an_unsafe_limit_rate_of_one_limits_every_scan_without_a_unique_order() -> None:
    config = replace(SAFE, unsafe_limit_rate=1.0, multi_table_rate=0.0)  # a multi-table statement takes no LIMIT
    for index in range(20):
        for sql in dml(generate_workload(9, index, config)):
            if sql.startswith(("UPDATE", "DELETE")) or " SELECT " in sql:
                assert re.search(r"( ORDER BY v)? LIMIT \d", sql) and not re.search(r"ORDER BY (id|k)", sql), sql


def test_the_slave_schema_differs_at_its_rate() -> None:
    never = [generate_workload(1, index, GeneratorConfig(slave_schema_rate=0.0)) for index in range(20)]
    always = [generate_workload(1, index, GeneratorConfig(slave_schema_rate=1.0)) for index in range(20)]

    assert all(workload.slave_schema == () for workload in never)
    assert all(len(workload.slave_schema) == 1 and workload.slave_schema[0].startswith("ALTER TABLE t") for workload in always)


@pytest.mark.parametrize("index", range(20))
def test_columns_given_clock_generator_or_server_values_are_volatile(index: int) -> None:
    workload = generate_workload(12, index, DENSE)
    unsafe_assignment = re.compile(r"(\w+) = (?:FLOOR\(RAND\(\) \* 4\)|UUID\(\)|USER\(\)|SYSDATE\(\)|@@server_id|@@hostname)")
    expected = set()
    for sql in workload.master_schema:
        if "ts DATETIME DEFAULT CURRENT_TIMESTAMP" in sql:
            expected.add(f"{sql.split()[2]}.ts")
    for sql in dml(workload):
        if sql.startswith("UPDATE"):
            table = sql.split()[2] if sql.startswith("UPDATE IGNORE") else sql.split()[1]
            expected.update(f"{table}.{column}" for column in unsafe_assignment.findall(sql.split(" WHERE ")[0]))

    assert expected <= set(workload.volatile)
    assert workload.scenario(sample_interleavings(workload, 1, rng_seed=0)[0]).volatile == workload.volatile


def test_a_scenario_sends_the_steps_in_the_interleavings_order() -> None:
    workload = generate_workload(3, 42)
    [interleaving] = sample_interleavings(workload, 1, rng_seed=0)

    scenario = workload.scenario(interleaving, {"binlog_format": "ROW", "binlog_row_image": "MINIMAL"})

    assert scenario.name == f"fuzz-s3-00042-{workload.interleaving_label(interleaving)}"
    assert re.fullmatch(r"fuzz-s3-00042-[12]+", scenario.name)
    assert scenario.source is None
    assert [step.index for step in scenario.steps] == list(range(1, len(interleaving) + 1))
    assert [step.session for step in scenario.steps] == list(interleaving)
    for session, steps in workload.sessions.items():
        assert [step.sql for step in scenario.steps if step.session == session] == [statement.sql for statement in steps]
    assert (scenario.master_schema, scenario.slave_schema) == (workload.master_schema, workload.slave_schema)
    assert scenario.settings == {**workload.settings, "binlog_format": "ROW", "binlog_row_image": "MINIMAL"}
    assert [variant["binlog_format"] for variant in scenario.variants()] == ["ROW"]


def test_without_a_binlog_format_a_scenario_runs_under_each() -> None:
    workload = generate_workload(3, 1)
    scenario = workload.scenario(sample_interleavings(workload, 1, rng_seed=0)[0])

    assert "binlog_format" not in scenario.settings
    assert [variant["binlog_format"] for variant in scenario.variants()] == list(BINLOG_FORMATS)


def test_every_generated_statement_parses() -> None:
    """The parser is the simulator's first gate: hundreds of workloads pass it."""
    for seed in range(3):
        for index in range(100):
            workload = generate_workload(seed, index)
            for sql in (*workload.master_schema, *workload.slave_schema, *(s.sql for s in statements(workload))):
                parse_statement(sql)


# The workloads the simulator runs, under every format: few (a run costs a master and a
# slave), chosen so that together they use every production of the grammar.
SIMULATED = [(seed, index, DENSE) for seed in (21, 22) for index in range(10)] + [(23, 2, DENSE), (23, 8, DENSE)] + [(25, index, None) for index in range(4)]
PRODUCTIONS = (
    r"^INSERT INTO t\d \(.*\) VALUES", r"^INSERT INTO t\d VALUES", r"^INSERT IGNORE INTO t\d \(.*\) VALUES",
    r"VALUES .* ON DUPLICATE KEY UPDATE", r"VALUES\(v\)", r"^REPLACE INTO t\d .*VALUES",
    r"^INSERT INTO t\d \(.*\) SELECT", r"^INSERT IGNORE INTO t\d \(.*\) SELECT", r"^REPLACE INTO t\d \(.*\) SELECT",
    r"SELECT .* ON DUPLICATE KEY UPDATE", r"^UPDATE t", r"^UPDATE IGNORE", r"^DELETE FROM", r"IN \(SELECT v FROM",
    r"^UPDATE t\d JOIN t\d ON", r"^UPDATE t\d, t\d SET", r"^DELETE t\d(, t\d)? FROM", r"^DELETE FROM t\d(, t\d)? USING",
    r"IS NULL", r"WHERE v < ", r"ORDER BY v LIMIT", r"[^Y] LIMIT \d", r"ORDER BY (id|k) LIMIT", r"DESC LIMIT",
    r"RAND\(\)", r"UUID\(\)", r"SYSDATE\(\)", r"USER\(\)", r"@@server_id", r"@@hostname",
    r"^BEGIN$", r"^START TRANSACTION$", r"^COMMIT$", r"^ROLLBACK$", r"^SAVEPOINT", r"^ROLLBACK TO SAVEPOINT", r"^RELEASE SAVEPOINT",
    r"ENGINE=InnoDB", r"ENGINE=MyISAM", r"ENGINE=MEMORY", r" TEXT", r" BLOB", r"DATETIME DEFAULT CURRENT_TIMESTAMP",
    r"AUTO_INCREMENT", r"UNIQUE KEY", r"KEY v", r"KEY id", r"^ALTER TABLE", r"binlog_direct_non_transactional_updates",
    r"^CREATE TRIGGER t\d_\w+ BEFORE (INSERT|UPDATE) ON t\d FOR EACH ROW SET NEW", r"AFTER \w+ ON t\d FOR EACH ROW UPDATE t\d",
    r"AFTER \w+ ON t\d FOR EACH ROW DELETE FROM t\d",
)
SLAVE_SCHEMA_CHANGES = (
    r"ADD COLUMN extra INT DEFAULT \d$", r"ADD COLUMN extra INT NOT NULL$", r"ALTER COLUMN v SET DEFAULT \d$", r"DROP PRIMARY KEY$",
    r"DROP PRIMARY KEY, ADD KEY \(id\)$", r"DROP PRIMARY KEY, ADD PRIMARY KEY \(k\)$", r"DROP INDEX k$",
)


def test_the_simulated_workloads_use_every_production() -> None:
    texts = []
    for seed, index, config in SIMULATED:
        workload = generate_workload(seed, index, config)
        texts.extend((*workload.master_schema, *workload.slave_schema, *workload.settings, *(s.sql for s in statements(workload))))

    assert [production for production in PRODUCTIONS if not any(re.search(production, text) for text in texts)] == []


@pytest.mark.parametrize(
    ("seed", "index", "config"),
    SIMULATED,
    ids=lambda value: "dense" if value is DENSE else "default" if value is None else str(value),
)
def test_the_simulator_runs_every_generated_workload(tmp_path: Path, seed: int, index: int, config: GeneratorConfig | None) -> None:
    workload = generate_workload(seed, index, config)
    assert_runs(workload, BINLOG_FORMATS, MARIADB_1011 if index % 2 else MYSQL_80, tmp_path)


@pytest.mark.parametrize("change", SLAVE_SCHEMA_CHANGES)
def test_every_kind_of_slave_schema_difference_applies_on_the_slave(tmp_path: Path, change: str) -> None:
    config = replace(GeneratorConfig(), slave_schema_rate=1.0)
    candidates = (generate_workload(seed, 0, config) for seed in range(1000))
    workload = next((w for w in candidates if re.search(change, w.slave_schema[0])), None)

    assert workload is not None, f"no workload of seeds 0-999 makes the change {change}"
    assert_runs(workload, ("ROW",), MYSQL_80, tmp_path)


def assert_runs(workload: Workload, formats: tuple[str, ...], flavor: Flavor, tmp_path: Path) -> None:
    """Every statement runs under each format: the only errors are ones a real server raises
    too, never a statement the simulator does not model (1235) or cannot parse (1064)."""
    [interleaving] = sample_interleavings(workload, 1, rng_seed=workload.index)
    scenario = workload.scenario(interleaving)
    for binlog_format in formats:
        record = run_variant(scenario, {**scenario.settings, "binlog_format": binlog_format}, flavor, tmp_path)

        assert record.error is None, record.error
        assert [step.error for step in record.schema_steps + record.slave_schema] == [None] * (len(record.schema_steps) + len(record.slave_schema))
        failed = {step.error.code: step.sql for step in record.steps if step.error is not None}
        assert set(failed) <= EXPECTED_ERRORS, failed
