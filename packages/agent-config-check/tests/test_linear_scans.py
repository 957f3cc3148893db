"""The checker's own readers of repository text answer as the regular expressions they
replace, on short random lines (where those are fast), and stay linear on hostile long ones
(where those backtracked): front matter keys, placeholder lines, permission entries, MCP URLs,
links, code spans, the Maven module list."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from agent_config_check.document_format import is_placeholder, without_code_spans
from agent_config_check.families.consistency import _modules
from agent_config_check.families.documents import link_destinations
from agent_config_check.families.mcp import _URL
from agent_config_check.families.settings import _well_formed_entry
from agent_config_check.front_matter import _fm_key_value
from hypothesis import given, settings
from hypothesis import strategies as st

BIN = Path(sys.executable).parent
HANG_GUARD = 120  # seconds; each hostile file below took the replaced regexes minutes to hours

OLD_KEY = re.compile(
    r"""(?:"(?P<dq>[^"\\]*)"|'(?P<sq>[^']*)'|(?P<plain>[^\s#'"{}\[\],&*!|>%@`?:-][^#]*?|-[^\s#][^#]*?))"""
    r"""[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*$"""
)
OLD_PLACEHOLDER = re.compile(
    r"(?i)^[\s>*_~`#-]*(?:(?:todo|tbd|fixme|xxx|placeholder|coming soon|lorem ipsum"
    r"|not documented yet)\b.*|.*\breplace (?:this|me)\b.*|\.\.\.|…)[\s*_~`]*$"
)
OLD_ENTRY = re.compile(r"(mcp__[A-Za-z0-9_-]+|[A-Za-z][A-Za-z0-9_]*)(\(.+\))?")
OLD_URL = re.compile(r"(?i)(https?)://([^/?#\s]+)[^\s]*")
OLD_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
OLD_LINK = re.compile(r"\[[^\]]*\]\(((?:[^()]|\([^()]*\))+)\)")


def lines(alphabet: list[str], size: int = 14) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet), max_size=size).map("".join)


@settings(max_examples=1500, deadline=None)
@given(lines(["a", "b", ":", " ", "\t", "#", '"', "'", "-", "\\", "{", "@", "/", "x"]))
def test_front_matter_keys_as_the_regex_read_them(line: str) -> None:
    match = OLD_KEY.fullmatch(line)
    expected = None
    if match is not None:
        key = match.group("dq") or match.group("sq") or (match.group("plain") or "").strip()
        expected = (key, match.group("value") or "")
    assert _fm_key_value(line) == expected


@settings(max_examples=1500, deadline=None)
@given(lines(["TODO", "tbd", " ", "*", "_", "#", "-", ">", "x", "...", "…", "replace this", "a"]))
def test_placeholder_lines_as_the_regex_read_them(line: str) -> None:
    assert is_placeholder(line) == (OLD_PLACEHOLDER.match(line) is not None)


@settings(max_examples=1500, deadline=None)
@given(lines(["Bash", "mcp__", "a", "_", "-", "(", ")", "x", " ", "1", "\n"]))
def test_permission_entries_as_the_regex_read_them(entry: str) -> None:
    assert _well_formed_entry(entry) == (OLD_ENTRY.fullmatch(entry) is not None)


@settings(max_examples=1500, deadline=None)
@given(lines(["http://", "HTTPS://", "a", "/", "?", "#", " ", ".", ":"]))
def test_urls_as_the_regex_read_them(url: str) -> None:
    assert (_URL.fullmatch(url) is None) == (OLD_URL.fullmatch(url) is None)


@settings(max_examples=1500, deadline=None)
@given(lines(["`", "``", "a", " ", "@x.md"]))
def test_code_spans_as_the_regex_removed_them(text: str) -> None:
    ours, theirs = without_code_spans(text), OLD_SPAN.sub("", text)
    # an empty span (`` `` ``) is one in CommonMark; the old pattern needed a character inside
    assert ours == theirs or "``" in text


@settings(max_examples=1500, deadline=None)
@given(lines(["[", "]", "(", ")", "a", "](", " "]))
def test_links_as_the_regex_found_them_when_parentheses_balance(line: str) -> None:
    expected = [match.group(1) for match in OLD_LINK.finditer(line)]
    # CommonMark balances parentheses at any depth; the old pattern knew one level inside
    if line.count("(") == line.count(")") and nesting(line) <= 2:
        assert link_destinations(line) == expected or "[" in "".join(expected)


def nesting(line: str) -> int:
    """How deep parentheses nest (a ``)`` closing nothing opens nothing either)."""
    depth = deepest = 0
    for char in line:
        depth = max(0, depth + {"(": 1, ")": -1}.get(char, 0))
        deepest = max(deepest, depth)
    return deepest


def test_the_module_list_reads_past_comments() -> None:
    pom = "<modules><!-- <module>old</module> --><module> api </module><module>web</module>"
    assert _modules(pom + "<!-- unclosed <module>gone</module>") == ["api", "web"]


def hostile_project(root: Path) -> Path:
    """Each line the replaced regexes backtracked on for minutes, at half a megabyte."""
    size = 500_000
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".claude" / "agents" / "keys.md").write_text(
        f"---\nname: keys\ndescription: d\nk{' ' * size}x\n---\n", encoding="utf-8"
    )
    (root / "CLAUDE.md").write_text(
        "# CLAUDE.md\n\n## Testing\n\n"
        + "* " * (size // 2)
        + "x\n\n"
        + "[](" * (size // 3)
        + "\n\n"
        + "`" * size
        + " a\n",
        encoding="utf-8",
    )
    (root / ".claude" / "settings.json").write_text(
        '{"permissions": {"allow": ["' + "a" * size + '(x"]}}', encoding="utf-8"
    )
    (root / ".mcp.json").write_text(
        '{"mcpServers": {"s": {"type": "http", "url": "http://' + "a" * size + ' b"}}}',
        encoding="utf-8",
    )
    (root / "pom.xml").write_text(
        "<project><modules>" + "<!--" * (size // 4) + "</modules></project>", encoding="utf-8"
    )
    return root


def test_hostile_lines_are_checked_at_once(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(BIN / "agent-config-check"), "--section", "## Testing"],
        cwd=hostile_project(tmp_path),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "is not of the form Tool or Tool(specifier)" in result.stdout
    assert "has a malformed 'url'" in result.stdout
