"""Regular expressions from a configuration file, matched in time linear in the text.

Python's ``re`` backtracks: ``((a)+)+!`` against sixty ``a`` runs for longer than the age of
the universe, and a repository's own ``.claude/agent-config-check.json`` is written by whoever
wrote the repository. The checker must stay standard-library only (it is committed into
adopted repositories as one script), so it cannot use RE2; it matches configured patterns with
this module instead: a Thompson-NFA program run as a Pike VM (submatches, leftmost-first like
``re``) and as a lazily built DFA (whether there is a match at all). Every character of the
text costs at most one pass over the program, whatever the pattern.

The syntax is ``re``'s, minus what needs backtracking; a pattern using any of it is refused by
:func:`compile_pattern` with a :class:`PatternError` naming the construct:

- supported: literals and escapes (``\\n``, ``\\t``, ``\\xhh``, ``\\uhhhh``, ...), ``.``, classes
  (``[a-z_]``, ``[^...]``, ``\\d \\w \\s`` and their negations, also inside classes), groups
  (``(...)``, ``(?:...)``, ``(?P<name>...)``, ``(?#comment)``), alternation, the quantifiers
  ``* + ? {n} {n,} {,m} {n,m}`` and their lazy forms, the anchors ``^ $ \\A \\Z \\b \\B``, and
  the flags ``i``, ``m``, ``s`` (``(?ims)`` at the start, or scoped ``(?i:...)``);
- refused: backreferences (``\\1``, ``(?P=name)``), lookaround (``(?=``, ``(?!``, ``(?<=``,
  ``(?<!``), conditionals, atomic groups and possessive quantifiers, ``\\N{...}``, and the flags
  ``a``, ``L``, ``u``, ``x``; also a pattern whose program exceeds :data:`MAX_PROGRAM`
  instructions (large counted repeats such as ``a{5000}``) or that declares more than
  :data:`MAX_GROUPS` capturing groups.

Even a linear pass over a program of thousands of instructions is slow per character, so every
step is charged to a :class:`~agent_config_check.budget.MatchBudget` (the run's, when given):
past it, matching stops with :class:`~agent_config_check.budget.BudgetSpentError`. Only the groups
a caller asks for (``captures``) are recorded; the others compile to nothing, so a pattern's
groups cost no more per character than its ``(?:...)`` form.

Where both accept a pattern the answers are ``re``'s: the same leftmost match, the same span,
the same groups (for groups inside a loop that can match the empty string the two may record
different, equally valid, empty captures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from agent_config_check.budget import BudgetSpentError, MatchBudget

MAX_PROGRAM = 5000
"""The most instructions a compiled pattern may hold (each is one step per character)."""
MAX_REPEAT = 1000
"""The largest count a ``{n,m}`` quantifier may name."""
MAX_GROUPS = 100
"""The most capturing groups a pattern may declare."""
_MAX_NESTING = 100
_MAX_DFA_STATES = 4096
_MAX_DFA_MOVES = 100_000

_CHAR, _SPLIT, _JUMP, _SAVE, _ASSERT, _MATCH = range(6)
# Assertions, by the context they read: what precedes the position, what follows it.
_BOL, _BOL_MULTI, _EOL, _EOL_MULTI, _START, _END, _WORD_EDGE, _NOT_WORD_EDGE = range(8)
# What precedes a position, as far as any assertion cares.
_AT_START, _AFTER_WORD, _AFTER_NEWLINE, _AFTER_OTHER = range(4)
_MATCHED = -1

_FLAG_NAMES = "imsaLux"
_SUPPORTED_FLAGS = "ims"
_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
_CATEGORIES = "dDwWsS"
_HEX = "0123456789abcdefABCDEF"


class PatternError(ValueError):
    """A pattern this module cannot run: bad syntax, or a construct that needs backtracking."""


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _in_char_category(category: str, char: str) -> bool:
    lower = category.lower()
    if lower == "d":
        found = char.isdecimal()
    elif lower == "w":
        found = _is_word(char)
    else:
        found = char.isspace()
    return found if category.islower() else not found


@dataclass(frozen=True)
class _CharClass:
    """Which characters one position accepts: ranges and ``\\d``-style categories."""

    ranges: tuple[tuple[str, str], ...]
    categories: str = ""
    negated: bool = False
    ignore_case: bool = False

    def __call__(self, char: str) -> bool:
        found = self._assertion_holds(char)
        if not found and self.ignore_case:
            for other in (char.lower(), char.upper()):
                if len(other) == 1 and other != char and self._assertion_holds(other):
                    found = True
                    break
        return found != self.negated

    def _assertion_holds(self, char: str) -> bool:
        return any(low <= char <= high for low, high in self.ranges) or any(
            _in_char_category(category, char) for category in self.categories
        )


def _char_tester(accepts: _CharClass) -> Callable[[str], bool]:
    """A fast test for one class: a plain literal compares in C; any other class remembers its
    answer per character."""
    (low, high), *more = accepts.ranges or (("", "."),)
    if not (more or accepts.categories or accepts.negated or accepts.ignore_case) and low == high:
        return low.__eq__
    answers: dict[str, bool] = {}

    def test(char: str) -> bool:
        answer = answers.get(char)
        if answer is None:
            answer = answers[char] = accepts(char)
        return answer

    return test


def _literal_class(char: str, ignore_case: bool) -> _CharClass:
    return _CharClass(((char, char),), ignore_case=ignore_case)


_DOT = _CharClass((("\n", "\n"),), negated=True)
_DOT_ALL = _CharClass((), negated=True)

# The parsed pattern, as tuples: ("char", class) ("cat", [nodes]) ("alt", [nodes])
# ("repeat", node, low, high | None, greedy) ("group", index | None, node) ("assert", kind).
_PatternNode = tuple[object, ...]
_Result = TypeVar("_Result")


class _PatternParser:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.position = 0
        self.groups = 0
        self.names: set[str] = set()
        self.depth = 0

    def fail(self, message: str, at: int | None = None) -> PatternError:
        return PatternError(f"{message} at position {self.position if at is None else at}")

    def peek(self, text: str) -> bool:
        return self.pattern.startswith(text, self.position)

    def take(self) -> str:
        if self.position >= len(self.pattern):
            raise self.fail("the pattern ends too early")
        char = self.pattern[self.position]
        self.position += 1
        return char

    def parse(self) -> _PatternNode:
        flags = self.leading_flags()
        node = self.alternation(flags)
        if self.position < len(self.pattern):
            raise self.fail("unbalanced parenthesis")
        return node

    def leading_flags(self) -> str:
        flags = ""
        while self.peek("(?") and self.position + 2 < len(self.pattern):
            end = self.pattern.find(")", self.position)
            letters = self.pattern[self.position + 2 : end] if end > 0 else ""
            if not letters or any(c not in _FLAG_NAMES for c in letters):
                break
            self.check_flags(letters)
            flags += letters
            self.position = end + 1
        return flags

    def check_flags(self, letters: str) -> None:
        for letter in letters:
            if letter not in _SUPPORTED_FLAGS:
                raise self.fail(f"the flag '{letter}' is not supported by the linear-time matcher")

    def alternation(self, flags: str) -> _PatternNode:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise self.fail(f"groups are nested deeper than {_MAX_NESTING}")
        branches = [self.concatenation(flags)]
        while self.peek("|"):
            self.position += 1
            branches.append(self.concatenation(flags))
        self.depth -= 1
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def concatenation(self, flags: str) -> _PatternNode:
        items: list[_PatternNode] = []
        while self.position < len(self.pattern) and not self.peek("|") and not self.peek(")"):
            atom = self.atom(flags)
            if atom is None:
                continue
            items.append(self.quantified(atom))
        return items[0] if len(items) == 1 else ("cat", items)

    def quantified(self, atom: _PatternNode) -> _PatternNode:
        quantifier = self.quantifier()
        if quantifier is None:
            return atom
        if atom[0] == "assert":
            raise self.fail("nothing to repeat")
        low, high = quantifier
        greedy = True
        if self.peek("?"):
            self.position += 1
            greedy = False
        elif self.peek("+"):
            raise self.fail("possessive quantifiers are not supported by the linear-time matcher")
        if self.quantifier(probe=True) is not None:
            raise self.fail("multiple repeat")
        return ("repeat", atom, low, high, greedy)

    def quantifier(self, probe: bool = False) -> tuple[int, int | None] | None:
        start = self.position
        if self.position >= len(self.pattern):
            return None
        char = self.pattern[self.position]
        if char in "*+?":
            if not probe:
                self.position += 1
            return {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        if char != "{" or self.peek("{}"):
            return None
        index = self.position + 1
        low = ""
        while index < len(self.pattern) and self.pattern[index].isdigit():
            low += self.pattern[index]
            index += 1
        high: str | None = low
        if index < len(self.pattern) and self.pattern[index] == ",":
            index += 1
            high = ""
            while index < len(self.pattern) and self.pattern[index].isdigit():
                high += self.pattern[index]
                index += 1
        if index >= len(self.pattern) or self.pattern[index] != "}":
            return None
        if probe:
            return (0, None)
        self.position = index + 1
        minimum = int(low) if low else 0
        maximum = int(high) if high else None
        for count in (minimum, maximum):
            if count is not None and count > MAX_REPEAT:
                self.position = start
                raise self.fail(
                    f"a repeat count over {MAX_REPEAT} is not supported by the linear-time matcher"
                )
        if maximum is not None and maximum < minimum:
            self.position = start
            raise self.fail("min repeat greater than max repeat")
        return minimum, maximum

    def atom(self, flags: str) -> _PatternNode | None:
        char = self.take()
        if char == "(":
            return self.group(flags)
        if char == "[":
            return ("char", self.char_class(flags))
        if char == ".":
            return ("char", _DOT_ALL if "s" in flags else _DOT)
        if char == "^":
            return ("assert", _BOL_MULTI if "m" in flags else _BOL)
        if char == "$":
            return ("assert", _EOL_MULTI if "m" in flags else _EOL)
        if char == "\\":
            return self.escape(flags)
        if char in "*+?" or (char == "{" and self.quantifier_at(self.position - 1)):
            self.position -= 1
            raise self.fail("nothing to repeat")
        return ("char", _literal_class(char, "i" in flags))

    def quantifier_at(self, index: int) -> bool:
        saved = self.position
        self.position = index
        try:
            return self.quantifier(probe=True) is not None
        finally:
            self.position = saved

    def group(self, flags: str) -> _PatternNode | None:
        opened = self.position - 1
        index: int | None = None
        if self.peek("?"):
            self.position += 1
            kind = self.take()
            if kind == ":":
                pass
            elif kind == "#":
                end = self.pattern.find(")", self.position)
                if end < 0:
                    raise self.fail("missing ), unterminated comment")
                self.position = end + 1
                return None
            elif kind == "P" and self.peek("<"):
                self.position += 1
                end = self.pattern.find(">", self.position)
                name = self.pattern[self.position : end] if end >= 0 else ""
                if not name.isidentifier():
                    raise self.fail(f"bad character in group name {name!r}")
                if name in self.names:
                    raise self.fail(f"redefinition of group name {name!r}")
                self.names.add(name)
                self.position = end + 1
                self.groups += 1
                index = self.groups
            elif kind == "P" and self.peek("="):
                raise self.fail(
                    "backreferences are not supported by the linear-time matcher", opened
                )
            elif kind in "=!" or (kind == "<" and self.peek_in("=!")):
                raise self.fail("lookaround is not supported by the linear-time matcher", opened)
            elif kind == "(":
                raise self.fail("conditionals are not supported by the linear-time matcher", opened)
            elif kind == ">":
                raise self.fail(
                    "atomic groups are not supported by the linear-time matcher", opened
                )
            elif kind in _FLAG_NAMES or kind == "-":
                flags = self.scoped_flags(kind, flags)
            else:
                raise self.fail(f"unknown extension ?{kind}")
        else:
            self.groups += 1
            index = self.groups
        if self.groups > MAX_GROUPS:
            raise self.fail(
                f"more than {MAX_GROUPS} capturing groups are not supported by the linear-time "
                "matcher (use (?:...) for grouping)",
                opened,
            )
        body = self.alternation(flags)
        if not self.peek(")"):
            raise self.fail("missing ), unterminated subpattern")
        self.position += 1
        return ("group", index, body)

    def scoped_flags(self, first: str, flags: str) -> str:
        added, removed = "", ""
        current = first
        turning_off = False
        while True:
            if current == "-":
                turning_off = True
            elif current == ":":
                break
            elif current == ")":
                raise self.fail("global flags not at the start of the expression")
            elif current in _FLAG_NAMES:
                self.check_flags(current)
                if turning_off:
                    removed += current
                else:
                    added += current
            else:
                raise self.fail(f"unknown flag {current!r}")
            current = self.take()
        return "".join(c for c in flags + added if c not in removed)

    def escape(self, flags: str) -> _PatternNode:
        char = self.take()
        anchors = {"A": _START, "Z": _END, "b": _WORD_EDGE, "B": _NOT_WORD_EDGE}
        if char in anchors:
            return ("assert", anchors[char])
        if char in _CATEGORIES:
            return ("char", _CharClass((), char))
        if char.isdigit() and char != "0":
            raise self.fail(
                "backreferences are not supported by the linear-time matcher", self.position - 2
            )
        return ("char", _literal_class(self.escaped_char(char), "i" in flags))

    def escaped_char(self, char: str) -> str:
        if char in _ESCAPES:
            return _ESCAPES[char]
        sizes = {"x": 2, "u": 4, "U": 8}
        if char in sizes:
            digits = self.pattern[self.position : self.position + sizes[char]]
            if len(digits) != sizes[char] or any(c not in _HEX for c in digits):
                raise self.fail(f"incomplete escape \\{char}{digits}")
            self.position += sizes[char]
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise self.fail(f"bad escape \\{char}{digits}")
            return chr(code)
        if char == "0":
            digits = ""
            while len(digits) < 2 and self.peek_in("01234567"):
                digits += self.take()
            return chr(int("0" + digits, 8))
        if char == "N":
            raise self.fail("\\N{...} is not supported by the linear-time matcher")
        if char.isascii() and char.isalpha():
            raise self.fail(f"bad escape \\{char}")
        return char

    def peek_in(self, chars: str) -> bool:
        return self.position < len(self.pattern) and self.pattern[self.position] in chars

    def char_class(self, flags: str) -> _CharClass:
        negated = self.peek("^")
        if negated:
            self.position += 1
        ranges: list[tuple[str, str]] = []
        categories = ""
        first = True
        while True:
            if self.position >= len(self.pattern):
                raise self.fail("unterminated character set")
            char = self.take()
            if char == "]" and not first:
                break
            first = False
            if char == "\\":
                escaped = self.take()
                if escaped in _CATEGORIES:
                    categories += escaped
                    continue
                if escaped == "b":
                    low = "\b"
                elif escaped in "AZB" or (escaped.isdigit() and escaped != "0"):
                    raise self.fail(f"bad escape \\{escaped}")
                else:
                    low = self.escaped_char(escaped)
            else:
                low = char
            high = low
            if self.peek("-") and not self.peek("-]"):
                self.position += 1
                if self.position >= len(self.pattern):
                    raise self.fail("unterminated character set")
                end = self.take()
                if end == "\\":
                    escaped = self.take()
                    if escaped in _CATEGORIES:
                        raise self.fail("bad character range")
                    end = "\b" if escaped == "b" else self.escaped_char(escaped)
                high = end
                if high < low:
                    raise self.fail(f"bad character range {low}-{high}")
            ranges.append((low, high))
        return _CharClass(tuple(ranges), categories, negated, "i" in flags)


class _PatternCompiler:
    def __init__(self, captures: int) -> None:
        self.program: list[tuple[int, object, object]] = []
        self.captures = captures

    def emit(self, op: int, first: object = None, second: object = None) -> int:
        if len(self.program) >= MAX_PROGRAM:
            raise PatternError(
                f"the pattern compiles to more than {MAX_PROGRAM} instructions; "
                "simplify it (large counted repeats are the usual cause)"
            )
        self.program.append((op, first, second))
        return len(self.program) - 1

    def patch(self, index: int, first: object, second: object = None) -> None:
        op, _, _ = self.program[index]
        self.program[index] = (op, first, second)

    def node(self, node: _PatternNode) -> None:
        kind = node[0]
        if kind == "char":
            self.emit(_CHAR, _char_tester(node[1]))  # type: ignore[arg-type]
        elif kind == "cat":
            for item in node[1]:  # type: ignore[attr-defined]
                self.node(item)
        elif kind == "alt":
            self.alternatives(node[1])  # type: ignore[arg-type]
        elif kind == "group":
            index = node[1]
            if index is None or index > self.captures:  # type: ignore[operator]
                self.node(node[2])  # type: ignore[arg-type]
            else:
                self.emit(_SAVE, 2 * index)  # type: ignore[operator]
                self.node(node[2])  # type: ignore[arg-type]
                self.emit(_SAVE, 2 * index + 1)  # type: ignore[operator]
        elif kind == "assert":
            self.emit(_ASSERT, node[1])
        else:
            self.repeat(node[1], node[2], node[3], node[4])  # type: ignore[arg-type]

    def alternatives(self, branches: list[_PatternNode]) -> None:
        jumps = []
        for branch in branches[:-1]:
            split = self.emit(_SPLIT)
            self.node(branch)
            jumps.append(self.emit(_JUMP))
            self.patch(split, split + 1, len(self.program))
        self.node(branches[-1])
        for jump in jumps:
            self.patch(jump, len(self.program))

    def repeat(self, body: _PatternNode, low: int, high: int | None, greedy: bool) -> None:
        for _ in range(low):
            self.node(body)
        if high is None:
            loop = self.emit(_SPLIT)
            self.node(body)
            self.emit(_JUMP, loop)
            self._choose(loop, loop + 1, len(self.program), greedy)
            return
        splits = []
        for _ in range(high - low):
            split = self.emit(_SPLIT)
            splits.append(split)
            self.node(body)
        for split in splits:
            self._choose(split, split + 1, len(self.program), greedy)

    def _choose(self, split: int, more: int, done: int, greedy: bool) -> None:
        self.patch(split, *((more, done) if greedy else (done, more)))


def _preceding_kind(char: str | None) -> int:
    if char is None:
        return _AT_START
    if char == "\n":
        return _AFTER_NEWLINE
    return _AFTER_WORD if _is_word(char) else _AFTER_OTHER


def _assertion_holds(kind: object, before: int, after: str | None, last: bool) -> bool:
    """Whether an assertion holds between what precedes (``before``) and what follows
    (``after``, ``None`` at the end; ``last`` when it is the text's final character)."""
    if kind == _BOL:
        return before == _AT_START
    if kind == _BOL_MULTI:
        return before in (_AT_START, _AFTER_NEWLINE)
    if kind == _EOL:
        return after is None or (after == "\n" and last)
    if kind == _EOL_MULTI:
        return after is None or after == "\n"
    if kind == _START:
        return before == _AT_START
    if kind == _END:
        return after is None
    word_before = before == _AFTER_WORD
    word_after = after is not None and _is_word(after)
    if kind == _WORD_EDGE:
        return word_before != word_after
    # re (before Python 3.14) never matches \B in an empty text
    return word_before == word_after and not (before == _AT_START and after is None)


@dataclass(frozen=True)
class LinearMatch:
    """One match: its span and its groups' spans (``None`` for a group that did not take part)."""

    text: str
    spans: tuple[int | None, ...]

    @property
    def start(self) -> int:
        """Where the match starts."""
        return self.spans[0] or 0

    @property
    def end(self) -> int:
        """Where the match ends."""
        return self.spans[1] or 0

    def group(self, index: int = 0) -> str | None:
        """The text group ``index`` matched (0 = the whole match), ``None`` if it took no part."""
        start, end = self.spans[2 * index], self.spans[2 * index + 1]
        return None if start is None or end is None else self.text[start:end]


class LinearPattern:
    """A compiled pattern (see the module docstring); build one with :func:`compile_pattern`.

    ``steps`` counts the instructions every call has run, for tests that measure the time
    bound: it grows by at most the program size for each character examined. Each call is
    charged to ``budget`` and raises :class:`~agent_config_check.budget.BudgetSpentError` when it
    is spent.
    """

    def __init__(
        self, pattern: str, captures: int | None = None, budget: MatchBudget | None = None
    ) -> None:
        """Parse and compile ``pattern``; raises :class:`PatternError`. Matches record the
        first ``captures`` groups (all when ``None``); ``budget`` defaults to one of its own."""
        parser = _PatternParser(pattern)
        tree = parser.parse()
        self.captures = parser.groups if captures is None else min(captures, parser.groups)
        compiler = _PatternCompiler(self.captures)
        compiler.emit(_SAVE, 0)
        compiler.node(tree)
        compiler.emit(_SAVE, 1)
        compiler.emit(_MATCH)
        self.pattern = pattern
        self.groups = parser.groups
        self.program = tuple(compiler.program)
        self.steps = 0
        self.budget = MatchBudget() if budget is None else budget
        self._stop = 0
        self._literal = _required_literal_class(tree)
        self._states: dict[tuple[frozenset[int], int], int] = {}
        self._state_list: list[tuple[frozenset[int], int]] = []
        self._moves: dict[tuple[int, str, bool], int] = {}

    # -------------------------------------------------------------- Pike VM

    def _follow(
        self,
        threads: list[tuple[int, tuple[int | None, ...]]],
        seen: set[int],
        pc: int,
        spans: tuple[int | None, ...],
        context: tuple[int, int, str | None, bool],
    ) -> None:
        """Add the thread at ``pc`` and every thread its empty moves reach, in priority order;
        ``context`` is the position and what surrounds it (for the assertions)."""
        program = self.program
        position, before, after, last = context
        stack = [(pc, spans)]
        steps = 0
        while stack:
            pc, spans = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            steps += 1
            op, first, second = program[pc]
            if op == _JUMP:
                stack.append((first, spans))  # type: ignore[arg-type]
            elif op == _SPLIT:
                stack.append((second, spans))  # type: ignore[arg-type]
                stack.append((first, spans))  # type: ignore[arg-type]
            elif op == _SAVE:
                slot: int = first  # type: ignore[assignment]
                stack.append((pc + 1, (*spans[:slot], position, *spans[slot + 1 :])))
            elif op == _ASSERT:
                if _assertion_holds(first, before, after, last):
                    stack.append((pc + 1, spans))
            else:
                threads.append((pc, spans))
        self.steps += steps

    def _charged(self, characters: int, match: Callable[[], _Result]) -> _Result:
        """Run ``match`` (which examines ``characters`` characters) on the budget."""
        began = self.steps
        remaining = self.budget.examine(characters)
        if remaining < 0:  # spent already: even the first position's work would pass it
            raise BudgetSpentError(self.budget.limit)
        self._stop = began + remaining
        try:
            return match()
        finally:
            self.budget.charge(self.steps - began)

    def _within_budget(self) -> None:
        if self.steps > self._stop:
            raise BudgetSpentError(self.budget.limit)

    def _run(self, text: str, start: int, anchored: bool, full: bool) -> LinearMatch | None:
        program = self.program
        size = len(text)
        empty: tuple[int | None, ...] = (None,) * (2 * self.captures + 2)
        found: tuple[int | None, ...] | None = None
        # Threads waiting to be followed at the next position, highest priority first.
        waiting: list[tuple[int, tuple[int | None, ...]]] = []
        position = start
        before = _preceding_kind(text[start - 1] if start else None)
        while True:
            after = text[position] if position < size else None
            context = (position, before, after, position == size - 1)
            threads: list[tuple[int, tuple[int | None, ...]]] = []
            seen: set[int] = set()
            for pc, spans in waiting:
                self._follow(threads, seen, pc, spans, context)
            if found is None and (not anchored or position == start):
                self._follow(threads, seen, 0, empty, context)
            if not threads and (found is not None or anchored or after is None):
                break
            waiting = []
            self.steps += len(threads)
            for pc, spans in threads:
                op, test, _ = program[pc]
                if op == _MATCH:
                    if not full or after is None:
                        found = spans
                        break  # the threads after this one have lower priority
                elif after is not None and test(after):  # type: ignore[operator]
                    waiting.append((pc + 1, spans))
            if after is None:
                break
            self._within_budget()
            position += 1
            before = _preceding_kind(after)
        return None if found is None else LinearMatch(text, found)

    def search(self, text: str, start: int = 0) -> LinearMatch | None:
        """The leftmost match at or after ``start``, as ``re.search`` finds it (groups past
        ``captures`` are not recorded)."""
        if self._literal and self._literal not in text:
            return None
        return self._charged(
            len(text) - start + 1, lambda: self._run(text, start, anchored=False, full=False)
        )

    def fullmatch(self, text: str) -> LinearMatch | None:
        """The match of the whole ``text``, as ``re.fullmatch``."""
        return self._charged(len(text) + 1, lambda: self._run(text, 0, anchored=True, full=True))

    # -------------------------------------------------------------- lazy DFA

    def contains(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text`` (a lazily built DFA: one table
        lookup per character once the states it needs are built)."""
        if self._literal and self._literal not in text:
            return False
        return self._charged(len(text) + 1, lambda: self._contains(text))

    def _contains(self, text: str) -> bool:
        moves = self._moves
        state = self._state(frozenset(), _AT_START)
        final = len(text) - 1
        for index, char in enumerate(text):
            key = (state, char, index == final)
            following = moves.get(key)
            if following is None:
                if len(self._state_list) >= _MAX_DFA_STATES or len(moves) >= _MAX_DFA_MOVES:
                    # Start the table afresh: still one program pass per character at worst.
                    entry = self._state_list[state]
                    self._forget()
                    moves = self._moves
                    state = self._state(*entry)
                    key = (state, char, key[2])
                following = self._move(state, char, key[2])
                moves[key] = following
                self._within_budget()
            else:
                self.steps += 1
            if following == _MATCHED:
                return True
            state = following
        pcs, before = self._state_list[state]
        return self._closure(pcs, before, None, False)[1]

    def _state(self, pcs: frozenset[int], before: int) -> int:
        key = (pcs, before)
        found = self._states.get(key)
        if found is None:
            found = len(self._state_list)
            self._states[key] = found
            self._state_list.append(key)
        return found

    def _forget(self) -> None:
        self._states = {}
        self._state_list = []
        self._moves = {}

    def _move(self, state: int, char: str, last: bool) -> int:
        pcs, before = self._state_list[state]
        closure, matched = self._closure(pcs, before, char, last)
        if matched:
            return _MATCHED
        following = frozenset(
            pc + 1
            for pc in closure
            if self.program[pc][1](char)  # type: ignore[operator]
        )
        return self._state(following, _preceding_kind(char))

    def _closure(
        self, pcs: frozenset[int], before: int, after: str | None, last: bool
    ) -> tuple[list[int], bool]:
        """The character-consuming instructions reachable from ``pcs`` (and from the start,
        since a match may begin anywhere) by empty moves, and whether a match is reached."""
        seen: set[int] = set()
        reached: list[int] = []
        stack = [0, *pcs]
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            self.steps += 1
            op, first, second = self.program[pc]
            if op == _MATCH:
                return reached, True
            if op == _CHAR:
                reached.append(pc)
            elif op == _JUMP:
                stack.append(first)  # type: ignore[arg-type]
            elif op == _SPLIT:
                stack += [first, second]  # type: ignore[list-item]
            elif op == _SAVE or _assertion_holds(first, before, after, last):
                stack.append(pc + 1)
        return reached, False


def _required_literal_class(node: _PatternNode) -> str:
    """The longest run of case-sensitive literal characters every match must contain (so a
    text without it is ruled out by one ``in`` test)."""
    items = node[1] if node[0] == "cat" else [node]
    best, run = "", ""
    for item in items:  # type: ignore[attr-defined]
        character = item[1] if item[0] == "char" else None
        if (
            isinstance(character, _CharClass)
            and not character.negated
            and not character.ignore_case
            and not character.categories
            and len(character.ranges) == 1
            and character.ranges[0][0] == character.ranges[0][1]
        ):
            run += character.ranges[0][0]
            best = max(best, run, key=len)
        else:
            run = ""
    return best


def compile_pattern(
    pattern: str, captures: int | None = None, budget: MatchBudget | None = None
) -> LinearPattern:
    """Compile ``pattern`` for linear-time matching, recording its first ``captures`` groups
    (all when ``None``) and charging ``budget`` (see :class:`LinearPattern`); raises
    :class:`PatternError` (a ``ValueError``) naming what is wrong or unsupported, and where."""
    return LinearPattern(pattern, captures, budget)
