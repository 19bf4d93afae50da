"""Where a plain statement of a body reads its local variables: the places in its text the
server replaces with `NAME_CONST('name', value)` when it logs the statement.

A local variable shadows a column of the same name (the server resolves a name to the
variable first), except where only a column can stand: the targets of UPDATE's SET and of
ON DUPLICATE KEY UPDATE, INSERT's column list, qualified names."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import TokenType

from ..errors import not_supported
from ..statement import Statement
from .program import VariableReference
from .tokens import NAMES, tokenize


def variable_columns(tree: exp.Expression, names: set[str]) -> list[exp.Column]:
    """The unqualified column nodes of `tree` that are local variables of `names`."""
    assigned = {id(item.this) for node in tree.find_all(exp.Update, exp.OnConflict) for item in node.expressions if isinstance(item, exp.EQ)}
    return [
        node
        for node in tree.find_all(exp.Column)
        if not node.table and isinstance(node.this, exp.Identifier) and node.name.lower() in names and id(node) not in assigned
    ]


def find_references(text: str, statement: Statement, names: set[str]) -> tuple[VariableReference, ...]:
    """The variables `statement` (parsed from `text`) reads, with their places in `text`."""
    if statement.ast is None or not names:
        return ()
    columns = variable_columns(statement.ast, names)
    if not columns:
        return ()
    found = [_placed(text, node) for node in columns]
    if any(reference is None for reference in found):
        found = _by_tokens(text, columns)
    return tuple(sorted(found, key=lambda reference: reference.start))


def _placed(text: str, node: exp.Column) -> VariableReference | None:
    """The reference where the parser saw it, when its text is there."""
    meta = node.this.meta
    start, end = meta.get("start"), meta.get("end")
    if start is None or end is None:
        return None
    written = text[start : end + 1].strip("`").lower()
    if written != node.name.lower():
        return None
    return VariableReference(node.name.lower(), start, end + 1, isinstance(node.parent, (exp.Limit, exp.Offset)))


def _by_tokens(text: str, columns: list[exp.Column]) -> list[VariableReference]:
    """The references by token, when the statement parser read a rewritten text: every
    name token of a variable that is not part of a qualified name or a call, provided
    there are as many as the tree's references."""
    wanted = [node.name.lower() for node in columns]
    tokens = tokenize(text)
    found = []
    for index, token in enumerate(tokens):
        if token.token_type not in NAMES or token.text.lower() not in wanted:
            continue
        before = tokens[index - 1].token_type if index else None
        after = tokens[index + 1].token_type if index + 1 < len(tokens) else None
        if before in (TokenType.DOT, TokenType.PARAMETER) or after in (TokenType.DOT, TokenType.L_PAREN):
            continue
        found.append(VariableReference(token.text.lower(), token.start, token.end + 1))
    if sorted(reference.name for reference in found) != sorted(wanted):
        raise not_supported(f"local variables {sorted(set(wanted))} in {text!r} where the simulator cannot place them in the logged text")
    return found
