"""The shared Markdown reader: what counts as a heading, code, a comment and prose."""

from __future__ import annotations

import pytest
from agent_config_check.markdown import (
    LineKind,
    MarkdownDocument,
    canonical_heading,
    scan_comments,
)


def kinds(text: str) -> list[LineKind]:
    return [line.kind for line in MarkdownDocument.read(text).lines]


def headings(text: str) -> list[str | None]:
    document = MarkdownDocument.read(text)
    return [document.lines[i].heading for i in document.headings()]


@pytest.mark.parametrize(
    ("line", "canonical"),
    [
        ("## C#", "## C#"),
        ("##  Testing ##", "## Testing"),
        ("## Testing", "## Testing"),
        ("   ## Testing   ", "## Testing"),
        ("##\tTabbed", "## Tabbed"),
        ("# CLAUDE.md ##", "# CLAUDE.md"),
        ("# CLAUDE.md-extended", "# CLAUDE.md-extended"),
        ("## Ends with hash#", "## Ends with hash#"),
        ("## ##", "##"),
        ("#", "#"),
        ("###### Six", "###### Six"),
    ],
)
def test_headings_are_canonicalised(line: str, canonical: str) -> None:
    assert canonical_heading(line) == canonical


@pytest.mark.parametrize("line", ["#1 rule", "####### seven", "#hashtag", "text ## no", ""])
def test_lines_that_are_not_headings(line: str) -> None:
    assert canonical_heading(line) is None


def test_heading_inside_backtick_and_tilde_fences_is_code() -> None:
    text = "```\n## A\n```\n~~~\n## B\n~~~\n## C\n"
    assert headings(text) == ["## C"]


def test_fence_closes_only_on_same_char_and_at_least_the_opener_length() -> None:
    text = "````\n```\n## Inside\n~~~~\n````\n## Outside\n"
    assert headings(text) == ["## Outside"]


def test_a_longer_closing_run_closes_the_fence() -> None:
    assert headings("```\n## In\n``````\n## Out\n") == ["## Out"]


def test_a_fence_line_with_an_info_string_never_closes_a_block() -> None:
    text = "```markdown\n```java\n## Still inside\n```\n## Out\n"
    # The ```java line is content; the bare ``` closes the outer block.
    assert headings(text) == ["## Out"]


def test_backtick_fence_info_string_with_a_backtick_is_an_inline_span() -> None:
    assert kinds("```a`b```\n## H\n") == [LineKind.PROSE, LineKind.HEADING, LineKind.BLANK]


def test_indented_code_opens_at_start_after_blank_and_after_code() -> None:
    text = "    ## Code at start\n\n    ## Code after blank\n    ## More code\n## Real\n"
    assert headings(text) == ["## Real"]


def test_tab_indent_counts_as_four_columns() -> None:
    assert headings("\n\t## Tab code\n  \t## Also code\n") == []


def test_indented_line_under_a_paragraph_is_a_lazy_continuation() -> None:
    text = "Paragraph\n    ```\n## Heading\n"
    assert kinds(text)[:3] == [LineKind.PROSE, LineKind.PROSE, LineKind.HEADING]
    assert headings(text) == ["## Heading"]


def test_indented_fence_under_a_paragraph_does_not_open_a_block() -> None:
    assert headings("Text\n    ```\n## Visible\n    ```\n") == ["## Visible"]


def test_list_continuation_paragraph_is_prose_and_code_is_measured_from_the_item() -> None:
    text = "1.  Item\n\n    continued paragraph\n\n        real code\n"
    assert kinds(text)[:5] == [
        LineKind.PROSE,
        LineKind.BLANK,
        LineKind.PROSE,
        LineKind.BLANK,
        LineKind.CODE,
    ]


def test_leaving_the_list_resets_the_indent_base() -> None:
    text = "- item\n\nback at root\n\n    code\n"
    assert kinds(text)[4] is LineKind.CODE


def test_one_line_comment_is_not_a_heading() -> None:
    document = MarkdownDocument.read("<!-- ## X -->\n")
    assert document.headings() == []
    assert document.lines[0].kind is LineKind.INERT


def test_multi_line_comment_hides_headings_until_it_closes() -> None:
    text = "<!--\n## Hidden\n-->\n## Seen\n"
    assert headings(text) == ["## Seen"]


def test_comment_opened_after_text_hides_the_following_lines() -> None:
    text = "Superseded: <!--\n## Old\n-->\n## New\n"
    document = MarkdownDocument.read(text)
    assert document.lines[0].kind is LineKind.PROSE
    assert headings(text) == ["## New"]


def test_comment_opener_in_a_code_span_opens_nothing() -> None:
    assert headings("Use `<!--` to start a comment\n## Next\n") == ["## Next"]


def test_code_span_closes_only_on_an_equal_backtick_run() -> None:
    # `` ` `` is one span; the <!-- after it is real and hides the heading below.
    assert headings("`` a ` b `` <!--\n## Hidden\n-->\n") == []
    # An unmatched run is literal text, so the <!-- after it opens a comment.
    assert headings("``` x <!--\n## Hidden\n") == []


def test_comment_delimiters_inside_code_do_not_count() -> None:
    assert headings("```\n<!--\n```\n## Seen\n") == ["## Seen"]


def test_fence_inside_a_comment_is_not_code() -> None:
    assert headings("<!--\n```\n-->\n## Seen\n```\n") == ["## Seen"]


def test_thousands_of_comment_delimiters_do_not_recurse() -> None:
    line = "<!-- -->" * 5000 + " tail"
    open_after, visible = scan_comments(line, False)
    assert not open_after
    assert visible.strip() == "tail"
    assert headings(line + "\n## After\n") == ["## After"]


def test_unclosed_delimiter_storm_stays_open() -> None:
    assert scan_comments("<!-- -->" * 3000 + "<!--", False)[0]


def test_bom_and_crlf_are_read_through() -> None:
    document = MarkdownDocument.read("\ufeff# CLAUDE.md\r\n\r\n## A\r\nbody\r\n")
    assert document.starts_with("# CLAUDE.md")
    assert document.find_section("## A") == 2
    assert document.has_body(2)


def test_old_mac_line_endings_are_lines_too() -> None:
    assert headings("# T\r## A\rtext\r") == ["# T", "## A"]


@pytest.mark.parametrize(
    ("text", "has_body"),
    [
        ("## A\ntext\n", True),
        ("## A\n\n## B\n", False),
        ("## A\n\n# Up\n", False),
        ("## A\n### Deeper\n", True),
        ("## A\n```\n```\n", True),
        ("## A\n\n    code\n", True),
        ("## A\n<!-- only a comment -->\n## B\n", False),
        ("## A\n<!--\nhidden\n-->\n", False),
        ("## A\n\n\n", False),
    ],
)
def test_section_body(text: str, has_body: bool) -> None:
    assert MarkdownDocument.read(text).has_body(0) is has_body


def test_mentions_count_on_prose_and_code_spans_only() -> None:
    assert MarkdownDocument.read("See `AGENTS.md`.\n").mentions("AGENTS.md")
    assert not MarkdownDocument.read("```\nAGENTS.md\n```\n").mentions("AGENTS.md")
    assert not MarkdownDocument.read("\n    AGENTS.md\n").mentions("AGENTS.md")
    assert not MarkdownDocument.read("<!-- AGENTS.md -->\n").mentions("AGENTS.md")
    assert not MarkdownDocument.read("text <!-- AGENTS.md --> more\n").mentions("AGENTS.md")


def test_open_fence_and_comment_are_reported() -> None:
    fence = MarkdownDocument.read("~~~~ python\ncode\n").open_fence
    assert fence is not None
    assert fence.closing_line == "~~~~"
    assert MarkdownDocument.read("a <!-- b\n").comment_open


def test_long_line_of_unmatched_backtick_runs_still_finds_the_comment() -> None:
    line = "".join("`" * length + "a" for length in range(1, 400)) + " <!--"
    assert scan_comments(line, False)[0]
    assert headings(line + "\n## Hidden\n-->\n## Seen\n") == ["## Seen"]
