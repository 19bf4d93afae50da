"""CREATE DATABASE, DROP DATABASE and USE, as far as one modelled database holds them: the
names of other databases are known (a statement on their tables is refused, 1235), their
tables are not modelled."""

from __future__ import annotations

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported, note
from .run import StatementRun

# The server's own databases: never created or dropped by a statement the model runs.
SYSTEM_DATABASES = frozenset({"mysql", "information_schema", "performance_schema", "sys"})
_INERT_OPTIONS = (exp.CharacterSetProperty, exp.CollateProperty, exp.SchemaCommentProperty)


def _name(node: exp.Expression) -> str:
    """The database a CREATE/DROP DATABASE|SCHEMA or USE names (SCHEMA puts it in `db`)."""
    if node.name:
        return node.name
    database = node.args.get("db")
    return database.name if database is not None else ""


def create_database(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Create)
    properties = ast.args.get("properties")
    for option in properties.expressions if properties else []:
        if not isinstance(option, _INERT_OPTIONS):
            raise not_supported(f"database option {option.sql(dialect='mysql')}")
    name, catalog = _name(ast.this), run.catalog
    if name == catalog.database or name in catalog.databases or name.lower() in SYSTEM_DATABASES:
        if ast.args.get("exists"):
            run.outcome.warnings.append(note(ErrorCode.ER_DB_CREATE_EXISTS, name))
            return
        raise SqlError(ErrorCode.ER_DB_CREATE_EXISTS, name)
    catalog.databases.add(name)


def drop_database(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Drop)
    [node] = ast.args.get("tables") or [None]
    name, catalog = _name(node), run.catalog
    if name == catalog.database or name.lower() in SYSTEM_DATABASES:
        raise not_supported(f"DROP DATABASE {name} (the modelled database and the server's own stay)")
    if name in catalog.databases:
        catalog.databases.remove(name)
    elif ast.args.get("exists"):
        run.outcome.warnings.append(note(ErrorCode.ER_DB_DROP_EXISTS, name))
    else:
        raise SqlError(ErrorCode.ER_DB_DROP_EXISTS, name)


def use_database(run: StatementRun) -> None:
    """USE of the modelled database changes nothing; of another known one it is refused."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Use)
    name, catalog = _name(ast.this), run.catalog
    if name == catalog.database:
        return
    if name in catalog.databases or name.lower() in SYSTEM_DATABASES:
        raise not_supported(f"USE {name} (the simulator models one database, '{catalog.database}')")
    raise SqlError(ErrorCode.ER_BAD_DB_ERROR, name)
