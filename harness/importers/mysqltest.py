"""mysqltest files (`.test`, and the `.inc` files they source) read into a capture.

A connection runs on the master or the slave (its port says which; the rpl includes open
`master`, `slave` and their aliases). Statements on master connections become steps with
the errors `--error` declares; on the slave, DDL and `SET GLOBAL` made before the master's
steps become the slave's schema and settings (the applier's variables). The include files
of the replication framework are understood by name: `master-slave.inc` and
`rpl_init.inc` set replication up, `have_binlog_format_*.inc` give the binlog formats to
run under, the sync and check includes are what the harness does after every run anyway.
Whatever else the importer does not understand is listed with its file and line."""

from __future__ import annotations

import re
from pathlib import Path

from harness.importers.classify import Kind, kind_of, named_databases
from harness.importers.model import Capture, Captured, ImportFailure, Origin, Skipped
from harness.importers.mysqltest_rules import (
    BINLOG_FORMAT_INCLUDES,
    DROP,
    CONNECTION_INCLUDE,
    FRAMEWORK_INCLUDES,
    IGNORED_INCLUDES,
    REQUIREMENT_INCLUDE,
    MTR_DEFAULT_SETTINGS,
    MYSQLTEST_COMMANDS,
    OUTPUT_COMMANDS,
    REPLICATION_SETUP,
    SLAVE_CONNECTIONS,
    SYNC_INCLUDES,
    error_list,
    remove_final_disconnects,
    extract_settings,
    remove_cleanup,
)
from harness.importers.mysqltest_options import read_server_options
from harness.importers.mysqltest_script import Command, commands
from harness.importers.text import read_text, split_sql
from server_sim.errors import ErrorCode

_VARIABLE = re.compile(r"\$(\w+)")
_SUPPRESSION = re.compile(r"^\s*CALL\s+mtr\.", re.IGNORECASE)
_SET_GLOBAL = re.compile(r"^\s*SET\s+(?:GLOBAL\s+|@@GLOBAL\.)(\w+)\s*=\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
_SAVE_RESTORE = re.compile(r"^\s*SET\s+(?:@\w+\s*=\s*@@|(?:GLOBAL\s+|@@GLOBAL\.)\w+\s*=\s*@\w+\s*$)", re.IGNORECASE)
_COMPOUND = re.compile(r"^\s*CREATE\b[^(]*?\b(?:TRIGGER|FUNCTION|PROCEDURE|EVENT)\b", re.IGNORECASE)
_USE = re.compile(r"^\s*USE\s+(\S+?)\s*;?\s*$", re.IGNORECASE)
_DROP_DATABASE = re.compile(r"^\s*DROP\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+EXISTS\s+)?(\S+?)\s*;?\s*$", re.IGNORECASE)
_QUERY_VALUE = re.compile(r"^query_get_value\s*\(", re.IGNORECASE)
_CURRENT_DATABASE = re.compile(r"^`\s*SELECT\s+DATABASE\s*\(\s*\)\s*`$", re.IGNORECASE)
DATABASE = "test"  # mtr's default database: the scenario's
_UNKNOWN = "\x00unknown"  # a variable whose value comes from a query (`let $v= `SELECT ...``)
_MAX_DEPTH = 16


def import_mysqltest(path: Path, keep_reads: bool = False) -> Capture:
    """The steps of one mysqltest file and the files it sources."""
    capture = Capture(kind="mysqltest", sources=(path,), errors_unknown=False, order="the steps follow the test file.")
    test = _Test(capture, path, keep_reads)
    test.run_file(path, 0)
    if not capture.statements and not capture.master_schema:
        listed = "; ".join(str(skipped) for skipped in capture.skipped[:3])
        raise ImportFailure(f"{path}: no statement to import" + (f" (listed: {listed})" if listed else ""))
    remove_cleanup(capture, test.checkpoints)
    remove_final_disconnects(capture)
    for index, origin in test.drops_after_checks:
        if index < len(capture.statements):
            capture.notes.append(
                f"{origin}: a DROP after a check ends one case of the test; the scenario compares master and slave "
                "only at its end, so the tables dropped here are not compared"
            )
    extract_settings(capture, test.master_connections())
    capture.replication = "slave" in test.servers.values()
    started = Capture(kind=capture.kind, sources=capture.sources, matrix=capture.matrix)
    read_server_options(path, started)
    capture.skipped.extend(started.skipped)
    capture.settings = {**MTR_DEFAULT_SETTINGS, **started.settings, **capture.settings}
    capture.slave_settings = {**MTR_DEFAULT_SETTINGS, **started.slave_settings, **capture.slave_settings}
    return capture


class _Test:
    """mysqltest's state while the file runs: connections, variables, the pending
    `--error`, the statements sent and not reaped."""

    def __init__(self, capture: Capture, path: Path, keep_reads: bool) -> None:
        self.capture = capture
        self.root = path.parent
        self.keep_reads = keep_reads
        self.servers: dict[str, str] = {"default": "master"}
        self.connection = "default"
        self.variables: dict[str, str] = {}
        self.error: tuple[int | str, ...] = ()
        self.send_next = False
        self.sent: dict[str, int] = {}  # connection -> index of its statement sent, not reaped
        self.checkpoints: set[int] = set()  # statement counts at each sync or table check
        self.drops_after_checks: list[tuple[int, Origin]] = []  # a case of the test ends
        self.master_started = False
        self.stopped = False
        self.databases: dict[str, str] = {}  # connection -> its database, when not DATABASE

    def master_connections(self) -> set[str]:
        return {name for name, server in self.servers.items() if server == "master"}

    def run_file(self, path: Path, depth: int) -> None:
        for command in commands(path, read_text(path)):
            if self.stopped:
                return
            self.run(command, depth)

    def run(self, command: Command, depth: int) -> None:
        if command.text.endswith("\x00unterminated"):
            self.skip(command.origin, "the file ends inside a statement (no delimiter after it)")
        elif command.word in MYSQLTEST_COMMANDS or command.dashed:
            self.command(command, depth)
        else:
            self.sql(command.text, command.origin)

    def skip(self, origin: Origin, reason: str) -> None:
        self.capture.skipped.append(Skipped(origin, reason))

    def drop(self, what: str) -> None:
        self.capture.dropped[what] += 1

    def expand(self, text: str) -> str | None:
        """`text` with `$name` replaced by the variables' values; None when one is not
        known: set from a query the importer cannot run, or never set in the file (mtr's
        own, such as $MYSQLTEST_VARDIR)."""
        values = [self.variables.get(name, _UNKNOWN) for name in _VARIABLE.findall(text)]
        if _UNKNOWN in values:
            return None  # never left as `$name` in a statement
        return _VARIABLE.sub(lambda match: self.variables.get(match.group(1), match.group(0)), text)

    # ---- commands ----

    def command(self, command: Command, depth: int) -> None:
        word, argument, origin = command.word, command.argument, command.origin
        handler = getattr(self, f"do_{word}", None)
        if handler is not None:
            handler(argument, origin, depth)
        elif word in OUTPUT_COMMANDS or word.startswith(("disable_", "enable_")):
            self.drop("mysqltest output command")
        elif word in ("query", "query_vertical", "query_horizontal"):
            self.sql(argument, origin)
        else:
            self.skip(origin, f"mysqltest command {word or command.text[:30]!r} is not imported")

    def do_disable_abort_on_error(self, argument: str, origin: Origin, depth: int) -> None:
        self.capture.errors_unknown = True

    def do_delimiter(self, argument: str, origin: Origin, depth: int) -> None:
        self.drop("mysqltest output command")

    def do_echo(self, argument: str, origin: Origin, depth: int) -> None:
        self.drop("mysqltest output command")

    def do_exit(self, argument: str, origin: Origin, depth: int) -> None:
        self.capture.notes.append(f"{origin}: the test exits here; what follows is not run")
        self.stopped = True

    def do_let(self, argument: str, origin: Origin, depth: int) -> None:
        match = re.match(r"^\$?(\w+)\s*=\s*(.*)$", argument, re.DOTALL)  # `let NAME=` sets an environment variable, also $NAME
        if match is None:
            self.skip(origin, f"let without `$name=`: {argument[:40]!r}")
            return
        value = match.group(2).strip()
        expanded = None if value.startswith("`") or _QUERY_VALUE.match(value) else self.expand(value)
        if _CURRENT_DATABASE.match(value) and self.databases.get(self.connection, DATABASE) not in ("", "?"):
            expanded = self.databases.get(self.connection, DATABASE)  # what SELECT DATABASE() returns there
        self.variables[match.group(1)] = _UNKNOWN if expanded is None else expanded

    def do_eval(self, argument: str, origin: Origin, depth: int) -> None:
        expanded = self.expand(argument)
        if expanded is None:
            self.skip(origin, f"eval uses a variable whose value the file does not give (set from a query, or mtr's own): {argument[:50]!r}")
            if kind_of(argument) is Kind.DATABASE and _USE.match(argument):
                self.databases[self.connection] = "?"  # which one the file cannot say
        else:
            self.sql(expanded, origin)

    def do_send_eval(self, argument: str, origin: Origin, depth: int) -> None:
        self.send_next = True
        self.do_eval(argument, origin, depth)

    def do_error(self, argument: str, origin: Origin, depth: int) -> None:
        codes, problem = error_list(self.expand(argument) or argument)
        if problem:
            self.skip(origin, problem)
        self.error = codes

    def do_connect(self, argument: str, origin: Origin, depth: int) -> None:
        fields = [field.strip() for field in (self.expand(argument) or argument).strip("()").split(",")]
        port = fields[5] if len(fields) > 5 else ""
        self.servers[fields[0]] = "slave" if "SLAVE" in port.upper() else "master"
        self.connection = fields[0]

    def do_connection(self, argument: str, origin: Origin, depth: int) -> None:
        name = self.expand(argument) or argument
        if name not in self.servers:
            self.skip(origin, f"connection {name} was never opened")
        self.connection = name

    def do_disconnect(self, argument: str, origin: Origin, depth: int) -> None:
        """The connection closes: on the master, a step that ends its session there (its
        transaction rolled back, its temporary tables dropped and logged, its locks freed)."""
        name = self.expand(argument) or argument
        self.sent.pop(name, None)
        if self.servers.get(name) == "master" and any(statement.session == name for statement in self.capture.statements):
            self.capture.statements.append(Captured(name, "", origin, disconnect=True))

    def do_send(self, argument: str, origin: Origin, depth: int) -> None:
        self.send_next = True
        if argument:
            self.sql(argument, origin)

    def do_reap(self, argument: str, origin: Origin, depth: int) -> None:
        """The test waits for the sent statement's answer: a reap step (a statement still
        waiting for a lock then times out, as it did for the test), its `--error` the sent
        statement's."""
        index = self.sent.pop(self.connection, None)
        if index is None:
            self.skip(origin, "reap with no statement sent on this connection")
        else:
            if self.error:
                sent = self.capture.statements[index]
                self.capture.statements[index] = Captured(sent.session, sent.sql, sent.origin, sent.database, self.error)
            if self.servers.get(self.connection) == "master":
                self.capture.statements.append(Captured(self.connection, "", origin, reap=True))
        self.error = ()

    def do_sync_slave_with_master(self, argument: str, origin: Origin, depth: int) -> None:
        self.connection = argument or "slave"
        self.synced()

    def synced(self) -> None:
        """The slave has caught up. The first time, what the master ran so far is the set-up
        every step builds on (mtr's idiom: create and fill, sync, then the test): the
        scenario's master schema, which the slave also applies before its own schema."""
        statements = self.capture.statements
        if not self.capture.schema_from_steps:
            self.checkpoints.add(len(statements))
            return
        self.capture.schema_from_steps = False
        schema = [index for index, statement in enumerate(statements) if kind_of(statement.sql) in (Kind.DDL, Kind.DATA)]
        settings_only = all(kind_of(statement.sql) is Kind.SETTING or statement.disconnect or statement.reap for index, statement in enumerate(statements) if index not in schema)
        if schema and settings_only and not self.sent and not any(statement.errors for statement in statements):
            self.capture.master_schema += [statements[index].sql for index in schema]
            self.capture.schema_origins += [statements[index].origin for index in schema]
            statements[:] = [statement for index, statement in enumerate(statements) if index not in schema]
            self.master_started = False
        self.checkpoints.add(len(statements))

    def do_sync_with_master(self, argument: str, origin: Origin, depth: int) -> None:
        self.synced()

    def do_save_master_pos(self, argument: str, origin: Origin, depth: int) -> None:
        self.drop("mysqltest output command")

    def do_source(self, argument: str, origin: Origin, depth: int) -> None:
        name = (self.expand(argument) or argument).strip().strip(";")
        include = name.removeprefix("./")
        if include == "include/rpl_connect.inc":
            self.rpl_connect(origin)
        elif include in REPLICATION_SETUP:
            self.check_topology(origin)
            self.servers.update(SLAVE_CONNECTIONS)
            self.connection = "master"
        elif include in BINLOG_FORMAT_INCLUDES:
            self.capture.matrix["binlog_format"] = BINLOG_FORMAT_INCLUDES[include]
        elif include in SYNC_INCLUDES:
            self.synced()
        elif (connection := CONNECTION_INCLUDE.match(include)) is not None:
            self.do_connection(connection.group(1), origin, depth)
        elif include in IGNORED_INCLUDES or include in FRAMEWORK_INCLUDES or REQUIREMENT_INCLUDE.match(include):
            self.drop("framework include")
            if include == "include/diff_tables.inc":
                self.checkpoints.add(len(self.capture.statements))
        else:
            self.source_file(name, origin, depth)

    def check_topology(self, origin: Origin) -> None:
        """rpl_init.inc's servers ($rpl_topology, $rpl_server_count): a scenario has one
        master and one slave, so a third server stops the import."""
        topology, count = self.variables.get("rpl_topology"), self.variables.get("rpl_server_count")
        numbers = [int(number) for number in re.findall(r"\d+", topology)] if topology not in (None, _UNKNOWN) else []
        if count not in (None, _UNKNOWN) and count.strip().isdigit():
            numbers.append(int(count))
        if numbers and max(numbers) > 2:
            described = f"$rpl_topology={topology}" if topology not in (None, _UNKNOWN) else f"$rpl_server_count={count}"
            raise ImportFailure(f"{origin}: a replication topology of {max(numbers)} servers ({described}); a scenario has one master and one slave")

    def rpl_connect(self, origin: Origin) -> None:
        """rpl_connect.inc opens $rpl_connection_name on server $rpl_server_number (1 is the master)."""
        name, number = self.variables.get("rpl_connection_name"), self.variables.get("rpl_server_number")
        if name in (None, _UNKNOWN) or number in (None, _UNKNOWN):
            self.skip(origin, "rpl_connect.inc without $rpl_connection_name and $rpl_server_number")
            return
        if number not in ("1", "2"):
            raise ImportFailure(f"{origin}: a connection to server {number}; a scenario has one master (1) and one slave (2)")
        self.servers[name] = "master" if number == "1" else "slave"

    def source_file(self, name: str, origin: Origin, depth: int) -> None:
        candidates = [self.root / name, self.root.parent / name, *(parent / name for parent in self.root.parents)]
        found = next((candidate for candidate in candidates if candidate.is_file()), None)
        if found is None:
            self.skip(origin, f"source {name}: file not found, its commands are not imported")
        elif depth >= _MAX_DEPTH:
            self.skip(origin, f"source {name}: files source each other deeper than {_MAX_DEPTH}")
        else:
            self.run_file(found, depth + 1)

    # ---- SQL ----

    def sql(self, text: str, origin: Origin) -> None:
        """A query: several statements when it holds more than one (mysqltest sends them in
        one packet); a stored program's body stays whole, as does a query whose --error
        could be about any of its statements."""
        pieces = split_sql(text, origin.line)
        if len(pieces) <= 1 or _COMPOUND.match(text) or self.error:
            self.statement(text, origin)
            return
        send = self.send_next
        for sql, line in pieces:
            self.send_next = send
            self.statement(sql, Origin(origin.file, line))

    def statement(self, sql: str, origin: Origin) -> None:
        errors, self.error = self.error, ()
        send, self.send_next = self.send_next, False
        if _SUPPRESSION.match(sql):
            self.drop("mtr suppression")
            return
        if self.connection not in self.servers:  # said at the `connection`; nowhere to run it
            self.skip(origin, f"statement on connection {self.connection}, which the test never opened: {sql.strip()[:80]}")
            return
        if self.servers[self.connection] == "slave":
            self.slave_sql(sql, origin, errors)
            return
        kind = kind_of(sql)
        if kind is Kind.DATABASE and not errors:  # a USE that fails leaves the database as it was
            self.database_statement(sql)
        # A test's PREPARE / EXECUTE are steps: no log expands them here, the simulator runs them.
        if not kind.replicates and not (self.keep_reads and kind is Kind.READ) and kind is not Kind.PREPARED:
            self.drop(kind.value)
            return
        database = self.databases.get(self.connection, DATABASE)
        named = sorted(named_databases(sql) - {DATABASE})
        # A statement the test expects to fail changes no other database: it stays a step.
        if named and database == DATABASE and not errors:
            self.skip(origin, f"names tables of database {', '.join(named)}: a scenario models one database, {DATABASE}")
            return
        if database != DATABASE:
            where = {"": "no database selected", "?": "a database the file does not name"}.get(database, f"database {database}")
            self.skip(origin, f"runs in {where}: a scenario models one database, {DATABASE}")
            return
        self.capture.kept[kind.value] += 1
        if send:
            self.sent[self.connection] = len(self.capture.statements)
        if len(self.capture.statements) in self.checkpoints and DROP.match(sql):
            self.drops_after_checks.append((len(self.capture.statements), origin))
        self.capture.statements.append(Captured(self.connection, sql, origin, "", errors))
        self.master_started = self.master_started or kind is not Kind.DDL
        if not send and any(error in (ErrorCode.ER_LOCK_WAIT_TIMEOUT.code, "ER_LOCK_WAIT_TIMEOUT") for error in errors):
            # A statement sent without `send` is waited for: one the test expects to time
            # out is reaped right there.
            self.capture.statements.append(Captured(self.connection, "", origin, reap=True))

    def database_statement(self, sql: str) -> None:
        """USE changes the connection's database; dropping it leaves none selected."""
        use = _USE.match(sql)
        if use:
            self.databases[self.connection] = use.group(1).strip("`")
            return
        dropped = _DROP_DATABASE.match(sql)
        if dropped:
            name = dropped.group(1).strip("`")
            self.databases.update({connection: "" for connection, database in self.databases.items() if database == name})

    def slave_sql(self, sql: str, origin: Origin, errors: tuple[int | str, ...]) -> None:
        """On the slave: its own schema and applier settings before the master's steps;
        save-and-restore of variables and reads are dropped; the rest is listed."""
        kind = kind_of(sql)
        setting = _SET_GLOBAL.match(sql)
        if _SAVE_RESTORE.match(sql) or kind in (Kind.READ, Kind.DATABASE):
            self.drop(f"slave {kind.value}")
        elif self.master_started:
            self.skip(origin, "statement on the slave after the master's steps began: a scenario's slave runs only what replicates")
        elif setting:
            self.capture.slave_settings[setting.group(1).lower()] = setting.group(2).strip("'\"")
        elif kind in (Kind.DDL, Kind.DATA) and not errors:
            self.capture.slave_schema.append(sql)
        else:
            self.skip(origin, f"{kind.value} statement on the slave is not imported")
