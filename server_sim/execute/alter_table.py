"""ALTER TABLE (and CREATE INDEX / DROP INDEX, which the server carries out as ALTER
TABLE): the actions applied to a copy of the table, checked against the rows already
stored, then the storage and the catalog changed together."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from ..catalog import column_from_definition, key_from_constraint
from ..charsets import resolve_collation
from ..table import Column, DefaultKind, Key, KeyKind, Table
from ..ddl_clauses import ignored_primary_key_names
from ..errors import Condition, ErrorCode, SqlError, not_supported
from ..type_declarations import deprecated_type_syntax
from ..expressions import constant_value, is_constant
from ..foreign_keys import foreign_key_clauses, is_foreign_key_clause
from .foreign_key_ddl import add_foreign_keys, drop_foreign_key, refuse_changes_to_constrained
from .rename import check_rename, rename_table
from .run import StatementRun
from .table_copy import Alteration, copy_rows


def alter_table(run: StatementRun) -> None:
    """ALTER TABLE: the actions applied to a copy of the definition, then the rows copied
    into it in the old table's scan order, as the server's copying ALTER does: column
    values converted, keys checked, rows renumbered in the new engine's order."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Alter)
    if run.server.flavor.deprecated_type_syntax_warns:
        run.outcome.warnings += deprecated_type_syntax(ast)  # the parser's, before any other
    table = run.table(ast.this)
    alteration = Alteration(table.copy(), {column.key: column.key for column in table.columns}, utf8mb4_collation=run.server.flavor.utf8mb4_collation, blob_keys_by_prefix=run.server.flavor.blob_keys_by_prefix)
    for option in ast.args.get("options") or []:
        _table_option(run, alteration, option)
    for action in ast.args.get("actions") or []:
        _alter_action(alteration, action)
    alteration.table.take_flavor_types(run.server.flavor.json_column_is_text)
    add_foreign_keys(run, alteration.table, alteration.foreign_keys, creating=False)
    alteration.builder.check()
    _refuse_unmodelled_foreign_key_changes(run, table, alteration)
    if alteration.new_name is not None:
        check_rename(run, table, alteration.new_name)
    copy_rows(run, table, alteration)
    if alteration.new_name is not None:
        rename_table(run, table, alteration.new_name.name)
    added = [key for action in ast.args.get("actions") or [] if isinstance(action, exp.AddConstraint) for key in action.expressions]
    warn_ignored_key_names(run, added)


def _refuse_unmodelled_foreign_key_changes(run: StatementRun, table: Table, alteration: Alteration) -> None:
    """An engine change, a rename or a changed or dropped column of a table in a FOREIGN
    KEY: refused (1235), as what the server then does to the constraint is not modelled."""
    new = alteration.table
    constrained = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    constrained |= {c.lower() for _, fk in run.catalog.referencing(table) for c in fk.parent_columns} if run.catalog.foreign_keys_defined else set()
    changed = {old for new_key, old in alteration.origin.items() if old is not None and (new_key != old or new.column(new_key) != table.column(old))}
    dropped = {c.key for c in table.columns} - {old for old in alteration.origin.values() if old is not None}
    if new.engine != table.engine or alteration.new_name is not None or (changed | dropped) & constrained:
        refuse_changes_to_constrained(run, table, "ALTER TABLE changing the engine, the name or a constrained column")


def warn_ignored_key_names(run: StatementRun, elements: list[exp.Expression]) -> None:
    """Warning 1280 for each name a `CONSTRAINT name PRIMARY KEY` gives, where the flavor warns."""
    if not run.server.flavor.primary_key_name_warning:
        return
    code = ErrorCode.ER_WRONG_NAME_FOR_INDEX
    for name in ignored_primary_key_names(elements):
        run.outcome.warnings.append(Condition("Warning", code.code, code.error_name, f"Name '{name}' ignored for PRIMARY key."))


def _table_option(run: StatementRun, alteration: Alteration, option: exp.Expression) -> None:
    """ENGINE= changes the engine (its transactions, logging and row order); AUTO_INCREMENT=
    the counter; the options without meaning to the model are left (ddl_clauses says which)."""
    if isinstance(option, exp.EngineProperty):
        alteration.table.engine = run.server.engines.get(option.name)
    elif isinstance(option, exp.AutoIncrementProperty):
        alteration.auto_increment = int(option.this.name)
    elif isinstance(option, exp.CharacterSetProperty):  # the default of the text columns added later
        alteration.table.collation = resolve_collation(option.name, None, None, alteration.utf8mb4_collation)
    elif isinstance(option, exp.CollateProperty):
        alteration.table.collation = resolve_collation(None, option.name, None, alteration.utf8mb4_collation)


def _alter_action(alteration: Alteration, action: exp.Expression) -> None:
    """One action of the statement, on the new definition (ddl_clauses refused the others)."""
    table = alteration.table
    if isinstance(action, exp.ColumnDef):
        _add_column(alteration, action)
    elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "COLUMN":
        for node in action.args.get("tables") or []:
            _drop_column(alteration, node.name)
    elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "INDEX":
        for node in action.args.get("tables") or []:
            drop_key(table, node.name)
    elif isinstance(action, exp.DropPrimaryKey):
        drop_key(table, "PRIMARY")
    elif isinstance(action, exp.AddConstraint):
        for constraint in action.expressions:
            if is_foreign_key_clause(constraint):
                alteration.foreign_keys.extend(foreign_key_clauses([constraint]))
            else:
                alteration.builder.add_key(key_from_constraint(constraint))
    elif isinstance(action, exp.Drop) and (action.kind or "").upper() == "FOREIGN KEY":
        for node in action.args.get("tables") or []:
            drop_foreign_key(table, node.name)
    elif isinstance(action, exp.AlterColumn):
        _alter_column_default(table, action)
    elif isinstance(action, exp.ModifyColumn):
        _change_column(alteration, action.args.get("rename_from") or action.this.this, action.this)
    elif isinstance(action, exp.RenameColumn):
        old = table.find_column(action.this.name)
        if old is None:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, action.this.name, table.name)
        _replace_column(alteration, old, dataclasses.replace(old, name=action.args["to"].name), None)
    elif isinstance(action, exp.AlterRename):
        alteration.new_name = action.this
    else:
        raise not_supported(f"ALTER TABLE action {action.sql(dialect='mysql')!r}")


def drop_key(table: Table, name: str) -> None:
    """DROP INDEX name / DROP PRIMARY KEY (the key named PRIMARY); 1091 when there is none."""
    key = next((k for k in table.keys if k.name.lower() == name.lower()), None)
    if key is None:
        raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, name)
    table.keys.remove(key)


def _add_column(alteration: Alteration, action: exp.ColumnDef) -> None:
    """ADD COLUMN [FIRST | AFTER col], with the keys its definition declares."""
    table, builder = alteration.table, alteration.builder
    column, keys = column_from_definition(action, alteration.charsets)
    builder.add_column(column, _position(table, action))
    alteration.origin[column.key] = None
    for kind in keys:
        builder.add_key(Key("PRIMARY" if kind is KeyKind.PRIMARY else "", kind, (column.name,)))


def _position(table: Table, definition: exp.ColumnDef) -> int | None:
    """Where FIRST / AFTER col puts a column (None: last); AFTER an unknown column is 1054."""
    position = definition.args.get("position")
    if position is None:
        return None
    if position.args.get("position") == "FIRST":
        return 0
    name = position.this.name
    if table.find_column(name) is None:
        raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, table.name)
    return table.column_index(name) + 1


def _change_column(alteration: Alteration, old_name: exp.Identifier, definition: exp.ColumnDef) -> None:
    """CHANGE old new type ... / MODIFY col type ... [FIRST | AFTER col]: the new definition
    in the old one's place (or the position given), its values converted when copied."""
    table = alteration.table
    old = table.find_column(old_name.name)
    if old is None:
        raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, old_name.name, table.name)
    column, keys = column_from_definition(definition, alteration.charsets)
    _replace_column(alteration, old, column, definition)
    for kind in keys:
        alteration.builder.add_key(Key("PRIMARY" if kind is KeyKind.PRIMARY else "", kind, (column.name,)))


def _replace_column(alteration: Alteration, old: Column, column: Column, definition: exp.ColumnDef | None) -> None:
    """`column` instead of `old`: at the position the definition gives, else in its place;
    the keys follow a new name; 1060 when another column has it."""
    table = alteration.table
    index = table.columns.index(old)
    table.columns.remove(old)
    if table.find_column(column.name) is not None:
        raise SqlError(ErrorCode.ER_DUP_FIELDNAME, column.name)
    position = _position(table, definition) if definition is not None else None
    table.columns.insert(index if position is None else position, column)
    alteration.origin[column.key] = alteration.origin.pop(old.key)
    table.keys = [
        dataclasses.replace(
            key,
            columns=tuple(column.name if c.lower() == old.key else c for c in key.columns),
            prefixes=tuple((column.name if c.lower() == old.key else c, n) for c, n in key.prefixes),
        )
        for key in table.keys
    ]


def _drop_column(alteration: Alteration, name: str) -> None:
    """DROP COLUMN takes the column out of every key; a key left empty goes too."""
    table = alteration.table
    column = table.find_column(name)
    if column is None:
        raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, name)
    table.columns.remove(column)
    del alteration.origin[column.key]
    table.keys = [dataclasses.replace(key, columns=tuple(c for c in key.columns if c.lower() != column.key)) for key in table.keys]
    table.keys = [key for key in table.keys if key.columns]


def _alter_column_default(table: Table, action: exp.AlterColumn) -> None:
    """ALTER COLUMN ... SET DEFAULT constant | DROP DEFAULT."""
    column = table.column(action.this.name)
    index = table.columns.index(column)
    if action.args.get("drop"):
        replaced = dataclasses.replace(column, default_kind=DefaultKind.NONE if not column.nullable else DefaultKind.VALUE, default=None)
    elif action.args.get("default") is not None:
        value = constant_value(action.args["default"]) if is_constant(action.args["default"]) else None
        if not is_constant(action.args["default"]):
            raise not_supported(f"DEFAULT expression {action.args['default'].sql(dialect='mysql')}")
        replaced = dataclasses.replace(column, default_kind=DefaultKind.VALUE, default=column.type.coerce(value, column.name))
    else:
        raise not_supported(f"ALTER COLUMN {action.sql(dialect='mysql')}")
    table.columns[index] = replaced
