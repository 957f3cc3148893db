"""Text as long as an argument may be (100,000 characters), shaped to make a backtracking
regex rescan itself, still gets masked and escaped.

The timeout is a tripwire for quadratic blow-ups (these inputs once took minutes; linear code
takes milliseconds), not a performance target: those live in benchmarks/.
"""

from __future__ import annotations

import pytest
from mcp_common import escape_cell, escape_inline, front_matter, redact

RUNS = [
    *("a.", "a-", "a+", "/a", "a/", "x@", "a://", '"a', "\\", "password=", "C:\\a", "Bearer "),
    # the shapes issue 9 added: loose URL passwords, key: value, quoted values, home, UNC and
    # spaced paths, glued tokens, PEM blocks
    *("a://b:", "a://b:c ", "password: ", "'password': '", 'password="', "x-api-key:"),
    *("authorization: a ", "pass=", "~/", "\\\\a\\", "/a a", "/a ", "a b/", "C:\\a b"),
    *("AKIA", "_ghp_", "eyJ", "-----BEGIN PRIVATE KEY-----", "sqlite:///"),
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("unit", RUNS)
def test_long_runs_are_masked_and_escaped_without_blowing_up(unit: str) -> None:
    text = unit * (100_000 // len(unit))
    assert redact(text)
    assert escape_cell(text)
    assert escape_inline(text)
    assert front_matter({"value": text})
