"""MySQL 8.0.19's row alias: `INSERT ... VALUES (...) AS new [(m, n, ...)] ON DUPLICATE
KEY UPDATE c = new.c + m`. The alias names the row the INSERT proposes, so `new.col` (or a
column alias) is what VALUES(col) reads; the executor runs the clause with those calls in
its place. The statement is logged as written, and VALUES(col)'s deprecation warning
(8.0.20) is not given for it. MariaDB 10.11's parser has no row alias.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from ..flavor import Flavor
from ..statement import Statement


def with_row_alias(statement: Statement, flavor: Flavor, table_columns: Callable[[str], Sequence[str]]) -> Statement:
    """`statement` with its row alias's references as VALUES() calls, and the alias gone."""
    ast = statement.ast
    values = ast.expression if isinstance(ast, exp.Insert) else None
    if not isinstance(values, exp.Values) or values.args.get("alias") is None:
        return statement
    if not flavor.insert_row_alias:
        raise not_supported("a row alias, INSERT ... VALUES (...) AS name (MariaDB's parser says 1064)")
    tree = ast.copy()
    alias = tree.expression.args["alias"]
    tree.expression.set("alias", None)
    name = alias.name
    target = tree.this
    listed = [column.name for column in target.expressions] if isinstance(target, exp.Schema) else None
    table = target.this if isinstance(target, exp.Schema) else target
    in_table = list(table_columns(table.name))
    columns = listed if listed is not None else in_table
    renamed = [column.name for column in alias.args.get("columns") or []]
    if renamed and len(renamed) != len(columns):
        raise not_supported(f"a row alias naming {len(renamed)} columns of {len(columns)}")
    by_alias = {alias_name.lower(): column for alias_name, column in zip(renamed, columns)} or {column.lower(): column for column in columns}
    table_names = {column.lower() for column in in_table}

    def proposed(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or node.args.get("db") is not None:
            return node
        qualifier = node.table
        if qualifier == name:
            column = by_alias.get(node.name.lower())
            if column is None:
                raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, f"{name}.{node.name}", "field list")
        elif not qualifier and renamed and node.name.lower() in by_alias:
            if node.name.lower() in table_names:
                raise not_supported(f"the column alias {node.name} of the row alias, also a column of {table.name}")
            column = by_alias[node.name.lower()]
        else:
            return node
        return exp.Anonymous(this="VALUES", expressions=[exp.column(column)])

    conflict = tree.args.get("conflict")
    if conflict is not None:
        for assignment in conflict.expressions:
            assignment.set("expression", assignment.expression.transform(proposed))
    return dataclasses.replace(statement, ast=tree)
