"""The linear-time matcher: the same answers as ``re`` where both accept a pattern, refusals
that name the construct, and a step count bounded by (program size) x (text length) whatever
the pattern, including the patterns that make ``re`` run for hours."""

from __future__ import annotations

import re

import pytest
from agent_config_check.linear_regex import (
    MAX_PROGRAM,
    LinearPattern,
    PatternError,
    compile_pattern,
)
from hypothesis import HealthCheck, given, settings
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

    whole = expected_regex.fullmatch(text)
    assert (ours.fullmatch(text) is None) == (whole is None)


@settings(max_examples=300, deadline=None)
@given(patterns(), st.text(alphabet="ab \n", min_size=1, max_size=30))
def test_steps_grow_at_most_linearly_with_the_text(pattern: str, unit: str) -> None:
    """The bound: at most a few passes of the program per character, for every pattern."""
    ours = compile_pattern(pattern)
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
    ours = compile_pattern(pattern)
    bound = 3 * len(ours.program) * (len(text) + 1)
    ours.search(text)
    assert ours.steps <= bound
    ours.steps = 0
    ours.contains(text)
    assert ours.steps <= bound
    doubled = compile_pattern(pattern)
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


def test_finditer_and_groups_follow_re() -> None:
    ours = compile_pattern(r"(?P<key>[A-Z]{4})-(\d+)")
    text = "AKIA-1 then BKIA-22, none-3"
    found = [(m.start, m.end, m.group(1), m.group(2)) for m in ours.finditer(text)]
    expected = [
        (m.start(), m.end(), m.group(1), m.group(2)) for m in re.finditer(ours.pattern, text)
    ]
    assert found == expected == [(0, 6, "AKIA", "1"), (12, 19, "BKIA", "22")]
