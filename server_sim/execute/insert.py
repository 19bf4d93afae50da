"""INSERT and REPLACE (and the rows of CREATE ... SELECT): the server's write_record loop.

Each row gets its defaults and auto-increment value, passes the BEFORE INSERT triggers,
and is written unless another row holds one of its unique keys; the duplicate-key mode
then decides: fail, skip with a warning (IGNORE), replace the row (REPLACE: updated in
place or deleted and written again) or update it (ON DUPLICATE KEY UPDATE).
"""

from __future__ import annotations

from sqlglot import exp

from ..table import Column, DefaultKind, Table
from ..lenient_values import implicit_default
from ..types import TypeFamily
from ..errors import Condition, ErrorCode, SqlError, not_supported, note
from ..functions.context import literal
from ..functions.window import refuse_unordered_windows
from ..statement import TriggerEvent, TriggerTiming, WriteMode
from .bit_values import refuse_bits_read_as_text
from .assignments import Assignments, assignments, sequential, touch_on_update, update_write_set
from .fast_path import FastPath
from ..functions.stored_body import changing_calls
from .per_row_calls import where_scans_every_row
from .reads import RowExpressions, evaluate, in_scan_order
from .row_operations import before_update, coerce_statement_row, delete_firing_triggers, settle_conditions, settle_query_conditions, statement_leniency, unassigned
from .run import StatementRun
from .triggers import fire, trigger_write_set

_DEFAULT = object()


def run_insert(run: StatementRun) -> None:
    """INSERT or REPLACE, from VALUES or a SELECT."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Insert)
    target = ast.this
    table = run.table(target.this if isinstance(target, exp.Schema) else target)
    if isinstance(target, exp.Schema) and target.expressions:
        columns = [table.column(node.name) for node in target.expressions]
    else:
        columns = list(table.columns)
    conflict = ast.args.get("conflict")
    on_duplicate = conflict.expressions if conflict is not None else None
    if run.statement.delayed:
        _delayed(run)
    insert = InsertRun(run, table, columns, run.statement.write_mode, on_duplicate)
    insert.column_list = isinstance(target, exp.Schema) and bool(target.expressions)
    insert.run(ast.expression)


def _delayed(run: StatementRun) -> None:
    """INSERT DELAYED runs as the plain statement, as the servers run it with the binlog on."""
    flavor, verb = run.server.flavor, run.statement.kind.value
    if flavor.insert_delayed_needs_statement_format and run.server.global_variables.get("binlog_format") != "STATEMENT":
        raise not_supported(f"{verb} DELAYED unless the global binlog_format is STATEMENT (the delayed-insert thread)")
    if flavor.insert_delayed_warning:
        run.outcome.warnings.append(note(ErrorCode.ER_WARN_LEGACY_SYNTAX_CONVERTED, f"{verb} DELAYED", verb, level="Warning"))


class InsertRun:
    """The server's write_record loop over the rows of an INSERT, a REPLACE or a CREATE ... SELECT."""

    def __init__(
        self, run: StatementRun, table: Table, columns: list[Column], mode: WriteMode, on_duplicate: list[exp.Expression] | None = None
    ) -> None:
        self.statement_run = run
        self.table = table
        self.columns = columns
        self.mode = mode
        self.assignments = assignments(table, on_duplicate or [])  # ON DUPLICATE KEY UPDATE's
        self.write_set = _insert_write_set(table, columns, self.assignments) | trigger_write_set(run.catalog, table, TriggerEvent.INSERT)
        if self.assignments:
            self.write_set |= trigger_write_set(run.catalog, table, TriggerEvent.UPDATE)
        self.translator = run.translator()
        variables = run.session.variables
        self.increment = int(variables.get("auto_increment_increment", "1"))
        self.offset = int(variables.get("auto_increment_offset", "1"))
        self.zero_is_value = "NO_AUTO_VALUE_ON_ZERO" in variables.get("sql_mode", "")
        self.column_list = True  # the statement names its columns (VALUES () then fills none)
        self.single_row = False  # INSERT ... VALUES of one row: NULL for NOT NULL fails in every sql_mode
        self.no_default_warned: set[str] = set()  # 1364 is warned once a statement, not once a row

    def run(self, source: exp.Expression | None) -> None:
        run = self.statement_run
        raised: list[list[Condition]] = []  # by row: the conditions computing its values raised
        if isinstance(source, (exp.Values, exp.Select)) and run.catalog.routines and changing_calls(source):
            # A stored function that changes data: each row computed just before it is written.
            if isinstance(source, exp.Values):
                self._values_row_by_row(source)
            else:
                self._select_row_by_row(source)
            return
        if isinstance(source, exp.Values):
            rows = []
            for row in source.expressions:
                with run.server.collecting_conditions() as conditions:
                    rows.append(self._values_row(row.expressions if isinstance(row, exp.Tuple) else [row]))
                raised.append(conditions)
            if not self.column_list and rows and not rows[0]:
                # VALUES () with no column list: rows of every column's default (each row
                # counts as many values as the first).
                for number, values in enumerate(rows, start=1):
                    if values:
                        raise SqlError(ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, number)
                rows = [[_DEFAULT] * len(self.columns) for _ in rows]
        elif isinstance(source, (exp.Select, exp.Union, exp.Subquery)):
            # Read whole before the first row is written: the SELECT does not see the
            # statement's own rows, even from the table it inserts into.
            refuse_bits_read_as_text(run, source, self.columns)
            refuse_unordered_windows(source, self.translator.unique_keys)
            rows = FastPath(run).mirrored_select(source, self.translator.rewrite)  # type: ignore[assignment]
            if rows is None:
                ordered = in_scan_order(run, source)
                with run.server.collecting_conditions() as conditions:
                    rows = [list(row) for row in run.storage.query(self.translator.sql(ordered))]
                settle_query_conditions(run, self.table, conditions)
        else:
            raise not_supported(f"INSERT source {source.sql(dialect='mysql') if source else 'DEFAULT VALUES'}")
        for number, values in enumerate(rows, start=1):
            if len(values) != len(self.columns):  # checked for every row before any is written
                raise SqlError(ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, number)
        self.single_row = isinstance(source, exp.Values) and len(rows) == 1
        for number, values in enumerate(rows, start=1):
            if raised:
                settle_conditions(run, self.table, number, raised[number - 1])
            self._write(number, values)

    def _values_row_by_row(self, source: exp.Values) -> None:
        """VALUES that call a stored function changing data: each row's values computed just
        before the row is written (fill_record, then write_record), so the function's rows
        fall between the statement's, and an error stops both at the same row. The value
        counts are checked first, as the server does when it prepares the statement."""
        run = self.statement_run
        rows = [row.expressions if isinstance(row, exp.Tuple) else [row] for row in source.expressions]
        for number, row in enumerate(rows, start=1):
            if len(row) != len(self.columns):
                raise SqlError(ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, number)
        self.single_row = len(rows) == 1
        for number, row in enumerate(rows, start=1):
            with run.server.collecting_conditions() as conditions:
                values = self._values_row(row)
            settle_conditions(run, self.table, number, conditions)
            self._write(number, values)

    def _select_row_by_row(self, select: exp.Select) -> None:
        """INSERT ... SELECT whose select list calls a stored function changing data: the
        server streams the one table's rows (per_row_calls.streamed_source), each read in
        its scan order, its values computed, then written. A WHERE an index could serve
        would read them in the index's order: refused."""
        run = self.statement_run
        node = select.args["from_"].this
        table, alias = run.table(node), node.alias_or_name
        where = select.args.get("where")
        if where is not None and not where_scans_every_row(where.this, table, alias):
            raise not_supported("a stored function that changes data, called in an INSERT ... SELECT whose WHERE an index could serve (the rows come in the index's order)")
        projection = [item.this if isinstance(item, exp.Alias) else item for item in select.expressions]
        if len(projection) != len(self.columns):
            raise SqlError(ErrorCode.ER_WRONG_VALUE_COUNT_ON_ROW, 1)
        condition = self.translator.condition_sql(where.this) if where is not None else ""
        rows = run.storage.rows(table, condition, run.storage.physical_order(table, alias), None, alias=alias) if table.engine.stores_rows else []
        compiled = FastPath(run).compiled(projection, table, alias, rand=True, context=self.translator.rewrite)
        values_of = RowExpressions(run, self.translator, table, alias, projection, compiled)
        for number, (row_id, *_) in enumerate(rows, start=1):
            with run.server.collecting_conditions() as conditions:
                values = values_of.of(row_id)
            settle_conditions(run, self.table, number, conditions)
            self._write(number, values)

    def _values_row(self, expressions: list[exp.Expression]) -> list[object]:
        """A VALUES row, with DEFAULT kept as a marker for the column's default."""
        given = [node for node in expressions if not _is_default_keyword(node)]
        computed = iter(evaluate(self.statement_run, given))
        return [_DEFAULT if _is_default_keyword(node) else next(computed) for node in expressions]

    def _write(self, number: int, given: list[object]) -> None:
        run, table = self.statement_run, self.table
        values: list[object] = []
        by_name = {c.name: v for c, v in zip(self.columns, given)}
        for column in table.columns:
            value = by_name.get(column.name, _DEFAULT)
            if value is _DEFAULT:
                value = self._default(column, number)
            values.append(value)
        if run.catalog.triggers_of(table, TriggerEvent.INSERT, TriggerTiming.BEFORE):
            # The trigger sees the row as the record holds it: values of the columns' types,
            # the auto-increment column not yet given its value (NOT NULL is checked after).
            typed = self._typed(values, number)
            values = list(fire(run, table, TriggerEvent.INSERT, TriggerTiming.BEFORE, None, tuple(typed)) or typed)
        auto = table.auto_increment_column
        if auto is not None:
            index = table.columns.index(auto)
            if values[index] is None or (values[index] == 0 and not self.zero_is_value):
                values[index] = self._next_auto_value(auto, number)
            else:
                self._observe_explicit(int(values[index]))  # type: ignore[arg-type]
        self._write_record(coerce_statement_row(run, table, values, number, null_warns=not self.single_row))

    def _typed(self, values: list[object], number: int) -> list[object]:
        """The row's values of their columns' types, as the statement stores them (strictly,
        or adjusted with their warnings), for the BEFORE INSERT triggers to see."""
        run, table = self.statement_run, self.table
        leniency = statement_leniency(run, table, number)
        rules = run.temporal_rules
        if leniency is None:
            return [v if v is None else c.type.coerce(v, c.name, number, rules) for c, v in zip(table.columns, values)]
        return [leniency.coerce(column, value, number, rules) for column, value in zip(table.columns, values)]

    def _default(self, column: Column, number: int = 1) -> object:
        if column.auto_increment:
            return None
        if column.default_kind is DefaultKind.CURRENT_TIMESTAMP:
            return self.statement_run.context.timestamp
        if column.default_kind is DefaultKind.NONE:
            if column.type.family is TypeFamily.ENUM:
                # check_that_all_fields_are_given_values exempts ENUM: its first member.
                return column.type.implicit_default()
            if statement_leniency(self.statement_run, self.table, number) is None:
                raise SqlError(ErrorCode.ER_NO_DEFAULT_FOR_FIELD, column.name)
            # Not strict: the implicit default, with the warning (once a statement).
            if column.name not in self.no_default_warned:
                self.no_default_warned.add(column.name)
                self.statement_run.outcome.warnings.append(note(ErrorCode.ER_NO_DEFAULT_FOR_FIELD, column.name, level="Warning"))
            return implicit_default(column.type, column.name)
        return column.default

    def _next_auto_value(self, column: Column, number: int) -> int:
        """The next generated value; one beyond the column's type is the handler's 167."""
        value = self._generated_value()
        try:
            column.type.coerce(value, column.name, number)
        except SqlError as error:
            if error.code != ErrorCode.ER_WARN_DATA_OUT_OF_RANGE.code:
                raise
            raise SqlError(ErrorCode.HA_ERR_AUTOINC_ERANGE, column.name, number) from None
        return value

    def _generated_value(self) -> int:
        table, run = self.table, self.statement_run
        forced = run.forced
        if forced.applies_to(table):
            # The Intvar's value opens an interval the statement's later rows continue in
            # (handler::update_auto_increment), whatever the server's own counter says.
            forced.owner = table
            value = forced.next
            assert value is not None
            forced.next = self._aligned(value + 1)
        else:
            value = self._aligned(max(table.auto_increment, 1))
        table.auto_increment = max(table.auto_increment, value + 1)
        if run.outcome.insert_id is None:
            run.outcome.insert_id = value
            run.session.last_insert_id = value
        return value

    def _aligned(self, value: int) -> int:
        """The first value from `value` on that auto_increment_offset and _increment allow."""
        if (value - self.offset) % self.increment:
            value += self.increment - (value - self.offset) % self.increment
        return value

    def _observe_explicit(self, value: int) -> None:
        forced = self.statement_run.forced
        if value >= self.table.auto_increment:
            self.table.auto_increment = value + 1
        if forced.applies_to(self.table) and value >= forced.next:  # type: ignore[operator]
            forced.next = self._aligned(value + 1)

    def _write_record(self, row: tuple) -> None:
        run, table = self.statement_run, self.table
        rows, outcome = run.rows, run.outcome
        unique_keys = table.unique_keys()
        write_set = self.write_set
        while True:
            if rows.write_row(table, row, write_set, unless_duplicate=unique_keys) is not None:
                outcome.affected_rows += 1
                self._after_insert(row)
                return
            conflict = rows.find_conflict(table, row, exclude=None, keys=unique_keys)
            assert conflict is not None  # the one the write ran into
            key, (row_id, *existing) = conflict
            before = tuple(existing)
            outcome.duplicates.append((table, before))
            if self.mode is WriteMode.ERROR:
                raise rows.duplicate_error(table, key, row)
            if self.mode is WriteMode.IGNORE:
                outcome.warnings.append(rows.duplicate_error(table, key, row).condition("Warning"))
                return
            if run.server.flavor.duplicate_key_logs_all_columns:
                write_set = frozenset(column.name for column in table.columns)
            if self.mode is WriteMode.REPLACE:
                if key is unique_keys[-1] and not run.catalog.triggers_of(table, TriggerEvent.DELETE):
                    self._replace_in_place(row_id, before, row, write_set)
                    return
                # With DELETE triggers the conflicting row is always deleted, firing them.
                delete_firing_triggers(run, table, row_id, before)
                continue
            self.write_set = write_set
            self._duplicate_key_update(row_id, before, row)
            return

    def _replace_in_place(self, row_id: int, before: tuple, row: tuple, write_set: frozenset[str]) -> None:
        """REPLACE's conflict on the last unique key: the row is updated in place, and an
        identical row is not touched at all. The write set it was updated with stays for
        the statement's later rows."""
        run = self.statement_run
        self.write_set = write_set
        if before != row:
            run.rows.update_row(self.table, row_id, before, row, write_set)
            run.outcome.affected_rows += 1
        run.outcome.affected_rows += 1
        self._after_insert(row)  # the server acts as if the row was inserted

    def _after_insert(self, row: tuple) -> None:
        fire(self.statement_run, self.table, TriggerEvent.INSERT, TriggerTiming.AFTER, None, row)

    def _duplicate_key_update(self, row_id: int, before: tuple, proposed: tuple) -> None:
        run, table = self.statement_run, self.table
        pairs = self.assignments
        proposed_by_name = {c.name.lower(): v for c, v in zip(table.columns, proposed)}

        def values_function(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Anonymous) and node.name.upper() == "VALUES" and node.expressions:
                return literal(proposed_by_name[node.expressions[0].name.lower()])
            return node

        expressions = [expression.transform(values_function) for _, expression in sequential(pairs, table)]
        values = list(before)
        compiled = FastPath(run).compiled(expressions, table, table.name)
        new_values = RowExpressions(run, self.translator, table, table.name, expressions, compiled).of(row_id)
        for (column, _), value in zip(pairs, new_values):
            values[table.columns.index(column)] = value
        after = coerce_statement_row(run, table, values, 1, unassigned(table, pairs))
        after = before_update(run, table, before, after, 1)
        if after == before:
            return
        after = touch_on_update(table, after, pairs, run.context.timestamp)
        conflict_found = run.rows.find_conflict(table, after, exclude=row_id)
        if conflict_found is not None:
            run.outcome.duplicates.append((table, tuple(conflict_found[1][1:])))
            raise run.rows.duplicate_error(table, conflict_found[0], after)
        run.rows.update_row(table, row_id, before, after, self.write_set)
        run.outcome.affected_rows += 2
        fire(run, table, TriggerEvent.UPDATE, TriggerTiming.AFTER, before, after)


def _insert_write_set(table: Table, columns: list[Column], pairs: Assignments) -> frozenset[str]:
    """The columns an INSERT writes, and so what a MINIMAL after image carries: those it lists,
    the auto-increment column, those whose default is a function evaluated per row (MySQL
    COPY_INFO::add_function_default_columns, MariaDB TABLE::mark_default_fields_for_write),
    and with ON DUPLICATE KEY UPDATE that clause's write set too, on its insert path as well."""
    written = {column.name for column in columns}
    written |= {column.name for column in table.columns if column.auto_increment or column.default_kind is DefaultKind.CURRENT_TIMESTAMP}
    if pairs:
        written |= update_write_set(table, pairs)
    return frozenset(written)


def _is_default_keyword(node: exp.Expression) -> bool:
    return isinstance(node, (exp.Var, exp.Column)) and node.name.upper() == "DEFAULT" and not (
        isinstance(node, exp.Column) and node.this.args.get("quoted")
    )

