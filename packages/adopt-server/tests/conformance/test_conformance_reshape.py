"""The CLAUDE.md reshape: every rule of the reference's algorithm, and its guarantees."""

from __future__ import annotations

import pytest
from adopt_server.conformance import rules_for
from adopt_server.guards.builds.maven import JAVA_SECTIONS
from agent_config_check.document_format import check_agents_md, check_claude_md
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import AGENTS_MD_RULES, REFERENCE_LINE, STUB_BODY, RuleSet

TESTING = rules_for(sections=["## Testing"])
MAVEN = rules_for("project", "maven")


def conform(text: str, rules: RuleSet = TESTING) -> str:
    result = reshape(text, rules)
    assert check_claude_md(result, rules) == []
    assert reshape(result, rules) == result
    return result


def test_conforming_document_is_returned_byte_identical() -> None:
    text = "# CLAUDE.md\n\nAGENTS.md\n\n## Testing\n\nRun it.\n\n\n"
    assert reshape(text, TESTING) is text


def test_conforming_crlf_document_is_byte_identical() -> None:
    text = "# CLAUDE.md\r\n\r\nSee AGENTS.md\r\n\r\n## Testing\r\nx"
    assert reshape(text, TESTING) == text


def test_crlf_is_kept_when_reshaping() -> None:
    result = conform("Intro\r\n")
    assert "\r\n" in result
    assert "\n" not in result.replace("\r\n", "")


def test_bom_is_kept() -> None:
    assert conform("\ufeffIntro\n").startswith("\ufeff# CLAUDE.md\n")


def test_everything_added_to_a_bare_paragraph() -> None:
    assert conform("Intro text.\n") == (
        f"# CLAUDE.md\n\n{REFERENCE_LINE}\n\nIntro text.\n\n## Testing\n\n{STUB_BODY}\n"
    )


def test_empty_document_becomes_the_skeleton() -> None:
    assert conform("") == f"# CLAUDE.md\n\n{REFERENCE_LINE}\n\n## Testing\n\n{STUB_BODY}\n"


def test_title_moved_not_duplicated() -> None:
    result = conform("Intro\n\n# CLAUDE.md\n\nAGENTS.md\n\n## Testing\nok\n")
    assert result.count("# CLAUDE.md") == 1
    assert result.startswith("# CLAUDE.md\n\nIntro\n")


def test_second_title_removed_with_its_blank_line() -> None:
    text = "# CLAUDE.md\n\nAGENTS.md\n\n# CLAUDE.md\n\n## Build\nok\n"
    assert conform(text) == (
        f"# CLAUDE.md\n\nAGENTS.md\n\n## Build\nok\n\n## Testing\n\n{STUB_BODY}\n"
    )


def test_a_conforming_document_with_a_second_title_is_left_alone() -> None:
    # The checker accepts it, so reshaping (which must keep conforming files byte-identical)
    # does not touch it.
    text = "# CLAUDE.md\n\nAGENTS.md\n\n# CLAUDE.md\n\n## Testing\nok\n"
    assert reshape(text, TESTING) is text


def test_title_removed_between_paragraph_lines_keeps_them_apart() -> None:
    result = conform("Intro\n# CLAUDE.md\n    not code\n")
    assert "Intro\n\n    not code" in result


def test_title_behind_a_bom_is_recognised() -> None:
    result = conform("\ufeff# CLAUDE.md\n\n## Testing\nok\n")
    assert result.count("# CLAUDE.md") == 1


def test_title_in_a_fence_does_not_count() -> None:
    result = conform("```\n# CLAUDE.md\n```\n")
    assert result.startswith("# CLAUDE.md\n\n")
    assert "```\n# CLAUDE.md\n```" in result


def test_reference_inserted_after_the_title_without_a_double_blank() -> None:
    assert conform("# CLAUDE.md\n\n## Testing\nok\n") == (
        f"# CLAUDE.md\n\n{REFERENCE_LINE}\n\n## Testing\nok\n"
    )
    assert conform("# CLAUDE.md\n## Testing\nok\n") == (
        f"# CLAUDE.md\n\n{REFERENCE_LINE}\n\n## Testing\nok\n"
    )


def test_reference_only_in_a_comment_gets_a_real_one() -> None:
    assert REFERENCE_LINE in conform("# CLAUDE.md\n<!-- AGENTS.md -->\n## Testing\nok\n")


def test_near_miss_heading_renamed_and_body_kept() -> None:
    result = conform("# CLAUDE.md\n\nAGENTS.md\n\n## Testing strategy\n\nUse pytest.\n")
    assert "## Testing\n\nUse pytest." in result
    assert "strategy" not in result


def test_case_variant_renamed_to_the_required_heading() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\n## principles for java development\nx\n", MAVEN)
    assert "## Principles for Java Development\nx" in result


def test_near_miss_needs_a_word_boundary_and_the_same_level() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\n\n## Testingish\nx\n\n### Testing\ny\n")
    assert "## Testingish\nx" in result
    assert "### Testing\ny" in result
    assert result.endswith(f"## Testing\n\n{STUB_BODY}\n")


def test_renamed_bare_section_gets_a_stub_that_does_not_point_in_a_circle() -> None:
    result = conform("# CLAUDE.md\n\nAGENTS.md\n\n## Testing notes\n")
    assert result.endswith(f"## Testing\n\n{STUB_BODY}\n")
    assert "AGENTS" not in STUB_BODY


def test_empty_section_followed_by_a_sibling_gets_a_stub() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\n## Testing\n## Other\nx\n")
    assert f"## Testing\n\n{STUB_BODY}\n\n## Other" in result


def test_section_holding_only_a_comment_is_filled() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\n## Testing\n<!-- todo -->\n")
    assert f"## Testing\n\n{STUB_BODY}\n\n<!-- todo -->" in result


def test_section_inside_a_comment_is_appended() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\n<!--\n## Testing\n-->\n")
    assert result.endswith(f"-->\n\n## Testing\n\n{STUB_BODY}\n")


@pytest.mark.parametrize("opener", ["```", "~~~", "````", "```java", "~~~~~ text"])
def test_unterminated_fence_closed_with_an_equal_run(opener: str) -> None:
    result = conform(f"# CLAUDE.md\nAGENTS.md\n{opener}\n## Testing\n")
    run = opener[0] * (len(opener) - len(opener.lstrip(opener[0])))
    assert f"{opener}\n## Testing\n{run}\n\n## Testing\n" in result


def test_unterminated_comment_closed() -> None:
    result = conform("# CLAUDE.md\nAGENTS.md\nSuperseded: <!--\n## Testing\nold\n")
    assert "old\n-->\n\n## Testing\n" in result


def test_headings_in_fences_samples_and_nested_fences_are_not_sections() -> None:
    text = (
        "# CLAUDE.md\n\nAGENTS.md\n\n````\n```\n## Testing\n```\n````\n\n"
        "    ## Testing\n\n~~~\n## Testing\n~~~\n"
    )
    result = conform(text)
    assert result.startswith(text.rstrip("\n"))
    assert result.endswith(f"\n## Testing\n\n{STUB_BODY}\n")


def test_indented_fence_under_a_paragraph_is_prose_so_the_heading_counts() -> None:
    text = "# CLAUDE.md\nAGENTS.md\nParagraph\n    ```\n## Testing\nok\n"
    assert reshape(text, TESTING) == text


def test_code_span_comment_opener_does_not_hide_sections() -> None:
    text = "# CLAUDE.md\nAGENTS.md uses `<!--`\n## Testing\nok\n"
    assert reshape(text, TESTING) == text


def test_double_spaced_heading_is_recognised() -> None:
    text = "# CLAUDE.md\nAGENTS.md\n##  Testing\nok\n"
    assert reshape(text, TESTING) == text


def test_hash_number_line_is_body_not_a_heading() -> None:
    text = "# CLAUDE.md\nAGENTS.md\n## Testing\n#1 rule: test\n"
    assert reshape(text, TESTING) == text


def test_five_thousand_comment_pairs_on_a_line_are_fine() -> None:
    conform("# CLAUDE.md\n" + "<!-- -->" * 5000 + "\n")


def test_non_maven_rules_add_no_java_sections() -> None:
    result = conform("Intro\n", rules_for("project", "gradle"))
    assert not any(section in result for section in JAVA_SECTIONS)


def test_maven_rules_add_the_six_sections_in_order() -> None:
    result = conform("# CLAUDE.md\n\nAGENTS.md\n", MAVEN)
    positions = [result.index(section + "\n") for section in JAVA_SECTIONS]
    assert positions == sorted(positions)


def test_agents_md_is_reshaped_with_its_own_rules() -> None:
    result = reshape("# Agent guide\n\nSee CLAUDE.md.\n", AGENTS_MD_RULES)
    assert check_agents_md(result) == []
    assert reshape(result, AGENTS_MD_RULES) == result
