"""Gitignore globs without backtracking: git's answers, at most (tokens) x (characters) steps,
never more than the run's budget, and the reported attacks (``*a`` fourteen times and ``!``
against a 120-character path; ``*a`` thousands of times against a 3,000-character path)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from agent_config_check.budget import BASE_STEPS, STEPS_PER_CHARACTER, BudgetSpentError, MatchBudget
from agent_config_check.families.gitignore import MAX_GLOB_LENGTH, Gitignore
from agent_config_check.globs import Glob
from hypothesis import given, settings
from hypothesis import strategies as st


def reference(glob: str) -> re.Pattern[str]:
    """git's wildmatch with WM_PATHNAME as a Python regex: fine for short inputs only, which is
    exactly why the checker does not use one."""
    parts = []
    index = 0
    while index < len(glob):
        at_boundary = index == 0 or glob[index - 1] == "/"
        if at_boundary and glob.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif at_boundary and glob[index:] == "**":
            parts.append(".*")
            index += 2
        elif glob[index] == "*":
            while index < len(glob) and glob[index] == "*":
                index += 1
            parts.append("[^/]*")
        elif glob[index] == "?":
            parts.append("[^/]")
            index += 1
        elif glob[index] == "[" and (close := glob.find("]", index + 2)) > 0:
            body = glob[index + 1 : close]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            parts.append(
                ("[^/" if negated else "(?!/)[") + re.escape(body).replace("\\-", "-") + "]"
            )
            index = close + 1
        else:
            parts.append(re.escape(glob[index]))
            index += 1
    return re.compile("".join(parts))


GLOBS = st.lists(
    st.sampled_from(["a", "b", "/", "*", "?", "**/", "**", "[ab]", "[!a]", ".", "x"]), max_size=8
).map("".join)
PATHS = st.lists(st.sampled_from(["a", "b", "/", ".", "x", "ab"]), max_size=10).map("".join)


@settings(max_examples=500, deadline=None)
@given(GLOBS, PATHS)
def test_same_answers_as_the_regex_translation(glob: str, path: str) -> None:
    assert Glob(glob).matches(path) == (reference(glob).fullmatch(path) is not None)


@settings(max_examples=300, deadline=None)
@given(GLOBS, st.text(alphabet="ab/.x", min_size=1, max_size=20))
def test_steps_grow_at_most_linearly_with_the_path(glob: str, unit: str) -> None:
    compiled = Glob(glob)
    for copies in (1, 4, 16):
        path = unit * copies
        compiled.steps = 0
        compiled.matches(path)
        assert compiled.steps <= 3 * (len(compiled.tokens) + 1) * (len(path) + 1)


def test_the_reported_glob_attack_costs_linear_steps() -> None:
    glob = "*a" * 14 + "!"
    path = "a" * 120
    compiled = Glob(glob)
    assert not compiled.matches(path)
    assert compiled.steps <= 3 * (len(compiled.tokens) + 1) * (len(path) + 1)
    gitignore = f"build/\n{glob}\n/{glob}\n!{glob}/\n"
    assert not Gitignore(gitignore).covers(path)
    assert not Gitignore(gitignore).covers("x/" * 60 + path)


def test_gitignore_semantics() -> None:
    text = "# personal\n*.local.json\n!keep.local.json\n/build/\ndocs/**/draft-?.md\n[Tt]emp*\n"
    assert Gitignore(text).covers(".claude/settings.local.json")
    assert not Gitignore(text).covers("keep.local.json")
    assert Gitignore(text).covers("build/out/x.class")  # inside an ignored directory
    assert not Gitignore(text).covers("src/build/x")  # '/build/' is anchored at the root
    assert Gitignore(text).covers("docs/a/b/draft-1.md")
    assert Gitignore(text).covers("docs/draft-2.md")
    assert Gitignore(text).covers("src/Temp.txt")
    assert Gitignore(text).covers("src/temple/x")  # a directory matching [Tt]emp*


def stopped(match: Callable[[str], bool], text: str) -> int | None:
    """The limit ``match`` stopped at, or ``None`` when it answered."""
    try:
        match(text)
    except BudgetSpentError as error:
        return error.limit
    return None


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(GLOBS, st.integers(1, 1500).map(lambda n: "*a" * n)), min_size=1, max_size=4
    ),
    st.lists(st.integers(0, 1500).map(lambda n: "a" * n), min_size=1, max_size=3),
)
def test_steps_never_pass_the_budget(globs: list[str], paths: list[str]) -> None:
    """Globs sharing one budget (as a .gitignore's lines do): the steps stay within BASE_STEPS +
    STEPS_PER_CHARACTER x (characters examined), plus one character's work."""
    budget = MatchBudget()
    compiled = [Glob(glob, budget) for glob in globs]
    examined = 0
    one_character = 4 * (max(len(glob.tokens) for glob in compiled) + 1)
    for glob in compiled:
        for path in paths:
            examined += len(path) + 1
            stopped_at = stopped(glob.matches, path)
            assert stopped_at in (None, budget.limit)
            assert budget.limit <= BASE_STEPS + STEPS_PER_CHARACTER * examined
            assert budget.spent <= budget.limit + one_character
    assert budget.spent == sum(glob.steps for glob in compiled)


def test_thousands_of_stars_stop_at_the_budget() -> None:
    glob = Glob("*a" * 20_000)
    path = "a" * 3_000
    with pytest.raises(BudgetSpentError) as stopped:
        glob.matches(path)
    assert stopped.value.limit == BASE_STEPS + STEPS_PER_CHARACTER * (len(path) + 1)
    assert glob.steps <= stopped.value.limit + 4 * (len(glob.tokens) + 1)


def test_a_line_longer_than_a_path_is_reported_not_used() -> None:
    gitignore = Gitignore("*.local.json\n" + "*a" * 20_000 + "\n!keep.local.json\n")
    assert gitignore.overlong == [(2, 40_000)]
    assert len(gitignore.rules) == 2
    assert gitignore.covers(".claude/settings.local.json")
    assert not gitignore.covers("keep.local.json")
    assert Gitignore("a" * MAX_GLOB_LENGTH).overlong == []
