"""Execute DDL, DML and SELECT with MySQL semantics on one simulated server.

A DML statement is carried out row by row, as the server's handler calls are: each row's
unique keys are checked against the table as it stands (earlier rows of the same statement
included), auto-increment values come from the catalog's counter, and scans follow the
engine's physical order. Every change is applied at once and returned as a RowChange, so
a failing statement reports exactly the rows it changed before the error. Each row a
statement writes fires the table's triggers for that operation (BEFORE ones may change
the new row); a trigger's row changes are part of the statement's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from .catalog import Catalog, Column, DefaultKind, Key, KeyKind, Table, TableBuilder, column_from_definition, key_from_constraint, table_from_create
from .errors import Condition, ErrorCode, SqlError, not_supported, note
from .expressions import StatementContext, Translator, constant_value, is_constant, literal
from .mirror_scan import Context, Declined, RowValues, Subqueries, row_values, scan_plan, select_plan, select_source
from .multi_table import MultiTableRun
from .server import Server
from .session import ChangeKind, RowChange, Session
from .storage import ROW_ID, quote
from .system_table_access import refuse_write
from .statement import (
    ROW_STATEMENTS,
    RowVersion,
    Statement,
    StatementKind,
    TriggerDefinition,
    TriggerEvent,
    TriggerOrder,
    TriggerTiming,
    WriteMode,
    is_multi_table,
    row_version,
    target_tables,
    used_tables,
)
from .types import TypeFamily
from .udf import check_loadable


@dataclass
class Outcome:
    """What a statement did: its changes (also when it failed half-way), counts, diagnostics."""

    changes: list[RowChange] = field(default_factory=list)
    affected_rows: int = 0
    warnings: list[Condition] = field(default_factory=list)
    error: SqlError | None = None
    insert_id: int | None = None  # first auto-increment value generated (Intvar INSERT_ID)
    rows: list[tuple] | None = None  # a SELECT's result
    # False when the server returned before executing: nothing of the statement is logged.
    executed: bool = True
    # Rows a unique-key check ran into, (table, row): InnoDB locks them, so another
    # transaction's uncommitted row makes the statement wait.
    duplicates: list[tuple[Table, tuple]] = field(default_factory=list)
    # The trigger statement that made a change, by the change's id: the text MariaDB's
    # Annotate_rows carries when that change is the first of its events.
    trigger_statements: dict[int, str] = field(default_factory=dict)

    def statement_of(self, change: RowChange, statement_sql: str) -> str:
        """The text of the statement (the top one, or a trigger's) that made `change`."""
        return self.trigger_statements.get(id(change), statement_sql)


@dataclass
class _ForcedAutoIncrement:
    """auto_inc_intervals_forced: the value an Intvar event gives a replayed statement. The
    first table that asks for an auto-increment value takes it as an open interval its later
    rows continue in; any other table (one a trigger inserts into) counts on its own."""

    next: int | None = None
    owner: Table | None = None

    def applies_to(self, table: Table) -> bool:
        return self.next is not None and (self.owner is None or self.owner is table)


class Executor:
    """Runs statements against one server's catalog and storage."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.storage = server.storage
        self.forced_auto_increment = _ForcedAutoIncrement()
        # Tables the running statement and the triggers it fired use: a trigger may not change them (1442).
        self._tables_in_use: list[str] = []

    @property
    def catalog(self) -> Catalog:
        """The server's catalog as it is now (a reopened slave replaces it)."""
        return self.server.catalog

    def run(self, session: Session, statement: Statement, context: StatementContext, insert_id: int | None = None) -> Outcome:
        """Execute a DML, DDL or SELECT statement; `insert_id` forces the first auto value (Intvar)."""
        outcome = Outcome()
        self.server.current_session = session
        self.forced_auto_increment = _ForcedAutoIncrement(insert_id)
        self._tables_in_use = used_tables(statement)
        try:
            kind = statement.kind
            for node in target_tables(statement):
                table = self.catalog.resolve(node.db, node.name, session.thread_id)
                if table is not None and table.system is not None:
                    refuse_write(table.system, kind, session.user)
            if kind in ROW_STATEMENTS:
                self._dml(session, statement, context, outcome)
            elif kind is StatementKind.SELECT:
                self._select(session, statement, context, outcome)
            elif kind is StatementKind.CREATE_TABLE:
                self._create_table(session, statement, context, outcome)
            elif kind is StatementKind.DROP_TABLE:
                self._drop_table(session, statement, outcome)
            elif kind is StatementKind.ALTER_TABLE:
                self._alter_table(session, statement, outcome)
            elif kind is StatementKind.TRUNCATE:
                self._truncate(session, statement, outcome)
            elif kind is StatementKind.CREATE_TRIGGER:
                self._create_trigger(session, statement)
            elif kind is StatementKind.DROP_TRIGGER:
                self._drop_trigger(statement, outcome)
            elif kind is StatementKind.CREATE_FUNCTION:
                self._create_function(statement, outcome)
            elif kind is StatementKind.DROP_FUNCTION:
                self._drop_function(statement, outcome)
            else:
                raise not_supported(f"{kind.value} in the executor")
        except SqlError as error:
            outcome.error = error
        finally:
            self.server.current_session = None
        if outcome.error is None and kind.is_dml:
            session.row_count = outcome.affected_rows
        return outcome

    def _dml(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> None:
        if statement.kind in (StatementKind.INSERT, StatementKind.REPLACE):
            _InsertRun.of_insert(self, session, statement, context, outcome).run(statement.ast.expression)
        elif statement.kind is StatementKind.UPDATE:
            self._update(session, statement, context, outcome)
        elif statement.kind is StatementKind.DELETE:
            self._delete(session, statement, context, outcome)
        else:
            raise not_supported(f"{statement.kind.value} in the executor")

    # -- triggers --------------------------------------------------------------------------

    def fire(
        self, session: Session, context: StatementContext, outcome: Outcome, table: Table, event: TriggerEvent, timing: TriggerTiming, old: tuple | None, new: tuple | None
    ) -> tuple | None:
        """Run the triggers of one row operation; returns the NEW row as BEFORE triggers left it."""
        for trigger in self.catalog.triggers_of(table, event, timing):
            new = self._run_trigger(session, context, outcome, table, trigger, old, new)
        return new

    def _run_trigger(
        self, session: Session, context: StatementContext, outcome: Outcome, table: Table, trigger: TriggerDefinition, old: tuple | None, new: tuple | None
    ) -> tuple | None:
        rows: dict[RowVersion, tuple | None] = {RowVersion.OLD: old, RowVersion.NEW: new}

        def bound(tree: exp.Expression) -> exp.Expression:
            """The tree with each NEW.col / OLD.col replaced by the row's value."""

            def substitute(node: exp.Expression) -> exp.Expression:
                version = row_version(node) if isinstance(node, exp.Column) else None
                if version is None:
                    return node
                row = rows[version]
                assert row is not None  # CREATE TRIGGER refused references to a row the event lacks
                return literal(row[table.column_index(node.name)])

            return tree.transform(substitute)

        if trigger.body is None:
            values = list(new or ())
            for name, expression in trigger.assignments:
                values[table.column_index(name)] = self.evaluate(session, context, [bound(expression)])[0]
                rows[RowVersion.NEW] = tuple(values)
            return tuple(values)
        body = dataclasses.replace(trigger.body, ast=bound(trigger.body.ast))
        for node in target_tables(body):
            if node.name.lower() in self._tables_in_use:
                raise SqlError(ErrorCode.ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, node.name)
        sub = Outcome()
        in_use, last_insert_id = self._tables_in_use, session.last_insert_id
        self._tables_in_use = in_use + used_tables(body)
        try:
            self._dml(session, body, context, sub)
        finally:
            # A sub-statement's LAST_INSERT_ID() does not outlive it; its rows, diagnostics
            # and first auto-increment value are the statement's.
            self._tables_in_use, session.last_insert_id = in_use, last_insert_id
            outcome.changes.extend(sub.changes)
            outcome.trigger_statements.update({id(change): sub.trigger_statements.get(id(change), trigger.body.sql) for change in sub.changes})
            outcome.duplicates.extend(sub.duplicates)
            outcome.warnings.extend(sub.warnings)
            if outcome.insert_id is None:
                outcome.insert_id = sub.insert_id
        return new

    def _create_trigger(self, session: Session, statement: Statement) -> None:
        definition = statement.trigger
        assert definition is not None
        table = self.catalog.get(definition.table, session.thread_id)
        if table.temporary:
            raise SqlError(ErrorCode.ER_TRG_ON_VIEW_OR_TEMP_TABLE, table.name)
        if self.catalog.find_trigger(definition.name) is not None:
            raise SqlError(ErrorCode.ER_TRG_ALREADY_EXISTS, f"{self.catalog.database}.{definition.name}")
        for version, name in definition.row_references():
            if table.find_column(name) is None:
                raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, version.value)
        siblings = self.catalog.triggers_of(table, definition.event, definition.timing)
        position = self.catalog.triggers.index(siblings[-1]) + 1 if siblings else len(self.catalog.triggers)
        if definition.order is not None:
            anchor = next((t for t in siblings if t.name.lower() == (definition.other or "").lower()), None)
            if anchor is None:
                raise SqlError(ErrorCode[self.server.flavor.referenced_trigger_error], definition.other)
            position = self.catalog.triggers.index(anchor) + (1 if definition.order is TriggerOrder.FOLLOWS else 0)
        self.catalog.triggers.insert(position, definition)

    def _drop_trigger(self, statement: Statement, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Drop)
        for node in ast.args.get("tables") or []:
            trigger = self.catalog.find_trigger(node.name)
            if trigger is not None:
                self.catalog.triggers.remove(trigger)
            elif ast.args.get("exists"):
                outcome.warnings.append(note(ErrorCode.ER_TRG_DOES_NOT_EXIST))
            else:
                raise SqlError(ErrorCode.ER_TRG_DOES_NOT_EXIST)

    def _create_function(self, statement: Statement, outcome: Outcome) -> None:
        udf = statement.udf
        assert udf is not None
        if udf.name.lower() in self.catalog.udfs:
            if udf.if_not_exists:
                outcome.warnings.append(note(ErrorCode.ER_UDF_EXISTS, udf.name))
                return
            raise SqlError(ErrorCode.ER_UDF_EXISTS, udf.name)
        check_loadable(udf)
        self.catalog.udfs[udf.name.lower()] = udf

    def _drop_function(self, statement: Statement, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Drop)
        for node in ast.args.get("tables") or []:
            if self.catalog.udfs.pop(node.name.lower(), None) is not None:
                continue
            missing = SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{self.catalog.database}.{node.name}")
            if not ast.args.get("exists"):
                raise missing
            outcome.warnings.append(missing.condition("Note"))

    # -- helpers ---------------------------------------------------------------------------

    def table(self, session: Session, node: exp.Table) -> Table:
        table = self.catalog.require(node.db, node.name, session.thread_id)
        if table.system is not None:
            self.server.fill_system_table(table, session)
        return table

    def translator(self, session: Session, context: StatementContext) -> Translator:
        def table_source(node: exp.Table) -> exp.Expression:
            """A derived table of the catalog's columns: the hidden row id stays out of `*`."""
            table = self.table(session, node)
            stored = exp.table_(exp.to_identifier(table.storage_name, quoted=True), db=exp.to_identifier(self.storage.schema, quoted=True))
            return exp.select(*(exp.column(c.name, quoted=True) for c in table.columns)).from_(stored)

        return Translator(context, table_source)

    def find_conflict(self, table: Table, values: tuple, exclude: int | None, keys: list[Key] | None = None) -> tuple[Key, tuple] | None:
        """The first unique key (in the server's checking order) another row already holds."""
        if not table.engine.stores_rows:
            return None
        for key in keys if keys is not None else table.unique_keys():
            key_values = _key_values(table, key, values)
            if key_values is None:
                continue
            found = self.storage.find_by_columns(table, key.columns, key_values, exclude)
            if found:
                return key, found[0]
        return None

    def duplicate_error(self, table: Table, key: Key, values: tuple) -> SqlError:
        shown = "-".join("NULL" if values[table.column_index(c)] is None else _shown(values[table.column_index(c)]) for c in key.columns)
        key_name = f"{table.name}.{key.name}" if self.server.flavor.rows_event_version == 2 else key.name
        return SqlError(ErrorCode.ER_DUP_ENTRY, shown, key_name)

    def write_row(
        self, session: Session, table: Table, values: tuple, assigned: frozenset[str], outcome: Outcome, unless_duplicate: list[Key] | None = None
    ) -> RowChange | None:
        """Write a row; with `unless_duplicate`, only if no other row holds its values of one
        of those unique keys, checked by the insert itself (None, and nothing written, when
        one does: find_conflict then tells which)."""
        row_id = table.next_row_id
        if table.engine.stores_rows:
            unless = [(key.columns, key_values) for key in unless_duplicate or [] if (key_values := _key_values(table, key, values)) is not None]
            if not self.storage.insert(table, row_id, values, unless):
                return None
        table.next_row_id += 1
        return self._record(session, RowChange(table, ChangeKind.WRITE, row_id, None, values, assigned), outcome)

    def update_row(self, session: Session, table: Table, row_id: int, before: tuple, after: tuple, assigned: frozenset[str], outcome: Outcome) -> RowChange:
        if table.engine.stores_rows:
            self.storage.update(table, row_id, after)
        return self._record(session, RowChange(table, ChangeKind.UPDATE, row_id, before, after, assigned), outcome)

    def trigger_write_set(self, table: Table, event: TriggerEvent) -> frozenset[str]:
        """The columns the table's BEFORE triggers of `event` assign to NEW: the server adds
        them to the statement's write set (Table_triggers_list::mark_fields_used), so a
        MINIMAL after image carries them."""
        return frozenset(
            column.name
            for trigger in self.catalog.triggers_of(table, event, TriggerTiming.BEFORE)
            for name, _ in trigger.assignments
            if (column := table.find_column(name)) is not None
        )

    def delete_firing_triggers(self, session: Session, context: StatementContext, outcome: Outcome, table: Table, row_id: int, before: tuple) -> None:
        """A DELETE's (or REPLACE's) removal of one row, between its BEFORE and AFTER DELETE triggers."""
        self.fire(session, context, outcome, table, TriggerEvent.DELETE, TriggerTiming.BEFORE, before, None)
        self.delete_row(session, table, row_id, before, outcome)
        outcome.affected_rows += 1
        self.fire(session, context, outcome, table, TriggerEvent.DELETE, TriggerTiming.AFTER, before, None)

    def delete_row(self, session: Session, table: Table, row_id: int, before: tuple, outcome: Outcome) -> RowChange:
        if table.engine.stores_rows:
            self.storage.delete(table, [row_id])
        return self._record(session, RowChange(table, ChangeKind.DELETE, row_id, before, None), outcome)

    def _record(self, session: Session, change: RowChange, outcome: Outcome) -> RowChange:
        session.ensure_transaction().record(change)
        outcome.changes.append(change)
        return change

    def coerce_row(self, table: Table, values: list[object], row_number: int) -> tuple:
        result = []
        for column, value in zip(table.columns, values):
            value = column.type.coerce(value, column.name, row_number)
            if value is None and not column.nullable:
                raise SqlError(ErrorCode.ER_BAD_NULL_ERROR, column.name)
            result.append(value)
        return tuple(result)

    def scan(self, session: Session, context: StatementContext, ast: exp.Update | exp.Delete, table: Table) -> list[tuple]:
        """The rows an UPDATE or DELETE reaches, in the order it reaches them: from the
        storage's mirror where the statement's condition and order allow, else from DuckDB."""
        _refuse_self_reference(ast, table)
        alias = ast.this.alias or table.name
        subqueries = self.mirrored_subqueries(session, ast)
        where = ast.args.get("where")
        rand = self.server.rand if where is not None and where.find(exp.Rand) is not None else None
        plan = scan_plan(ast, table, alias, subqueries, rand) if subqueries is not None else None
        if plan is not None:
            # The plan's subset translates without error: the LIMIT is the first check left.
            limit = _scan_limit(ast)
            if not table.engine.stores_rows:
                return []
            mirrored = self.storage.mirrored(table)
            found = self._from_mirror(lambda: plan.rows(mirrored, limit)) if mirrored is not None else None
            if found is not None:
                return found
        translator = self.translator(session, context)
        condition = translator.sql(where.this) if where is not None else ""
        order_node = ast.args.get("order")
        physical = self.storage.physical_order(table, alias)
        order = physical
        if order_node is not None:
            order = ", ".join(translator.sql(item) for item in order_node.expressions) + ", " + physical
        limit = _scan_limit(ast)
        if not table.engine.stores_rows:
            return []
        return self.storage.rows(table, condition, order, limit, alias=alias)

    # -- DML -------------------------------------------------------------------------------

    def _update(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Update)
        if is_multi_table(ast):
            self._multi_table(session, statement, context, outcome).update()
            return
        table = self.table(session, ast.this)
        assignments = _assignments(table, ast.expressions)
        if self._impossible_where(table, ast):
            outcome.executed = False
            return
        translator = self.translator(session, context)
        expressions = _sequential(assignments, table)
        alias = ast.this.alias or table.name
        set_expressions = [e for _, e in expressions]
        compiled = row_values(set_expressions, table, alias, self.server.rand, translator.rewrite)
        for row_number, (row_id, *old) in enumerate(self.scan(session, context, ast, table), start=1):
            values = list(old)
            new_values = self._evaluate_for_row(translator, table, row_id, set_expressions, alias, compiled)
            for (column, _), value in zip(expressions, new_values):
                values[table.columns.index(column)] = value
            self.apply_update(session, statement, context, outcome, table, row_id, tuple(old), values, assignments, row_number)

    def apply_update(
        self,
        session: Session,
        statement: Statement,
        context: StatementContext,
        outcome: Outcome,
        table: Table,
        row_id: int,
        before: tuple,
        values: list[object],
        assignments: list[tuple[Column, exp.Expression]],
        row_number: int,
    ) -> None:
        """Give one row of an UPDATE its new values, as its BEFORE UPDATE triggers leave them:
        nothing happens to an unchanged row, a duplicate key fails the statement (UPDATE
        IGNORE: skips the row with a warning); a changed row fires the AFTER UPDATE triggers."""
        after = self.coerce_row(table, values, row_number)
        after = self.before_update(session, context, outcome, table, before, after, row_number)
        if after == before:
            return  # the handler is not called for an unchanged row: no row event
        changed = {c.name for c, b, a in zip(table.columns, before, after) if b != a}
        after = touch_on_update(table, after, assignments, context.timestamp)
        touched_keys = [key for key in table.unique_keys() if set(key.columns) & changed]
        conflict = self.find_conflict(table, after, exclude=row_id, keys=touched_keys)
        if conflict is not None:
            outcome.duplicates.append((table, tuple(conflict[1][1:])))
            error = self.duplicate_error(table, conflict[0], after)
            if statement.write_mode is not WriteMode.IGNORE:
                raise error
            # UPDATE IGNORE leaves this row as it was, warns, and goes on with the next.
            outcome.warnings.append(error.condition("Warning"))
            return
        write_set = _update_write_set(table, assignments) | self.trigger_write_set(table, TriggerEvent.UPDATE)
        self.update_row(session, table, row_id, before, after, write_set, outcome)
        outcome.affected_rows += 1
        self.fire(session, context, outcome, table, TriggerEvent.UPDATE, TriggerTiming.AFTER, before, after)

    def before_update(self, session: Session, context: StatementContext, outcome: Outcome, table: Table, before: tuple, after: tuple, row_number: int) -> tuple:
        """The updated row as the table's BEFORE UPDATE triggers leave it (they run for every row reached)."""
        if not self.catalog.triggers_of(table, TriggerEvent.UPDATE, TriggerTiming.BEFORE):
            return after
        changed = self.fire(session, context, outcome, table, TriggerEvent.UPDATE, TriggerTiming.BEFORE, before, after)
        return self.coerce_row(table, list(changed or after), row_number)

    def evaluate(self, session: Session, context: StatementContext, expressions: list[exp.Expression]) -> list[object]:
        """Values of expressions outside any table's row: constants, what the mirror's
        compiler evaluates (`FLOOR(RAND() * 4)`) and what translates to a
        constant (`@@server_id`, `CURRENT_USER()`) directly; the rest in one SELECT."""
        values = [constant_value(e) if is_constant(e) else None for e in expressions]
        pending = [i for i, e in enumerate(expressions) if not is_constant(e)]
        if not pending:
            return values
        previous, self.server.current_session = self.server.current_session, session  # whose RAND() it is
        try:
            compiled = row_values([expressions[index] for index in pending], None, rand=self.server.rand)
            found = self._from_mirror(lambda: compiled.of(())) if compiled is not None else None
            if found is not None:
                for index, value in zip(pending, found):
                    values[index] = value
                return values
            translator = self.translator(session, context)
            translated = {index: translator.translate(expressions[index]) for index in pending}
            for index, tree in list(translated.items()):
                if is_constant(tree):
                    values[index] = constant_value(tree)
                    del translated[index]
            if translated:
                projection = ", ".join(tree.sql(dialect="duckdb", copy=False) for tree in translated.values())
                reads = any(expressions[index].find(exp.Table) is not None for index in translated)
                row = self.storage.query(f"SELECT {projection}", reads_tables=reads)[0]
                for index, value in zip(translated, row):
                    values[index] = value
            return values
        finally:
            self.server.current_session = previous

    def _from_mirror(self, evaluate: Callable[[], list]) -> list | None:
        """What `evaluate` reads from the storage's mirror, or None where it declines; the
        RAND() values it drew are given back, as DuckDB then evaluates it all again."""
        session = self.server.current_session
        seeds = (session.rand_seed1, session.rand_seed2) if session is not None else None
        try:
            return evaluate()
        except Declined:
            if session is not None and seeds is not None:
                session.rand_seed1, session.rand_seed2 = seeds
            return None

    def _evaluate_for_row(
        self, translator: Translator, table: Table, row_id: int, expressions: list[exp.Expression], alias: str, compiled: RowValues | None
    ) -> list[object]:
        """SET values for one row: constants directly, `compiled` (the same expressions
        compiled by `row_values`) over the mirror's row where it can, else one SELECT."""
        if all(is_constant(e) for e in expressions):
            return [constant_value(e) for e in expressions]
        mirrored = self.storage.mirrored(table) if compiled is not None else None
        if mirrored is not None and row_id in mirrored:
            found = self._from_mirror(lambda: compiled.of(mirrored[row_id]))  # type: ignore[union-attr]
            if found is not None:
                return found
        projection = ", ".join(translator.sql(e) for e in expressions)
        sql = f"SELECT {projection} FROM {self.storage.qualified(table)} AS {quote(alias)} WHERE {quote(ROW_ID)} = ?"
        return list(self.storage.query(sql, [row_id])[0])

    def _delete(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Delete)
        if is_multi_table(ast):
            self._multi_table(session, statement, context, outcome).delete()
            return
        table = self.table(session, ast.this)
        if self._impossible_where(table, ast):
            outcome.executed = False
            return
        for row_id, *old in self.scan(session, context, ast, table):
            self.delete_firing_triggers(session, context, outcome, table, row_id, tuple(old))

    def _multi_table(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> MultiTableRun:
        run = MultiTableRun(self, session, statement, context, outcome)
        for target in run.targets:
            _refuse_self_reference(statement.ast, target.reference.table)
        return run

    def _impossible_where(self, table: Table, ast: exp.Update | exp.Delete) -> bool:
        """A WHERE on a table its engine knows to be empty: the server stops at optimization."""
        if not table.engine.exact_row_count or ast.args.get("where") is None:
            return False
        return not table.engine.stores_rows or self.storage.is_empty(table)

    def in_scan_order(self, session: Session, query: exp.Expression) -> exp.Expression:
        """A single-table SELECT without ORDER BY returns rows in the engine's scan order
        (InnoDB: primary key), which decides what INSERT ... SELECT and LIMIT see."""
        if not isinstance(query, exp.Select) or query.args.get("order") or query.args.get("joins") or query.args.get("group"):
            return query
        if query.find(exp.AggFunc) is not None or query.args.get("distinct"):
            return query
        source = query.args.get("from_")
        node = source.this if source is not None else None
        if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
            return query
        try:
            columns = self.table(session, node).scan_order()
        except SqlError:
            return query  # an unknown table fails with its own error when the query runs
        if not columns:
            return query
        alias = node.alias_or_name
        return query.copy().order_by(*(exp.column(name, table=alias, quoted=True) for name in columns), copy=False)

    def mirrored_select(self, session: Session, query: exp.Expression, context: Context | None = None) -> list[list[object]] | None:
        """The rows of a single-table SELECT, in the order `in_scan_order` gives them, from the
        storage's mirror where Python evaluates the query exactly; None: DuckDB answers."""
        read = self._mirrored_read(session, query, context)
        return read[1] if read is not None else None

    def _mirrored_read(self, session: Session, query: exp.Expression, context: Context | None = None) -> tuple[Table, list[list[object]]] | None:
        """mirrored_select, with the table the query reads."""
        node = select_source(query)
        if node is None:
            return None
        try:
            table = self.table(session, node)
        except SqlError:
            return None  # DuckDB's run of the query reports it
        if table.system is not None:
            return None  # filled for the session that reads it, not followed by a mirror
        plan = select_plan(query, table, context)  # type: ignore[arg-type]
        mirrored = self.storage.mirrored(table) if plan is not None else None
        if mirrored is None:
            return None
        try:
            return table, plan.rows(mirrored)  # type: ignore[union-attr]
        except Declined:
            return None

    def mirrored_subqueries(self, session: Session, ast: exp.Expression) -> Subqueries | None:
        """What each `IN (SELECT ...)` of the statement's condition reads, from the mirror;
        None when one of them is DuckDB's to run (and with it the whole condition)."""
        where = ast.args.get("where")
        subqueries: dict[int, tuple[Table, list[object]]] = {}
        for node in where.find_all(exp.In) if where is not None else ():
            query = node.args.get("query")
            if query is None:
                continue
            read = self._mirrored_read(session, query.this) if isinstance(query, exp.Subquery) else None
            if read is None:
                return None
            table, rows = read
            if any(len(row) != 1 for row in rows):
                return None  # DuckDB reports the column count
            subqueries[id(query.this)] = (table, [value for value, in rows])
        return subqueries

    def _select(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> None:
        tree = self.in_scan_order(session, statement.ast.copy())
        tree.set("locks", None)
        outcome.rows = self.storage.query(self.translator(session, context).sql(tree))
        session.found_rows = len(outcome.rows)
        session.row_count = -1

    # -- DDL -------------------------------------------------------------------------------

    def _create_table(self, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Create)
        properties = ast.args.get("properties")
        if properties and any(isinstance(p, exp.LikeProperty) for p in properties.expressions):
            raise not_supported("CREATE TABLE ... LIKE")
        query = ast.expression
        if query is not None and not isinstance(query, exp.Select):
            raise not_supported(f"CREATE TABLE ... {query.key.upper()}")
        selected = self._selected_columns(session, ast, query) if query is not None else []
        table = table_from_create(ast, self.server.engines, [column for _, column in selected if column is not None])
        owner = session.thread_id if table.temporary else None
        existing = self.catalog.find(table.name, owner) if table.temporary else self.catalog.find(table.name)
        if existing is not None and existing.temporary == table.temporary:
            if ast.args.get("exists"):
                outcome.warnings.append(note(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name))
                return
            raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, table.name)
        table.owner = owner
        self.storage.create(table, f"#tmp{owner}_{table.name}" if table.temporary else table.name.lower())
        self.catalog.add(table)
        if query is not None:
            self._fill_from_select(session, statement, context, outcome, table, query, [name for name, _ in selected])

    def _selected_columns(self, session: Session, ast: exp.Create, query: exp.Select) -> list[tuple[str, Column | None]]:
        """Each SELECT item of a CREATE ... SELECT by name, with the column it adds to the new
        table, or None when the definition declares that name. A column taken from a source
        table keeps its type, NULL-ability and default, not AUTO_INCREMENT or keys."""
        schema = ast.this
        declared = {e.name.lower() for e in schema.expressions if isinstance(e, exp.ColumnDef)} if isinstance(schema, exp.Schema) else set()
        sources: dict[str, Table] = {}
        for source in [query.args.get("from_"), *(query.args.get("joins") or [])]:
            if source is not None and isinstance(source.this, exp.Table):
                sources[source.this.alias_or_name.lower()] = self.table(session, source.this)
        items: list[tuple[str, Column | None]] = []
        for item in query.expressions:
            if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
                tables = list(sources.values()) if isinstance(item, exp.Star) else [sources[item.table.lower()]]
                items.extend((c.name, None if c.name.lower() in declared else _copied(c, c.name)) for t in tables for c in t.columns)
                continue
            name, expression = item.alias_or_name, item.unalias()
            if name.lower() in declared:
                items.append((name, None))
            elif isinstance(expression, exp.Column):
                items.append((name, _copied(_source_column(sources, expression), name)))
            else:
                raise not_supported(f"CREATE TABLE ... SELECT of the expression {expression.sql(dialect='mysql')!r} (declare its column in the table definition and name it with AS)")
        seen: set[str] = set()
        for name, _ in items:
            if name.lower() in seen:
                raise SqlError(ErrorCode.ER_DUP_FIELDNAME, name)
            seen.add(name.lower())
        return items

    def _fill_from_select(
        self,
        session: Session,
        statement: Statement,
        context: StatementContext,
        outcome: Outcome,
        table: Table,
        query: exp.Select,
        names: list[str],
    ) -> None:
        """Insert the SELECT's rows as INSERT ... SELECT would (IGNORE or REPLACE on duplicates);
        on an error the new table goes again, with every row it got."""
        columns = [table.column(name) for name in names]
        transaction = session.ensure_transaction()
        mark = len(transaction.undo)
        try:
            _InsertRun(self, session, context, outcome, table, columns, statement.write_mode).run(query)
        except SqlError:
            transaction.undo_to(mark, self.storage)
            self.storage.drop(table)
            self.catalog.remove(table)
            outcome.changes.clear()
            outcome.affected_rows = 0
            raise

    def _drop_table(self, session: Session, statement: Statement, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Drop)
        missing = []
        for node in target_tables(statement):
            table = self.catalog.find(node.name, session.thread_id)
            if table is None or (statement.temporary and not table.temporary):
                missing.append(f"{self.catalog.database}.{node.name}")
                continue
            self.storage.drop(table)
            self.catalog.remove(table)
            if not table.temporary:  # a table's triggers go with it
                self.catalog.triggers = [t for t in self.catalog.triggers if t.table.lower() != table.name.lower()]
        if missing:
            if ast.args.get("exists"):
                outcome.warnings.extend(note(ErrorCode.ER_BAD_TABLE_ERROR, name) for name in missing)
            else:
                raise SqlError(ErrorCode.ER_BAD_TABLE_ERROR, ",".join(missing))

    def _truncate(self, session: Session, statement: Statement, outcome: Outcome) -> None:
        for node in target_tables(statement):
            table = self.table(session, node)
            self.storage.delete_all(table)
            table.auto_increment = 1

    def _alter_table(self, session: Session, statement: Statement, outcome: Outcome) -> None:
        ast = statement.ast
        assert isinstance(ast, exp.Alter)
        if (ast.args.get("kind") or "TABLE").upper() != "TABLE":
            raise not_supported(f"ALTER {ast.args.get('kind')}")
        table = self.table(session, ast.this)
        altered = table.copy()
        builder = TableBuilder(altered)
        added: list[Column] = []
        dropped: list[Column] = []
        for action in ast.args.get("actions") or []:
            self._alter_action(builder, action, added, dropped)
        builder.check()
        self._check_existing_rows(table, altered, {c.name.lower(): _fill_value(c) for c in added})
        for column in dropped:
            self.storage.drop_column(table, column)
        for column in added:
            self.storage.add_column(table, column, _fill_value(column))
        table.columns, table.keys = altered.columns, altered.keys

    def _alter_action(self, builder: TableBuilder, action: exp.Expression, added: list[Column], dropped: list[Column]) -> None:
        table = builder.table
        if isinstance(action, exp.ColumnDef):
            column, keys = column_from_definition(action)
            position = action.args.get("position")
            index = None
            if position is not None:
                index = 0 if position.args.get("position") == "FIRST" else table.column_index(position.this.name) + 1
            builder.add_column(column, index)
            added.append(column)
            for kind in keys:
                builder.add_key(Key("PRIMARY" if kind is KeyKind.PRIMARY else "", kind, (column.name,)))
        elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "COLUMN":
            for node in action.args.get("tables") or []:
                column = table.find_column(node.name)
                if column is None:
                    raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, node.name)
                table.columns.remove(column)
                dropped.append(column)
                # Dropping a column takes it out of every key; a key left empty goes too.
                table.keys = [
                    dataclasses.replace(key, columns=tuple(c for c in key.columns if c.lower() != column.name.lower()))
                    for key in table.keys
                ]
                table.keys = [key for key in table.keys if key.columns]
        elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "INDEX":
            for node in action.args.get("tables") or []:
                key = next((k for k in table.keys if k.name.lower() == node.name.lower()), None)
                if key is None:
                    raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, node.name)
                table.keys.remove(key)
        elif isinstance(action, exp.DropPrimaryKey):
            key = next((k for k in table.keys if k.kind is KeyKind.PRIMARY), None)
            if key is None:
                raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, "PRIMARY")
            table.keys.remove(key)
        elif isinstance(action, exp.AddConstraint):
            for constraint in action.expressions:
                builder.add_key(key_from_constraint(constraint))
        elif isinstance(action, exp.AlterColumn):
            column = table.column(action.this.name)
            index = table.columns.index(column)
            if action.args.get("drop"):
                replaced = dataclasses.replace(column, default_kind=DefaultKind.NONE if not column.nullable else DefaultKind.VALUE, default=None)
            elif action.args.get("default") is not None:
                value = constant_value(action.args["default"]) if is_constant(action.args["default"]) else None
                if not is_constant(action.args["default"]):
                    raise not_supported(f"DEFAULT expression {action.args['default'].sql(dialect='mysql')}")
                replaced = dataclasses.replace(column, default_kind=DefaultKind.VALUE, default=column.type.coerce(value, column.name))
            else:
                raise not_supported(f"ALTER COLUMN {action.sql(dialect='mysql')}")
            table.columns[index] = replaced
        else:
            raise not_supported(f"ALTER TABLE action {action.sql(dialect='mysql')!r}")

    def _check_existing_rows(self, old: Table, new: Table, added: dict[str, object]) -> None:
        """New unique keys must hold for the rows already stored (added columns hold their fill value)."""
        old_keys = {(k.kind, k.columns) for k in old.unique_keys()}
        for key in new.unique_keys():
            if (key.kind, key.columns) in old_keys:
                continue
            parameters = [added[c.lower()] for c in key.columns if c.lower() in added]
            if any(value is None for value in parameters):
                continue  # a column of NULLs never collides
            columns = ", ".join("?" if c.lower() in added else _key_expression(old.column(c)) for c in key.columns)
            nulls = " AND ".join(f"{quote(c)} IS NOT NULL" for c in key.columns if c.lower() not in added) or "TRUE"
            duplicate = self.storage.query(
                f"SELECT {columns} FROM {self.storage.qualified(old)} WHERE {nulls} GROUP BY ALL HAVING count(*) > 1 LIMIT 1",
                parameters,
            )
            if duplicate:
                shown = "-".join(_shown(v) for v in duplicate[0])
                raise SqlError(ErrorCode.ER_DUP_ENTRY, shown, key.name)


class _InsertRun:
    """The server's write_record loop over the rows of an INSERT, a REPLACE or a CREATE ... SELECT."""

    def __init__(
        self,
        executor: Executor,
        session: Session,
        context: StatementContext,
        outcome: Outcome,
        table: Table,
        columns: list[Column],
        mode: WriteMode,
        assignments: list[exp.Expression] | None = None,
    ) -> None:
        self.executor = executor
        self.session = session
        self.context = context
        self.outcome = outcome
        self.table = table
        self.columns = columns
        self.mode = mode
        self.assignments = _assignments(table, assignments or [])  # ON DUPLICATE KEY UPDATE's
        self.write_set = _insert_write_set(table, columns, self.assignments) | executor.trigger_write_set(table, TriggerEvent.INSERT)
        if self.assignments:
            self.write_set |= executor.trigger_write_set(table, TriggerEvent.UPDATE)
        self.forced = executor.forced_auto_increment
        self.translator = executor.translator(session, context)
        variables = session.variables
        self.increment = int(variables.get("auto_increment_increment", "1"))
        self.offset = int(variables.get("auto_increment_offset", "1"))

    @classmethod
    def of_insert(cls, executor: Executor, session: Session, statement: Statement, context: StatementContext, outcome: Outcome) -> _InsertRun:
        ast = statement.ast
        assert isinstance(ast, exp.Insert)
        target = ast.this
        table = executor.table(session, target.this if isinstance(target, exp.Schema) else target)
        if isinstance(target, exp.Schema) and target.expressions:
            columns = [table.column(node.name) for node in target.expressions]
        else:
            columns = list(table.columns)
        conflict = ast.args.get("conflict")
        assignments = conflict.expressions if conflict is not None else None
        return cls(executor, session, context, outcome, table, columns, statement.write_mode, assignments)

    def run(self, source: exp.Expression | None) -> None:
        if isinstance(source, exp.Values):
            rows = [self._values_row(row.expressions if isinstance(row, exp.Tuple) else [row]) for row in source.expressions]
        elif isinstance(source, (exp.Select, exp.Union, exp.Subquery)):
            # Read whole before the first row is written: the SELECT does not see the
            # statement's own rows, even from the table it inserts into.
            rows = self.executor.mirrored_select(self.session, source, self.translator.rewrite)  # type: ignore[assignment]
            if rows is None:
                ordered = self.executor.in_scan_order(self.session, source)
                rows = [list(row) for row in self.executor.storage.query(self.translator.sql(ordered))]
        else:
            raise not_supported(f"INSERT source {source.sql(dialect='mysql') if source else 'DEFAULT VALUES'}")
        for number, values in enumerate(rows, start=1):
            if len(values) != len(self.columns):  # checked for every row before any is written
                raise SqlError(ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, number)
        for number, values in enumerate(rows, start=1):
            self._write(number, values)

    def _values_row(self, expressions: list[exp.Expression]) -> list[object]:
        """A VALUES row, with DEFAULT kept as a marker for the column's default."""
        given = [node for node in expressions if not _is_default_keyword(node)]
        computed = iter(self.executor.evaluate(self.session, self.context, given))
        return [_DEFAULT if _is_default_keyword(node) else next(computed) for node in expressions]

    def _write(self, number: int, given: list[object]) -> None:
        table = self.table
        values: list[object] = []
        by_name = {c.name: v for c, v in zip(self.columns, given)}
        for column in table.columns:
            value = by_name.get(column.name, _DEFAULT)
            if value is _DEFAULT:
                value = self._default(column)
            values.append(value)
        if self.executor.catalog.triggers_of(table, TriggerEvent.INSERT, TriggerTiming.BEFORE):
            # The trigger sees the row as the record holds it: values of the columns' types,
            # the auto-increment column not yet given its value (NOT NULL is checked after).
            typed = [v if v is None else c.type.coerce(v, c.name, number) for c, v in zip(table.columns, values)]
            values = list(self.executor.fire(self.session, self.context, self.outcome, table, TriggerEvent.INSERT, TriggerTiming.BEFORE, None, tuple(typed)) or typed)
        auto = table.auto_increment_column
        if auto is not None:
            index = table.columns.index(auto)
            if values[index] in (None, 0):
                values[index] = self._next_auto_value()
            else:
                self._observe_explicit(int(values[index]))  # type: ignore[arg-type]
        row = self.executor.coerce_row(table, values, number)
        self._write_record(row)

    def _default(self, column: Column) -> object:
        if column.auto_increment:
            return None
        if column.default_kind is DefaultKind.CURRENT_TIMESTAMP:
            return self.context.timestamp
        if column.default_kind is DefaultKind.NONE:
            raise SqlError(ErrorCode.ER_NO_DEFAULT_FOR_FIELD, column.name)
        return column.default

    def _next_auto_value(self) -> int:
        table = self.table
        if self.forced.applies_to(table):
            # The Intvar's value opens an interval the statement's later rows continue in
            # (handler::update_auto_increment), whatever the server's own counter says.
            self.forced.owner = table
            value = self.forced.next
            assert value is not None
            self.forced.next = self._aligned(value + 1)
        else:
            value = self._aligned(max(table.auto_increment, 1))
        table.auto_increment = max(table.auto_increment, value + 1)
        if self.outcome.insert_id is None:
            self.outcome.insert_id = value
            self.session.last_insert_id = value
        return value

    def _aligned(self, value: int) -> int:
        """The first value from `value` on that auto_increment_offset and _increment allow."""
        if (value - self.offset) % self.increment:
            value += self.increment - (value - self.offset) % self.increment
        return value

    def _observe_explicit(self, value: int) -> None:
        if value >= self.table.auto_increment:
            self.table.auto_increment = value + 1
        if self.forced.applies_to(self.table) and value >= self.forced.next:  # type: ignore[operator]
            self.forced.next = self._aligned(value + 1)

    def _write_record(self, row: tuple) -> None:
        executor, table, outcome = self.executor, self.table, self.outcome
        unique_keys = table.unique_keys()
        write_set = self.write_set
        while True:
            if executor.write_row(self.session, table, row, write_set, outcome, unless_duplicate=unique_keys) is not None:
                outcome.affected_rows += 1
                self._after_insert(row)
                return
            conflict = executor.find_conflict(table, row, exclude=None, keys=unique_keys)
            assert conflict is not None  # the one the write ran into
            key, (row_id, *existing) = conflict
            before = tuple(existing)
            outcome.duplicates.append((table, before))
            if self.mode is WriteMode.ERROR:
                raise executor.duplicate_error(table, key, row)
            if self.mode is WriteMode.IGNORE:
                error = executor.duplicate_error(table, key, row)
                outcome.warnings.append(error.condition("Warning"))
                return
            if executor.server.flavor.duplicate_key_logs_all_columns:
                write_set = frozenset(column.name for column in table.columns)
            if self.mode is WriteMode.REPLACE:
                if key is unique_keys[-1] and not executor.catalog.triggers_of(table, TriggerEvent.DELETE):
                    # The conflict is on the last unique key: the row is updated in place,
                    # and an identical row is not touched at all. The write set it was
                    # updated with stays for the statement's later rows.
                    self.write_set = write_set
                    if before != row:
                        executor.update_row(self.session, table, row_id, before, row, write_set, outcome)
                        outcome.affected_rows += 1
                    outcome.affected_rows += 1
                    self._after_insert(row)  # the server acts as if the row was inserted
                    return
                # With DELETE triggers the conflicting row is always deleted, firing them.
                executor.delete_firing_triggers(self.session, self.context, outcome, table, row_id, before)
                continue
            self.write_set = write_set
            self._duplicate_key_update(row_id, before, row)
            return

    def _after_insert(self, row: tuple) -> None:
        self.executor.fire(self.session, self.context, self.outcome, self.table, TriggerEvent.INSERT, TriggerTiming.AFTER, None, row)

    def _duplicate_key_update(self, row_id: int, before: tuple, proposed: tuple) -> None:
        executor, table = self.executor, self.table
        assignments = self.assignments
        proposed_by_name = {c.name.lower(): v for c, v in zip(table.columns, proposed)}

        def values_function(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Anonymous) and node.name.upper() == "VALUES" and node.expressions:
                return literal(proposed_by_name[node.expressions[0].name.lower()])
            return node

        expressions = [expression.transform(values_function) for _, expression in _sequential(assignments, table)]
        values = list(before)
        compiled = row_values(expressions, table, table.name)
        for (column, _), value in zip(assignments, executor._evaluate_for_row(self.translator, table, row_id, expressions, table.name, compiled)):
            values[table.columns.index(column)] = value
        after = executor.coerce_row(table, values, 1)
        after = executor.before_update(self.session, self.context, self.outcome, table, before, after, 1)
        if after == before:
            return
        after = touch_on_update(table, after, assignments, self.context.timestamp)
        conflict_found = executor.find_conflict(table, after, exclude=row_id)
        if conflict_found is not None:
            self.outcome.duplicates.append((table, tuple(conflict_found[1][1:])))
            raise executor.duplicate_error(table, conflict_found[0], after)
        executor.update_row(self.session, table, row_id, before, after, self.write_set, self.outcome)
        self.outcome.affected_rows += 2
        executor.fire(self.session, self.context, self.outcome, table, TriggerEvent.UPDATE, TriggerTiming.AFTER, before, after)


_DEFAULT = object()


def _insert_write_set(table: Table, columns: list[Column], assignments: list[tuple[Column, exp.Expression]]) -> frozenset[str]:
    """The columns an INSERT writes, and so what a MINIMAL after image carries: those it lists,
    the auto-increment column, those whose default is a function evaluated per row (MySQL
    COPY_INFO::add_function_default_columns, MariaDB TABLE::mark_default_fields_for_write),
    and with ON DUPLICATE KEY UPDATE that clause's write set too, on its insert path as well."""
    written = {column.name for column in columns}
    written |= {column.name for column in table.columns if column.auto_increment or column.default_kind is DefaultKind.CURRENT_TIMESTAMP}
    if assignments:
        written |= _update_write_set(table, assignments)
    return frozenset(written)


def _update_write_set(table: Table, assignments: list[tuple[Column, exp.Expression]]) -> frozenset[str]:
    """The columns an UPDATE writes: those it assigns and the ON UPDATE CURRENT_TIMESTAMP ones
    (MySQL COPY_INFO's UPDATE_OPERATION, MariaDB mark_default_fields_for_write(FALSE))."""
    return frozenset({column.name for column, _ in assignments} | {column.name for column in table.columns if column.on_update_current_timestamp})


def touch_on_update(table: Table, row: tuple, assignments: list[tuple[Column, exp.Expression]], timestamp: object) -> tuple:
    """A changed row's ON UPDATE CURRENT_TIMESTAMP columns not assigned explicitly take the statement time."""
    assigned = {column.name for column, _ in assignments}
    return tuple(
        timestamp if column.on_update_current_timestamp and column.name not in assigned else value
        for column, value in zip(table.columns, row)
    )


def _copied(column: Column, name: str) -> Column:
    """A source column as CREATE ... SELECT copies it into the new table."""
    return dataclasses.replace(column, name=name, auto_increment=False, on_update_current_timestamp=False)


def _source_column(sources: dict[str, Table], node: exp.Column) -> Column:
    """The source-table column a SELECT item names (ER_BAD_FIELD_ERROR when none has it)."""
    qualifier = node.table.lower()
    tables = [sources[qualifier]] if qualifier in sources else [] if qualifier else list(sources.values())
    for table in tables:
        column = table.find_column(node.name)
        if column is not None:
            return column
    raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, node.sql(dialect="mysql"), "field list")


def _is_default_keyword(node: exp.Expression) -> bool:
    return isinstance(node, (exp.Var, exp.Column)) and node.name.upper() == "DEFAULT" and not (
        isinstance(node, exp.Column) and node.this.args.get("quoted")
    )


def _assignments(table: Table, expressions: list[exp.Expression]) -> list[tuple[Column, exp.Expression]]:
    """`SET a = expr, ...` as (column, expression) pairs."""
    pairs = []
    for item in expressions:
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise not_supported(f"assignment {item.sql(dialect='mysql')}")
        pairs.append((table.column(item.this.name), item.expression))
    return pairs


def _sequential(assignments: list[tuple[Column, exp.Expression]], table: Table) -> list[tuple[Column, exp.Expression]]:
    """MySQL evaluates single-table SET left to right: a later expression sees earlier new values."""
    result: list[tuple[Column, exp.Expression]] = []
    replaced: dict[str, exp.Expression] = {}
    for column, expression in assignments:
        def substitute(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and node.name.lower() in replaced and node.table in ("", table.name):
                return exp.Paren(this=replaced[node.name.lower()].copy())
            return node

        rewritten = expression.transform(substitute)  # a copy: the parse stays as it was
        replaced[column.name.lower()] = rewritten
        result.append((column, rewritten))
    return result


def _scan_limit(ast: exp.Update | exp.Delete) -> int | None:
    """An UPDATE's or DELETE's LIMIT, which must be a constant."""
    limit_node = ast.args.get("limit")
    if limit_node is None:
        return None
    limit_value = limit_node.expression if limit_node.expression is not None else limit_node.this
    if not is_constant(limit_value):
        raise not_supported("a LIMIT that is not a constant")
    return int(constant_value(limit_value))  # type: ignore[arg-type]


def _refuse_self_reference(ast: exp.Expression, table: Table) -> None:
    """ER_UPDATE_TABLE_USED: a subquery may not read the table being changed."""
    for subquery in ast.find_all(exp.Select):
        for node in subquery.find_all(exp.Table):
            if node.name.lower() == table.name.lower():
                raise SqlError(ErrorCode.ER_UPDATE_TABLE_USED, table.name)


def _key_values(table: Table, key: Key, values: tuple) -> list[object] | None:
    """A row's values of a unique key's columns; None when one is NULL, which never collides."""
    key_values = [values[table.column_index(name)] for name in key.columns]
    return None if any(value is None for value in key_values) else key_values


def _key_expression(column: Column) -> str:
    """A column as a unique key compares it: strings without case or accents (GROUP BY
    does not apply the column's collation)."""
    if column.type.family is TypeFamily.STRING:
        return f"lower(strip_accents({quote(column.name)}))"
    return quote(column.name)


def _fill_value(column: Column) -> object:
    """What existing rows hold in a column ALTER TABLE adds."""
    if column.default_kind is DefaultKind.VALUE and column.default is not None:
        return column.default
    return None if column.nullable else column.type.implicit_default()


def _shown(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return str(value)
