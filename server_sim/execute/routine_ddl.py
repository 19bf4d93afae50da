"""CREATE and DROP of stored procedures and stored functions: the definitions live in the
catalog, read once from the statement's text. CREATE FUNCTION of a function not declared
DETERMINISTIC, NO SQL or READS SQL DATA needs log_bin_trust_function_creators (1418): the
binary log is always on in the servers modelled."""

from __future__ import annotations

from functools import lru_cache

from sqlglot import exp

from ..compound.routine import Routine, RoutineKind, parse_create_routine
from ..compound.reader import trigger_program
from ..errors import ErrorCode, SqlError
from ..statement import Statement, StatementKind
from .run import StatementRun

_MISSING = {RoutineKind.PROCEDURE: ErrorCode.ER_SP_DOES_NOT_EXIST_PROCEDURE, RoutineKind.FUNCTION: ErrorCode.ER_SP_DOES_NOT_EXIST}


@lru_cache(maxsize=256)
def routine_of(sql: str) -> Routine:
    """The definition a CREATE PROCEDURE / CREATE FUNCTION text gives (read once per text)."""
    return parse_create_routine(sql)


def check_body(statement: Statement) -> None:
    """Read a CREATE PROCEDURE, FUNCTION or TRIGGER's compound body as the server parses it,
    before the statement runs: 1064 or 1235 before its implicit commit, not after."""
    if statement.kind is StatementKind.CREATE_PROCEDURE or (statement.kind is StatementKind.CREATE_FUNCTION and statement.udf is None):
        routine_of(statement.sql)
    elif statement.trigger is not None and statement.trigger.compound is not None:
        trigger_program(statement.trigger.compound)


def create_routine(run: StatementRun) -> None:
    routine = routine_of(run.statement.sql)
    routines = run.catalog.routines
    if routine.key in routines:
        raise SqlError(ErrorCode.ER_SP_ALREADY_EXISTS, routine.kind.value, routine.name)
    # The replica's applier has every privilege, so it is trusted whatever the variable says
    # (sp_create_routine's PRIV_LOG_BIN_TRUSTED_SP_CREATOR test).
    trusted = run.server.global_variables.get("log_bin_trust_function_creators", "OFF") == "ON" or run.session.slave_thread
    if routine.kind is RoutineKind.FUNCTION and not routine.safe_for_binlog and not trusted:
        raise SqlError(ErrorCode.ER_BINLOG_UNSAFE_ROUTINE)
    routines[routine.key] = routine


def drop_routine(run: StatementRun, kind: RoutineKind) -> None:
    """DROP PROCEDURE / DROP FUNCTION [IF EXISTS] name: 1305, or its Note with IF EXISTS."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Drop)
    for node in ast.args.get("tables") or []:
        if run.catalog.routines.pop((kind.value, node.name.lower()), None) is not None:
            continue
        missing = SqlError(_MISSING[kind], f"{run.catalog.database}.{node.name}")
        if not ast.args.get("exists"):
            raise missing
        run.outcome.warnings.append(missing.condition("Note"))


def drop_procedure(run: StatementRun) -> None:
    drop_routine(run, RoutineKind.PROCEDURE)
