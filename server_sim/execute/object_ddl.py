"""DDL on the catalog's other objects: CREATE/DROP TRIGGER (their place in the firing
order, FOLLOWS/PRECEDES) and CREATE/DROP FUNCTION ... SONAME (loadable functions; stored
functions are `routine_ddl`'s)."""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCode, SqlError, note
from ..compound.program import assigned_columns, row_references
from ..compound.reader import trigger_program
from ..statement import TriggerOrder
from ..udf import check_loadable
from .routine_ddl import create_routine
from .run import StatementRun


def create_trigger(run: StatementRun) -> None:
    definition = run.statement.trigger
    assert definition is not None
    catalog = run.catalog
    table = catalog.get(definition.table, run.session.thread_id)
    if table.temporary:
        raise SqlError(ErrorCode.ER_TRG_ON_VIEW_OR_TEMP_TABLE, table.name)
    if catalog.find_trigger(definition.name) is not None:
        raise SqlError(ErrorCode.ER_TRG_ALREADY_EXISTS, f"{catalog.database}.{definition.name}")
    references = definition.row_references()
    if definition.compound is not None:
        program = trigger_program(definition.compound)
        references = row_references(program)
        definition.check(references, assigns=bool(assigned_columns(program)))
    for version, name in references:
        if table.find_column(name) is None:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, version.value)
    siblings = catalog.triggers_of(table, definition.event, definition.timing)
    position = catalog.triggers.index(siblings[-1]) + 1 if siblings else len(catalog.triggers)
    if definition.order is not None:
        anchor = next((t for t in siblings if t.name.lower() == (definition.other or "").lower()), None)
        if anchor is None:
            raise SqlError(ErrorCode[run.server.flavor.referenced_trigger_error], definition.other)
        position = catalog.triggers.index(anchor) + (1 if definition.order is TriggerOrder.FOLLOWS else 0)
    catalog.triggers.insert(position, definition)


def drop_trigger(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Drop)
    for node in ast.args.get("tables") or []:
        trigger = run.catalog.find_trigger(node.name)
        if trigger is not None:
            run.catalog.triggers.remove(trigger)
        elif ast.args.get("exists"):
            run.outcome.warnings.append(note(ErrorCode.ER_TRG_DOES_NOT_EXIST))
        else:
            raise SqlError(ErrorCode.ER_TRG_DOES_NOT_EXIST)


def create_function(run: StatementRun) -> None:
    udf = run.statement.udf
    if udf is None:
        create_routine(run)  # a stored function
        return
    udfs = run.catalog.udfs
    if udf.name.lower() in udfs:
        if udf.if_not_exists:
            run.outcome.warnings.append(note(ErrorCode.ER_UDF_EXISTS, udf.name))
            return
        raise SqlError(ErrorCode.ER_UDF_EXISTS, udf.name)
    check_loadable(udf)
    udfs[udf.name.lower()] = udf


def drop_function(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Drop)
    for node in ast.args.get("tables") or []:
        if run.catalog.udfs.pop(node.name.lower(), None) is not None:
            continue
        if run.catalog.routines.pop(("FUNCTION", node.name.lower()), None) is not None:
            continue
        missing = SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{run.catalog.database}.{node.name}")
        if not ast.args.get("exists"):
            raise missing
        run.outcome.warnings.append(missing.condition("Note"))
