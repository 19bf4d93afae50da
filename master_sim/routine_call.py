"""CALL on the master: the procedure's body runs statement by statement, and each of its
statements goes through the whole pipeline on its own (analysed, decided, locked,
executed, logged), as the server runs each sp_instr_stmt as a statement of its own: under
STATEMENT each is logged with its variables as NAME_CONST, under ROW each gives its row
events, under MIXED each is decided on its own; CALL itself is never logged. The
statements' notes, caches and unsafe reasons are the CALL's, and OUT and INOUT arguments,
user variables, get the parameters' values when the body ends."""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from server_sim.compound.binding import NameConstStyle, Variable, name_const_style
from server_sim.compound.program import SqlStatement
from server_sim.compound.routine import ParameterMode, Routine, RoutineKind
from server_sim.errors import Condition, ErrorCode, SqlError, not_supported, note
from server_sim.execute.executor import Executor
from server_sim.execute.outcome import Outcome
from server_sim.execute.program import ProgramRunner
from server_sim.server import Server
from server_sim.statement import Statement, StatementKind

from .results import StepResult
from .sessions import MasterSession
from .unsafe import UnsafeReason

# Runs one statement of a body through the pipeline, with the unsafe reasons it carries
# from earlier CALLs and whether the CALL may wait and run again; the outcome when it ran.
SubStatement = Callable[[MasterSession, Statement, StepResult, frozenset[UnsafeReason], bool], "Outcome | None"]
# The unsafe reasons decide_logging_format sets from the transaction's state.
_STATE_REASONS = frozenset({UnsafeReason.NONTRANS_AFTER_TRANS, UnsafeReason.MIXED_STATEMENT})


def error_of(condition: Condition) -> SqlError:
    """The error a statement of the body failed with, to be handled or to end the CALL."""
    error = next((code for code in ErrorCode if code.code == condition.code and code.error_name == condition.name), None)
    error = error or next(code for code in ErrorCode if code.code == condition.code)
    return SqlError(error, message=condition.message)


class CallHost:
    """One CALL's host for the program runner: the session it runs in and its step's result."""

    def __init__(self, server: Server, executor: Executor, sub_statement: SubStatement, ms: MasterSession, result: StepResult) -> None:
        self.server = server
        self.executor = executor
        self.sub_statement = sub_statement
        self.ms = ms
        self.result = result
        self.source: SqlStatement | None = None
        # Whether a statement of the body changed something running it again would change
        # twice: rows, the binlog caches, user variables.
        self.changed = False

    def starting(self, source: SqlStatement) -> None:
        self.source = source

    def _sticky(self) -> set[UnsafeReason] | None:
        """The reasons the running statement keeps across the session's CALLs (MariaDB)."""
        if self.source is None or not self.server.flavor.routine_unsafe_flags_stick:
            return None
        kept = self.ms.routine_unsafe.setdefault(id(self.source), (self.source, set()))
        return kept[1]
    def _run(self, statement: Statement) -> Outcome | None:
        sub = StepResult(self.result.index, self.result.session, statement.sql)
        sticky = self._sticky()
        outcome = self.sub_statement(self.ms, statement, sub, frozenset(sticky or ()), not self.changed)
        if (outcome is not None and outcome.changes) or sub.logged_to or statement.kind is StatementKind.SET:
            self.changed = True
        if sticky is not None and sub.decision is not None:
            sticky.update(reason for reason in sub.decision.unsafe if reason in _STATE_REASONS)
        result = self.result
        result.statements.append(sub)
        result.notes.extend(sub.notes)
        result.logged_to.extend(sub.logged_to)
        result.unsafe.extend(reason for reason in sub.unsafe if reason not in result.unsafe)
        result.reads.extend(table for table in sub.reads if table not in result.reads)
        result.writes.extend(table for table in sub.writes if table not in result.writes)
        result.affected_rows = sub.affected_rows
        if sub.logged_as != "none":
            result.logged_as = sub.logged_as
        if sub.decision is not None:
            result.decision = sub.decision
        if sub.error is not None:
            raise error_of(sub.error)
        return outcome

    def run_statement(self, statement: Statement) -> None:
        self._run(statement)

    def query(self, statement: Statement) -> list[tuple]:
        outcome = self._run(statement)
        return list(outcome.rows or []) if outcome is not None else []

    def evaluate(self, trees: list[exp.Expression]) -> list[object]:
        """Values of a body's expressions; one that calls a stored function is run as the
        SELECT of it, where the executor puts the function in."""
        session = self.ms.session
        context = self.server.statement_context(session, self.server.now())
        routines = self.server.catalog.routines
        if routines and any((RoutineKind.FUNCTION.value, node.name.lower()) in routines for tree in trees for node in tree.find_all(exp.Anonymous)):
            select = exp.select(*(tree.copy() for tree in trees))
            outcome = self.executor.run(session, Statement(select.sql(dialect="mysql"), StatementKind.SELECT, select), context)
            if outcome.error is not None:
                raise outcome.error
            assert outcome.rows is not None
            return list(outcome.rows[0])
        return self.executor.evaluate(session, context, trees)

    def assign_row(self, column: str, value: object) -> None:
        raise not_supported("SET NEW.column outside a trigger")  # the reader reads it only in triggers

    def set_user_variable(self, name: str, value: object) -> None:
        self.changed = True
        self.ms.session.user_variables[name] = value

    def warn(self, condition: Condition) -> None:
        self.result.notes.append(condition)

    def clear_warnings(self) -> None:
        self.result.notes.clear()

    def name_const_style(self) -> NameConstStyle:
        return name_const_style(self.server.flavor, self.ms.session.variables)


def run_call(host: CallHost, statement: Statement) -> None:
    """CALL p(args): 1305 for an unknown procedure, 1318 for a wrong number of arguments,
    1414 for an OUT or INOUT argument that is not a user variable."""
    call = statement.ast
    assert isinstance(call, exp.Anonymous)
    routine = host.server.catalog.routines.get((RoutineKind.PROCEDURE.value, call.name.lower()))
    qualified = f"{host.server.catalog.database}.{call.name}"
    if routine is None:
        raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST_PROCEDURE, qualified)
    arguments = list(call.expressions)
    if len(arguments) != len(routine.parameters):
        raise SqlError(ErrorCode.ER_SP_WRONG_NO_OF_ARGS, "PROCEDURE", qualified, len(routine.parameters), len(arguments))
    parameters = _parameters(host, routine, arguments, qualified)
    runner = ProgramRunner(host, parameters)
    try:
        runner.run(routine.body)
    except SqlError:
        if runner.line is not None and host.server.flavor.routine_error_line_note:
            host.warn(note(ErrorCode.ER_SP_STACK_TRACE, routine.line(runner.line), qualified))
        raise
    for parameter, argument in zip(routine.parameters, arguments):
        if parameter.mode is not ParameterMode.IN:
            host.set_user_variable(argument.name.lower(), parameters[parameter.name.lower()].value)


def _parameters(host: CallHost, routine: Routine, arguments: list[exp.Expression], qualified: str) -> dict[str, Variable]:
    values = host.evaluate([argument for argument, parameter in zip(arguments, routine.parameters) if parameter.mode is ParameterMode.IN])
    found: dict[str, Variable] = {}
    for position, (parameter, argument) in enumerate(zip(routine.parameters, arguments), start=1):
        variable = Variable(parameter.name, parameter.type)
        if parameter.mode is ParameterMode.IN:
            variable.assign(values.pop(0))
        elif not isinstance(argument, exp.Parameter):
            raise SqlError(ErrorCode.ER_SP_NOT_VAR_ARG, position, qualified)
        elif parameter.mode is ParameterMode.INOUT:
            variable.assign(host.ms.session.user_variables.get(argument.name.lower()))
        found[parameter.name.lower()] = variable
    return found
