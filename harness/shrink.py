"""Shrinking a finding: the smallest scenario that still gives it (delta debugging).

A divergence found among dozens of statements is only useful to a server engineer once
everything that does not matter is gone. `shrink` cuts whole sessions, then steps,
tables, schema statements, the rows of multi-row INSERTs, columns, and last WHERE
conjuncts, ORDER BY, LIMIT and SET assignments, keeping each cut the predicate still
accepts (ddmin, Zeller and Hildebrandt 2002). Rounds repeat until one changes nothing
or the budget of predicate runs is spent.

Statements a cut changes are written by sqlglot's MySQL generator; the others keep their
text. Steps keep their original numbers while shrinking, so the result can say which
were cut; the predicate and the result see them numbered 1..n.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from sqlglot import exp

from scenarios.model import Scenario
from server_sim.errors import SqlError
from server_sim.parser import Statement, StatementKind, parse_statement, unparse
from server_sim.statement import target_tables

DEFAULT_BUDGET = 500

Unit = TypeVar("Unit")
_Clause = tuple[int, str, int]  # (owner, clause, item): which node of a statement, which clause, which item of it
_Identity = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]


@dataclass(frozen=True)
class ShrinkResult:
    """The shrunk scenario (steps numbered 1..n, no expectations) and what it took."""

    scenario: Scenario
    runs: int  # candidates the predicate was run on
    removed_steps: tuple[int, ...]  # the numbers, in the scenario given, of the steps cut
    exhausted: bool  # the budget ran out before a round changed nothing


class _Unwritable(Exception):
    """A cut that leaves some statement unable to stand: the candidate is skipped, not run."""


class _Oracle:
    """The caller's predicate behind a run budget; a candidate seen before is answered
    from memory, since passes and rounds often rebuild the same scenario."""

    def __init__(self, reproduces: Callable[[Scenario], bool], budget: int, original: Scenario) -> None:
        self._reproduces = reproduces
        self._budget = budget
        self._answers: dict[_Identity, bool] = {_identity(original): True}
        self.runs = 0
        self.exhausted = False

    def __call__(self, candidate: Scenario) -> bool:
        key = _identity(candidate)
        if key not in self._answers:
            if self.runs >= self._budget:
                self.exhausted = True
                return False
            self.runs += 1
            self._answers[key] = self._reproduces(_numbered(candidate))
        return self._answers[key]


def shrink(scenario: Scenario, reproduces: Callable[[Scenario], bool], budget: int = DEFAULT_BUDGET) -> ShrinkResult:
    """The smallest scenario `reproduces` still accepts, found with at most `budget` runs of it.

    `scenario` must already reproduce; it is not run again. The result keeps `scenario`'s
    settings, matrix and engines and drops its expectations, which speak of steps that
    may be gone.
    """
    current = replace(scenario, expect=())
    oracle = _Oracle(reproduces, budget, current)
    while not oracle.exhausted:
        before = _identity(current)
        for cut in _PASSES:
            current = cut(current, oracle)
        if _identity(current) == before:
            break
    kept = {step.index for step in current.steps}
    removed = tuple(step.index for step in scenario.steps if step.index not in kept)
    current = replace(current, volatile=_volatile_left(current))
    return ShrinkResult(_numbered(current), oracle.runs, removed, oracle.exhausted)


def ddmin(units: Sequence[Unit], accepts: Callable[[list[Unit]], bool], keep_one: bool = False) -> list[Unit]:
    """A 1-minimal sublist of `units` that `accepts` still takes: removing any single unit
    of it is refused (Zeller's ddmin: try each chunk alone, then each complement, then
    finer chunks). `units` itself is assumed accepted; with `keep_one` the empty list is
    never tried."""
    kept = list(units)
    granularity = 2
    while len(kept) >= 2:
        size = -(-len(kept) // granularity)
        chunks = [kept[start : start + size] for start in range(0, len(kept), size)]
        complements = [[unit for other in chunks if other is not chunk for unit in other] for chunk in chunks]
        subset = next((chunk for chunk in chunks if accepts(chunk)), None)
        if subset is not None:
            kept, granularity = subset, 2
            continue
        complement = next((rest for rest in complements if accepts(rest)), None) if len(chunks) > 2 else None
        if complement is not None:
            kept, granularity = complement, max(granularity - 1, 2)
            continue
        if granularity >= len(kept):
            break
        granularity = min(2 * granularity, len(kept))
    if not keep_one and len(kept) == 1 and accepts([]):
        return []
    return kept


def _cut(
    current: Scenario,
    units: Sequence[Unit],
    build: Callable[[list[Unit]], Scenario],
    oracle: _Oracle,
    keep_one: bool = False,
) -> Scenario:
    """`current` rebuilt from the smallest part of `units` the oracle still accepts;
    `current` itself when nothing can go (so untouched text stays as written)."""

    def accepts(part: list[Unit]) -> bool:
        try:
            candidate = build(part)
        except _Unwritable:
            return False
        return oracle(candidate)

    kept = ddmin(units, accepts, keep_one)
    return current if len(kept) == len(units) else build(kept)


# ---- passes, coarsest first ----


def _sessions(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """Every step of a session at once: most sessions of a fuzzed scenario are noise."""
    sessions = list(dict.fromkeys(step.session for step in scenario.steps))

    def build(kept: list[str]) -> Scenario:
        return replace(scenario, steps=tuple(step for step in scenario.steps if step.session in kept))

    return _cut(scenario, sessions, build, oracle)


def _steps(scenario: Scenario, oracle: _Oracle) -> Scenario:
    return _cut(scenario, scenario.steps, lambda kept: replace(scenario, steps=tuple(kept)), oracle)


def _schema_statements(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """Statements of either schema one by one: rows inserted there are often noise."""
    statements = [("master_schema", sql) for sql in scenario.master_schema] + [("slave_schema", sql) for sql in scenario.slave_schema]

    def build(kept: list[tuple[str, str]]) -> Scenario:
        return replace(
            scenario,
            master_schema=tuple(sql for section, sql in kept if section == "master_schema"),
            slave_schema=tuple(sql for section, sql in kept if section == "slave_schema"),
        )

    return _cut(scenario, statements, build, oracle)


def _tables(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """A table with every statement that names it, schema statements included."""
    created = [_created_table(statement) for statement in map(_parsed, _all_sql(scenario))]
    tables = list(dict.fromkeys(name for name in created if name is not None))

    def build(kept: list[str]) -> Scenario:
        gone = set(tables) - set(kept)
        return _rewrite(scenario, lambda sql: None if _tables_named(_parsed(sql)) & gone else sql)

    return _cut(scenario, tables, build, oracle)


def _rows(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """The tuples of each multi-row INSERT ... VALUES, one at least kept."""
    return _each_statement(scenario, oracle, _rows_of, _keeping_rows, keep_one=True)


def _columns(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """The columns of each table created with a column list, one at least kept."""
    for table, columns in _column_lists(scenario).items():
        scenario = _cut_columns(scenario, table, columns, oracle)
    return scenario


def _clauses(scenario: Scenario, oracle: _Oracle) -> Scenario:
    """WHERE conjuncts, ORDER BY, LIMIT and SET assignments of each statement."""
    return _each_statement(scenario, oracle, _clauses_of, _keeping, keep_one=False)


def _each_statement(
    scenario: Scenario,
    oracle: _Oracle,
    units_of: Callable[[exp.Expression], list[Unit]],
    keeping: Callable[[exp.Expression, list[Unit]], exp.Expression],
    keep_one: bool,
) -> Scenario:
    """ddmin over the `units_of` each statement, one statement at a time; `keeping` makes a
    copy of a statement's tree with only the kept units."""
    for section, position in _locations(scenario):
        scenario = _cut_statement(scenario, section, position, oracle, units_of, keeping, keep_one)
    return scenario


def _cut_statement(
    scenario: Scenario,
    section: str,
    position: int,
    oracle: _Oracle,
    units_of: Callable[[exp.Expression], list[Unit]],
    keeping: Callable[[exp.Expression, list[Unit]], exp.Expression],
    keep_one: bool,
) -> Scenario:
    statement = _parsed(_sql_at(scenario, section, position))
    if statement is None or statement.ast is None:
        return scenario

    def build(kept: list[Unit]) -> Scenario:
        return _replaced(scenario, section, position, _text(statement, keeping(statement.ast, kept)))

    return _cut(scenario, units_of(statement.ast), build, oracle, keep_one)


def _cut_columns(scenario: Scenario, table: str, columns: list[str], oracle: _Oracle) -> Scenario:
    def build(kept: list[str]) -> Scenario:
        candidate = scenario
        for column in columns:
            if column not in kept:
                candidate = _without_column(candidate, table, column)
        return candidate

    return _cut(scenario, columns, build, oracle, keep_one=True)


_PASSES: tuple[Callable[[Scenario, _Oracle], Scenario], ...] = (
    _sessions,
    _steps,
    _tables,
    _schema_statements,
    _rows,
    _columns,
    _clauses,
)


# ---- scenarios as lists of statements ----

_SECTIONS = ("master_schema", "slave_schema", "steps")


def _identity(scenario: Scenario) -> _Identity:
    """What the passes change: the statements, and which session sends each step."""
    steps = tuple((step.session, step.sql) for step in scenario.steps)
    return scenario.master_schema, scenario.slave_schema, steps


def _numbered(scenario: Scenario) -> Scenario:
    return replace(scenario, steps=tuple(replace(step, index=number) for number, step in enumerate(scenario.steps, 1)))


def _all_sql(scenario: Scenario) -> list[str]:
    return [*scenario.master_schema, *scenario.slave_schema, *(step.sql for step in scenario.steps)]


def _locations(scenario: Scenario) -> list[tuple[str, int]]:
    return [(section, position) for section in _SECTIONS for position in range(len(getattr(scenario, section)))]


def _sql_at(scenario: Scenario, section: str, position: int) -> str:
    item = getattr(scenario, section)[position]
    return item.sql if section == "steps" else item


def _replaced(scenario: Scenario, section: str, position: int, sql: str) -> Scenario:
    items = list(getattr(scenario, section))
    items[position] = replace(items[position], sql=sql) if section == "steps" else sql
    return replace(scenario, **{section: tuple(items)})


def _rewrite(scenario: Scenario, change: Callable[[str], str | None]) -> Scenario:
    """`scenario` with `change` applied to every statement; None removes the statement."""
    return _assembled(
        scenario,
        [change(sql) for sql in scenario.master_schema],
        [change(sql) for sql in scenario.slave_schema],
        [change(step.sql) for step in scenario.steps],
    )


def _assembled(scenario: Scenario, master_schema: list[str | None], slave_schema: list[str | None], steps: list[str | None]) -> Scenario:
    return replace(
        scenario,
        master_schema=tuple(sql for sql in master_schema if sql is not None),
        slave_schema=tuple(sql for sql in slave_schema if sql is not None),
        steps=tuple(replace(step, sql=sql) for step, sql in zip(scenario.steps, steps) if sql is not None),
    )


# ---- statements ----


def _parsed(sql: str) -> Statement | None:
    """The simulator's own parse (REPLACE, UPDATE IGNORE, ... included); None when it
    cannot parse the statement, which then names no table and is never rewritten."""
    try:
        return parse_statement(sql)
    except SqlError:
        return None


def _text(statement: Statement, tree: exp.Expression) -> str:
    """The text of a changed tree, if the simulator still parses it."""
    text = unparse(statement, tree)
    if _parsed(text) is None:
        raise _Unwritable(text)
    return text


def _tables_named(statement: Statement | None) -> set[str]:
    if statement is None or statement.ast is None:
        return set()
    return {table.name.lower() for table in statement.ast.find_all(exp.Table)}


def _target(statement: Statement | None) -> str | None:
    """The one table a statement changes: an INSERT's, an UPDATE's, a CREATE's, an ALTER's."""
    tables = target_tables(statement) if statement is not None else []
    return tables[0].name.lower() if len(tables) == 1 else None


def _created_table(statement: Statement | None) -> str | None:
    return _target(statement) if statement is not None and statement.kind is StatementKind.CREATE_TABLE else None


def _volatile_left(scenario: Scenario) -> tuple[str, ...]:
    """The volatile columns of tables and columns the shrunk scenario still creates."""
    columns: dict[str, set[str] | None] = {}  # None: not known (CREATE ... SELECT, ALTER)
    for statement in map(_parsed, _all_sql(scenario)):
        table = _created_table(statement)
        if statement is not None and statement.kind is StatementKind.ALTER_TABLE and _target(statement) in columns:
            columns[_target(statement)] = None
        elif table is not None:
            layout = _layout(statement)
            known = columns.get(table, set())
            columns[table] = None if layout is None or known is None else known | {name.lower() for name in layout}
    kept = []
    for entry in scenario.volatile:
        table, _, column = entry.partition(".")
        if table in columns and (columns[table] is None or column in columns[table]):
            kept.append(entry)
    return tuple(kept)


def _column_lists(scenario: Scenario) -> dict[str, list[str]]:
    """Each table's columns, from its first CREATE TABLE with a column list and no SELECT,
    on the master (tables of one column have nothing to give)."""
    tables: dict[str, list[str]] = {}
    for sql in [*scenario.master_schema, *(step.sql for step in scenario.steps)]:
        statement = _parsed(sql)
        layout = _layout(statement)
        if layout is not None and len(layout) > 1:
            tables.setdefault(_target(statement), layout)
    return tables


def _layout(statement: Statement | None) -> list[str] | None:
    """The column names, in order, of a CREATE TABLE with a column list and no SELECT."""
    if statement is None or not isinstance(statement.ast, exp.Create) or statement.ast.expression is not None:
        return None
    schema = statement.ast.this
    if not isinstance(schema, exp.Schema):
        return None
    return [column.name.lower() for column in schema.expressions if isinstance(column, exp.ColumnDef)]


def _refers_to(node: exp.Expression, column: str) -> bool:
    """A column reference by name: `Column` nodes, and the bare names of column lists
    (INSERT's, a key's, `VALUES(c)`'s)."""
    return any(found.name.lower() == column for found in node.find_all(exp.Column)) or any(
        found.arg_key == "expressions" and found.name.lower() == column for found in node.find_all(exp.Identifier)
    )


def _clause_owners(tree: exp.Expression) -> list[exp.Expression]:
    """The nodes that carry WHERE, ORDER BY and LIMIT, in an order a copy of `tree` repeats."""
    return list(tree.find_all(exp.Update, exp.Delete, exp.Select))


def _conjuncts(owner: exp.Expression) -> list[exp.Expression]:
    where = owner.args.get("where")
    if where is None:
        return []
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def _set_conjuncts(owner: exp.Expression, conjuncts: list[exp.Expression]) -> None:
    owner.set("where", exp.Where(this=exp.and_(*conjuncts)) if conjuncts else None)


def _rows_of(tree: exp.Expression) -> list[int]:
    """The row numbers of a multi-row INSERT ... VALUES."""
    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Values):
        return []
    rows = len(tree.expression.expressions)
    return list(range(rows)) if rows > 1 else []


def _keeping_rows(tree: exp.Expression, kept: list[int]) -> exp.Expression:
    copy = tree.copy()
    rows = copy.expression.expressions
    copy.expression.set("expressions", [rows[number] for number in kept])
    return copy


def _clauses_of(tree: exp.Expression) -> list[_Clause]:
    """The parts of a statement the clause pass may remove; SET assignments only where
    there are several, since an UPDATE needs one."""
    clauses: list[_Clause] = []
    for owner_index, owner in enumerate(_clause_owners(tree)):
        clauses.extend((owner_index, "where", item) for item in range(len(_conjuncts(owner))))
        clauses.extend((owner_index, name, 0) for name in ("order", "limit") if owner.args.get(name) is not None)
        if isinstance(owner, exp.Update) and len(owner.expressions) > 1:
            clauses.extend((owner_index, "set", item) for item in range(len(owner.expressions)))
    return clauses


def _keeping(tree: exp.Expression, kept: list[_Clause]) -> exp.Expression:
    """A copy of `tree` without the clauses of `_clauses_of(tree)` that are not in `kept`."""
    removed = set(_clauses_of(tree)) - set(kept)
    copy = tree.copy()
    for owner_index, owner in enumerate(_clause_owners(copy)):
        conjuncts = _conjuncts(owner)
        if conjuncts:
            _set_conjuncts(owner, [conjunct for item, conjunct in enumerate(conjuncts) if (owner_index, "where", item) not in removed])
        for name in ("order", "limit"):
            if (owner_index, name, 0) in removed:
                owner.set(name, None)
        if isinstance(owner, exp.Update):
            assignments = [assignment for item, assignment in enumerate(owner.expressions) if (owner_index, "set", item) not in removed]
            if not assignments:
                raise _Unwritable("an UPDATE needs one assignment")
            owner.set("expressions", assignments)
    return copy


# ---- dropping a column ----


def _without_column(scenario: Scenario, table: str, column: str) -> Scenario:
    """`scenario` with `table.column` gone from every statement. An INSERT without a column
    list loses the value at the column's place in the table's latest CREATE TABLE, on
    the server the statement runs on (master: schema then steps; slave: schema then its
    own schema)."""

    def rewritten(statements: Sequence[str], layout: list[str] | None) -> tuple[list[str | None], list[str] | None]:
        result: list[str | None] = []
        for sql in statements:
            statement = _parsed(sql)
            if _created_table(statement) == table:
                layout = _layout(statement) or layout
            result.append(_drop_column(sql, statement, table, column, layout))
        return result, layout

    master_schema, layout = rewritten(scenario.master_schema, None)
    steps, _ = rewritten([step.sql for step in scenario.steps], layout)
    slave_schema, _ = rewritten(scenario.slave_schema, layout)
    return _assembled(scenario, master_schema, slave_schema, steps)


def _drop_column(sql: str, statement: Statement | None, table: str, column: str, layout: list[str] | None) -> str | None:
    """`sql` without `table.column`: None when the statement goes with it (an UPDATE whose
    only assignments were to it, an ALTER with no action left)."""
    if table not in _tables_named(statement):
        return sql
    tree = statement.ast.copy()
    targeted = _target(statement) == table
    if isinstance(tree, exp.Create) and targeted:
        _drop_column_definition(tree, column)
    elif isinstance(tree, exp.Alter) and targeted:
        if not _drop_alter_actions(tree, column):
            return None
    elif isinstance(tree, exp.Insert) and targeted:
        _drop_inserted_value(tree, column, layout)
    elif isinstance(tree, exp.Update) and targeted:
        assignments = [assignment for assignment in tree.expressions if not _refers_to(assignment, column)]
        if not assignments:
            return None
        tree.set("expressions", assignments)
    for owner in _clause_owners(tree):
        if _conjuncts(owner):
            _set_conjuncts(owner, [conjunct for conjunct in _conjuncts(owner) if not _refers_to(conjunct, column)])
        order = owner.args.get("order")
        if order is not None:
            items = [item for item in order.expressions if not _refers_to(item, column)]
            owner.set("order", exp.Order(expressions=items) if items else None)
    if _refers_to(tree, column):
        raise _Unwritable(f"{sql!r} still needs {table}.{column}")
    return sql if tree == statement.ast else _text(statement, tree)


def _drop_column_definition(tree: exp.Create, column: str) -> None:
    if tree.expression is not None:
        raise _Unwritable("the columns of CREATE TABLE ... SELECT come from its SELECT")
    schema = tree.this
    kept = [part for part in schema.expressions if not (isinstance(part, exp.ColumnDef) and part.name.lower() == column)]
    if not any(isinstance(part, exp.ColumnDef) for part in kept):
        raise _Unwritable("a table needs a column")
    schema.set("expressions", kept)
    _drop_key_parts(tree, column)


def _drop_alter_actions(tree: exp.Alter, column: str) -> bool:
    """Drops the actions on `column` (ADD, DROP, ALTER COLUMN) and the column from the keys
    added; False when no action is left."""

    def on_column(action: exp.Expression) -> bool:
        if isinstance(action, (exp.ColumnDef, exp.AlterColumn)):
            return action.name.lower() == column
        return isinstance(action, exp.Drop) and _refers_to(action, column)

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
        parts = [part for part in holder.expressions if not _refers_to(part, column)]
        if parts:
            holder.set("expressions", parts)
        else:
            key.pop()


def _drop_inserted_value(tree: exp.Insert, column: str, layout: list[str] | None) -> None:
    """The column out of the INSERT's column list, its value out of each row (or its
    expression out of the SELECT), and its ON DUPLICATE KEY UPDATE assignments."""
    if isinstance(tree.this, exp.Schema):
        names = [name.name.lower() for name in tree.this.expressions]
        place = names.index(column) if column in names else None
        if place is not None:
            if len(names) == 1:
                raise _Unwritable("an INSERT column list needs a column")
            tree.this.set("expressions", [name for index, name in enumerate(tree.this.expressions) if index != place])
    elif layout is not None and column in layout:
        place = layout.index(column)
    else:
        raise _Unwritable("no CREATE TABLE gives the column's place")
    if place is not None:
        source = tree.expression
        if isinstance(source, exp.Values):
            rows = source.expressions
        elif isinstance(source, exp.Select) and not any(isinstance(item, exp.Star) for item in source.expressions):
            rows = [source]
        else:
            raise _Unwritable("the INSERT's values cannot be matched to its columns")
        for row in rows:
            if len(row.expressions) <= place:
                raise _Unwritable("a row shorter than the column list")
            row.set("expressions", [value for index, value in enumerate(row.expressions) if index != place])
    conflict = tree.args.get("conflict")
    if conflict is not None:
        assignments = [assignment for assignment in conflict.expressions if not _refers_to(assignment, column)]
        if assignments:
            conflict.set("expressions", assignments)
        else:
            tree.set("conflict", None)
