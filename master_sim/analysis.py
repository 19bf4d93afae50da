"""What a statement touches: tables read and written with their engines, and the context it needs.

A statement that fires triggers needs prelocking: the tables the triggers use join its own
(by the row operations the statement can perform), and the triggers' parse-time unsafe
reasons are OR-ed into the statement's, as the server merges a sub-statement's flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from server_sim.catalog import Catalog
from server_sim.table import Table
from server_sim.compound.program import expressions, plain_statements
from server_sim.compound.reader import trigger_program
from server_sim.compound.routine import RoutineKind
from server_sim.errors import SqlError
from server_sim.expressions import constant_value, is_constant
from server_sim.flavor import Flavor
from server_sim.execute.multi_table import references, targets
from server_sim.foreign_keys import ReferentialAction
from server_sim.functions import function_name, is_udf_call
from server_sim.statement import (
    Statement,
    StatementKind,
    TriggerDefinition,
    TriggerEvent,
    TriggerTiming,
    WriteMode,
    is_multi_table,
    source_nodes,
    target_tables,
)
from server_sim.system_tables import TableCategory

from .row_injection import injected_tables
from .unsafe import UnsafeReason, parse_time_reasons


@dataclass
class Analysis:
    """The facts decide_logging_format and the lock manager work from."""

    statement: Statement
    writes: list[Table] = field(default_factory=list)
    reads: list[Table] = field(default_factory=list)  # every table accessed; a write is also a read
    unsafe: list[UnsafeReason] = field(default_factory=list)
    uses_rand: bool = False
    uses_last_insert_id: bool = False
    user_variables: list[str] = field(default_factory=list)
    # Per written table: the primary-key values the statement reaches by full PK equality,
    # or None when it reaches rows any other way (a scan).
    key_reach: dict[str, list[tuple] | None] = field(default_factory=dict)
    # Prelocking: the triggers the statement may fire, and the tables their bodies write,
    # once per trigger that writes it (TABLE_LISTs after query_tables_own_last, where
    # AUTOINC_COLUMNS looks; each gets its own table map in a row-logged statement).
    triggers: list[TriggerDefinition] = field(default_factory=list)
    prelocked_writes: list[Table] = field(default_factory=list)
    # Written tables that only get new rows (plain INSERT): they lock only the rows they add.
    inserts_only: set[str] = field(default_factory=set)

    @property
    def table_maps(self) -> list[Table]:
        """The tables a row-logged statement maps: every table it locks for writing, its own
        first, then each trigger's (MariaDB writes them all before the first row event)."""
        own = [table for table in self.writes if all(table is not other for other in self.prelocked_writes)]
        return own + self.prelocked_writes

    @property
    def read_only(self) -> list[Table]:
        written = {id(table) for table in self.writes}
        return [table for table in self.reads if id(table) not in written]


def analyze(statement: Statement, catalog: Catalog, session_id: int, flavor: Flavor) -> Analysis:
    """Resolve the tables a statement uses (unknown ones are left for the executor to report)."""
    analysis = Analysis(statement)
    if statement.kind is StatementKind.BINLOG:
        analysis.writes = injected_tables(statement, catalog)
        analysis.reads = list(analysis.writes)  # rows found through any key: table locks
        return analysis
    ast = statement.ast
    if statement.view is not None:
        _note_context(analysis, statement.view.query)  # CREATE VIEW ... RAND(): logged after a Rand event
        return analysis
    if ast is None or statement.kind in (StatementKind.SET,) or statement.kind.is_transaction_control:
        return analysis
    multi_table = is_multi_table(ast)
    if multi_table:
        targets = {id(table) for table in _multi_table_targets(ast, catalog, session_id)}
    else:
        nodes = target_tables(statement) if statement.kind is not StatementKind.SELECT else []
        targets = {id(table) for node in nodes if (table := catalog.resolve(node.db, node.name, session_id)) is not None}
    seen: set[int] = set()
    for node in source_nodes(statement):
        table = catalog.resolve(node.db, node.name, session_id)
        # information_schema tables are built for the statement: the binlog decision skips them.
        if table is None or id(table) in seen or table.category is TableCategory.INFORMATION:
            continue
        seen.add(id(table))
        analysis.reads.append(table)
        if id(table) in targets:
            analysis.writes.append(table)
    analysis.unsafe = parse_time_reasons(statement, flavor)
    for query in statement.view_queries:  # a view written through: its own calls count
        view_query = Statement(statement.sql, StatementKind.SELECT, query)
        analysis.unsafe.extend(reason for reason in parse_time_reasons(view_query, flavor) if reason not in analysis.unsafe)
    _note_context(analysis, ast)
    if catalog.routines:
        _add_functions(analysis, catalog, session_id, flavor, statement, seen)
    for table in analysis.writes:
        # A join reaches a target's rows through the other tables' values: a table lock.
        analysis.key_reach[table.name.lower()] = None if multi_table else _key_reach(statement, table)
    if _inserts_only(statement):
        analysis.inserts_only.update(table.name.lower() for table in analysis.writes)
    if statement.kind.is_dml:
        _prelock(analysis, catalog, session_id, flavor, list(analysis.writes), _events(statement), seen)
        if catalog.foreign_keys_defined:
            _prelock_foreign_keys(analysis, catalog, list(analysis.writes), _events(statement))
    analysis.unsafe.sort(key=lambda reason: list(UnsafeReason).index(reason))
    return analysis


def _note_context(analysis: Analysis, tree: exp.Expression) -> None:
    """What the statement's events must carry for the slave: RAND seeds, LAST_INSERT_ID, user variables."""
    for node in tree.walk():
        name = function_name(node)
        if name == "RAND":
            analysis.uses_rand = True
        elif name == "LAST_INSERT_ID" and not node.expressions:
            analysis.uses_last_insert_id = True  # LAST_INSERT_ID(expr) reads no earlier value
        elif isinstance(node, exp.SessionParameter) and node.name.lower() in ("identity", "last_insert_id"):
            analysis.uses_last_insert_id = True  # @@identity, @@last_insert_id: LAST_INSERT_ID()
        elif isinstance(node, exp.Parameter) and node.name.lower() not in analysis.user_variables:
            analysis.user_variables.append(node.name.lower())


def _inserts_only(statement: Statement) -> bool:
    return statement.kind is StatementKind.INSERT and statement.ast is not None and statement.ast.args.get("conflict") is None


def _events(statement: Statement) -> set[TriggerEvent]:
    """The row operations a DML statement can perform (the server's trg_event_map): REPLACE
    may delete, INSERT ... ON DUPLICATE KEY UPDATE may update."""
    if statement.kind is StatementKind.UPDATE:
        return {TriggerEvent.UPDATE}
    if statement.kind is StatementKind.DELETE:
        return {TriggerEvent.DELETE}
    events = {TriggerEvent.INSERT}
    if statement.write_mode is WriteMode.REPLACE:
        events.add(TriggerEvent.DELETE)
    elif statement.write_mode is WriteMode.UPDATE:
        events.add(TriggerEvent.UPDATE)
    return events


def _prelock(analysis: Analysis, catalog: Catalog, session_id: int, flavor: Flavor, written: list[Table], events: set[TriggerEvent], seen: set[int]) -> None:
    """Add the triggers `written` tables fire for `events`, their bodies' tables and reasons,
    then those of the tables the bodies write, level by level as the server's prelocking
    appends each trigger's tables to the statement's table list."""
    queue = [(table, events) for table in written]
    while queue:
        table, table_events = queue.pop(0)
        for event in TriggerEvent:  # trg_event_map: INSERT, UPDATE, DELETE; BEFORE before AFTER
            if event not in table_events:
                continue
            for trigger in sorted(catalog.triggers_of(table, event), key=lambda t: t.timing is TriggerTiming.AFTER):
                if any(trigger is fired for fired in analysis.triggers):
                    continue
                analysis.triggers.append(trigger)
                queue.extend(_add_body(analysis, catalog, session_id, flavor, trigger, seen))


def _prelock_foreign_keys(analysis: Analysis, catalog: Catalog, written: list[Table], events: set[TriggerEvent]) -> None:
    """The child tables a change of `written` parent rows may cascade to (CASCADE, SET
    NULL), level by level: the server prelocks them for writing, so a row-logged statement
    maps them, though their cascaded rows are not logged (the replica's engine cascades).
    They lock only the rows the cascade reaches, so they are not among the statement's writes."""
    queue = [(table, events) for table in written]
    while queue:
        table, table_events = queue.pop(0)
        for child, fk in catalog.referencing(table):
            child_events: set[TriggerEvent] = set()
            if TriggerEvent.DELETE in table_events and fk.on_delete is ReferentialAction.CASCADE:
                child_events.add(TriggerEvent.DELETE)
            if TriggerEvent.DELETE in table_events and fk.on_delete is ReferentialAction.SET_NULL:
                child_events.add(TriggerEvent.UPDATE)
            if TriggerEvent.UPDATE in table_events and not fk.on_update.refuses:
                child_events.add(TriggerEvent.UPDATE)
            mapped = [*analysis.writes, *analysis.prelocked_writes]
            if child_events and all(child is not other for other in mapped):
                analysis.prelocked_writes.append(child)
                queue.append((child, child_events))


def _add_functions(analysis: Analysis, catalog: Catalog, session_id: int, flavor: Flavor, statement: Statement, seen: set[int], calling: tuple[str, ...] = ()) -> None:
    """The stored functions a statement calls, as prelocking adds them: their bodies'
    statements' tables and unsafe reasons are the statement's (a call of one is no UDF)."""
    called = [name.lower() for name in statement.calls if name.lower() not in catalog.udfs and (RoutineKind.FUNCTION.value, name.lower()) in catalog.routines]
    if not called:
        return
    if UnsafeReason.UDF in analysis.unsafe and not any(is_udf_call(node) and node.name.lower() not in called for node in statement.ast.find_all(exp.Anonymous)):
        analysis.unsafe.remove(UnsafeReason.UDF)
    for name in dict.fromkeys(called):
        if name in calling:
            continue
        routine = catalog.routines[(RoutineKind.FUNCTION.value, name)]
        bodies = [sql.statement for sql in plain_statements(routine.body)]
        bodies.append(Statement(routine.sql, StatementKind.SELECT, exp.select(*(tree.copy() for tree in expressions(routine.body)))))
        for body in bodies:
            for used in _add_statement(analysis, catalog, session_id, flavor, body, seen):
                _prelock(analysis, catalog, session_id, flavor, [used], _events(body), seen)
            _add_functions(analysis, catalog, session_id, flavor, body, seen, (*calling, name))


def _add_body(analysis: Analysis, catalog: Catalog, session_id: int, flavor: Flavor, trigger: TriggerDefinition, seen: set[int]) -> list[tuple[Table, set[TriggerEvent]]]:
    """A trigger body's unsafe reasons, context and tables; returns the tables it writes,
    each with the row operations it performs on them."""
    if trigger.compound is not None:
        program = trigger_program(trigger.compound)
        bodies = [sql.statement for sql in plain_statements(program)]
        bodies.append(Statement(trigger.sql, StatementKind.SELECT, exp.select(*(tree.copy() for tree in expressions(program)))))
    elif trigger.body is None:  # SET NEW.col = ...: its expressions, read as a SELECT of them
        bodies = [Statement(trigger.sql, StatementKind.SELECT, exp.select(*(expression for _, expression in trigger.assignments)))]
    else:
        bodies = [trigger.body]
    found: list[tuple[Table, set[TriggerEvent]]] = []
    for body in bodies:
        found.extend((table, _events(body)) for table in _add_statement(analysis, catalog, session_id, flavor, body, seen))
        if catalog.routines:
            _add_functions(analysis, catalog, session_id, flavor, body, seen)
    return found


def _add_statement(analysis: Analysis, catalog: Catalog, session_id: int, flavor: Flavor, body: Statement, seen: set[int]) -> list[Table]:
    """A sub-statement's unsafe reasons, context and tables; returns the tables it writes."""
    analysis.unsafe.extend(reason for reason in parse_time_reasons(body, flavor) if reason not in analysis.unsafe)
    _note_context(analysis, body.ast)
    if body.kind is StatementKind.SELECT:
        return []
    targets = {node.name.lower() for node in target_tables(body)}
    body_writes: list[Table] = []
    for node in body.ast.find_all(exp.Table):
        used = catalog.find(node.name, session_id)
        if used is None:
            continue
        if id(used) not in seen:
            seen.add(id(used))
            analysis.reads.append(used)
        if node.name.lower() not in targets or any(used is other for other in body_writes):
            continue
        body_writes.append(used)
        analysis.prelocked_writes.append(used)  # one entry per trigger, as the server opens it
        if all(used is not other for other in analysis.writes):
            analysis.writes.append(used)
            if _inserts_only(body):
                analysis.inserts_only.add(used.name.lower())
        elif not _inserts_only(body):
            analysis.inserts_only.discard(used.name.lower())
    return body_writes


def _multi_table_targets(ast: exp.Update | exp.Delete, catalog: Catalog, session_id: int) -> list[Table]:
    """The tables a multi-table UPDATE or DELETE changes; none when its names do not
    resolve (the executor then reports the error, before anything is locked or written)."""
    try:
        tables = references(ast, lambda node: catalog.require(node.db, node.name, session_id))
        return [target.reference.table for target in targets(ast, tables)]
    except SqlError:
        return []


def _key_reach(statement: Statement, table: Table) -> list[tuple] | None:
    """The primary-key values a statement's rows are reached through, when all are constants."""
    primary = table.primary_key
    if primary is None:
        return None
    ast = statement.ast
    if isinstance(ast, exp.Insert):
        source = ast.expression
        target = ast.this
        columns = [c.name.lower() for c in target.expressions] if isinstance(target, exp.Schema) and target.expressions else [c.name.lower() for c in table.columns]
        if not isinstance(source, exp.Values) or not all(c.lower() in columns for c in primary.columns):
            return None
        keys = []
        for row in source.expressions:
            values = row.expressions if isinstance(row, exp.Tuple) else [row]
            if len(values) != len(columns):
                return None  # VALUES () takes defaults; a wrong count is the executor's 1136
            picked = [values[columns.index(c.lower())] for c in primary.columns]
            if not all(is_constant(v) for v in picked):
                return None
            keys.append(tuple(constant_value(v) for v in picked))
        return keys
    if isinstance(ast, (exp.Update, exp.Delete)):
        where = ast.args.get("where")
        return _equalities(where.this, [c.lower() for c in primary.columns]) if where is not None else None
    return None


def _equalities(condition: exp.Expression, key: list[str]) -> list[tuple] | None:
    """Key values from `pk = const [AND ...]` or `pk IN (consts)` covering the whole key."""
    found: dict[str, list[object]] = {}
    parts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    for part in parts:
        if isinstance(part, exp.EQ) and isinstance(part.this, exp.Column) and is_constant(part.expression):
            found[part.this.name.lower()] = [constant_value(part.expression)]
        elif isinstance(part, exp.In) and isinstance(part.this, exp.Column) and part.expressions and all(is_constant(v) for v in part.expressions):
            found[part.this.name.lower()] = [constant_value(v) for v in part.expressions]
    if not all(name in found for name in key):
        return None
    if len(key) == 1:
        return [(value,) for value in found[key[0]]]
    if any(len(found[name]) != 1 for name in key):
        return None
    return [tuple(found[name][0] for name in key)]

