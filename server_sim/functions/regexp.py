"""Regular expressions: REGEXP / RLIKE (NOT REGEXP too), MySQL's REGEXP_LIKE, and
REGEXP_INSTR, REGEXP_SUBSTR and REGEXP_REPLACE, each written once in Python (native.py
runs it on either evaluator).

MySQL 8.0 matches with ICU, MariaDB 10.11 with PCRE2, the simulator with Python's `re`.
The three agree on a common core, and only that is modelled: literals, `.`, `^`, `$`,
`|`, groups `(...)` and `(?:...)`, the quantifiers `*`, `+`, `?` and `{n}`, `{n,}`,
`{n,m}` (lazy with a `?` after), bracket sets with ranges and the POSIX classes alpha,
digit, alnum, space, blank and xdigit, and the escapes `\\d \\w \\s \\b` (and their capitals),
`\\n`, `\\t` and an escaped punctuation mark. Anything else in a pattern (back references,
look-around, named groups, inline options, `\\p{..}`, ICU's nested and intersected sets,
MariaDB's `[[:<:]]`, a brace that is no quantifier, a pattern the servers reject), text
outside ASCII and a control character other than tab and newline are refused (1235)
naming what, rather than matched by rules that may differ.

Case: the servers match as the arguments' collation compares. The collations the
simulator models for text ignore case (a _bin or _cs column is refused where it is
defined, a binary column where it reaches a string function), so matching ignores case
unless MySQL's match_type says 'c'. MariaDB has no REGEXP_LIKE and only the short forms
of the other three; its REGEXP_SUBSTR gives '' where MySQL's gives NULL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from sqlglot import exp

from ..declined import Declined
from ..errors import ErrorCode, SqlError
from ..flavor import Flavor
from ..operands import Operand
from .library import Compiling, SqlFunction, Translating
from .native import INTEGER, TEXT, native
from .unmodelled import Unmodelled

_ESCAPES = frozenset("dDwWsSbB")  # the same classes and word bounds on ASCII text
_CLASS_ESCAPES = frozenset("dDwWsS")
_POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f"}
_CASED_POSIX = {"upper": "A-Z", "lower": "a-z"}  # under ignored case the engines disagree on these
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ ")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")


class _Pattern:
    """One pattern's translation into Python's syntax, refusing what is outside the core."""

    def __init__(self, pattern: str, function: str, cased: bool) -> None:
        self.text, self.function, self.at = pattern, function, 0
        self.cased = cased  # a case-sensitive match: [:upper:] and [:lower:] mean the same to every engine

    def refuse(self, what: str) -> Unmodelled:
        return Unmodelled(f"{self.function}() of the pattern {self.text!r}: {what}")

    def translate(self) -> str:
        if not self.text:
            raise self.refuse("an empty pattern (MySQL rejects it)")
        _check_text(self.text, self.refuse)
        out: list[str] = []
        repeatable = False  # whether the last item may take a quantifier
        depth = 0
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "\\":
                out.append(self._escape(_ESCAPES, inside=False))
                repeatable = out[-1] not in ("\\b", "\\B")
            elif char == "[":
                out.append(self._bracket())
                repeatable = True
            elif char == "(":
                if self.text.startswith("(?", self.at):
                    if not self.text.startswith("(?:", self.at):
                        raise self.refuse("a (? construct other than (?:")
                    out.append("(?:")
                    self.at += 2
                else:
                    out.append("(")
                depth += 1
                repeatable = False
                self.at += 1
                continue
            elif char == ")":
                depth -= 1
                if depth < 0:
                    raise self.refuse("an unmatched ) (the servers reject it)")
                out.append(")")
                repeatable = True
            elif char in "*+?{":
                if not repeatable:
                    raise self.refuse("a quantifier that repeats nothing (the servers reject it)")
                out.append(self._quantifier())
                repeatable = False
                continue
            elif char in ".":
                out.append(char)
                repeatable = True
            elif char in "^$|":
                out.append(char)
                repeatable = False
            elif char in "]}":
                raise self.refuse(f"an unescaped {char}")
            else:
                out.append(re.escape(char))
                repeatable = True
            self.at += 1
        if depth:
            raise self.refuse("an unclosed ( (the servers reject it)")
        return "".join(out)

    def _escape(self, allowed: frozenset[str], inside: bool) -> str:
        """`\\x` at the cursor, moved past it."""
        if self.at + 1 >= len(self.text):
            raise self.refuse("a \\ at its end")
        char = self.text[self.at + 1]
        self.at += 2 if inside else 1  # outside, the main loop moves past the last character
        if char in allowed or char in "nt":
            return "\\" + char
        if char in _PUNCTUATION:
            return re.escape(char)
        raise self.refuse(f"the escape \\{char}")

    def _quantifier(self) -> str:
        char = self.text[self.at]
        if char == "{":
            found = _QUANTIFIER.match(self.text, self.at)
            if found is None:
                raise self.refuse("a { that is no quantifier {n}, {n,} or {n,m}")
            low, high = int(found.group(1)), found.group(3)
            if high and int(high) < low:
                raise self.refuse("a quantifier {n,m} with m below n (the servers reject it)")
            text, self.at = found.group(0), found.end()
        else:
            text, self.at = char, self.at + 1
        if self.text.startswith("?", self.at):
            text, self.at = text + "?", self.at + 1
        if self.at < len(self.text) and self.text[self.at] in "*+?{":
            raise self.refuse("a quantifier after a quantifier")
        return text

    def _bracket(self) -> str:
        """`[...]` at the cursor, left on its closing bracket."""
        start = self.at
        self.at += 1
        out = ["["]
        if self.text.startswith("^", self.at):
            out.append("^")
            self.at += 1
        if self.text.startswith("]", self.at):
            raise self.refuse("a ] first in a bracket set")
        previous: str | None = None  # the last single character, which may start a range
        while True:
            if self.at >= len(self.text):
                self.at = start
                raise self.refuse("an unclosed [ (the servers reject it)")
            char = self.text[self.at]
            if char == "]":
                out.append("]")
                return "".join(out)
            if self.text.startswith(("&&", "--", "||", "~~"), self.at):
                raise self.refuse(f"{self.text[self.at:self.at + 2]} in a bracket set (ICU reads set operations)")
            if char == "[":
                out.append(self._posix_class())
                previous = None
                continue
            if char == "\\":
                item = self._escape(_CLASS_ESCAPES, inside=True)
                out.append(item)
                previous = item[-1] if len(item) == 2 and item[1] in _PUNCTUATION else None
                continue
            if char == "-" and previous is not None and self.at + 1 < len(self.text) and self.text[self.at + 1] != "]":
                end = self.text[self.at + 1]
                if end in "[\\":
                    raise self.refuse("a range ending in a class or an escape")
                if end < previous:
                    raise self.refuse(f"the range {previous}-{end} (the servers reject it)")
                out.append("-" + re.escape(end))
                self.at += 2
                previous = None
                continue
            out.append(re.escape(char))
            previous = char
            self.at += 1

    def _posix_class(self) -> str:
        found = re.compile(r"\[:(\w+):\]").match(self.text, self.at)
        if found is None:
            raise self.refuse("a [ inside a bracket set (ICU reads a nested set)")
        name = found.group(1)
        members = _POSIX.get(name) or (_CASED_POSIX.get(name) if self.cased else None)
        if members is None:
            raise self.refuse(f"the class [:{name}:]")
        self.at = found.end()
        return members


def _check_text(text: str, refuse: Callable[[str], Unmodelled]) -> None:
    if not text.isascii():
        raise refuse("text outside ASCII")
    if any(ord(char) < 32 and char not in "\t\n" or ord(char) == 127 for char in text):
        raise refuse("a control character other than tab and newline (ICU's line ends differ)")


@lru_cache(maxsize=512)
def _compiled(pattern: str, function: str, match_type: str) -> re.Pattern[str]:
    """The pattern compiled under MySQL's match_type letters (the last of c and i wins;
    neither: the collation's, which ignores case)."""
    cased, flags = False, re.ASCII
    for letter in match_type:
        if letter == "c":
            cased = True
        elif letter == "i":
            cased = False
        elif letter == "m":
            flags |= re.MULTILINE
        elif letter == "n":
            flags |= re.DOTALL
        elif letter != "u":  # only \n ends a line: the only line end modelled
            raise Unmodelled(f"{function}() with the match_type {match_type!r}")
    if not cased:
        flags |= re.IGNORECASE
    translated = _Pattern(pattern, function, cased).translate()
    try:
        return re.compile(translated, flags)
    except re.error as error:
        raise Unmodelled(f"{function}() of the pattern {pattern!r}: {error} (the servers reject it)") from None


def _subject(text: str, function: str) -> str:
    _check_text(text, lambda what: Unmodelled(f"{function}() of a subject with {what}"))
    return text


def _start(text: str, position: int, pattern: str, function: str) -> int:
    """The 0-based index a search from `position` starts at."""
    if position < 1 or position > len(text) + 1:
        raise Unmodelled(f"{function}() from position {position}, outside the subject (MySQL's error 3686)")
    if position > 1 and re.search(r"\\[bB]|\^", pattern):
        raise Unmodelled(f"{function}() from position {position} with an anchor or word bound (where the engines start reading differs)")
    return position - 1


def _matches(compiled: re.Pattern[str], text: str, start: int, count: int | None, function: str) -> list[re.Match[str]]:
    """The first `count` matches from `start` (every one for None); an empty match beyond
    the first is refused (the engines step past it differently)."""
    found: list[re.Match[str]] = []
    for match in compiled.finditer(text, start):
        if found and (match.start() == match.end() or found[0].start() == found[0].end()):
            raise Unmodelled(f"{function}() of a pattern that matches the empty string more than once")
        found.append(match)
        if count is not None and len(found) == count:
            break
    return found


def regexp_like(text: str, pattern: str, match_type: str = "") -> int:
    compiled = _compiled(pattern, "REGEXP_LIKE", match_type)
    return int(compiled.search(_subject(text, "REGEXP_LIKE")) is not None)


def regexp_instr(text: str, pattern: str, position: int = 1, occurrence: int = 1, option: int = 0, match_type: str = "") -> int:
    compiled = _compiled(pattern, "REGEXP_INSTR", match_type)
    start = _start(_subject(text, "REGEXP_INSTR"), position, pattern, "REGEXP_INSTR")
    if occurrence < 1 or option not in (0, 1):
        raise Unmodelled(f"REGEXP_INSTR() with occurrence {occurrence} and return option {option}")
    found = _matches(compiled, text, start, occurrence, "REGEXP_INSTR")
    if len(found) < occurrence:
        return 0
    return (found[-1].end() if option else found[-1].start()) + 1


def regexp_substr(text: str, pattern: str, position: int = 1, occurrence: int = 1, match_type: str = "", missing: str | None = None) -> str | None:
    compiled = _compiled(pattern, "REGEXP_SUBSTR", match_type)
    start = _start(_subject(text, "REGEXP_SUBSTR"), position, pattern, "REGEXP_SUBSTR")
    if occurrence < 1:
        raise Unmodelled(f"REGEXP_SUBSTR() with occurrence {occurrence}")
    found = _matches(compiled, text, start, occurrence, "REGEXP_SUBSTR")
    return found[-1].group(0) if len(found) == occurrence else missing


def regexp_replace(text: str, pattern: str, replacement: str, position: int = 1, occurrence: int = 0, match_type: str = "") -> str:
    """Every match from `position` replaced (occurrence 0), or the occurrence-th only."""
    compiled = _compiled(pattern, "REGEXP_REPLACE", match_type)
    start = _start(_subject(text, "REGEXP_REPLACE"), position, pattern, "REGEXP_REPLACE")
    if "\\" in replacement or "$" in replacement:
        raise Unmodelled(f"REGEXP_REPLACE() with the replacement {replacement!r} (group references differ: $n in MySQL, \\n in MariaDB)")
    if occurrence < 0:
        raise Unmodelled(f"REGEXP_REPLACE() with occurrence {occurrence}")
    found = _matches(compiled, text, start, occurrence or None, "REGEXP_REPLACE")
    chosen = found if occurrence == 0 else found[occurrence - 1 : occurrence]
    pieces, last = [], 0
    for match in chosen:
        pieces += [text[last : match.start()], replacement]
        last = match.end()
    return "".join(pieces) + text[last:]


_LIKE = native("REGEXP_LIKE", regexp_like, [TEXT, TEXT, TEXT], "BIGINT", optional=1, exposed=False, folds_case=True)
_INSTR = native("REGEXP_INSTR", regexp_instr, [TEXT, TEXT, INTEGER, INTEGER, INTEGER, TEXT], "BIGINT", optional=4, exposed=False, folds_case=True)
_SUBSTR_MYSQL = native("REGEXP_SUBSTR", regexp_substr, [TEXT, TEXT, INTEGER, INTEGER, TEXT], "VARCHAR", optional=3, exposed=False, folds_case=True)
_SUBSTR_MARIADB = native("REGEXP_SUBSTR_EMPTY", lambda text, pattern: regexp_substr(text, pattern, missing=""), [TEXT, TEXT], "VARCHAR", exposed=False, folds_case="REGEXP_SUBSTR")
_REPLACE = native("REGEXP_REPLACE", regexp_replace, [TEXT, TEXT, TEXT, INTEGER, INTEGER, TEXT], "VARCHAR", optional=3, exposed=False, folds_case=True)


def _entry(
    node_type: type[exp.Expression], name: str, keys: tuple[str, ...], short: int, chosen: Callable[[Flavor], SqlFunction], fast: SqlFunction | None
) -> SqlFunction:
    """A regular-expression function: its arguments in MySQL's order, the implementation
    the server's flavor `chosen`; MariaDB takes the first `short` only (1582 for more;
    REGEXP_LIKE it lacks: 1305). The fast path runs `fast` on the short form, where that
    is the same on both servers (None: DuckDB's path)."""

    def arguments(node: exp.Expression) -> list[exp.Expression]:
        if isinstance(node, exp.Anonymous):
            return list(node.expressions)
        found = [node.args.get(key) for key in keys]
        while found and found[-1] is None:
            found.pop()
        if any(argument is None for argument in found):
            raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, name)
        return found  # type: ignore[return-value]

    def translate(node: exp.Expression, translation: Translating) -> exp.Expression:
        given = arguments(node)
        flavor = translation.context.flavor
        if len(given) > short and not flavor.regexp_match_options:
            if name == "REGEXP_LIKE":
                raise SqlError(ErrorCode.ER_SP_DOES_NOT_EXIST, f"{translation.context.database}.{name}")
            raise SqlError(ErrorCode.ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, name)
        return chosen(flavor).duckdb(exp.Anonymous(this=name, expressions=given), translation)  # type: ignore[misc]

    def evaluate(node: exp.Expression, compiler: Compiling) -> Operand:
        given = arguments(node)
        if len(given) > short or fast is None:
            raise Declined
        return fast.python(exp.Anonymous(this=name, expressions=given), compiler)  # type: ignore[misc]

    return SqlFunction(names=(name,), nodes=(node_type,), duckdb=translate, python=evaluate)


def _substr(flavor: Flavor) -> SqlFunction:
    """REGEXP_SUBSTR: a miss is NULL on MySQL, '' on MariaDB."""
    return _SUBSTR_MYSQL if flavor.regexp_match_options else _SUBSTR_MARIADB


REGEXPS: tuple[SqlFunction, ...] = (
    _entry(exp.RegexpLike, "REGEXP_LIKE", ("this", "expression", "flag"), 2, lambda flavor: _LIKE, _LIKE),
    _entry(exp.RegexpInstr, "REGEXP_INSTR", ("this", "expression", "position", "occurrence", "option", "parameters"), 2, lambda flavor: _INSTR, _INSTR),
    _entry(exp.RegexpSubstr, "REGEXP_SUBSTR", ("this", "expression", "position", "occurrence", "parameters"), 2, _substr, None),
    _entry(exp.RegexpReplace, "REGEXP_REPLACE", ("this", "expression", "replacement", "position", "occurrence", "modifiers"), 3, lambda flavor: _REPLACE, _REPLACE),
)
