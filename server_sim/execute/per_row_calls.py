"""Where a stored function that changes data may be called once per row: the places the
executor evaluates row by row, in the order the server does, so the body's row changes
fall between the statement's own as the server logs them (each its own row event when
the table changes) and an error stops both at the same row.

The server evaluates a single-table UPDATE's SET values for each row it reaches, an
INSERT's VALUES row by row, and the select list of an INSERT ... SELECT it streams from one
other table, each just before writing the row, and the WHERE of a single-table UPDATE or
DELETE for each row of its scan (`DELETE t FROM t` alike). The simulator does the same
there: the calls are made in Python for one row at a time (reads.calls_made), never inside
a DuckDB query. Elsewhere (a join's rows, an INSERT ... SELECT it reads whole first, a
subquery, ON DUPLICATE KEY UPDATE) it evaluates whole sets of rows before writing any, so
a call there is refused.

A WHERE's calls are as many as the server's only when its scan reads every row: no
index can serve the condition (an index's first column is compared only with the call,
which is not a constant), and the call is never skipped (not under a later operand of
AND / OR, nor inside CASE, IF or a subquery). A call of a function declared DETERMINISTIC
with constant arguments is a constant the optimizer may evaluate once: refused."""

from __future__ import annotations

from sqlglot import exp

from ..compound.routine import Routine
from ..functions.stored_body import changing_calls
from ..statement import Statement, is_multi_table
from ..table import Table

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)
# Operators whose operands are all evaluated, left to right, for every row.
_ALWAYS_EVALUATED = (*_COMPARISONS, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Not, exp.Paren, exp.Neg)
_INDEXED_CONDITIONS = (exp.In, exp.Between, exp.Like, exp.Is)


def unordered_call(statement: Statement, call: exp.Expression, routine: Routine, constant_arguments: bool) -> str | None:
    """Why a call of `routine` (which changes data) at `call` in `statement` would not run
    once per row in the server's order; None where it does."""
    ast = statement.ast
    if routine.deterministic and constant_arguments:
        return "declared DETERMINISTIC, with constant arguments (the server may call it once for the whole statement)"
    if isinstance(ast, exp.Insert) and isinstance(ast.expression, exp.Values):
        clause = _clause(call)
        if isinstance(clause, exp.Values) and clause.arg_key == "expression" and call.find_ancestor(exp.Subquery, exp.Select) is None:
            return None  # a VALUES row: computed just before it is written (InsertRun._values_row_by_row)
    if isinstance(ast, exp.Insert) and isinstance(ast.expression, exp.Select):
        return _select_position(call, ast)
    if not isinstance(ast, (exp.Update, exp.Delete)) or (is_multi_table(ast) and not one_table_delete(ast)):
        return "where it may run more than once, or with arguments that are not constants"
    clause = _clause(call)
    if clause is None or not isinstance(clause.parent, type(ast)):
        return "in an argument of another call (the order of the calls)"
    if clause.arg_key == "expressions" and isinstance(ast, exp.Update):
        return None  # SET: per row, just before the row is written (update.run_update)
    if isinstance(clause, exp.Where):
        return _skipped(call, clause.this)
    return f"in the {clause.arg_key.upper()} clause of {'UPDATE' if isinstance(ast, exp.Update) else 'DELETE'}"


def streamed_source(select: exp.Select, target: str) -> exp.Table | None:
    """The one table INSERT ... SELECT reads when the server streams its rows (reads one,
    computes the select list, writes it): no join, grouping, order, DISTINCT, LIMIT or
    window, and not the target itself (then it reads the whole query first)."""
    source = select.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or select.args.get("joins") or not isinstance(node.this, exp.Identifier):
        return None
    if any(select.args.get(clause) for clause in ("group", "having", "order", "distinct", "limit", "windows", "with_")):
        return None
    if select.find(exp.Window) is not None or any(isinstance(item, exp.Star) for item in select.expressions):
        return None
    if node.name.lower() == target.lower() or any(table.name.lower() == target.lower() for table in select.find_all(exp.Table)):
        return None
    return node


def _select_position(call: exp.Expression, ast: exp.Insert) -> str | None:
    """INSERT ... SELECT: a call in the select list of a streamed single-table SELECT runs
    for each row read, just before that row is written (InsertRun._select_row_by_row)."""
    select = _clause(call)
    target = ast.this if isinstance(ast.this, exp.Table) else ast.this.this
    if not isinstance(select, exp.Select) or streamed_source(select, target.name) is None:
        return "in an INSERT ... SELECT whose rows the server reads whole before writing (a join, grouping, order, DISTINCT, LIMIT, or the target read)"
    node = call
    while node.parent is not select:
        node = node.parent
    if node.arg_key != "expressions" or call.find_ancestor(exp.Subquery) is not None:
        return "outside the select list of INSERT ... SELECT"
    return None


def one_table_delete(ast: exp.Expression) -> bool:
    """`DELETE t FROM t WHERE ...`: the multi-table form over one table, which the server
    scans as the single-table DELETE does, deleting each row as the scan reaches it."""
    if not isinstance(ast, exp.Delete) or ast.args.get("using") or ast.this.args.get("joins"):
        return False
    targets = ast.args.get("tables") or []
    return len(targets) == 1 and not targets[0].db and targets[0].name.lower() == ast.this.alias_or_name.lower()


def where_scans_every_row(where: exp.Expression, table: Table, alias: str) -> bool:
    """Whether the server's plan for a WHERE holding a data-changing call reads every row:
    an index's first column is an operand of a comparison only against an expression
    holding a call (not a constant), and of no other condition an index could serve
    (IN, BETWEEN, LIKE, IS NULL). Inside a function or arithmetic it serves no index."""
    leading = {key.columns[0].lower() for key in table.keys if key.columns}
    for column in where.find_all(exp.Column):
        if column.name.lower() not in leading or (column.table and column.table.lower() != alias.lower()):
            continue
        node, parent = column, column.parent
        while isinstance(parent, exp.Paren):
            node, parent = parent, parent.parent
        if isinstance(parent, _COMPARISONS):
            other = parent.expression if node is parent.this else parent.this
            if not changing_calls(other):
                return False
        elif isinstance(parent, _INDEXED_CONDITIONS) and node is parent.this:
            return False
    return True


def _clause(call: exp.Expression) -> exp.Expression | None:
    """The node directly under the tree's root (the statement's clause) the call sits in."""
    node = call
    while node.parent is not None and node.parent.parent is not None:
        node = node.parent
    return node if node.parent is not None else None


def _skipped(call: exp.Expression, condition: exp.Expression) -> str | None:
    """Why the server could skip the call for some row of the scan; None when it is made for each."""
    node = call
    while node is not condition:
        parent = node.parent
        assert parent is not None
        if isinstance(parent, (exp.And, exp.Or)):
            if node is not parent.this:
                return f"in a later operand of {parent.key.upper()} in a WHERE (the server skips it when the first decides)"
        elif not isinstance(parent, _ALWAYS_EVALUATED):
            name = "CASE" if isinstance(parent, exp.If) and isinstance(parent.parent, exp.Case) else parent.key.upper()
            return f"inside {name} in a WHERE (which may not evaluate it for every row)"
        node = parent
    return None
