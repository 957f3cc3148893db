"""Gitignore globs without backtracking: git's answers, at most (tokens) x (characters) steps,
and the reported attack (``*a`` fourteen times and ``!`` against a 120-character path)."""

from __future__ import annotations

import re

from agent_config_check.families.gitignore import gitignore_covers
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
    assert not gitignore_covers(gitignore, path)
    assert not gitignore_covers(gitignore, "x/" * 60 + path)


def test_gitignore_semantics() -> None:
    text = "# personal\n*.local.json\n!keep.local.json\n/build/\ndocs/**/draft-?.md\n[Tt]emp*\n"
    assert gitignore_covers(text, ".claude/settings.local.json")
    assert not gitignore_covers(text, "keep.local.json")
    assert gitignore_covers(text, "build/out/x.class")  # inside an ignored directory
    assert not gitignore_covers(text, "src/build/x")  # '/build/' is anchored at the root
    assert gitignore_covers(text, "docs/a/b/draft-1.md")
    assert gitignore_covers(text, "docs/draft-2.md")
    assert gitignore_covers(text, "src/Temp.txt")
    assert gitignore_covers(text, "src/temple/x")  # a directory matching [Tt]emp*
