"""The cuts a scenario takes, coarsest first: whole sessions, steps, tables, schema
statements, the rows of multi-row INSERTs, columns, and last WHERE conjuncts, ORDER BY,
LIMIT and SET assignments. Each pass hands its units to the core's ddmin and keeps the
cuts the predicate still accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sqlglot import exp

from scenarios.model import Scenario
from server_sim.statement import Statement, StatementKind

from .core import Pass, Predicate, cut
from .statements import (
    Unwritable,
    all_sql,
    assembled,
    clause_owners,
    conjuncts,
    created_table,
    layout,
    locations,
    parsed,
    refers_to,
    replaced,
    rewrite,
    set_conjuncts,
    sql_at,
    tables_named,
    target,
    text,
)

Unit = TypeVar("Unit")
Clause = tuple[int, str, int]  # (owner, clause, item): which node of a statement, which clause, which item of it
Oracle = Predicate[Scenario]


# ---- passes, coarsest first ----


def sessions(scenario: Scenario, oracle: Oracle) -> Scenario:
    """Every step of a session at once: most sessions of a fuzzed scenario are noise."""
    names = list(dict.fromkeys(step.session for step in scenario.steps))

    def build(kept: list[str]) -> Scenario:
        return replace(scenario, steps=tuple(step for step in scenario.steps if step.session in kept))

    return cut(scenario, names, build, oracle)


def steps(scenario: Scenario, oracle: Oracle) -> Scenario:
    return cut(scenario, scenario.steps, lambda kept: replace(scenario, steps=tuple(kept)), oracle)


def schema_statements(scenario: Scenario, oracle: Oracle) -> Scenario:
    """Statements of either schema one by one: rows inserted there are often noise."""
    statements = [("master_schema", sql) for sql in scenario.master_schema] + [("slave_schema", sql) for sql in scenario.slave_schema]

    def build(kept: list[tuple[str, str]]) -> Scenario:
        return replace(
            scenario,
            master_schema=tuple(sql for section, sql in kept if section == "master_schema"),
            slave_schema=tuple(sql for section, sql in kept if section == "slave_schema"),
        )

    return cut(scenario, statements, build, oracle)


def tables(scenario: Scenario, oracle: Oracle) -> Scenario:
    """A table with every statement that names it, schema statements included."""
    created = [created_table(statement) for statement in map(parsed, all_sql(scenario))]
    names = list(dict.fromkeys(name for name in created if name is not None))

    def build(kept: list[str]) -> Scenario:
        gone = set(names) - set(kept)
        return rewrite(scenario, lambda sql: None if tables_named(parsed(sql)) & gone else sql)

    return cut(scenario, names, build, oracle)


def rows(scenario: Scenario, oracle: Oracle) -> Scenario:
    """The tuples of each multi-row INSERT ... VALUES, one at least kept."""
    return _each_statement(scenario, oracle, _rows_of, _keeping_rows, keep_one=True)


def columns(scenario: Scenario, oracle: Oracle) -> Scenario:
    """The columns of each table created with a column list, one at least kept."""
    for table, names in _column_lists(scenario).items():
        scenario = _cut_columns(scenario, table, names, oracle)
    return scenario


def clauses(scenario: Scenario, oracle: Oracle) -> Scenario:
    """WHERE conjuncts, ORDER BY, LIMIT and SET assignments of each statement."""
    return _each_statement(scenario, oracle, _clauses_of, _keeping, keep_one=False)


PASSES: tuple[Pass[Scenario], ...] = tuple(
    Pass(run.__name__, run) for run in (sessions, steps, tables, schema_statements, rows, columns, clauses)
)


def _each_statement(
    scenario: Scenario,
    oracle: Oracle,
    units_of: Callable[[exp.Expression], list[Unit]],
    keeping: Callable[[exp.Expression, list[Unit]], exp.Expression],
    keep_one: bool,
) -> Scenario:
    """ddmin over the `units_of` each statement, one statement at a time; `keeping` makes a
    copy of a statement's tree with only the kept units."""
    for section, position in locations(scenario):
        scenario = _cut_statement(scenario, section, position, oracle, units_of, keeping, keep_one)
    return scenario


def _cut_statement(
    scenario: Scenario,
    section: str,
    position: int,
    oracle: Oracle,
    units_of: Callable[[exp.Expression], list[Unit]],
    keeping: Callable[[exp.Expression, list[Unit]], exp.Expression],
    keep_one: bool,
) -> Scenario:
    statement = parsed(sql_at(scenario, section, position))
    if statement is None or statement.ast is None:
        return scenario

    def build(kept: list[Unit]) -> Scenario:
        return replaced(scenario, section, position, text(statement, keeping(statement.ast, kept)))

    return cut(scenario, units_of(statement.ast), build, oracle, keep_one)


def _cut_columns(scenario: Scenario, table: str, names: list[str], oracle: Oracle) -> Scenario:
    def build(kept: list[str]) -> Scenario:
        candidate = scenario
        for column in names:
            if column not in kept:
                candidate = without_column(candidate, table, column)
        return candidate

    return cut(scenario, names, build, oracle, keep_one=True)


# ---- what the shrunk scenario still has ----


def volatile_left(scenario: Scenario) -> tuple[str, ...]:
    """The volatile columns of tables and columns the shrunk scenario still creates."""
    known_columns: dict[str, set[str] | None] = {}  # None: not known (CREATE ... SELECT, ALTER)
    for statement in map(parsed, all_sql(scenario)):
        table = created_table(statement)
        if statement is not None and statement.kind is StatementKind.ALTER_TABLE and target(statement) in known_columns:
            known_columns[target(statement)] = None
        elif table is not None:
            names = layout(statement)
            known = known_columns.get(table, set())
            known_columns[table] = None if names is None or known is None else known | {name.lower() for name in names}
    kept = []
    for entry in scenario.volatile:
        table, _, column = entry.partition(".")
        if table in known_columns and (known_columns[table] is None or column in known_columns[table]):
            kept.append(entry)
    return tuple(kept)


def _column_lists(scenario: Scenario) -> dict[str, list[str]]:
    """Each table's columns, from its first CREATE TABLE with a column list and no SELECT,
    on the master (tables of one column have nothing to give)."""
    found: dict[str, list[str]] = {}
    for sql in [*scenario.master_schema, *(step.sql for step in scenario.steps)]:
        statement = parsed(sql)
        names = layout(statement)
        if names is not None and len(names) > 1:
            found.setdefault(target(statement), names)
    return found


# ---- rows and clauses ----


def _rows_of(tree: exp.Expression) -> list[int]:
    """The row numbers of a multi-row INSERT ... VALUES."""
    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Values):
        return []
    count = len(tree.expression.expressions)
    return list(range(count)) if count > 1 else []


def _keeping_rows(tree: exp.Expression, kept: list[int]) -> exp.Expression:
    copy = tree.copy()
    values = copy.expression.expressions
    copy.expression.set("expressions", [values[number] for number in kept])
    return copy


def _clauses_of(tree: exp.Expression) -> list[Clause]:
    """The parts of a statement the clause pass may remove; SET assignments only where
    there are several, since an UPDATE needs one."""
    found: list[Clause] = []
    for owner_index, owner in enumerate(clause_owners(tree)):
        found.extend((owner_index, "where", item) for item in range(len(conjuncts(owner))))
        found.extend((owner_index, name, 0) for name in ("order", "limit") if owner.args.get(name) is not None)
        if isinstance(owner, exp.Update) and len(owner.expressions) > 1:
            found.extend((owner_index, "set", item) for item in range(len(owner.expressions)))
    return found


def _keeping(tree: exp.Expression, kept: list[Clause]) -> exp.Expression:
    """A copy of `tree` without the clauses of `_clauses_of(tree)` that are not in `kept`."""
    removed = set(_clauses_of(tree)) - set(kept)
    copy = tree.copy()
    for owner_index, owner in enumerate(clause_owners(copy)):
        where = conjuncts(owner)
        if where:
            set_conjuncts(owner, [conjunct for item, conjunct in enumerate(where) if (owner_index, "where", item) not in removed])
        for name in ("order", "limit"):
            if (owner_index, name, 0) in removed:
                owner.set(name, None)
        if isinstance(owner, exp.Update):
            assignments = [assignment for item, assignment in enumerate(owner.expressions) if (owner_index, "set", item) not in removed]
            if not assignments:
                raise Unwritable("an UPDATE needs one assignment")
            owner.set("expressions", assignments)
    return copy


# ---- dropping a column ----


def without_column(scenario: Scenario, table: str, column: str) -> Scenario:
    """`scenario` with `table.column` gone from every statement. An INSERT without a column
    list loses the value at the column's place in the table's latest CREATE TABLE, on
    the server the statement runs on (master: schema then steps; slave: schema then its
    own schema)."""

    def rewritten(statements: Sequence[str], place: list[str] | None) -> tuple[list[str | None], list[str] | None]:
        result: list[str | None] = []
        for sql in statements:
            statement = parsed(sql)
            if created_table(statement) == table:
                place = layout(statement) or place
            result.append(_drop_column(sql, statement, table, column, place))
        return result, place

    master_schema, master_layout = rewritten(scenario.master_schema, None)
    master_steps, _ = rewritten([step.sql for step in scenario.steps], master_layout)
    slave_schema, _ = rewritten(scenario.slave_schema, master_layout)
    return assembled(scenario, master_schema, slave_schema, master_steps)


def _drop_column(sql: str, statement: Statement | None, table: str, column: str, names: list[str] | None) -> str | None:
    """`sql` without `table.column`: None when the statement goes with it (an UPDATE whose
    only assignments were to it, an ALTER with no action left)."""
    if table not in tables_named(statement):
        return sql
    tree = statement.ast.copy()
    targeted = target(statement) == table
    if isinstance(tree, exp.Create) and targeted:
        _drop_column_definition(tree, column)
    elif isinstance(tree, exp.Alter) and targeted:
        if not _drop_alter_actions(tree, column):
            return None
    elif isinstance(tree, exp.Insert) and targeted:
        _drop_inserted_value(tree, column, names)
    elif isinstance(tree, exp.Update) and targeted:
        assignments = [assignment for assignment in tree.expressions if not refers_to(assignment, column)]
        if not assignments:
            return None
        tree.set("expressions", assignments)
    for owner in clause_owners(tree):
        if conjuncts(owner):
            set_conjuncts(owner, [conjunct for conjunct in conjuncts(owner) if not refers_to(conjunct, column)])
        order = owner.args.get("order")
        if order is not None:
            items = [item for item in order.expressions if not refers_to(item, column)]
            owner.set("order", exp.Order(expressions=items) if items else None)
    if refers_to(tree, column):
        raise Unwritable(f"{sql!r} still needs {table}.{column}")
    return sql if tree == statement.ast else text(statement, tree)


def _drop_column_definition(tree: exp.Create, column: str) -> None:
    if tree.expression is not None:
        raise Unwritable("the columns of CREATE TABLE ... SELECT come from its SELECT")
    schema = tree.this
    kept = [part for part in schema.expressions if not (isinstance(part, exp.ColumnDef) and part.name.lower() == column)]
    if not any(isinstance(part, exp.ColumnDef) for part in kept):
        raise Unwritable("a table needs a column")
    schema.set("expressions", kept)
    _drop_key_parts(tree, column)


def _drop_alter_actions(tree: exp.Alter, column: str) -> bool:
    """Drops the actions on `column` (ADD, DROP, ALTER COLUMN) and the column from the keys
    added; False when no action is left."""

    def on_column(action: exp.Expression) -> bool:
        if isinstance(action, (exp.ColumnDef, exp.AlterColumn)):
            return action.name.lower() == column
        return isinstance(action, exp.Drop) and refers_to(action, column)

    tree.set("actions", [action for action in tree.args.get("actions") or [] if not on_column(action)])
    _drop_key_parts(tree, column)
    tree.set("actions", [action for action in tree.args["actions"] if not isinstance(action, exp.AddConstraint) or action.expressions])
    return bool(tree.args["actions"])


def _drop_key_parts(tree: exp.Expression, column: str) -> None:
    """`column` out of every table-level key; a key left with no column goes."""
    for key in list(tree.find_all(exp.PrimaryKey, exp.UniqueColumnConstraint, exp.IndexColumnConstraint)):
        holder = key.this if isinstance(key, exp.UniqueColumnConstraint) else key
        if not isinstance(holder, exp.Expression) or "expressions" not in holder.args:
            continue  # a column-level UNIQUE goes with its column
        parts = [part for part in holder.expressions if not refers_to(part, column)]
        if parts:
            holder.set("expressions", parts)
        else:
            key.pop()


def _drop_inserted_value(tree: exp.Insert, column: str, names: list[str] | None) -> None:
    """The column out of the INSERT's column list, its value out of each row (or its
    expression out of the SELECT), and its ON DUPLICATE KEY UPDATE assignments."""
    place = _drop_from_column_list(tree, column, names)
    if place is not None:
        _drop_value_at(tree, place)
    conflict = tree.args.get("conflict")
    if conflict is not None:
        assignments = [assignment for assignment in conflict.expressions if not refers_to(assignment, column)]
        if assignments:
            conflict.set("expressions", assignments)
        else:
            tree.set("conflict", None)


def _drop_from_column_list(tree: exp.Insert, column: str, names: list[str] | None) -> int | None:
    """The column's place among the values: from the INSERT's column list (which loses it;
    None when the list does not name it), else from the table's `names`."""
    if isinstance(tree.this, exp.Schema):
        listed = [name.name.lower() for name in tree.this.expressions]
        if column not in listed:
            return None
        place = listed.index(column)
        if len(listed) == 1:
            raise Unwritable("an INSERT column list needs a column")
        tree.this.set("expressions", [name for index, name in enumerate(tree.this.expressions) if index != place])
        return place
    if names is not None and column in names:
        return names.index(column)
    raise Unwritable("no CREATE TABLE gives the column's place")


def _drop_value_at(tree: exp.Insert, place: int) -> None:
    """The value at `place` out of every row of the INSERT (or its SELECT's expression)."""
    source = tree.expression
    if isinstance(source, exp.Values):
        values = source.expressions
    elif isinstance(source, exp.Select) and not any(isinstance(item, exp.Star) for item in source.expressions):
        values = [source]
    else:
        raise Unwritable("the INSERT's values cannot be matched to its columns")
    for row in values:
        if len(row.expressions) <= place:
            raise Unwritable("a row shorter than the column list")
        row.set("expressions", [value for index, value in enumerate(row.expressions) if index != place])
