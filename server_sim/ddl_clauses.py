"""The clauses of CREATE TABLE and ALTER TABLE the simulator reads.

sqlglot accepts many more clauses and table options than the executor carries out (and
other dialects' too). Each statement's tree is walked here before it runs: a clause, table
option or ALTER action the executor does not read is refused with 1235 naming it, so that
nothing reaches the catalog half-read.
"""

from __future__ import annotations

from sqlglot import exp

from .errors import not_supported

# The arguments of each node that the executor reads; any other argument set is refused.
CREATE_TABLE_ARGS = frozenset({"this", "kind", "expression", "exists", "properties"})
ALTER_TABLE_ARGS = frozenset({"this", "kind", "actions", "options"})

# Table options with their meaning in the model: ENGINE (the engine's capabilities: its
# transactions, logging and row order), AUTO_INCREMENT (the counter), TEMPORARY, LIKE.
MODELLED_TABLE_OPTIONS: tuple[type[exp.Property], ...] = (exp.EngineProperty, exp.AutoIncrementProperty)
CREATE_ONLY_OPTIONS: tuple[type[exp.Property], ...] = (exp.TemporaryProperty, exp.LikeProperty)
# Table options that change nothing the model holds: the default character set and
# collation of columns declared later (one collation rule is modelled) and the comment.
INERT_TABLE_OPTIONS: tuple[type[exp.Property], ...] = (exp.CharacterSetProperty, exp.CollateProperty, exp.SchemaCommentProperty)

# ALTER TABLE actions, by node type, with the arguments the executor reads of each.
ALTER_ACTIONS: dict[type[exp.Expression], frozenset[str]] = {
    exp.ColumnDef: frozenset({"this", "kind", "constraints", "position"}),  # ADD [COLUMN]
    exp.ModifyColumn: frozenset({"this", "rename_from"}),  # CHANGE / MODIFY [COLUMN]
    exp.RenameColumn: frozenset({"this", "to"}),  # RENAME COLUMN a TO b
    exp.AlterRename: frozenset({"this"}),  # RENAME [TO | AS] name
    exp.Drop: frozenset({"kind", "tables"}),  # DROP COLUMN / INDEX / FOREIGN KEY
    exp.DropPrimaryKey: frozenset(),
    exp.AddConstraint: frozenset({"expressions"}),
    exp.AlterColumn: frozenset({"this", "default", "drop"}),  # ALTER COLUMN SET/DROP DEFAULT
}
DROPPABLE = frozenset({"COLUMN", "INDEX", "FOREIGN KEY"})

# The arguments read of each key or constraint of a table definition.
KEY_ARGS: dict[type[exp.Expression], frozenset[str]] = {
    exp.PrimaryKey: frozenset({"expressions", "include", "options"}),
    exp.UniqueColumnConstraint: frozenset({"this", "index_type", "options"}),
    exp.IndexColumnConstraint: frozenset({"this", "expressions", "index_type", "options"}),
    exp.Constraint: frozenset({"this", "expressions"}),
    exp.ForeignKey: frozenset({"expressions", "reference"}),
    exp.Reference: frozenset({"this", "options"}),
}
# Index types and options without effect on what the model holds: every modelled engine
# answers key lookups the same way whatever structure holds the key.
INERT_INDEX_TYPES = frozenset({"BTREE"})


def _sql(node: exp.Expression) -> str:
    """The node as MySQL text; its kind when it cannot be written (an option sqlglot read
    for another dialect)."""
    try:
        return node.sql(dialect="mysql")
    except Exception:  # noqa: BLE001 - any failure to write it: name it by its kind
        return node.key.upper()


def refuse_unread(node: exp.Expression, read: frozenset[str], what: str) -> None:
    """1235 for the first argument of `node` that is set and not in `read`."""
    for name, value in node.args.items():
        if name in read or value is None or value is False or value == []:
            continue
        raise not_supported(f"{what} with {name.upper().replace('_', ' ')} ({_sql(node)!r})")


def check_table_option(option: exp.Expression, creating: bool) -> None:
    """1235 for a table option the model neither carries out nor may leave aside."""
    if isinstance(option, MODELLED_TABLE_OPTIONS + INERT_TABLE_OPTIONS):
        return
    if creating and isinstance(option, CREATE_ONLY_OPTIONS):
        return
    raise not_supported(f"table option {_sql(option)}")


def check_key(node: exp.Expression) -> None:
    """1235 for a key clause the model does not read (a prefix is refused where keys are built)."""
    read = KEY_ARGS.get(type(node))
    if read is None:
        raise not_supported(f"table element {_sql(node)}")
    refuse_unread(node, read, "key")
    index_type = node.args.get("index_type")
    if index_type and str(index_type).upper() not in INERT_INDEX_TYPES:
        raise not_supported(f"index type USING {str(index_type).upper()} ({_sql(node)!r})")
    include = node.args.get("include")
    if isinstance(include, exp.Expression):
        refuse_unread(include, frozenset({"with_storage"}), "key")
    for option in node.args.get("options") or []:
        if isinstance(option, exp.IndexConstraintOption):
            refuse_unread(option, frozenset({"comment", "using"}), "index option")
            using = option.args.get("using")
            if using and str(using).upper() not in INERT_INDEX_TYPES:
                raise not_supported(f"index type USING {str(using).upper()} ({_sql(node)!r})")
        elif not isinstance(node, exp.Reference):
            raise not_supported(f"key option {_sql(option)}")
    for part in node.expressions:
        if type(part) in KEY_ARGS:
            check_key(part)


def ignored_primary_key_names(elements: list[exp.Expression]) -> list[str]:
    """The names `CONSTRAINT name PRIMARY KEY` gives among `elements`: the key is PRIMARY
    whatever it is called (MariaDB says so in Warning 1280)."""
    return [node.name for node in elements if isinstance(node, exp.Constraint) and any(isinstance(e, exp.PrimaryKey) for e in node.expressions)]


def check_create_table(tree: exp.Create) -> None:
    """Every clause and table option of a CREATE TABLE is one the executor reads."""
    refuse_unread(tree, CREATE_TABLE_ARGS, "CREATE TABLE")
    properties = tree.args.get("properties")
    for option in properties.expressions if properties else []:
        check_table_option(option, creating=True)
    schema = tree.this
    for element in schema.expressions if isinstance(schema, exp.Schema) else []:
        if not isinstance(element, exp.ColumnDef):
            check_key(element)


def check_alter_table(tree: exp.Alter) -> None:
    """Every clause, option and action of an ALTER TABLE is one the executor reads."""
    refuse_unread(tree, ALTER_TABLE_ARGS, "ALTER TABLE")
    for option in tree.args.get("options") or []:
        check_table_option(option, creating=False)
    for action in tree.args.get("actions") or []:
        read = ALTER_ACTIONS.get(type(action))
        if read is None:
            raise not_supported(f"ALTER TABLE action {_sql(action)!r}")
        refuse_unread(action, read, "ALTER TABLE action")
        if isinstance(action, exp.Drop) and (action.kind or "").upper() not in DROPPABLE:
            raise not_supported(f"ALTER TABLE DROP {action.kind} ({_sql(action)!r})")
        if isinstance(action, exp.ModifyColumn):
            refuse_unread(action.this, ALTER_ACTIONS[exp.ColumnDef], "ALTER TABLE action")
        if isinstance(action, exp.AddConstraint):
            for constraint in action.expressions:
                check_key(constraint)


# CREATE [UNIQUE] INDEX and DROP INDEX: the arguments read of their trees.
CREATE_INDEX_ARGS = frozenset({"this", "kind", "unique"})
INDEX_ARGS = frozenset({"this", "table", "params"})
INDEX_PARAMETER_ARGS = frozenset({"columns", "with_storage"})
DROP_INDEX_ARGS = frozenset({"kind", "tables", "cluster"})


def index_statement_as_alter(tree: exp.Create | exp.Drop) -> exp.Alter:
    """CREATE [UNIQUE] INDEX name ON t (cols) / DROP INDEX name ON t as the ALTER TABLE the
    server carries them out as (ADD [UNIQUE] KEY name (cols) / DROP INDEX name)."""
    if isinstance(tree, exp.Drop):
        refuse_unread(tree, DROP_INDEX_ARGS, "DROP INDEX")
        table = tree.args["cluster"].this if isinstance(tree.args.get("cluster"), exp.OnProperty) else None
        if not isinstance(table, exp.Table):
            raise not_supported(f"DROP INDEX without ON table ({_sql(tree)!r})")
        action: exp.Expression = exp.Drop(kind="INDEX", tables=list(tree.args.get("tables") or []))
        return exp.Alter(this=table.copy(), kind="TABLE", actions=[action])
    refuse_unread(tree, CREATE_INDEX_ARGS, "CREATE INDEX")
    index = tree.this
    refuse_unread(index, INDEX_ARGS, "CREATE INDEX")
    params = index.args.get("params")
    refuse_unread(params, INDEX_PARAMETER_ARGS, "CREATE INDEX")
    columns = []
    for part in params.args.get("columns") or []:
        column = part.this if isinstance(part, exp.Ordered) else part
        prefix = prefix_part(column)
        if prefix is not None:
            columns.append(prefix)
            continue
        if not isinstance(column, exp.Column):
            raise not_supported(f"key part {_sql(part)} (an expression)")
        columns.append(column.copy())
    if tree.args.get("unique"):
        key: exp.Expression = exp.UniqueColumnConstraint(this=exp.Schema(this=index.this.copy(), expressions=columns))
    else:
        key = exp.IndexColumnConstraint(this=index.this.copy(), expressions=columns)
    return exp.Alter(this=index.args["table"].copy(), kind="TABLE", actions=[exp.AddConstraint(expressions=[key])])


def prefix_part(node: exp.Expression) -> exp.Expression | None:
    """A CREATE INDEX key part sqlglot reads as a call (`c(8)`) as the column prefix it is."""
    if isinstance(node, exp.Anonymous) and len(node.expressions) == 1 and isinstance(node.expressions[0], exp.Literal):
        return exp.ColumnPrefix(this=exp.to_identifier(node.name), expression=node.expressions[0].copy())
    return None
