"""SELECT: DuckDB runs the translated query, rows in the engine's scan order where the
query leaves the order open; a SELECT of expressions alone (no FROM, no clause) is
evaluated as INSERT's VALUES are, the mirror's compiler first. FOUND_ROWS() and
ROW_COUNT() follow it: with SQL_CALC_FOUND_ROWS, FOUND_ROWS() counts the rows the query
gives without its LIMIT."""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCode, note
from ..functions.window import refuse_unordered_windows
from .reads import aggregates, evaluate, in_scan_order
from .run import StatementRun

# The only arguments a SELECT of expressions alone has.
_EXPRESSIONS_ONLY = frozenset({"expressions", "kind"})
_CALC_FOUND_ROWS = "SQL_CALC_FOUND_ROWS"


def run_select(run: StatementRun) -> None:
    """The SELECT's rows; what computing them raised (a division by zero's 1365) its warnings."""
    with run.server.collecting_conditions() as raised:
        _select(run)
    run.outcome.warnings.extend(raised)
    if run.statement.discards_rows:
        run.outcome.rows = []  # DO: no result set


def _select(run: StatementRun) -> None:
    ast = run.statement.ast
    if isinstance(ast, exp.Select) and all(key in _EXPRESSIONS_ONLY for key, value in ast.args.items() if value):
        projection = [node.this if isinstance(node, exp.Alias) else node for node in ast.expressions]
        if not any(isinstance(node, exp.Star) or aggregates(node) for node in projection):
            run.outcome.rows = [tuple(_assigning(run, projection))]
            run.session.found_rows = 1
            run.session.row_count = -1
            return
    translator = run.translator()
    if ast.args.get("limit") is not None:
        refuse_unordered_windows(ast, translator.unique_keys)  # which rows the LIMIT keeps
    tree = in_scan_order(run, ast.copy())
    tree.set("locks", None)
    counted = _calc_found_rows(run, tree)
    run.outcome.rows = run.storage.query(translator.sql(tree))
    run.session.found_rows = counted if counted is not None else len(run.outcome.rows)
    run.session.row_count = -1


def _assigning(run: StatementRun, projection: list[exp.Expression]) -> list[object]:
    """The values of a SELECT of expressions, left to right: `@var := expr`, an item or
    inside one, gives expr's value and assigns it, and what is evaluated after it (the
    rest of its item, the items after it) reads the new value."""
    if not any(node.find(exp.PropertyEQ) is not None for node in projection):
        return evaluate(run, projection)
    return [evaluate(run, [_assigned(run, node.copy())])[0] for node in projection]


def _assigned(run: StatementRun, node: exp.Expression) -> exp.Expression:
    """`node` with each assignment in it done, innermost and leftmost first, and read back
    as the variable: the value is the variable's, with the type the variable keeps."""
    if isinstance(node, exp.PropertyEQ) and isinstance(node.this, exp.Parameter):
        value = evaluate(run, [_assigned(run, node.expression)])[0]
        run.session.user_variables[node.this.name.lower()] = value
        return node.this
    for child in list(node.iter_expressions()):
        replaced = _assigned(run, child)
        if replaced is not child:
            child.replace(replaced)
    return node


def _calc_found_rows(run: StatementRun, tree: exp.Expression) -> int | None:
    """SELECT SQL_CALC_FOUND_ROWS ...: the modifier taken off `tree`, and the number of rows
    the query gives without its LIMIT (None without the modifier)."""
    modifiers = tree.args.get("operation_modifiers") if isinstance(tree, exp.Select) else None
    if not modifiers or not any(isinstance(m, exp.Var) and m.name.upper() == _CALC_FOUND_ROWS for m in modifiers):
        return None
    kept = [m for m in modifiers if not (isinstance(m, exp.Var) and m.name.upper() == _CALC_FOUND_ROWS)]
    tree.set("operation_modifiers", kept or None)
    deprecated = run.server.flavor.deprecated_syntax.get(_CALC_FOUND_ROWS)
    if deprecated is not None:
        run.outcome.warnings.append(note(ErrorCode[deprecated], level="Warning"))
    unlimited = tree.copy()
    unlimited.set("limit", None)
    unlimited.set("offset", None)
    unlimited.set("order", None)
    counting = exp.select(exp.Count(this=exp.Star())).from_(exp.Subquery(this=unlimited, alias=exp.TableAlias(this=exp.to_identifier("rpl_found"))))
    return int(run.storage.query(run.translator().sql(counting))[0][0])
