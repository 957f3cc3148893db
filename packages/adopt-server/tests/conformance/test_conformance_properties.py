"""Property tests on generated Markdown: a reshaped file always passes the check, and
reshaping twice changes nothing (the reader is shared, so the two cannot disagree)."""

from __future__ import annotations

from adopt_server.conformance import rules_for
from agent_config_check.document_format import check_agents_md, check_claude_md
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import AGENTS_MD_RULES, RuleSet
from hypothesis import given, settings
from hypothesis import strategies as st

RULE_SETS = (
    rules_for("project", "maven"),
    rules_for("minimal", "github-actions", ["## Testing", "## Build & run", "### Deep"]),
    rules_for("project", "python"),
)

WORDS = st.sampled_from(
    ["Testing", "Build", "Maven", "Project", "Java version", "CLAUDE.md", "AGENTS.md", "C#", "x"]
)
HEADINGS = st.builds(
    lambda hashes, space, word, suffix, closing: f"{hashes}{space}{word}{suffix}{closing}",
    st.sampled_from(["#", "##", "###", "#######"]),
    st.sampled_from([" ", "  ", "\t", ""]),
    WORDS,
    st.sampled_from(["", " strategy", "ish", " notes"]),
    st.sampled_from(["", " ##", "#"]),
)
FENCES = st.builds(
    lambda char, length, info: char * length + info,
    st.sampled_from(["`", "~"]),
    st.integers(3, 5),
    st.sampled_from(["", "java", " python", "x`y"]),
)
INDENTS = st.sampled_from(["", " ", "  ", "    ", "\t", "      "])
INLINE = st.sampled_from(
    [
        "text",
        "See AGENTS.md",
        "`AGENTS.md`",
        "`<!--`",
        "`` ` ``",
        "<!--",
        "-->",
        "<!-- AGENTS.md -->",
        "<!-- ## Testing -->",
        "<!-- -->" * 3,
        "- item",
        "1. item",
        "* ## Testing",
        "#1 rule",
        "_Not documented yet_",
    ]
)
LINES = st.one_of(
    st.just(""),
    HEADINGS,
    FENCES,
    INLINE,
    st.builds(lambda indent, body: indent + body, INDENTS, st.one_of(HEADINGS, FENCES, INLINE)),
    st.builds(lambda a, b: f"{a} {b}", INLINE, INLINE),
)
DOCUMENTS = st.builds(
    lambda bom, lines, newline, final: (
        ("\ufeff" if bom else "") + newline.join(lines) + (newline if final else "")
    ),
    st.booleans(),
    st.lists(LINES, max_size=25),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)


def assert_reshape_properties(text: str, rules: RuleSet, check: object) -> None:
    assert callable(check)
    reshaped = reshape(text, rules)
    assert check(reshaped) == [], reshaped
    assert reshape(reshaped, rules) == reshaped
    if check(text) == []:
        assert reshaped == text
    if "\r\n" in text:
        assert "\n" not in reshaped.replace("\r\n", "")


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS, st.sampled_from(RULE_SETS))
def test_reshaped_claude_md_passes_and_is_stable(text: str, rules: RuleSet) -> None:
    assert_reshape_properties(text, rules, lambda t: check_claude_md(t, rules))


@settings(max_examples=150, deadline=None)
@given(DOCUMENTS)
def test_reshaped_agents_md_passes_and_is_stable(text: str) -> None:
    assert_reshape_properties(text, AGENTS_MD_RULES, check_agents_md)
