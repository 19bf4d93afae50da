"""The simulator's MySQL function library: every function and operator it evaluates, with
its DuckDB translation and its fast-path Python evaluation side by side (library.py says
the shape of an entry).

To add a function: write its entry (an `SqlFunction`) in the module of its kind, with
`duckdb` (how the Translator rewrites a call; None when sqlglot's DuckDB rendering is
already MySQL's) and `python` (how the fast path evaluates it; None to let DuckDB do it),
and list it in `FUNCTIONS` below. A function of its arguments alone is best one Python
implementation given to `native.native`, which makes both. Its cases go in
tests/server_sim/fixtures/functions_*.sql. The Translator (server_sim/expressions.py) and the
compiler (server_sim/mirror/compiler.py) both find it through `lookup`; a call of any
function not listed is refused, or is a loadable function (UDF).
"""

from __future__ import annotations

from sqlglot import exp

from .aes import AES
from .bits import BITS
from .builtin_names import BUILTIN_FUNCTIONS
from .context import CONTEXT_FUNCTIONS, GENERATORS, VARIABLES
from .control import CONTROL
from .dates import DATES
from .encodings import ENCODINGS
from .inet6 import INET6
from .division import DIVISION
from .json import JSON_FUNCTIONS
from .json_build import JSON_BUILDERS
from .json_modify import JSON_EDITS
from .like import LIKE
from .library import STRUCTURE, SqlFunction, mysql_name
from .native import NATIVES
from .numbers import ARITHMETIC, COMPARISONS, PORTABLE
from .regexp import REGEXPS
from .server_state import SERVER_CALLS, SERVER_STATE
from .stored_body import STORED_BODY
from .stored_result import STORED_RESULT
from .strings import STRINGS
from .text_portable import TEXT_PORTABLE
from .uuids import UUIDS
from .window import WINDOWS

FUNCTIONS: tuple[SqlFunction, ...] = (*CONTEXT_FUNCTIONS, *VARIABLES, *ARITHMETIC, *DIVISION, *COMPARISONS, *PORTABLE, *TEXT_PORTABLE, *STRINGS, *ENCODINGS, *INET6, *AES, *UUIDS, *REGEXPS, *BITS, *DATES, *CONTROL, *LIKE, *SERVER_STATE, *JSON_FUNCTIONS, *JSON_BUILDERS, *JSON_EDITS, *STORED_RESULT, *STORED_BODY, *WINDOWS)

# Every call the translations write: the server's generators, the library's Python
# implementations (native.py) and the DuckDB functions the translations use.
GENERATED_CALLS = frozenset({*GENERATORS, *NATIVES, *SERVER_CALLS, "list_value", "typeof", "hex", "error", "like_escape", "regexp_replace", "encode"})

_BY_NODE: dict[type[exp.Expression], SqlFunction] = {node: function for function in FUNCTIONS for node in function.nodes}
_BY_NAME: dict[str, SqlFunction] = {name: function for function in FUNCTIONS for name in function.names}

# The nodes the translation keeps as they are: the syntax, and the functions sqlglot's
# DuckDB rendering evaluates as MySQL does.
PORTABLE_NODES: tuple[type[exp.Expression], ...] = tuple(node for function in FUNCTIONS if function.portable for node in function.nodes)
# Nodes that are no named function call of their own (function_name gives them no name).
_UNNAMED = PORTABLE_NODES + STRUCTURE
# sqlglot's typed nodes for the functions named by the name MySQL gives them.
_NAMED_NODES: dict[type[exp.Expression], str] = {
    node: function.names[0] for function in FUNCTIONS if function.names and not function.portable for node in function.nodes
}


def function_name(node: exp.Expression) -> str | None:
    """The MySQL name of a function call node, upper-case, as sqlglot parsed it."""
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    named = _NAMED_NODES.get(type(node))
    if named is not None:
        return named
    if isinstance(node, exp.Func) and not isinstance(node, _UNNAMED):
        return mysql_name(node)
    return None


def lookup(node: exp.Expression) -> SqlFunction | None:
    """The library's entry for a call (or operator, or variable) node; None for syntax and
    for functions the library does not hold. Called on every node a statement translates,
    so it looks at a node's name only where `function_name` would give one."""
    function = _BY_NODE.get(type(node))
    if function is not None or not isinstance(node, exp.Func):
        return function
    if isinstance(node, exp.Anonymous):
        return _BY_NAME.get(node.name.upper())
    if isinstance(node, _UNNAMED):
        return None
    return _BY_NAME.get(node.sql_name().upper())


def is_udf_call(node: exp.Expression) -> bool:
    """A call of a function the server does not define: a UDF, if one is loaded. A server
    function the library does not model is not one (it is refused, not looked up as a UDF)."""
    if not isinstance(node, exp.Anonymous):
        return False
    name = node.name.upper()
    return name not in _BY_NAME and name not in BUILTIN_FUNCTIONS
