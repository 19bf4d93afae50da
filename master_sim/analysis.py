"""What a statement touches: tables read and written with their engines, and the context it needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from server_sim.catalog import Catalog, Table
from server_sim.errors import SqlError
from server_sim.executor import target_tables
from server_sim.expressions import function_name, is_constant, constant_value
from server_sim.flavor import Flavor
from server_sim.multi_table import is_multi_table, references, source_nodes, targets
from server_sim.parser import Statement, StatementKind

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

    @property
    def read_only(self) -> list[Table]:
        written = {id(table) for table in self.writes}
        return [table for table in self.reads if id(table) not in written]


def analyze(statement: Statement, catalog: Catalog, session_id: int, flavor: Flavor) -> Analysis:
    """Resolve the tables a statement uses (unknown ones are left for the executor to report)."""
    analysis = Analysis(statement)
    if statement.kind is StatementKind.BINLOG:
        analysis.writes = injected_tables(statement, catalog)
        analysis.reads = list(analysis.writes)
        analysis.key_reach = {table.name.lower(): None for table in analysis.writes}
        return analysis
    ast = statement.ast
    if ast is None or statement.kind in (StatementKind.SET,) or statement.kind.is_transaction_control:
        return analysis
    multi_table = is_multi_table(ast)
    if multi_table:
        targets = {id(table) for table in _multi_table_targets(ast, catalog, session_id)}
    else:
        names = {node.name.lower() for node in target_tables(statement)} if statement.kind is not StatementKind.SELECT else set()
        targets = {id(table) for name in names if (table := catalog.find(name, session_id)) is not None}
    seen: set[int] = set()
    for node in source_nodes(ast):
        table = catalog.find(node.name, session_id)
        if table is None or id(table) in seen:
            continue
        seen.add(id(table))
        analysis.reads.append(table)
        if id(table) in targets:
            analysis.writes.append(table)
    analysis.unsafe = parse_time_reasons(statement, flavor)
    for node in ast.walk():
        name = function_name(node)
        if name == "RAND":
            analysis.uses_rand = True
        elif name == "LAST_INSERT_ID":
            analysis.uses_last_insert_id = True
        elif isinstance(node, exp.Parameter) and node.name.lower() not in analysis.user_variables:
            analysis.user_variables.append(node.name.lower())
    for table in analysis.writes:
        # A join reaches a target's rows through the other tables' values: a table lock.
        analysis.key_reach[table.name.lower()] = None if multi_table else _key_reach(statement, table)
    return analysis


def _multi_table_targets(ast: exp.Update | exp.Delete, catalog: Catalog, session_id: int) -> list[Table]:
    """The tables a multi-table UPDATE or DELETE changes; none when its names do not
    resolve (the executor then reports the error, before anything is locked or written)."""
    try:
        tables = references(ast, lambda node: catalog.get(node.name, session_id))
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

