"""Running a compound statement: a procedure's, a function's or a trigger's body.

The runner walks the nodes the reader built, keeps the local variables and cursors of
each block, and hands every plain statement, with the variables' values bound, to its
host: a CALL on the master runs each through the whole pipeline (each is analysed,
decided, logged on its own), a function or trigger body runs each as a sub-statement of
the statement that called it. Handlers catch the errors the body's statements raise:
a CONTINUE handler goes on after the failed statement, an EXIT handler leaves its block."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from sqlglot import exp

from ..compound.binding import NameConstStyle, Variable, bound_expression, bound_statement, name_const_style
from ..compound.program import (
    Block,
    Case,
    CursorAction,
    CursorStatement,
    Declare,
    DeclareCondition,
    DeclareCursor,
    DeclareHandler,
    HandlerKind,
    If,
    Iterate,
    Leave,
    Loop,
    LoopKind,
    Node,
    Return,
    Run,
    SetVariables,
    SqlStatement,
)
from ..errors import Condition, ErrorCode, SqlError, not_supported, note
from ..statement import Statement
from .run import StatementRun

# Passes of one loop the runner makes before it gives up on it (a loop that never ends
# would hang the run: the server would spin on it for ever).
MAX_LOOP_PASSES = 100_000
# The errors a SQLSTATE handler catches, by the SQLSTATE the server gives them.
_SQLSTATES = {"02000": {1329}, "23000": {1062, 1048, 1451, 1452, 1216, 1217}, "40001": {1213}}


class ProgramHost(Protocol):
    """What runs a body's statements: the CALL on the master, or the statement that fired a trigger."""

    def run_statement(self, statement: Statement) -> None: ...

    def query(self, statement: Statement) -> list[tuple]: ...

    def evaluate(self, trees: list[exp.Expression]) -> list[object]: ...

    def set_user_variable(self, name: str, value: object) -> None: ...

    def assign_row(self, column: str, value: object) -> None: ...

    def warn(self, condition: Condition) -> None: ...

    def name_const_style(self) -> NameConstStyle: ...

    def clear_warnings(self) -> None: ...

    def starting(self, source: SqlStatement) -> None:
        """The plain statement of the body about to run (before it is bound)."""


class RunHost:
    """What a body run inside a statement (a stored function's, a compound trigger's) does
    the same way: user variables and conditions go to the statement's session and
    outcome, nothing is kept per statement of the body, NAME_CONST as the session writes it."""

    def __init__(self, run: StatementRun) -> None:
        self.run = run

    def set_user_variable(self, name: str, value: object) -> None:
        self.run.session.user_variables[name] = value

    def warn(self, condition: Condition) -> None:
        self.run.outcome.warnings.append(condition)

    def starting(self, source: SqlStatement) -> None:
        """Nothing is kept per statement of the body."""

    def name_const_style(self) -> NameConstStyle:
        return name_const_style(self.run.server.flavor, self.run.session.variables)


class _Leave(Exception):
    def __init__(self, label: str) -> None:
        self.label = label


class _Iterate(_Leave):
    pass


class _Return(Exception):
    def __init__(self, value: object) -> None:
        self.value = value


class _Exit(Exception):
    """An EXIT handler ran: its block ends."""

    def __init__(self, scope: _Scope) -> None:
        self.scope = scope


@dataclass
class _Cursor:
    query: SqlStatement
    rows: list[tuple] | None = None  # open: the rows not fetched yet


@dataclass(eq=False)
class _Scope:
    variables: dict[str, Variable] = field(default_factory=dict)
    cursors: dict[str, _Cursor] = field(default_factory=dict)
    handlers: list[DeclareHandler] = field(default_factory=list)


class ProgramRunner:
    """Runs one body with its own variables; `parameters` are the routine's, bound by the caller."""

    def __init__(self, host: ProgramHost, parameters: dict[str, Variable] | None = None) -> None:
        self.host = host
        self.scopes: list[_Scope] = [_Scope(dict(parameters or {}))]
        self.returned = False  # a RETURN ended the body (a function that ends without one is 1321)
        self.line: int | None = None  # the body line of the statement running, for the error's stack trace

    def run(self, nodes: tuple[Node, ...]) -> object:
        """Run the body; a function's RETURN value (None when it ends without one)."""
        try:
            self.block(nodes)
        except _Return as returned:
            self.returned = True
            return returned.value
        return None

    def lookup(self, name: str) -> Variable | None:
        for scope in reversed(self.scopes):
            variable = scope.variables.get(name)
            if variable is not None:
                return variable
        return None

    def value(self, expression: exp.Expression) -> object:
        return self.host.evaluate([bound_expression(expression, self.lookup)])[0]

    def truth(self, expression: exp.Expression) -> bool:
        value = self.value(expression)
        return value is not None and bool(float(value) if isinstance(value, str) else value)

    def block(self, nodes: tuple[Node, ...], label: str | None = None) -> None:
        scope = _Scope()
        self.scopes.append(scope)
        try:
            self.statements(nodes)
        except _Exit as exited:
            if exited.scope is not scope:
                raise
        except _Leave as left:
            if type(left) is not _Leave or left.label != label:
                raise
        finally:
            self.scopes.pop()

    def statements(self, nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            try:
                self.node(node)
            except SqlError as error:
                self.handle(error)

    def handle(self, error: SqlError) -> None:
        """Run the innermost handler for `error`, or let it end the program."""
        for scope in reversed(self.scopes):
            for handler in scope.handlers:
                if any(_catches(condition, error.code) for condition in handler.conditions):
                    self.run_handler(handler, scope)
                    return
        raise error

    def run_handler(self, handler: DeclareHandler, scope: _Scope) -> None:
        """Run a handler in the scope it was declared in; the conditions so far are cleared."""
        self.host.clear_warnings()
        saved = self.scopes
        self.scopes = self.scopes[: self.scopes.index(scope) + 1]
        try:
            self.statements((handler.body,))
        finally:
            self.scopes = saved
        if handler.kind is HandlerKind.EXIT:
            raise _Exit(scope)

    def node(self, node: Node) -> None:
        runner = _RUNNERS.get(type(node))
        if runner is None:
            raise not_supported(f"{type(node).__name__} in a stored program")
        runner(self, node)

    # -- the statements ------------------------------------------------------------------
    def declare(self, node: Declare) -> None:
        value = self.value(node.default.tree) if node.default is not None else None
        for name in node.names:
            variable = Variable(name, node.type)
            variable.assign(value)
            self.scopes[-1].variables[name.lower()] = variable

    def declare_condition(self, node: DeclareCondition) -> None:
        """Nothing to do when it runs: the reader put its value in the handlers that name it."""

    def declare_cursor(self, node: DeclareCursor) -> None:
        self.scopes[-1].cursors[node.name] = _Cursor(node.query)

    def declare_handler(self, node: DeclareHandler) -> None:
        self.scopes[-1].handlers.append(node)

    def set_variables(self, node: SetVariables) -> None:
        for assignment in node.assignments:
            value = self.value(assignment.value.tree)
            if assignment.row_column is not None:
                self.host.assign_row(assignment.row_column, value)
                continue
            variable = self.lookup(assignment.target)
            assert variable is not None  # the reader checked the name was declared
            variable.assign(value)

    def block_node(self, node: Block) -> None:
        self.block(node.body, node.label)

    def if_node(self, node: If) -> None:
        for condition, branch in node.branches:
            if self.truth(condition.tree):
                self.block(branch)
                return
        if node.otherwise is not None:
            self.block(node.otherwise)

    def case_node(self, node: Case) -> None:
        for value, branch in node.branches:
            test = exp.EQ(this=node.subject.tree.copy(), expression=value.tree.copy()) if node.subject is not None else value.tree
            if self.truth(test):
                self.block(branch)
                return
        if node.otherwise is None:
            raise SqlError(ErrorCode.ER_SP_CASE_NOT_FOUND)
        self.block(node.otherwise)

    def loop(self, node: Loop) -> None:
        passes = 0
        while node.kind is not LoopKind.WHILE or self.truth(node.condition.tree):
            passes += 1
            if passes > MAX_LOOP_PASSES:
                raise not_supported(f"a {node.kind.value} loop of more than {MAX_LOOP_PASSES} passes in a stored program")
            try:
                self.block(node.body)
            except _Leave as left:
                if left.label != node.label:
                    raise
                if type(left) is _Leave:
                    return
                continue
            if node.kind is LoopKind.REPEAT and self.truth(node.condition.tree):
                return

    def leave(self, node: Leave) -> None:
        raise _Leave(node.label)

    def iterate(self, node: Iterate) -> None:
        raise _Iterate(node.label)

    def return_node(self, node: Return) -> None:
        self.line = node.line
        raise _Return(self.value(node.value.tree))

    def run_node(self, node: Run) -> None:
        self.line = node.statement.line
        self.host.starting(node.statement)
        statement = self.bound(node.statement)
        if not node.statement.into:
            self.host.run_statement(statement)
            return
        rows = self.host.query(statement)
        if len(rows) > 1:
            raise SqlError(ErrorCode.ER_TOO_MANY_ROWS)
        if not rows:
            self.not_found(warning=True)
            return
        self.store(node.statement.into, rows[0])

    def bound(self, sql: SqlStatement) -> Statement:
        return bound_statement(sql, self.lookup, self.host.name_const_style())

    def store(self, targets: tuple[str, ...], row: tuple) -> None:
        if len(targets) != len(row):
            raise SqlError(ErrorCode.ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT)
        for target, value in zip(targets, row):
            if target.startswith("@"):
                self.host.set_user_variable(target[1:].lower(), value)
            else:
                variable = self.lookup(target)
                assert variable is not None
                variable.assign(value)

    def not_found(self, warning: bool) -> None:
        """No row for SELECT ... INTO (a warning unless handled) or FETCH (an error unless handled)."""
        error = SqlError(ErrorCode.ER_SP_FETCH_NO_DATA)
        if any(_catches(condition, error.code) for scope in self.scopes for handler in scope.handlers for condition in handler.conditions):
            raise error
        if not warning:
            raise error
        self.host.warn(note(ErrorCode.ER_SP_FETCH_NO_DATA, level="Warning"))

    def cursor(self, node: CursorStatement) -> None:
        cursor = next(scope.cursors[node.cursor] for scope in reversed(self.scopes) if node.cursor in scope.cursors)
        if node.action is CursorAction.OPEN:
            if cursor.rows is not None:
                raise SqlError(ErrorCode.ER_SP_CURSOR_ALREADY_OPEN)
            self.line = cursor.query.line
            self.host.starting(cursor.query)
            cursor.rows = list(self.host.query(self.bound(cursor.query)))
            return
        if cursor.rows is None:
            raise SqlError(ErrorCode.ER_SP_CURSOR_NOT_OPEN)
        if node.action is CursorAction.CLOSE:
            cursor.rows = None
            return
        if not cursor.rows:
            self.not_found(warning=False)
            return
        row = cursor.rows.pop(0)
        if len(row) != len(node.targets):
            raise SqlError(ErrorCode.ER_SP_WRONG_NO_OF_FETCH_ARGS)
        self.store(node.targets, row)


def _catches(condition: str, code: int) -> bool:
    if condition == "NOT FOUND":
        return code == ErrorCode.ER_SP_FETCH_NO_DATA.code
    if condition == "SQLEXCEPTION":
        return code != ErrorCode.ER_SP_FETCH_NO_DATA.code
    if condition == "SQLWARNING":
        return False
    if condition.startswith("SQLSTATE "):
        state = condition.removeprefix("SQLSTATE ")
        if state not in _SQLSTATES:
            raise not_supported(f"a handler for SQLSTATE {state}")
        return code in _SQLSTATES[state]
    return condition == str(code)


_RUNNERS = {
    Declare: ProgramRunner.declare,
    DeclareCondition: ProgramRunner.declare_condition,
    DeclareCursor: ProgramRunner.declare_cursor,
    DeclareHandler: ProgramRunner.declare_handler,
    SetVariables: ProgramRunner.set_variables,
    Block: ProgramRunner.block_node,
    If: ProgramRunner.if_node,
    Case: ProgramRunner.case_node,
    Loop: ProgramRunner.loop,
    Leave: ProgramRunner.leave,
    Iterate: ProgramRunner.iterate,
    Return: ProgramRunner.return_node,
    Run: ProgramRunner.run_node,
    CursorStatement: ProgramRunner.cursor,
}

