"""The linear-time matcher: the same answers as ``re`` where both accept a pattern, refusals
that name the construct, a step count bounded by (program size) x (text length) whatever
the pattern, including the patterns that make ``re`` run for hours, and a budget: whatever the
pattern and the text, matching never takes more than ``BASE_STEPS + STEPS_PER_CHARACTER x
characters examined`` steps (plus one character's work) before it stops."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from agent_config_check.budget import (
    BASE_STEPS,
    MAX_STEPS,
    STEPS_PER_CHARACTER,
    BudgetSpentError,
    MatchBudget,
)
from agent_config_check.linear_regex import (
    MAX_GROUPS,
    MAX_PROGRAM,
    LinearPattern,
    PatternError,
    compile_pattern,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

ATOMS = st.sampled_from(
    ["a", "b", ".", "[ab]", "[^a]", "\\w", "\\s", "\\d", "\\b", "^", "$", "\\n", "(?:a|b)", "x"]
)


@st.composite
def patterns(draw: st.DrawFn, depth: int = 0) -> str:
    """Random patterns of the supported syntax over a small alphabet."""
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 3 and draw(st.booleans()) and draw(st.booleans()):
            inner = draw(patterns(depth + 1))
            if draw(st.booleans()):
                inner += "|" + draw(patterns(depth + 1))
            atom = draw(st.sampled_from(["(", "(?:", "(?i:"])) + inner + ")"
        else:
            atom = draw(ATOMS)
        if atom not in ("^", "$", "\\b"):
            atom += draw(
                st.sampled_from(["", "", "*", "+", "?", "*?", "+?", "{2}", "{1,3}", "{,2}"])
            )
        pieces.append(atom)
    return "".join(pieces)


TEXTS = st.text(alphabet="ab1 \nx", max_size=12)


class Unlimited(MatchBudget):
    """A budget that never runs out, to measure what matching costs unbounded."""

    def examine(self, characters: int) -> int:
        return 10**18


def _empty_loop(pattern: str) -> bool:
    """Whether a repeated group of ``pattern`` can match the empty string (``re``'s own parse
    tree says). There ``re`` stops looping after an empty iteration while the linear-time
    matcher follows RE2: both find a match exactly when the other does, but may pick a
    different one."""
    from re import _parser  # type: ignore[attr-defined]

    def nullable_loop(items: object) -> bool:
        for op, value in items:  # type: ignore[attr-defined]
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                body = value[2]
                if body.getwidth()[0] == 0 or nullable_loop(body):
                    return True
            elif (name == "SUBPATTERN" and nullable_loop(value[-1])) or (
                name == "BRANCH" and any(nullable_loop(branch) for branch in value[1])
            ):
                return True
        return False

    return nullable_loop(_parser.parse(pattern))


def _repeat_depth(pattern: str) -> int:
    """How deeply ``pattern`` nests repeats (``(a+)*`` is 2), by ``re``'s own parse tree."""
    from re import _parser  # type: ignore[attr-defined]

    def depth(items: object) -> int:
        deepest = 0
        for op, value in items:  # type: ignore[attr-defined]
            name = str(op)
            if name in ("MAX_REPEAT", "MIN_REPEAT"):
                deepest = max(deepest, 1 + depth(value[2]))
            elif name == "SUBPATTERN":
                deepest = max(deepest, depth(value[-1]))
            elif name == "BRANCH":
                deepest = max(deepest, *(depth(branch) for branch in value[1]))
        return deepest

    return depth(_parser.parse(pattern))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patterns(), TEXTS)
def test_same_answers_as_re(pattern: str, text: str) -> None:
    if _repeat_depth(pattern) > 1:
        text = text[:6]  # re backtracks exponentially here: keep the oracle itself fast
    expected_regex = re.compile(pattern)
    ours = compile_pattern(pattern)
    assert ours.groups == expected_regex.groups

    expected = expected_regex.search(text)
    found = ours.search(text)
    assert ours.contains(text) == (expected is not None)
    assert (found is None) == (expected is None)
    if found is not None and expected is not None and not _empty_loop(pattern):
        assert (found.start, found.end) == expected.span()
        groups = [found.group(i) for i in range(ours.groups + 1)]
        assert groups == [expected.group(i) for i in range(ours.groups + 1)]
        # Recording fewer groups (as the rules do) changes no span.
        first = compile_pattern(pattern, captures=1).search(text)
        assert first is not None
        assert (first.start, first.end) == expected.span()
        assert ours.groups == 0 or first.group(1) == expected.group(1)

    whole = expected_regex.fullmatch(text)
    assert (ours.fullmatch(text) is None) == (whole is None)


@settings(max_examples=300, deadline=None)
@given(patterns(), st.text(alphabet="ab \n", min_size=1, max_size=30))
def test_steps_grow_at_most_linearly_with_the_text(pattern: str, unit: str) -> None:
    """The bound: at most a few passes of the program per character, for every pattern."""
    ours = compile_pattern(pattern, budget=Unlimited())
    for copies in (1, 4, 16):
        text = unit * copies
        ours.steps = 0
        ours.search(text)
        searched = ours.steps
        ours.steps = 0
        ours.contains(text)
        assert searched <= 3 * len(ours.program) * (len(text) + 1)
        assert ours.steps <= 3 * len(ours.program) * (len(text) + 1)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("((a)+)+!", "a" * 60),  # the reported attack: passes the old nested-quantifier filter
        ("((a)+)+!", "a" * 60 + "b!"),  # '!' present, so the literal pre-test cannot rule it out
        ("(a|aa)*c", "a" * 5000 + "c!"),
        ("(x+x+)+y", "x" * 5000),
        ("(\\w*)*$", "w" * 2000 + "!"),
        ("(.*a){20}", "a" * 2000),
    ],
)
def test_catastrophic_patterns_cost_steps_linear_in_the_text(pattern: str, text: str) -> None:
    ours = compile_pattern(pattern, budget=Unlimited())
    bound = 3 * len(ours.program) * (len(text) + 1)
    ours.search(text)
    assert ours.steps <= bound
    ours.steps = 0
    ours.contains(text)
    assert ours.steps <= bound
    doubled = compile_pattern(pattern, budget=Unlimited())
    doubled.search(text * 2)
    assert doubled.steps <= 2 * ours.steps + 3 * bound  # twice the text, about twice the work


@pytest.mark.parametrize(
    ("pattern", "refusal"),
    [
        ("(a)\\1", "backreferences are not supported"),
        ("(?P<x>a)(?P=x)", "backreferences are not supported"),
        ("(?=a)", "lookaround is not supported"),
        ("(?<!a)b", "lookaround is not supported"),
        ("(?(1)a|b)", "conditionals are not supported"),
        ("(?>a+)", "atomic groups are not supported"),
        ("a++", "possessive quantifiers are not supported"),
        ("(?x)a # comment", "the flag 'x' is not supported"),
        ("\\N{DASH}", "\\N{...} is not supported"),
        ("a{1001}", "a repeat count over 1000"),
        ("(?:a{1000}){1000}", f"more than {MAX_PROGRAM} instructions"),
        ("(a?){1000}a{1000}", f"more than {MAX_PROGRAM} instructions"),
        ("(a)" * 1200 + "!", f"more than {MAX_GROUPS} capturing groups are not supported"),
        ("(?P<x>a)" + "(b)" * MAX_GROUPS, f"more than {MAX_GROUPS} capturing groups"),
        ("[a-", "unterminated character set"),
        ("(a", "missing ), unterminated subpattern"),
        ("*", "nothing to repeat"),
        ("a**", "multiple repeat"),
        ("\\q", "bad escape \\q"),
        ("a{3,1}", "min repeat greater than max repeat"),
        ("(" * 150 + ")" * 150, "nested deeper than 100"),
    ],
)
def test_what_needs_backtracking_or_is_malformed_is_refused_by_name(
    pattern: str, refusal: str
) -> None:
    with pytest.raises(PatternError, match=re.escape(refusal)):
        compile_pattern(pattern)


def test_a_refusal_is_a_value_error_naming_the_position() -> None:
    with pytest.raises(ValueError, match="at position 5"):
        LinearPattern("ab(c)\\1")


def test_groups_and_positions_follow_re() -> None:
    ours = compile_pattern(r"(?P<key>[A-Z]{4})-(\d+)")
    text = "AKIA-1 then BKIA-22, none-3"
    found = [ours.search(text, start) for start in (0, 1, 19)]
    expected = [re.compile(ours.pattern).search(text, start) for start in (0, 1, 19)]
    assert [(m.start, m.end, m.group(1), m.group(2)) for m in found if m] == [
        (m.start(), m.end(), m.group(1), m.group(2)) for m in expected if m
    ]
    assert [m.group() for m in found if m] == ["AKIA-1", "BKIA-22"]
    assert found[2] is None


def stopped(match: Callable[[str], object], text: str) -> int | None:
    """The limit ``match`` stopped at, or ``None`` when it answered."""
    try:
        match(text)
    except BudgetSpentError as error:
        return error.limit
    return None


def every_method(ours: LinearPattern, text: str) -> None:
    for method in ("contains", "search", "fullmatch"):
        getattr(ours, method)(text)


# Patterns that run many instructions per character, and the texts that make them do it.
HEAVY = [
    ("(a?){900}a{900}", "a"),
    ("(a?){1000}", "a"),
    ("(?:(a)|b|ab)*(?:a|b){500}!", "ab"),
    ("(.*a){20}", "a"),
    ("(" + "|".join("a" * n for n in range(1, 60)) + ")*z", "a"),
]


@example(  # a spent budget: each call on an empty text still ran its first position
    ("(a?){900}a{900}", "a"), [("search", 22), ("contains", 0), ("search", 0), ("search", 0)]
)
@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.sampled_from(HEAVY), st.tuples(patterns(), st.sampled_from(["a", "ab", "a b"]))),
    st.lists(
        st.tuples(st.sampled_from(["search", "contains", "fullmatch"]), st.integers(0, 3000)),
        min_size=1,
        max_size=6,
    ),
)
def test_steps_never_pass_the_budget(heavy: tuple[str, str], calls: list[tuple[str, int]]) -> None:
    """Any pattern, any run of calls on one budget: the steps taken stay within BASE_STEPS +
    STEPS_PER_CHARACTER x (characters examined), plus one character's work, and once past it
    every call stops with BudgetSpentError."""
    pattern, unit = heavy
    budget = MatchBudget()
    ours = compile_pattern(pattern, budget=budget)
    examined = 0
    for method, length in calls:
        text = (unit * length)[:length]
        examined += len(text) + 1
        stopped_at = stopped(getattr(ours, method), text)
        assert stopped_at in (None, budget.limit)
        assert stopped_at is None or budget.spent > budget.limit
        assert budget.spent == ours.steps
        assert budget.limit <= min(MAX_STEPS, BASE_STEPS + STEPS_PER_CHARACTER * examined)
        assert budget.spent <= budget.limit + 3 * len(ours.program)


@pytest.mark.parametrize(("pattern", "unit"), HEAVY)
def test_a_heavy_pattern_stops_at_the_budget_on_a_long_text(pattern: str, unit: str) -> None:
    text = unit * 20_000
    budget = MatchBudget()
    ours = compile_pattern(pattern, budget=budget)
    with pytest.raises(BudgetSpentError) as stopped:
        every_method(ours, text + "!")
    examined = 3 * (len(text) + 2)  # what the three calls may examine
    assert stopped.value.limit <= BASE_STEPS + STEPS_PER_CHARACTER * examined
    assert budget.spent <= stopped.value.limit + 3 * len(ours.program)
    assert "per character examined" in str(stopped.value)


def test_unrecorded_groups_cost_nothing_per_character() -> None:
    text = "a" * 2_000 + "!"
    many = compile_pattern("(a)" * MAX_GROUPS + "!", captures=0, budget=Unlimited())
    plain = compile_pattern("(?:a)" * MAX_GROUPS + "!", budget=Unlimited())
    assert len(many.program) == len(plain.program)
    for ours in (many, plain):
        ours.search(text)
    assert many.steps == plain.steps
    found = many.search(text)
    assert found is not None
    assert found.group() == "a" * MAX_GROUPS + "!"
    assert many.groups == MAX_GROUPS  # declared, but not recorded
