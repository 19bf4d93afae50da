"""The client stage: run one scenario variant on a master, write its binlog, apply it on a slave."""

from __future__ import annotations

import hashlib
import re
import traceback
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from master_sim.master import Master
from master_sim.results import RowEffect, StepResult
from scenarios.model import Scenario, ScenarioError
from server_sim.engines import Engine, EngineRegistry
from server_sim.errors import Condition, SqlError
from server_sim.flavor import FLAVORS, Flavor
from server_sim.server import Server
from server_sim.sysvars import VariableRegistry
from slave_sim.slave import Slave
from slave_sim.status import SlaveStatus

from .snapshot import ServerSnapshot, TableSnapshot

SETUP_SESSION = "master_schema"


@dataclass
class SlaveSchemaResult:
    sql: str
    error: Condition | None = None
    refused: Condition | None = None  # the parser refused it: it never ran


@dataclass
class RunRecord:
    """Everything one run recorded; the checker judges from this alone."""

    run_id: str
    scenario: Scenario
    variant: dict[str, str]
    label: str
    seed: int
    schema_steps: list[StepResult] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)
    slave_schema: list[SlaveSchemaResult] = field(default_factory=list)
    binlog: Path | None = None
    slave: SlaveStatus | None = None
    master_snapshot: ServerSnapshot | None = None
    slave_snapshot: ServerSnapshot | None = None
    effects: list[RowEffect] = field(default_factory=list)  # the master's row changes, in order
    error: str | None = None  # the simulator itself failed: a traceback
    flavor: str = ""  # the server modelled (or run, in oracle mode)
    # Oracle mode: the real master's binlog files of the run (or of the same variant, on the
    # simulator's record), copied into OUT/binlogs/<run id>@oracle/ for `replay` to read.
    server_binlogs: list[Path] = field(default_factory=list)
    schema_end: int | None = None  # the binlog position after the master schema's events
    # The binlog files RESET MASTER ended, oldest first (a run without a replica only).
    reset_binlogs: list[Path] = field(default_factory=list)


# A run id names files (its binlog, `@oracle` directories, shrunk `.yaml` and `.test`
# files, expected/ observations): kept well under the file systems' 255-byte name limit.
RUN_ID_LIMIT = 160


def run_id_for(scenario: Scenario, label: str) -> str:
    """The run's name in reports and files: the scenario name and variant label with other
    characters than letters, digits, `_`, `.` and `-` as `_`; a longer one cut, with a
    digest of the whole. Two names can still give one id (`x/y` and `x_y`): the suite
    refuses the second (harness/suite.py)."""
    run_id = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{scenario.name}__{label}").strip("_")
    if len(run_id) <= RUN_ID_LIMIT:
        return run_id
    digest = hashlib.sha256(f"{scenario.name}\0{label}".encode()).hexdigest()[:12]
    return f"{run_id[: RUN_ID_LIMIT - len(digest) - 1]}-{digest}"


def validate_scenario(scenario: Scenario, flavor: Flavor) -> list[ScenarioError]:
    """Variable names and values, and declared engine names, checked against the modelled
    server (the scenario's own `flavor` when it names one), with file and key."""
    errors = []
    source = scenario.source or Path(scenario.name)
    if scenario.flavor is not None:
        if scenario.flavor not in FLAVORS:
            return [ScenarioError(source, "flavor", f"unknown flavor {scenario.flavor}; flavors are {', '.join(sorted(FLAVORS))}")]
        flavor = FLAVORS[scenario.flavor]
    registry = VariableRegistry(flavor)
    builtin = EngineRegistry()
    for name in scenario.engines:
        try:
            engine = builtin.get(name)
        except SqlError:
            continue
        errors.append(ScenarioError(source, f"engines.{name}", f"{engine.name} is a built-in engine; declare one under a name of its own"))
    for section, values in (("settings", scenario.settings), ("slave_settings", scenario.slave_settings)):
        for name, value in values.items():
            try:
                registry.lookup(name).normalise(value)
            except SqlError as error:
                errors.append(ScenarioError(source, f"{section}.{name}", error.message))
    for name, values in scenario.matrix.items():
        for value in values:
            try:
                registry.lookup(name).normalise(value)
            except SqlError as error:
                errors.append(ScenarioError(source, f"matrix.{name}", error.message))
    return errors


def run_variant(scenario: Scenario, variant: dict[str, str], flavor: Flavor, binlog_dir: Path, base_seed: int = 0, replica: bool = True) -> RunRecord:
    """Master, binlog, slave: one run of a scenario under one variant's settings. A
    scenario that names its flavor or seed runs with those, whatever the command's.
    Without a `replica` the master runs alone (a test of the binlog only): no slave
    applies its binlog, and RESET MASTER may empty it."""
    if scenario.flavor is not None:
        flavor = FLAVORS[scenario.flavor]
    if scenario.seed is not None:
        base_seed = scenario.seed
    label = scenario.variant_label(variant)
    run_id = run_id_for(scenario, label)
    seed = (zlib.crc32(run_id.encode()) + base_seed) & 0x7FFFFFFF
    record = RunRecord(run_id, scenario, variant, label, seed, flavor=flavor.name)
    registry = VariableRegistry(flavor)
    engines = engine_registry(scenario)
    master: Master | None = None
    slave: Slave | None = None
    try:
        master = Master(flavor, registry.validate(variant), binlog_dir / f"{run_id}.binlog", seed, engines, replica_connected=replica)
        record.binlog = master.binlog_path
        record.schema_steps = [master.submit(SETUP_SESSION, sql) for sql in scenario.master_schema]
        schema_end = record.schema_end = master.writer.position
        for step in scenario.steps:
            if step.disconnect:
                record.steps.append(master.disconnect(step.session, step.index))
            elif step.reap:
                record.steps.append(master.reap(step.session, step.index))
            else:
                record.steps.append(master.submit(step.session, step.sql, step.index))
        master.finish()
        record.effects = master.effects
        record.master_snapshot = snapshot(master.server)
        record.reset_binlogs = list(master.reset_binlogs)
        if not replica:
            return record
        slave = Slave(flavor, registry.validate(scenario.slave_settings), seed, engines)
        slave.apply(master.binlog_path, stop=schema_end)
        for position, sql in enumerate(scenario.slave_schema):
            record.slave_schema.append(_slave_schema_statement(slave, sql))
            refused = record.slave_schema[-1].refused
            if refused is not None:  # the scenario's slave cannot be set up: nothing to judge
                record.error = f"slave_schema[{position}]: error {refused.code} ({refused.name}): {refused.message}: {' '.join(sql.split())}"
                return record
        record.slave = slave.apply(master.binlog_path, start=schema_end)
        record.slave_snapshot = snapshot(slave.server)
    except Exception:  # the simulator failed on this run: report it, keep going
        record.error = traceback.format_exc()
    finally:
        for server in (master, slave):
            if server is not None:
                server.close()
    return record


def _slave_schema_statement(slave: Slave, sql: str) -> SlaveSchemaResult:
    """One slave_schema statement run on the slave: its error, or the parser's refusal."""
    try:
        outcome = slave.execute_local(sql)
    except SqlError as error:  # unparsable (1064) or not modelled (1235): it never ran
        return SlaveSchemaResult(sql, error.condition(), refused=error.condition())
    return SlaveSchemaResult(sql, outcome.error.condition() if outcome.error else None)


def engine_registry(scenario: Scenario) -> EngineRegistry:
    """The built-in engines plus the scenario's own; master and slave know the same ones."""
    return EngineRegistry({name: Engine(name, **asdict(declared)) for name, declared in scenario.engines.items()})


def snapshot(server: Server) -> ServerSnapshot:
    """Every user table's rows, with its primary key for the comparison to match rows by."""
    tables = {}
    by_key = {table.name.lower(): table for table in server.catalog.tables.values()}
    for name, (columns, rows) in server.dump().items():
        primary = by_key[name].primary_key
        tables[name] = TableSnapshot(name, tuple(columns), tuple(rows), tuple(primary.columns) if primary else ())
    return ServerSnapshot(tables)
