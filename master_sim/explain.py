"""Why a statement is logged the way it is: its tables, unsafe reasons, logging decision and caches.

The statement runs on a fresh master after the schema and the statements before it in
the same session, so every answer comes from the master's own path (analyze,
decide_logging_format, execute, the statement and transaction caches), never from a
second implementation of the rules.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from server_sim.binlog.events import Log_event, type_name_of
from server_sim.table import Table
from server_sim.compound.program import Return, plain_statements
from server_sim.compound.routine import RoutineKind
from server_sim.compound.reader import trigger_program
from server_sim.errors import Condition, ErrorCode, SqlError
from server_sim.flavor import Flavor
from server_sim.parser import parse_statement
from server_sim.statement import ROW_STATEMENTS, Statement, StatementKind, TriggerDefinition, target_tables
from server_sim.view_expansion import expand_views, view_of
from sqlglot import exp

from .analysis import analyze
from .binlog_cache import LogTarget
from .decision import TransactionState
from .master import Master
from .results import StepResult
from .row_injection import injected_rows
from .unsafe import parse_time_reasons

SCHEMA_SESSION = "schema"
EXPLAIN_SESSION = "explain"
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The session variables the logging decision and the row images depend on.
DECISION_VARIABLES = ("binlog_format", "transaction_isolation", "binlog_direct_non_transactional_updates", "binlog_row_image")


class ExplainError(Exception):
    """The input cannot be explained: a setting, schema or earlier statement failed, or the
    statement is not one that is logged by itself."""


@dataclass(frozen=True)
class TableUse:
    table: str
    engine: str
    transactional: bool
    temporary: bool
    replicated: bool  # False for the no_replicate system tables (log, performance_schema)

    @classmethod
    def of(cls, table: Table) -> TableUse:
        return cls(table.qualified_name, table.engine.name, table.engine.transactional, table.temporary, not table.no_replicate)


@dataclass(frozen=True)
class TriggerUse:
    """A trigger the statement may fire (its tables are among the statement's reads and writes)."""

    name: str
    timing: str
    event: str
    table: str
    writes: list[str]  # the tables its body writes

    @classmethod
    def of(cls, trigger: TriggerDefinition) -> TriggerUse:
        bodies = [sql.statement for sql in plain_statements(trigger_program(trigger.compound))] if trigger.compound is not None else [trigger.body]
        written = list(dict.fromkeys(node.name for body in bodies if body is not None for node in target_tables(body)))
        return cls(trigger.name, trigger.timing.value, trigger.event.value, trigger.table, written)

    @property
    def text(self) -> str:
        body = f", writes {', '.join(self.writes)}" if self.writes else ", sets NEW"
        return f"{self.name} ({self.timing} {self.event} ON {self.table}{body})"


@dataclass(frozen=True)
class Unsafe:
    """An unsafe reason by its server name, with the message the flavor prints for it."""

    reason: str
    code: int
    message: str


class Flush(str, Enum):
    """When a cache's events reach the binlog."""

    STATEMENT_END = "statement_end"
    COMMIT = "commit"


@dataclass(frozen=True)
class LoggedEvent:
    """An event as SHOW BINLOG EVENTS lists it."""

    type: str
    info: str


@dataclass(frozen=True)
class CacheUse:
    """The events the statement put into one cache, and when they are written."""

    cache: LogTarget
    flushed_at: Flush
    # For a transaction cache still open: whether a ROLLBACK writes it (it holds a
    # non-transactional change) or discards it; None when the cache is already written.
    on_rollback: str | None
    events: list[LoggedEvent]


@dataclass(frozen=True)
class ViewUse:
    """A view the statement reads or writes through, with the unsafe reasons of its own query."""

    name: str
    query: str
    unsafe: list[str]

    @property
    def text(self) -> str:
        return f"{self.name} AS {self.query}: unsafe {', '.join(self.unsafe) or 'no'}"


@dataclass(frozen=True)
class FunctionUse:
    """A stored function the statement calls: its value is stored in its RETURNS type (a
    result that does not fit is 1406 or 1264, as a column's value is), and how it runs."""

    name: str
    returns: str
    body: str  # "inlined": RETURN expr, row by row; "compound": its body run for each call

    @property
    def text(self) -> str:
        how = "RETURN expression evaluated row by row" if self.body == "inlined" else "compound body run for each call (once with constant arguments, else per row)"
        return f"{self.name}() RETURNS {self.returns}: {how}; arguments and result stored in their types (too long 1406, out of range 1264)"


@dataclass(frozen=True)
class BodyStatement:
    """A statement a CALL ran: decided and logged as a statement of its own, with the
    procedure's variables as NAME_CONST in its text."""

    statement: str
    reads: list[str]  # "table (Engine)"
    writes: list[str]
    unsafe: list[Unsafe]
    logging_format: str | None
    error: Condition | None
    caches: list[CacheUse]

    def as_dict(self) -> dict[str, object]:
        return {
            "statement": self.statement,
            "reads": self.reads,
            "writes": self.writes,
            "unsafe": [vars(reason) for reason in self.unsafe],
            "decision": {"format": self.logging_format},
            "error": self.error.as_dict() if self.error else None,
            "caches": [_cache_dict(use) for use in self.caches],
        }

    def lines(self) -> list[tuple[str, str]]:
        found = [("body", " ".join(self.statement.split())), ("", f"  reads {', '.join(self.reads) or 'none'}; writes {', '.join(self.writes) or 'none'}")]
        found.extend(("", f"  unsafe {u.reason} ({u.code}): {u.message}") for u in self.unsafe)
        outcome = f"error {_condition_text(self.error)}" if self.error else (self.logging_format or "not logged")
        found.append(("", f"  decision {outcome}"))
        for use in self.caches:
            found.append(("", f"  events {_cache_text(use)}"))
            found.extend(("", f"    {event.type}  {event.info}".rstrip()) for event in use.events)
        return found


@dataclass(frozen=True)
class Explanation:
    flavor: str
    statement: str
    variables: dict[str, str]  # DECISION_VARIABLES, by the server's names
    multi_statement_transaction: bool
    trx_cache_nonempty: bool
    row_injection: bool  # BINLOG '...': row events, which only row format can log
    reads: list[TableUse]
    writes: list[TableUse]
    triggers: list[TriggerUse]  # prelocking: the triggers it may fire
    unsafe: list[Unsafe]
    logging_format: str | None  # STATEMENT, ROW, or None: not logged, or an error
    decision_error: Condition | None  # the error decide_logging_format stops the statement with
    error: Condition | None  # an error while executing
    affected_rows: int
    caches: list[CacheUse]
    notes: list[Condition]
    views: list[ViewUse] = field(default_factory=list)  # nested views after the views naming them


    body: list[BodyStatement] = field(default_factory=list)  # a CALL's statements
    functions: list[FunctionUse] = field(default_factory=list)  # the stored functions it calls

    def as_dict(self) -> dict[str, object]:
        """The JSON document of `rplharness explain --json` (keys documented in README.md)."""
        return {
            "flavor": self.flavor,
            "statement": self.statement,
            "variables": dict(self.variables),
            "transaction": {"multi_statement": self.multi_statement_transaction, "trx_cache_nonempty": self.trx_cache_nonempty},
            "row_injection": self.row_injection,
            "reads": [vars(use) for use in self.reads],
            "writes": [vars(use) for use in self.writes],
            "triggers": [vars(use) for use in self.triggers],
            "views": [vars(use) for use in self.views],
            "unsafe": [vars(reason) for reason in self.unsafe],
            "decision": {
                "format": self.logging_format,
                "error": self.decision_error.as_dict() if self.decision_error else None,
            },
            "result": {
                "error": self.error.as_dict() if self.error else None,
                "affected_rows": self.affected_rows,
                "notes": [note.as_dict() for note in self.notes],
            },
            "caches": [_cache_dict(use) for use in self.caches],
            "body": [statement.as_dict() for statement in self.body],
            "functions": [vars(use) for use in self.functions],
        }


    def render(self) -> str:
        """The text of `rplharness explain`: one labelled line per fact, details indented below."""
        lines: list[tuple[str, str]] = [
            ("statement", " ".join(self.statement.split())),  # one line, as mysqlbinlog's base64 is not
            ("flavor", self.flavor),
            ("session", " ".join(f"{name}={value}" for name, value in self.variables.items())),
            ("transaction", _transaction_text(self.multi_statement_transaction, self.trx_cache_nonempty)),
            ("reads", _tables_text(self.reads)),
            ("writes", _tables_text(self.writes)),
        ]
        lines.extend(("triggers", use.text) for use in self.triggers)
        lines.extend(("view", use.text) for use in self.views)
        lines.extend(("function", use.text) for use in self.functions)
        if self.row_injection:
            lines.append(("injection", "row events (BINLOG '...'): only row format can log them"))
        lines.extend(("unsafe", f"{u.reason} ({u.code}): {u.message}") for u in self.unsafe)
        if not self.unsafe:
            lines.append(("unsafe", "no"))
        if self.decision_error is not None:
            lines.append(("decision", f"error {_condition_text(self.decision_error)}"))
            lines.append(("result", "not executed"))
        else:
            lines.append(("decision", self.logging_format or ("not logged: each statement the CALL ran is, on its own (body)" if self.body else "not logged")))
            outcome = f"error {_condition_text(self.error)}" if self.error else f"{self.affected_rows} row(s) affected"
            lines.append(("result", outcome))
        lines.extend(("", f"{note.level} {_condition_text(note)}") for note in self.notes)
        for use in self.caches:
            lines.append(("events", _cache_text(use)))
            lines.extend(("", f"  {event.type}  {event.info}".rstrip()) for event in use.events)
        if not self.caches:
            lines.append(("events", "none"))
        for statement in self.body:
            lines.extend(statement.lines())
        width = max(len(label) for label, _ in lines) + 2
        return "\n".join(f"{label:<{width}}{text}".rstrip() for label, text in lines) + "\n"


def _cache_dict(use: CacheUse) -> dict[str, object]:
    return {"cache": use.cache.value, "flushed_at": use.flushed_at.value, "on_rollback": use.on_rollback, "events": [vars(event) for event in use.events]}


def _transaction_text(multi_statement: bool, trx_cache_nonempty: bool) -> str:
    if not multi_statement:
        return "autocommit: the statement is a transaction of its own"
    cache = "holds earlier changes" if trx_cache_nonempty else "is empty"
    return f"inside a multi-statement transaction; the transaction cache {cache}"


def _tables_text(tables: list[TableUse]) -> str:
    if not tables:
        return "none"
    return ", ".join(
        f"{t.table} ({t.engine}, {'transactional' if t.transactional else 'non-transactional'}{', temporary' if t.temporary else ''}"
        f"{'' if t.replicated else ', not replicated'})"
        for t in tables
    )


def _condition_text(condition: Condition) -> str:
    return f"{condition.code} {condition.name}: {condition.message}"


def _cache_text(use: CacheUse) -> str:
    if use.cache is LogTarget.BINLOG:
        return "binlog: written at once (DDL, with its implicit commit)"
    if use.cache is LogTarget.STMT_CACHE:
        return "statement cache: written to the binlog when the statement ends"
    if use.flushed_at is Flush.STATEMENT_END:
        return "transaction cache: written to the binlog when the statement ends (autocommit)"
    at_rollback = (
        "a ROLLBACK writes it too, ending in ROLLBACK (it holds a non-transactional change)"
        if use.on_rollback == "logged"
        else "a ROLLBACK discards it"
    )
    return f"transaction cache: waits for COMMIT; {at_rollback}"


def explain(sql: str, flavor: Flavor, schema: list[str], settings: dict[str, str], before: list[str]) -> Explanation:
    """Run `schema`, then `settings` and `before` in one session, then explain `sql` in it."""
    statement = _parse(sql, flavor)
    with tempfile.TemporaryDirectory(prefix="rplharness-explain-") as directory:
        master = Master(flavor, {}, Path(directory) / "explain.binlog", seed=0)
        try:
            for text in schema:
                _run(master, SCHEMA_SESSION, text, f"schema statement {text!r}")
            for name, value in settings.items():
                if not _VARIABLE_NAME.fullmatch(name):
                    raise ExplainError(f"--set {name}={value}: {name!r} is not a variable name")
                _run(master, EXPLAIN_SESSION, f"SET SESSION {name} = {_string_literal(value)}", f"--set {name}={value}")
            for text in before:
                _run(master, EXPLAIN_SESSION, text, f"--before {text!r}")
            return _explain(master, statement)
        finally:
            master.finish()
            master.close()


def _string_literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def _parse(sql: str, flavor: Flavor) -> Statement:
    try:
        statement = parse_statement(sql, flavor.comment_rules)
        applies_rows = statement.kind is not StatementKind.BINLOG or bool(injected_rows(statement))
    except SqlError as error:
        raise ExplainError(str(error)) from None
    if not (statement.kind.is_dml or statement.kind.is_ddl or statement.kind in (StatementKind.SELECT, StatementKind.CALL)):
        raise ExplainError(
            f"cannot explain a {statement.kind.value} statement: explain takes one DML, SELECT, DDL or CALL statement "
            "(put BEGIN, SET and the like in --before)"
        )
    if not applies_rows:
        raise ExplainError("the BINLOG statement holds no row events: a format description alone changes and logs nothing (give it with --before)")
    return statement


def _run(master: Master, session: str, sql: str, what: str) -> None:
    result = master.submit(session, sql)
    if result.blocked_by is not None:
        raise ExplainError(f"{what}: waits for a lock held by session {result.blocked_by!r}")
    if result.error is not None:
        raise ExplainError(f"{what}: ERROR {result.error.code} ({result.error.name}): {result.error.message}")


def _explain(master: Master, statement: Statement) -> Explanation:
    state = master.transaction_state(EXPLAIN_SESSION)
    session = master.sessions[EXPLAIN_SESSION]
    variables = {master.flavor.server_variable_names.get(name, name): session.session.variables[name] for name in DECISION_VARIABLES}
    try:
        expanded = expand_views(statement, master.server.catalog, session.session.thread_id, master.flavor)
    except SqlError:
        expanded = statement  # the run below reports the error
    analysis = analyze(expanded, master.server.catalog, session.session.thread_id, master.flavor)
    views = _views(master, statement)
    result = master.submit(EXPLAIN_SESSION, statement.sql)
    if result.blocked_by is not None:
        raise ExplainError(f"the statement waits for a lock held by session {result.blocked_by!r}")
    if result.error is not None and result.error.code == ErrorCode.ER_NO_SUCH_TABLE.code:
        raise ExplainError(f"{result.error.message}: give its CREATE TABLE in --schema")
    if result.error is not None and result.error.code == ErrorCode.ER_NOT_SUPPORTED_YET.code:
        raise ExplainError(f"ERROR {result.error.code} ({result.error.name}): {result.error.message}: the simulator does not model it")
    if statement.kind is StatementKind.CALL:
        return _explain_call(master, statement, result, variables, state)
    decision = result.decision
    if decision is None:
        # Only a BINLOG statement stops before the decision: its events did not pass the checks.
        assert result.error is not None and statement.kind is StatementKind.BINLOG
        raise ExplainError(f"ERROR {result.error.code} ({result.error.name}): {result.error.message}")
    decision_error = decision.error.condition() if decision.error is not None else None
    return Explanation(
        flavor=master.flavor.name,
        statement=statement.sql,
        variables=variables,
        multi_statement_transaction=state.multi_statement,
        trx_cache_nonempty=state.trx_cache_nonempty,
        row_injection=statement.kind is StatementKind.BINLOG,
        reads=[TableUse.of(table) for table in analysis.reads],
        writes=[TableUse.of(table) for table in analysis.writes],
        triggers=[TriggerUse.of(trigger) for trigger in analysis.triggers],
        unsafe=[Unsafe(reason.name, reason.code, reason.message(master.flavor)) for reason in decision.unsafe],
        logging_format=decision.format.value if decision.format is not None else None,
        decision_error=decision_error,
        error=result.error if decision_error is None else None,
        affected_rows=result.affected_rows,
        caches=[_cache_use(master, cached.target, cached.events) for cached in result.logged_to],
        notes=list(result.notes),
        views=views,
        functions=_functions(master, statement),
    )


def _functions(master: Master, statement: Statement) -> list[FunctionUse]:
    """The stored functions the statement calls by name, in the order it names them."""
    routines = master.server.catalog.routines
    found = [routines.get((RoutineKind.FUNCTION.value, name.lower())) for name in statement.calls]
    return [
        FunctionUse(routine.name, routine.returns.sql if routine.returns else "", "inlined" if len(routine.body) == 1 and isinstance(routine.body[0], Return) else "compound")
        for routine in dict.fromkeys(found)
        if routine is not None
    ]


def _views(master: Master, statement: Statement) -> list[ViewUse]:
    """The views the statement names and those they read, each once, in the order met."""
    catalog = master.server.catalog
    session_id = master.sessions[EXPLAIN_SESSION].session.thread_id
    found: list[ViewUse] = []
    queue = list(statement.table_nodes) if statement.kind in (*ROW_STATEMENTS, StatementKind.SELECT) or statement.creates_from_select else []
    while queue:
        view = view_of(queue.pop(0), catalog, session_id)
        if view is None or any(use.name == view.name for use in found):
            continue
        reasons = parse_time_reasons(Statement(view.source, StatementKind.SELECT, view.query), master.flavor)
        found.append(ViewUse(view.name, " ".join(view.source.split()), [reason.name for reason in reasons]))
        queue.extend(view.query.find_all(exp.Table))
    return found


def _explain_call(master: Master, statement: Statement, result: StepResult, variables: dict[str, str], state: TransactionState) -> Explanation:
    """CALL is not logged: each statement it ran is, as a statement of its own."""
    body = [
        BodyStatement(
            statement=step.sql,
            reads=list(step.reads),
            writes=list(step.writes),
            unsafe=[Unsafe(reason.name, reason.code, reason.message(master.flavor)) for reason in (step.decision.unsafe if step.decision else [])],
            logging_format=step.decision.format.value if step.decision is not None and step.decision.format is not None else None,
            error=step.error,
            caches=[_cache_use(master, cached.target, cached.events) for cached in step.logged_to],
        )
        for step in result.statements
    ]
    return Explanation(
        flavor=master.flavor.name,
        statement=statement.sql,
        variables=variables,
        multi_statement_transaction=state.multi_statement,
        trx_cache_nonempty=state.trx_cache_nonempty,
        row_injection=False,
        reads=[],
        writes=[],
        triggers=[],
        unsafe=[],
        logging_format=None,
        decision_error=None,
        error=result.error,
        affected_rows=result.affected_rows,
        caches=[],
        notes=list(result.notes),
        body=body,
    )


def _cache_use(master: Master, target: LogTarget, events: list[Log_event]) -> CacheUse:
    session = master.sessions[EXPLAIN_SESSION]
    open_transaction = target is LogTarget.TRX_CACHE and session.session.in_multi_statement_transaction
    return CacheUse(
        cache=target,
        flushed_at=Flush.COMMIT if open_transaction else Flush.STATEMENT_END,
        on_rollback=("logged" if session.trx_cache.has_nontransactional else "discarded") if open_transaction else None,
        events=[LoggedEvent(type_name_of(event), event.info()) for event in events],
    )
