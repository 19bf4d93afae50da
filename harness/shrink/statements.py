"""A scenario as lists of statements, and what the SQL edits read in a statement.

Statements an edit changes are written by sqlglot's MySQL generator; the others keep
their text. The simulator's own parser decides what a statement is, so an edit never
leaves a statement the simulator would refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sqlglot import exp

from scenarios.model import Scenario
from server_sim.errors import SqlError
from server_sim.statement import Statement, StatementKind, target_tables
from server_sim.parser import parse_statement, unparse

from .core import Unbuildable

Identity = tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]]
SECTIONS = ("master_schema", "slave_schema", "steps")


class Unwritable(Unbuildable):
    """An edit that leaves some statement unable to stand."""


# ---- scenarios as lists of statements ----


def identity(scenario: Scenario) -> Identity:
    """What the edits change: the statements, and which session sends each step."""
    steps = tuple((step.session, step.sql) for step in scenario.steps)
    return scenario.master_schema, scenario.slave_schema, steps


def numbered(scenario: Scenario) -> Scenario:
    """Steps numbered 1..n, as the predicate and the result see them."""
    return replace(scenario, steps=tuple(replace(step, index=number) for number, step in enumerate(scenario.steps, 1)))


def all_sql(scenario: Scenario) -> list[str]:
    return [*scenario.master_schema, *scenario.slave_schema, *(step.sql for step in scenario.steps)]


def locations(scenario: Scenario) -> list[tuple[str, int]]:
    return [(section, position) for section in SECTIONS for position in range(len(getattr(scenario, section)))]


def sql_at(scenario: Scenario, section: str, position: int) -> str:
    item = getattr(scenario, section)[position]
    return item.sql if section == "steps" else item


def replaced(scenario: Scenario, section: str, position: int, sql: str) -> Scenario:
    items = list(getattr(scenario, section))
    items[position] = replace(items[position], sql=sql) if section == "steps" else sql
    return replace(scenario, **{section: tuple(items)})


def rewrite(scenario: Scenario, change: Callable[[str], str | None]) -> Scenario:
    """`scenario` with `change` applied to every statement; None removes the statement."""
    return assembled(
        scenario,
        [change(sql) for sql in scenario.master_schema],
        [change(sql) for sql in scenario.slave_schema],
        [change(step.sql) for step in scenario.steps],
    )


def assembled(scenario: Scenario, master_schema: list[str | None], slave_schema: list[str | None], steps: list[str | None]) -> Scenario:
    return replace(
        scenario,
        master_schema=tuple(sql for sql in master_schema if sql is not None),
        slave_schema=tuple(sql for sql in slave_schema if sql is not None),
        steps=tuple(replace(step, sql=sql) for step, sql in zip(scenario.steps, steps) if sql is not None),
    )


# ---- statements ----


def parsed(sql: str) -> Statement | None:
    """The simulator's own parse (REPLACE, UPDATE IGNORE, ... included); None when it
    cannot parse the statement, which then names no table and is never rewritten."""
    try:
        return parse_statement(sql)
    except SqlError:
        return None


def text(statement: Statement, tree: exp.Expression) -> str:
    """The text of a changed tree, if the simulator still parses it."""
    written = unparse(statement, tree)
    if parsed(written) is None:
        raise Unwritable(written)
    return written


def tables_named(statement: Statement | None) -> set[str]:
    if statement is None or statement.ast is None:
        return set()
    return {table.name.lower() for table in statement.ast.find_all(exp.Table)}


def target(statement: Statement | None) -> str | None:
    """The one table a statement changes: an INSERT's, an UPDATE's, a CREATE's, an ALTER's."""
    tables = target_tables(statement) if statement is not None else []
    return tables[0].name.lower() if len(tables) == 1 else None


def created_table(statement: Statement | None) -> str | None:
    return target(statement) if statement is not None and statement.kind is StatementKind.CREATE_TABLE else None


def layout(statement: Statement | None) -> list[str] | None:
    """The column names, in order, of a CREATE TABLE with a column list and no SELECT."""
    if statement is None or not isinstance(statement.ast, exp.Create) or statement.ast.expression is not None:
        return None
    schema = statement.ast.this
    if not isinstance(schema, exp.Schema):
        return None
    return [column.name.lower() for column in schema.expressions if isinstance(column, exp.ColumnDef)]


def refers_to(node: exp.Expression, column: str) -> bool:
    """A column reference by name: `Column` nodes, and the bare names of column lists
    (INSERT's, a key's, `VALUES(c)`'s)."""
    return any(found.name.lower() == column for found in node.find_all(exp.Column)) or any(
        found.arg_key == "expressions" and found.name.lower() == column for found in node.find_all(exp.Identifier)
    )


def clause_owners(tree: exp.Expression) -> list[exp.Expression]:
    """The nodes that carry WHERE, ORDER BY and LIMIT, in an order a copy of `tree` repeats."""
    return list(tree.find_all(exp.Update, exp.Delete, exp.Select))


def conjuncts(owner: exp.Expression) -> list[exp.Expression]:
    where = owner.args.get("where")
    if where is None:
        return []
    return list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]


def set_conjuncts(owner: exp.Expression, kept: list[exp.Expression]) -> None:
    owner.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
