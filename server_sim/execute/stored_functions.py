"""Calls of stored functions inside a statement. The statement is logged as written: the
function's body runs as part of it (its rows are the statement's rows, its unsafe reasons
the statement's, which the master's analysis adds), never logged on its own.

A function whose body is `RETURN expr` is put in the call's place: its expression with
each parameter the argument given (cast to the parameter's type) and the whole cast to the
RETURNS type, so both evaluators run it row by row. A compound body runs in the program
runner, its statements as sub-statements of the calling one: where the server calls it
exactly once (an argument list of constants, in a one-row INSERT ... VALUES or a SELECT of
expressions, a UNION of them too) before the statement runs, its value put in the call's
place; elsewhere per row, through a call both evaluators run (functions/stored_body.py).
A body that changes data runs per row only where the executor reaches rows one at a time
in the server's order, its calls made in Python for each row (per_row_calls.py); anywhere
else the statement is refused before any of its calls runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from sqlglot import exp

from ..compound.binding import Variable
from ..compound.program import Return, expressions, plain_statements
from ..compound.routine import Routine, RoutineKind
from ..errors import Condition, ErrorCode, SqlError, not_supported
from ..expressions import constant_value, is_constant
from ..functions.context import literal
from ..functions.stored_body import BodyRun, body_call
from ..functions.carried import RoutineError
from ..functions.stored_result import Slot, stored, stored_as
from ..statement import ROW_STATEMENTS, Statement, StatementKind, WriteMode, target_tables
from ..sysvars import strict_sql_mode
from ..types import ColumnType
from .per_row_calls import unordered_call
from .program import ProgramRunner, RunHost
from .reads import evaluate
from .run import StatementRun
from .select import run_select


def stored_function(run: StatementRun, node: exp.Expression) -> Routine | None:
    if not isinstance(node, exp.Anonymous) or node.name.lower() in run.catalog.udfs:
        return None
    return run.catalog.routines.get((RoutineKind.FUNCTION.value, node.name.lower()))


def with_stored_functions(run: StatementRun, statement: Statement, calling: tuple[str, ...] = ()) -> Statement:
    """`statement` with each call of a stored function replaced by what it stands for."""
    if not run.catalog.routines or statement.ast is None:
        return statement
    if not any((RoutineKind.FUNCTION.value, name.lower()) in run.catalog.routines for name in statement.calls):
        return statement

    _refuse_unordered_calls(run, statement)  # before any call made once runs its body
    runs: dict[tuple[str, ...], BodyRun] = {}  # one per call written alike: GROUP BY f(a) is SELECT's f(a)

    def replace(node: exp.Expression) -> exp.Expression:
        routine = stored_function(run, node)
        if routine is None:
            return node
        if routine.name.lower() in calling:
            raise SqlError(ErrorCode.ER_SP_NO_RECURSION)
        arguments = [argument.transform(replace) for argument in node.expressions]  # f(g(x)): g's call in place first
        if len(arguments) != len(routine.parameters):
            qualified = f"{run.catalog.database}.{routine.name}"
            raise SqlError(ErrorCode.ER_SP_WRONG_NO_OF_ARGS, "FUNCTION", qualified, len(routine.parameters), len(arguments))
        if len(routine.body) == 1 and isinstance(routine.body[0], Return):
            return _inlined(run, routine, arguments, calling)
        return _called(run, statement, node, routine, arguments, calling, runs)

    return dataclasses.replace(statement, ast=statement.ast.copy().transform(replace))


def evaluate_calling(run: StatementRun, trees: list[exp.Expression], calling: tuple[str, ...] = ()) -> list[object]:
    """Values of a compound body's expressions (a function's or a trigger's), the stored
    functions they call put in place as in a statement of the body's."""
    select = Statement("SELECT", StatementKind.SELECT, exp.select(*trees))
    replaced = with_stored_functions(run, select, calling).ast
    return evaluate(run, list(replaced.expressions))


def _slot(run: StatementRun, routine: Routine, kind: ColumnType, column: str, line: int = 0) -> Slot:
    """A parameter or the result of `routine`; under IGNORE, a value that does not fit is
    an error only where the flavor says so (MySQL warns and cuts it)."""
    errors = run.statement.write_mode is not WriteMode.IGNORE or run.server.flavor.routine_values_strict_under_ignore
    # Outside strict mode the server stores the value cut to fit, with a warning: not modelled.
    errors = errors and strict_sql_mode(run.session.variables)
    return Slot(kind, column, f"{run.catalog.database}.{routine.name}", line, errors)


def _inlined(run: StatementRun, routine: Routine, arguments: list[exp.Expression], calling: tuple[str, ...]) -> exp.Expression:
    """`RETURN expr` with the arguments in the parameters' places."""
    body = routine.body[0]
    assert isinstance(body, Return)
    by_name = {parameter.name.lower(): (parameter, argument) for parameter, argument in zip(routine.parameters, arguments)}
    uses: dict[str, int] = {}

    def bind(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or node.table or node.name.lower() not in by_name:
            return node
        parameter, argument = by_name[node.name.lower()]
        uses[parameter.name.lower()] = uses.get(parameter.name.lower(), 0) + 1
        slot = _slot(run, routine, parameter.type, parameter.name)
        if is_constant(argument):
            return literal(stored(constant_value(argument), slot))
        return stored_as(argument.copy(), slot)

    tree = body.value.tree.copy().transform(bind)
    for name, count in uses.items():
        argument = by_name[name][1]
        if count > 1 and any(isinstance(node, exp.Func) for node in argument.walk()):
            raise not_supported(f"argument {argument.sql(dialect='mysql')!r} of {routine.name}() read more than once by its body")
    inner = Statement(f"SELECT {body.value.text}", StatementKind.SELECT, exp.select(tree))
    tree = with_stored_functions(run, inner, (*calling, routine.name.lower())).ast.expressions[0]
    if routine.returns is None:
        return tree
    return stored_as(tree, _slot(run, routine, routine.returns, routine.name, routine.line(body.line)))


def changes_data(routine: Routine, routines: dict[tuple[str, str], Routine]) -> bool:
    """Whether running `routine` changes rows: its own statements, or a stored function
    its body calls (in a statement or an expression)."""
    return _reaches(routine, routines, lambda body: any(sql.statement.kind in ROW_STATEMENTS for sql in plain_statements(body.body)))


def _session_effect(body: Routine) -> bool:
    """Whether the body draws from or sets the session's state, whose values depend on the
    order and number of its calls: RAND(), LAST_INSERT_ID(expr), SELECT ... INTO @var."""
    if any(target.startswith("@") for sql in plain_statements(body.body) for target in sql.into):
        return True
    for tree in _trees(body):
        if tree.find(exp.Rand) is not None:
            return True
        if any(node.name.upper() == "LAST_INSERT_ID" and node.expressions for node in tree.find_all(exp.Anonymous)):
            return True
    return False


def _trees(routine: Routine) -> list[exp.Expression]:
    statements = [sql.statement for sql in plain_statements(routine.body)]
    return [statement.ast for statement in statements if statement.ast is not None] + expressions(routine.body)


def _reaches(routine: Routine, routines: dict[tuple[str, str], Routine], test: Callable[[Routine], bool], seen: frozenset[str] = frozenset()) -> bool:
    """Whether `test` holds for `routine` or a stored function its body calls."""
    if test(routine):
        return True
    seen = seen | {routine.name.lower()}
    for tree in _trees(routine):
        for node in tree.find_all(exp.Anonymous):
            called = routines.get((RoutineKind.FUNCTION.value, node.name.lower()))
            if called is not None and called.name.lower() not in seen and _reaches(called, routines, test, seen):
                return True
    return False


def _called(
    run: StatementRun,
    statement: Statement,
    call: exp.Expression,
    routine: Routine,
    arguments: list[exp.Expression],
    calling: tuple[str, ...],
    runs: dict[tuple[str, ...], BodyRun],
) -> exp.Expression:
    """A compound body run once, its value put in the call's place; or the call that
    runs it per row."""
    writes = changes_data(routine, run.catalog.routines)
    refusal = _refusal(run, statement, call, routine, arguments, writes)
    if refusal is not None:
        raise refusal
    if _made_once(statement, arguments):
        return literal(_run_body(run, routine, [constant_value(argument) for argument in arguments], calling))

    def per_row(values: list[object], nested: bool) -> object:
        if not nested:
            return _run_body(run, routine, values, calling)
        with run.storage.nested():
            return _run_body(run, routine, values, calling)

    if writes:  # each call its own: its calls are counted, never shared
        return body_call(arguments, BodyRun(per_row, routine.returns, changes_data=True))
    key = (routine.name.lower(), *(argument.sql(dialect="mysql") for argument in arguments))
    if key not in runs:
        runs[key] = BodyRun(per_row, routine.returns)
    return body_call(arguments, runs[key])


def _made_once(statement: Statement, arguments: list[exp.Expression]) -> bool:
    """Whether the server calls the function once, before the statement runs."""
    return (_one_row_values(statement) or _query_of_no_table(statement)) and all(is_constant(argument) for argument in arguments)


def _refusal(run: StatementRun, statement: Statement, call: exp.Expression, routine: Routine, arguments: list[exp.Expression], writes: bool) -> SqlError | None:
    """Why a call the simulator cannot run as the server does is refused (1235), or None;
    `writes`: whether the routine changes data (changes_data)."""
    if _made_once(statement, arguments):
        if statement.kind is StatementKind.SELECT and writes:
            form = "DO" if statement.discards_rows else "SELECT"
            return not_supported(f"a {form} calling {routine.name}(), which changes data (the server logs the {form} for it)")
        return None
    if writes and (why := unordered_call(statement, call, routine, all(is_constant(argument) for argument in arguments))) is not None:
        return not_supported(f"stored function {routine.name}(), which changes data, called {why}")
    if _reaches(routine, run.catalog.routines, _session_effect):
        return not_supported(f"stored function {routine.name}(), which uses RAND(), LAST_INSERT_ID(expr) or SELECT ... INTO @var, called per row (the order of its calls)")
    return None


def _refuse_unordered_calls(run: StatementRun, statement: Statement) -> None:
    """Refuse the statement before any body runs when a call that changes data is one the
    simulator cannot order (a call made once would otherwise have run already)."""
    assert statement.ast is not None
    for node in statement.ast.find_all(exp.Anonymous):
        routine = stored_function(run, node)
        if routine is not None and changes_data(routine, run.catalog.routines) and len(node.expressions) == len(routine.parameters):
            refusal = _refusal(run, statement, node, routine, list(node.expressions), writes=True)
            if refusal is not None:
                raise refusal


def _run_body(run: StatementRun, routine: Routine, values: list[object], calling: tuple[str, ...]) -> object:
    """The compound body run for the arguments' `values`, its result stored in the RETURNS type."""
    parameters = {}
    for parameter, value in zip(routine.parameters, values):
        parameters[parameter.name.lower()] = Variable(parameter.name, parameter.type)
        parameters[parameter.name.lower()].assign(stored(value, _slot(run, routine, parameter.type, parameter.name)))
    runner = ProgramRunner(FunctionHost(run, (*calling, routine.name.lower())), parameters)
    qualified = f"{run.catalog.database}.{routine.name}"
    try:
        value = runner.run(routine.body)
    except RoutineError:
        raise  # a function this one called: its own line
    except SqlError as error:
        if runner.line is None:
            raise
        raise RoutineError(error, qualified, routine.line(runner.line)) from None  # MariaDB's Note 4094, as a CALL's
    if not runner.returned:
        raise SqlError(ErrorCode.ER_SP_NORETURNEND, qualified)
    if routine.returns is None:
        return value
    return stored(value, _slot(run, routine, routine.returns, routine.name, routine.line(runner.line or 1)))


def _one_row_values(statement: Statement) -> bool:
    ast = statement.ast
    return isinstance(ast, exp.Insert) and isinstance(ast.expression, exp.Values) and len(ast.expression.expressions) == 1


def _query_of_no_table(statement: Statement) -> bool:
    """A SELECT, or INSERT ... SELECT, whose query reads no table and has no condition or
    limit: each of its SELECTs (a UNION's too) is one row, each call in it made once, in
    the order written, before any row is written."""
    ast = statement.ast
    if statement.kind is StatementKind.SELECT:
        query = ast
    elif isinstance(ast, exp.Insert) and isinstance(ast.expression, (exp.Select, exp.Union)):
        query = ast.expression
    else:
        return False
    return all(query.find(kind) is None for kind in (exp.Table, exp.Where, exp.Having, exp.Limit, exp.Group))


class FunctionHost(RunHost):
    """A function body's statements run as sub-statements of the calling statement."""

    def __init__(self, run: StatementRun, calling: tuple[str, ...]) -> None:
        super().__init__(run)
        self.calling = calling

    def _sub(self, statement: Statement) -> StatementRun:
        statement = with_stored_functions(self.run, statement, self.calling)
        for node in target_tables(statement):
            if node.name.lower() in self.run.tables_in_use:
                raise SqlError(ErrorCode.ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, node.name)
        return self.run.sub_run(statement)

    def run_statement(self, statement: Statement) -> None:
        if statement.kind not in ROW_STATEMENTS:
            raise not_supported(f"{statement.kind.value} in a stored function")
        sub = self._sub(statement)
        try:
            self.run.row_statements[statement.kind](sub)
        finally:
            self._merge(sub, statement.sql)

    def query(self, statement: Statement) -> list[tuple]:
        sub = self._sub(statement)
        run_select(sub)
        return list(sub.outcome.rows or [])

    def _merge(self, sub: StatementRun, text: str) -> None:
        """The sub-statement's rows are the statement's; MariaDB annotates them with its text."""
        outcome = self.run.outcome
        changes = sub.outcome.changes
        outcome.changes.extend(changes)
        outcome.trigger_statements.update({id(change): sub.outcome.trigger_statements.get(id(change), text) for change in changes})
        outcome.duplicates.extend(sub.outcome.duplicates)
        outcome.warnings.extend(sub.outcome.warnings)
        if outcome.insert_id is None:
            outcome.insert_id = sub.outcome.insert_id

    def evaluate(self, trees: list[exp.Expression]) -> list[object]:
        """The body's expressions (IF's condition, SET's value, RETURN's), the stored
        functions they call put in place as in a statement of the body's."""
        return evaluate_calling(self.run, trees, self.calling)

    def warn(self, condition: Condition) -> None:
        """A SELECT ... INTO of no row is no warning of the calling statement (both servers,
        MySQL bug #20028: sp.result's `select func_20028_a()`; MariaDB recorded in
        function-compound-per-row); the body's other conditions are."""
        if condition.code != ErrorCode.ER_SP_FETCH_NO_DATA.code:
            super().warn(condition)

    def assign_row(self, column: str, value: object) -> None:
        raise not_supported("SET NEW.column outside a trigger")  # the reader reads it only in triggers

    def clear_warnings(self) -> None:
        """A handler's conditions replace the function's so far (the statement's own stay)."""
