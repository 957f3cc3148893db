"""Gitignore-style globs matched without backtracking.

A ``.gitignore`` line is written by whoever wrote the repository; translated to a Python
regex, ``*a*a*a*a*a*a*a*a*a*a*a*a*a*a!`` against a 120-character path backtracks for hours.
Here a glob is a list of tokens and a path is matched by carrying the set of tokens reached
after each character (a Thompson simulation of the glob), so a match costs at most
(tokens) x (characters) steps, whatever the glob; those steps are charged to a
:class:`~agent_config_check.budget.MatchBudget`, and matching past it stops with
:class:`~agent_config_check.budget.BudgetSpentError`.

Syntax (git's ``wildmatch`` with ``WM_PATHNAME``): ``*`` any run of characters but ``/``,
``?`` one character but ``/``, ``[...]`` one character of a class (``[!...]`` or ``[^...]``
negated, ``a-z`` ranges, never ``/``), ``**/`` zero or more whole directories, a trailing
``/**`` everything inside, ``**`` elsewhere any run of characters, ``\\x`` the character ``x``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_config_check.budget import BudgetSpentError, MatchBudget

# Token kinds: a literal character, one character but '/', a class, a run without '/',
# zero or more directories ("**/"), any run at all.
_GLOB_LITERAL, _GLOB_ONE, _GLOB_CLASS, _GLOB_RUN, _GLOB_DIRECTORIES, _GLOB_ANYTHING = range(6)
_GLOB_SKIPPABLE = (
    _GLOB_RUN,
    _GLOB_DIRECTORIES,
    _GLOB_ANYTHING,
)  # the tokens that may match nothing


@dataclass(frozen=True)
class _Token:
    kind: int
    char: str = ""
    ranges: tuple[tuple[str, str], ...] = ()
    negated: bool = False

    def accepts(self, char: str) -> bool:
        """Whether this single-character token accepts ``char``."""
        if self.kind == _GLOB_LITERAL:
            return char == self.char
        if char == "/":
            return False
        if self.kind == _GLOB_ONE:
            return True
        inside = any(low <= char <= high for low, high in self.ranges)
        return inside != self.negated


class Glob:
    """One compiled glob; :meth:`matches` tests a whole ``/``-separated path against it.

    ``steps`` counts the work every call has done (tokens visited), for tests of the bound;
    each call is charged to ``budget`` (default: one of its own).
    """

    def __init__(self, glob: str, budget: MatchBudget | None = None) -> None:
        """Compile ``glob`` (never fails: anything unparseable is taken literally, as git does)."""
        self.glob = glob
        self.tokens = tuple(_tokens(glob))
        self.steps = 0
        self.budget = MatchBudget() if budget is None else budget

    def _closure(self, reached: set[int]) -> set[int]:
        """``reached`` plus every state reachable by matching nothing. A state is a token
        index, or ``-(index + 1)`` for "inside the directories a ``**/`` skips", which must
        end with a ``/`` before the glob goes on."""
        pending = list(reached)
        while pending:
            index = pending.pop()
            self.steps += 1
            skippable = 0 <= index < len(self.tokens) and self.tokens[index].kind in _GLOB_SKIPPABLE
            if skippable and index + 1 not in reached:
                reached.add(index + 1)
                pending.append(index + 1)
        return reached

    def matches(self, path: str) -> bool:
        """Whether the whole of ``path`` matches the glob; raises
        :class:`~agent_config_check.budget.BudgetSpentError` when the budget is spent."""
        began = self.steps
        remaining = self.budget.examine(len(path) + 1)
        if remaining < 0:  # spent already: even the first character's work would pass it
            raise BudgetSpentError(self.budget.limit)
        try:
            return self._matches(path, began + remaining)
        finally:
            self.budget.charge(self.steps - began)

    def _matches(self, path: str, stop: int) -> bool:
        tokens = self.tokens
        current = self._closure({0})
        for char in path:
            if self.steps > stop:
                raise BudgetSpentError(self.budget.limit)
            following: set[int] = set()
            for state in current:
                self.steps += 1
                if state < 0:  # inside skipped directories: any character, '/' may end them
                    following.add(state)
                    if char == "/":
                        following.add(-state)
                    continue
                if state == len(tokens):
                    continue
                token = tokens[state]
                kind = token.kind
                if kind == _GLOB_ANYTHING or (kind == _GLOB_RUN and char != "/"):
                    following.add(state)
                elif kind == _GLOB_DIRECTORIES:
                    following.add(-(state + 1))
                    if char == "/":
                        following.add(state + 1)
                elif kind != _GLOB_RUN and token.accepts(char):
                    following.add(state + 1)
            if not following:
                return False
            current = self._closure(following)
        return len(tokens) in current


def _tokens(glob: str) -> list[_Token]:
    tokens: list[_Token] = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**", index) and (index == 0 or glob[index - 1] == "/"):
            rest = glob[index + 2 :]
            if rest.startswith("/"):
                tokens.append(_Token(_GLOB_DIRECTORIES))
                index += 3
                continue
            if not rest:
                tokens.append(_Token(_GLOB_ANYTHING))
                index += 2
                continue
        if char == "*":
            if not tokens or tokens[-1].kind != _GLOB_RUN:  # '**' inside a name is one '*'
                tokens.append(_Token(_GLOB_RUN))
            index += 1
        elif char == "?":
            tokens.append(_Token(_GLOB_ONE))
            index += 1
        elif char == "[":
            parsed = _bracket(glob, index)
            if parsed is None:
                tokens.append(_Token(_GLOB_LITERAL, "["))
                index += 1
            else:
                token, index = parsed
                tokens.append(token)
        elif char == "\\" and index + 1 < len(glob):
            tokens.append(_Token(_GLOB_LITERAL, glob[index + 1]))
            index += 2
        else:
            tokens.append(_Token(_GLOB_LITERAL, char))
            index += 1
    return tokens


def _bracket(glob: str, start: int) -> tuple[_Token, int] | None:
    """The class opened at ``start`` and the index after it, or ``None`` when it is not closed
    (the ``[`` is then a literal)."""
    index = start + 1
    negated = index < len(glob) and glob[index] in "!^"
    if negated:
        index += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while index < len(glob):
        char = glob[index]
        if char == "]" and not first:
            return _Token(_GLOB_CLASS, ranges=tuple(ranges), negated=negated), index + 1
        first = False
        if char == "\\" and index + 1 < len(glob):
            index += 1
            char = glob[index]
        low = high = char
        if glob.startswith("-", index + 1) and index + 2 < len(glob) and glob[index + 2] != "]":
            high = glob[index + 2]
            index += 2
        ranges.append((low, high))
        index += 1
    return None
