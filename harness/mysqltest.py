"""A scenario variant as a mysqltest file: a finding in the form a server engineer runs
with mtr's replication framework against a real master and slave.

The file sets up master and slave with the rpl includes, creates the schema on the
master and the slave's own schema on the slave, replays each step on its own
connection, and compares every table with diff_tables. What the run recorded about the
steps comes in as two mappings: the error a step fails with on the master (`--error`),
and, for a step that waits for another session's lock, the step after which it ran
(sent with `--send` and reaped there, so the real server decides the order).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from pathlib import Path

from scenarios.model import Scenario, Step
from scenarios.writer import write_atomically
from server_sim.errors import SqlError
from server_sim.flavor import DEFAULT_FLAVOR, Flavor
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind, target_tables
from server_sim.sysvars import VariableRegistry

DATABASE = "test"
# The master's error log line for each unsafe statement it logs as a statement; mtr
# fails a test whose server logged a warning nobody suppressed.
_UNSAFE_WARNING = "Unsafe statement written to the binary log using statement format since BINLOG_FORMAT = STATEMENT"
_DELIMITERS = ("|", "//", "$$", "~~")
# A session is waiting for a lock: a table or metadata lock, or an InnoDB row lock.
_WAITING = (
    "SELECT COUNT(*) = 1 FROM information_schema.processlist WHERE id = ${connection}_id AND (state LIKE 'Waiting for%lock'"
    " OR id IN (SELECT trx_mysql_thread_id FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'))"
)
# A session has disconnected and the server has finished ending it.
_GONE = "SELECT COUNT(*) = 0 FROM information_schema.processlist WHERE id = ${connection}_id"


def scenario_to_mysqltest(
    scenario: Scenario,
    variant: dict[str, str],
    errors: Mapping[int, int] | None = None,
    waits: Mapping[int, int] | None = None,
    flavor: Flavor = DEFAULT_FLAVOR,
) -> str:
    """The `.test` file for one variant of `scenario`.

    `errors` maps a step number to the error code it fails with on the master; `waits`
    maps a step that waits for a lock to the step after which it ran. `flavor` names
    the variables as its server does (`tx_isolation` on MariaDB).
    """
    return _TestFile(scenario, variant, errors or {}, waits or {}, flavor).text()


def write_mysqltest(
    scenario: Scenario,
    variant: dict[str, str],
    path: Path,
    errors: Mapping[int, int] | None = None,
    waits: Mapping[int, int] | None = None,
    flavor: Flavor = DEFAULT_FLAVOR,
) -> None:
    """Write the `.test` file atomically."""
    write_atomically(Path(path), scenario_to_mysqltest(scenario, variant, errors, waits, flavor))


class _TestFile:
    """The lines of one test file, written in the order mtr runs them."""

    def __init__(self, scenario: Scenario, variant: dict[str, str], errors: Mapping[int, int], waits: Mapping[int, int], flavor: Flavor) -> None:
        self.scenario = scenario
        self.variant = variant
        self.errors = errors
        self.waits = dict(waits)
        self.flavor = flavor
        self.registry = VariableRegistry(flavor)
        self.lines: list[str] = []
        self.connection = ""
        self.connections = _connection_names(scenario)
        self.sent: dict[str, int] = {}  # session -> the step it sent and has not reaped
        self.queued: dict[str, list[Step]] = {}  # session -> its steps behind the sent one

    def text(self) -> str:
        self.header()
        self.slave_variables(restore=False)
        self.lines.append("")
        self.use("master")
        self.session_settings()
        for sql in self.scenario.master_schema:
            self.statement(sql)
        self.sync_slave()
        if self.scenario.slave_schema:
            self.use("slave")
        for sql in self.scenario.slave_schema:
            self.statement(sql)
        self.connect_sessions()
        for step in self.scenario.steps:
            self.step(step)
        self.disconnect_sessions()
        self.compare_and_clean_up()
        return "\n".join(self.lines) + "\n"

    # ---- set-up ----

    def header(self) -> None:
        label = self.scenario.variant_label(self.variant)
        self.lines.append(f"# Scenario {self.scenario.name}, {label}.")
        for paragraph in self.scenario.description.splitlines():
            self.lines.extend(textwrap.wrap(paragraph, 86, initial_indent="# ", subsequent_indent="# ") or ["#"])
        for name in self.scenario.engines:
            self.lines.append(f"# Engine {name} is declared by the scenario; a real server has no such engine.")
        for name, value in self.variant.items():
            if self.registry.lookup(name).read_only:
                self.lines.append(f"# Start the master with --{self.server_name(name)}={value} (-master.opt).")
        binlog_format = self.variant.get("binlog_format", self.flavor.default_binlog_format).lower()
        self.lines += ["", f"--source include/have_binlog_format_{binlog_format}.inc", "--source include/master-slave.inc"]
        if binlog_format == "statement":
            self.lines.append("")
            self.use("master")
            self.lines.append(f'CALL mtr.add_suppression("{_UNSAFE_WARNING}");')

    def slave_variables(self, restore: bool) -> None:
        """The slave's settings are global variables of its applier: set with the applier
        stopped, and put back at the end from the user variables that saved them."""
        if not self.scenario.slave_settings:
            return
        self.lines.append("")
        self.use("slave")
        self.lines.append("--source include/stop_slave.inc")
        for name, value in self.scenario.slave_settings.items():
            server_name = self.server_name(name)
            if restore:
                self.lines.append(f"SET GLOBAL {server_name} = @saved_{server_name};")
            else:
                self.lines.append(f"SET @saved_{server_name} = @@GLOBAL.{server_name};")
                self.lines.append(f"SET GLOBAL {server_name} = {self.literal(name, value)};")
        self.lines.append("--source include/start_slave.inc")

    def session_settings(self) -> None:
        """The variant's settings in the current master connection (binlog_format comes
        from the include, read-only variables from the server's options)."""
        for name, value in self.variant.items():
            variable = self.registry.lookup(name)
            if variable.name != "binlog_format" and not variable.read_only:
                self.lines.append(f"SET SESSION {self.server_name(name)} = {self.literal(name, value)};")

    def connect_sessions(self) -> None:
        """One connection per session; each remembers its id, to wait for it by."""
        self.lines.append("")
        for connection in self.connections.values():
            self.connect(connection)
        self.connection = ""  # the first step names its connection

    def connect(self, connection: str) -> None:
        self.lines.append(f"--connect ({connection},127.0.0.1,root,,{DATABASE},$MASTER_MYPORT,)")
        self.lines.append(f"--let ${connection}_id= `SELECT CONNECTION_ID()`")
        self.connection = connection
        self.session_settings()

    def disconnect(self, step: Step) -> None:
        """A disconnect step: the server has ended the session before the next step; the
        name connects again, a fresh session, for its later steps."""
        connection = self.connections[step.session]
        self.lines += ["", f"# Step {step.index}", f"--disconnect {connection}"]
        self.connection = ""
        self.use("master")
        self.wait_until(_GONE, step.session)
        self.connect(connection)

    # ---- steps ----

    def step(self, step: Step) -> None:
        """One step on its connection: sent without waiting when it waits for a lock,
        queued when its session still waits; then whatever this step released."""
        if step.reap:
            pass  # a statement it timed out ran "after" it: reaped below, with its --error
        elif step.session in self.sent:
            self.queued.setdefault(step.session, []).append(step)
            return
        elif step.disconnect:
            self.disconnect(step)
            return
        else:
            self.lines += ["", f"# Step {step.index}"]
            self.use(self.connections[step.session])
            if step.index in self.waits:
                self.lines.append("--send")
                self.statement(step.sql)
                self.sent[step.session] = step.index
                self.use("master")
                self.wait_until(_WAITING, step.session)
            else:
                self.statement(step.sql, self.errors.get(step.index))
        for session, sent in list(self.sent.items()):
            if self.waits[sent] == step.index:
                self.reap(session)

    def reap(self, session: str) -> None:
        sent = self.sent.pop(session)
        self.lines += ["", f"# Step {sent} ends"]
        self.use(self.connections[session])
        self.expect_error(self.errors.get(sent))
        self.lines.append("--reap")
        for step in self.queued.pop(session, []):
            if self.waits.get(step.index) == self.waits[sent]:
                del self.waits[step.index]  # it waited only behind the statement just reaped
            self.step(step)

    def statement(self, sql: str, error: int | None = None) -> None:
        """`sql` terminated for mysqltest: under another delimiter when it holds a `;`.
        `--error` goes right before the statement, since any other command clears it."""
        sql = sql.rstrip().removesuffix(";").rstrip()
        if ";" not in sql:
            self.expect_error(error)
            self.lines.append(f"{sql};")
            return
        delimiter = next(candidate for candidate in _DELIMITERS if candidate not in sql)
        self.lines.append(f"--delimiter {delimiter}")
        self.expect_error(error)
        self.lines += [f"{sql}{delimiter}", "--delimiter ;"]

    def expect_error(self, error: int | None) -> None:
        if error:
            self.lines.append(f"--error {error}")

    # ---- the end ----

    def disconnect_sessions(self) -> None:
        """Sessions end as in the simulation: open transactions roll back, temporary tables
        go, and the master has logged it all before the slave is synchronised."""
        for session in list(self.sent):
            self.reap(session)
        self.lines.append("")
        for connection in self.connections.values():
            self.lines.append(f"--disconnect {connection}")
        self.connection = ""
        self.use("master")
        for session in self.connections:
            self.wait_until(_GONE, session)

    def compare_and_clean_up(self) -> None:
        master_tables, slave_tables = self.tables()
        self.sync_slave()
        for table in master_tables:
            self.lines.append(f"--let $diff_tables= master:{DATABASE}.{table}, slave:{DATABASE}.{table}")
            self.lines.append("--source include/diff_tables.inc")
        self.lines.append("")
        self.connection = ""  # diff_tables.inc leaves mysqltest on either server
        self.use("master")
        if master_tables:
            self.lines.append(f"DROP TABLE {', '.join(map(_quoted, master_tables))};")
        self.sync_slave()
        slave_only = [table for table in slave_tables if table not in master_tables]
        if slave_only:
            self.use("slave")
            self.lines.append(f"DROP TABLE {', '.join(map(_quoted, slave_only))};")
        self.slave_variables(restore=True)
        self.lines.append("--source include/rpl_end.inc")

    # ---- helpers ----

    def sync_slave(self) -> None:
        """Wait until the slave has applied all the master logged; the next line that
        needs a connection names it, although mysqltest is now on the slave's."""
        self.lines.append("--sync_slave_with_master")
        self.connection = ""

    def use(self, connection: str) -> None:
        if connection != self.connection:
            self.lines.append(f"--connection {connection}")
            self.connection = connection

    def wait_until(self, condition: str, session: str) -> None:
        self.lines.append(f"--let $wait_condition= {condition.format(connection=self.connections[session])}")
        self.lines.append("--source include/wait_condition.inc")

    def server_name(self, name: str) -> str:
        canonical = self.registry.lookup(name).name
        return self.flavor.server_variable_names.get(canonical, canonical)

    def literal(self, name: str, value: str) -> str:
        """Integers bare (a quoted number is an error for an integer variable), the rest quoted."""
        if self.registry.lookup(name).integer:
            return value
        return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"

    def tables(self) -> tuple[list[str], list[str]]:
        """The non-temporary tables that exist at the end on the master (schema and steps
        that succeed) and on the slave (the master's schema, then its own, then what the
        master's steps replicate: a table they drop is gone there too)."""
        steps = [step.sql for step in self.scenario.steps if step.sql and not self.errors.get(step.index)]
        master = _tables_left([*self.scenario.master_schema, *steps])
        slave = _tables_left([*self.scenario.master_schema, *self.scenario.slave_schema, *steps])
        return master, slave


def _connection_names(scenario: Scenario) -> dict[str, str]:
    """Session -> mtr connection name: a name mysqltest variables can carry, and none of
    the connections the rpl includes open."""
    names: dict[str, str] = {}
    taken = {"default", "master", "master1", "slave", "slave1", "server_1", "server_2"}
    for session in dict.fromkeys(step.session for step in scenario.steps):
        base = name = re.sub(r"\W", "_", session)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}{number}"
        taken.add(name)
        names[session] = name
    return names


def _quoted(name: str) -> str:
    """A table name as SQL reads it whatever it holds: backquoted unless a plain word
    (`mysql.general_log` and `#t` are names of one table each)."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*", name) else "`" + name.replace("`", "``") + "`"


def _tables_left(statements: list[str]) -> list[str]:
    """The tables the CREATE and DROP TABLE statements of `statements` leave, in creation order."""
    tables: dict[str, None] = {}
    for sql in statements:
        try:
            statement = parse_statement(sql)
        except SqlError:
            continue
        if statement.temporary:
            continue
        if statement.kind is StatementKind.CREATE_TABLE:
            tables.update((table.name, None) for table in target_tables(statement))
        elif statement.kind is StatementKind.DROP_TABLE:
            for table in target_tables(statement):
                tables.pop(table.name, None)
    return list(tables)
