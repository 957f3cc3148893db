"""The one Markdown reader behind both the CLAUDE.md checker and the reshaper.

The anchor needed about fifteen fixes before its checker and its conformer agreed on what a
heading is; sharing a single reader is what makes "a reshaped file always passes the check"
true by construction. The reader decides, in one left-to-right pass, which lines are code
(fenced or indented), which are hidden by an HTML comment ("inert"), and which are structural
(blank, prose or heading). It is a line classifier, not a full CommonMark parser: it follows
CommonMark wherever the difference could move a heading, a section body or a mention.
"""

from __future__ import annotations

import enum
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import NamedTuple

BOM = "\ufeff"
_HEADING = re.compile(r"#{1,6}(?:[ \t]+(.*))?")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t])#+$")
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])([ \t]+|$)")
_BLANKS = " \t"
_RUN = re.compile(r"`+")
_ITEM_STARTS = frozenset("-*+0123456789")


class LineKind(enum.Enum):
    """What one line of a Markdown document is, for the purposes of the format rules."""

    BLANK = "blank"
    PROSE = "prose"
    HEADING = "heading"
    CODE = "code"
    INERT = "inert"

    @property
    def structural(self) -> bool:
        """Whether the line is neither code nor hidden by an HTML comment."""
        return self in (LineKind.BLANK, LineKind.PROSE, LineKind.HEADING)


class Line(NamedTuple):
    """One classified line; ``heading`` is the canonical heading of a heading line (a named
    tuple: a document of thousands of lines builds thousands of them)."""

    text: str
    kind: LineKind
    heading: str | None = None
    visible: str = ""

    @property
    def level(self) -> int:
        """The heading level (number of ``#``), 0 for a line that is not a heading."""
        return len(self.heading) - len(self.heading.lstrip("#")) if self.heading else 0


def canonical_heading(text: str) -> str | None:
    """The canonical form of an ATX heading, or ``None`` when ``text`` is not one.

    Canonical = the hashes, one space, the text with a closing ``#`` run removed only when
    whitespace precedes it: ``##  Testing ##`` -> ``## Testing``, ``## C#`` stays, ``#1 rule``
    is not a heading.
    """
    stripped = text.strip(_BLANKS)
    match = _HEADING.fullmatch(stripped)
    if match is None:
        return None
    hashes = stripped[: len(stripped) - len(stripped.lstrip("#"))]
    body = _CLOSING_HASHES.sub("", (match.group(1) or "").strip(_BLANKS)).strip(_BLANKS)
    return f"{hashes} {body}" if body else hashes


def normalise(text: str) -> tuple[list[str], bool]:
    """Split ``text`` into LF lines without a leading BOM; also whether it used CRLF.

    The trailing empty string after a final newline is kept, so joining with LF round-trips.
    """
    crlf = "\r\n" in text
    body = text.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n")
    return body.split("\n"), crlf


def _indent(line: str) -> tuple[int, int]:
    """Leading indentation in columns (tabs to the next multiple of four) and its length."""
    if line[:1] not in (" ", "\t"):
        return 0, 0
    column = 0
    for index, char in enumerate(line):
        if char == " ":
            column += 1
        elif char == "\t":
            column = (column // 4 + 1) * 4
        else:
            return column, index
    return column, len(line)


def scan_comments(text: str, comment_open: bool) -> tuple[bool, str]:
    """Follow every ``<!--``/``-->`` on a line; return the state at its end and the visible text.

    Iterative rather than recursive, so a line of thousands of delimiters is fine. Outside a
    comment a code span (closed by a backtick run of exactly its own length) is skipped first,
    so `` `<!--` `` opens nothing; inside a comment only ``-->`` matters.
    """
    visible: list[str] = []
    # Start offsets of the line's maximal backtick runs, by length, found once: a span
    # closes on the next run of exactly its length, so lookups stay O(log n) per run.
    runs: dict[int, list[int]] | None = None
    opener = -1
    position = 0
    while position < len(text):
        if comment_open:
            end = text.find("-->", position)
            if end < 0:
                break
            comment_open, position = False, end + 3
            continue
        if opener < position:
            opener = text.find("<!--", position)
            if opener < 0:
                opener = len(text)
        tick = text.find("`", position, opener)
        if tick >= 0:
            if runs is None:
                runs = {}
                for found in _RUN.finditer(text):
                    runs.setdefault(len(found.group()), []).append(found.start())
            match = _RUN.match(text, tick)
            run = match.end() - tick if match else 1
            same = runs.get(run, [])
            index = bisect_left(same, tick + run)
            stop = same[index] + run if index < len(same) else tick + run
            visible.append(text[position:stop])
            position = stop
            continue
        if opener == len(text):
            visible.append(text[position:])
            break
        visible.append(text[position:opener])
        comment_open, position = True, opener + 4
    return comment_open, "".join(visible)


@dataclass(frozen=True)
class OpenFence:
    """A fenced code block still open at the end of the document."""

    char: str
    length: int

    @property
    def closing_line(self) -> str:
        """The line that closes it."""
        return self.char * self.length


class MarkdownDocument:
    """A Markdown text read into classified lines; what the format rules need to ask of it."""

    def __init__(self, lines: list[str]) -> None:
        """Classify ``lines`` (LF-split, BOM already removed; see :func:`normalise`)."""
        self.lines: tuple[Line, ...]
        self.open_fence: OpenFence | None
        self.comment_open: bool
        self.lines, self.open_fence, self.comment_open = _classify(lines)

    @classmethod
    def read(cls, text: str) -> MarkdownDocument:
        """Read a whole text (BOM, CRLF and CR handled)."""
        return cls(normalise(text)[0])

    @property
    def is_blank(self) -> bool:
        """Whether the document holds no non-whitespace character."""
        return all(not line.text.strip() for line in self.lines)

    def first_nonblank(self) -> int | None:
        """Index of the first line with a non-blank character."""
        return next((i for i, line in enumerate(self.lines) if line.text.strip(_BLANKS)), None)

    def starts_with(self, title: str) -> bool:
        """Whether the first non-blank line canonically equals the heading ``title``."""
        first = self.first_nonblank()
        return first is not None and canonical_heading(self.lines[first].text) == title

    def headings(self) -> list[int]:
        """Indexes of the structural heading lines, in document order."""
        return [i for i, line in enumerate(self.lines) if line.kind is LineKind.HEADING]

    def find_section(self, heading: str) -> int | None:
        """Index of the first structural heading canonically equal to ``heading``."""
        return next((i for i in self.headings() if self.lines[i].heading == heading), None)

    def has_body(self, index: int) -> bool:
        """Whether the heading at ``index`` is followed by content before its section ends.

        The first line after it that is code, or non-blank and not inert, decides: code, prose
        or a deeper heading is a body; a heading of the same or a shallower level, or the end
        of the document, means the section is empty (a comment alone does not count).
        """
        level = self.lines[index].level
        for line in self.lines[index + 1 :]:
            if line.kind is LineKind.CODE or line.kind is LineKind.PROSE:
                return True
            if line.kind is LineKind.HEADING:
                return line.level > level
        return False

    def mentions(self, word: str) -> bool:
        """Whether ``word`` is on a structural line outside HTML comments (code spans count)."""
        return any(line.kind.structural and word in line.visible for line in self.lines)


def _classify(raw_lines: list[str]) -> tuple[tuple[Line, ...], OpenFence | None, bool]:
    lines: list[Line] = []
    fence: OpenFence | None = None
    comment_open = False
    # An indented line directly under a paragraph line is a lazy continuation, never code.
    paragraph_open = False
    list_column: int | None = None
    for text in raw_lines:
        if fence is not None:
            run = text.strip(_BLANKS)
            if len(run) >= fence.length and run == fence.char * len(run):
                fence = None
            lines.append(Line(text, LineKind.CODE))
            continue
        if comment_open:
            comment_open, _ = scan_comments(text, True)
            lines.append(Line(text, LineKind.INERT))
            paragraph_open = False
            continue
        if not text.strip(_BLANKS):
            lines.append(Line(text, LineKind.BLANK))
            paragraph_open = False
            continue
        column, start = _indent(text)
        if list_column is not None and column < list_column and not paragraph_open:
            list_column = None
        relative = column - (list_column if list_column is not None else 0)
        content = text[start:].rstrip(_BLANKS)
        if relative >= 4 and not paragraph_open:
            lines.append(Line(text, LineKind.CODE))
            continue
        if relative < 4 and content[:3] in ("```", "~~~") and (opened := _fence_opener(content)):
            fence = opened
            paragraph_open = False
            lines.append(Line(text, LineKind.CODE))
            continue
        opens_here = content.startswith("<!--")
        if "<!--" in content:
            comment_open, visible = scan_comments(content, False)
        else:
            visible = content  # nothing to hide: the common line costs no scan
        if (opens_here and comment_open) or not visible.strip(_BLANKS):
            lines.append(Line(text, LineKind.INERT))
            paragraph_open = False
            continue
        heading = canonical_heading(content) if relative < 4 and content[0] == "#" else None
        if heading is not None:
            lines.append(Line(text, LineKind.HEADING, heading, visible))
            paragraph_open = False
            continue
        item = _LIST_ITEM.match(content) if relative < 4 and content[0] in _ITEM_STARTS else None
        if item is not None:
            marker_end = column + len(item.group(1))
            spaces = _indent(content[len(item.group(1)) :])[0]
            list_column = marker_end + (spaces if 1 <= spaces <= 4 else 1)
        lines.append(Line(text, LineKind.PROSE, None, visible))
        paragraph_open = True
    return tuple(lines), fence, comment_open


def _fence_opener(content: str) -> OpenFence | None:
    match = _FENCE.fullmatch(content)
    if match is None:
        return None
    run = match.group(1)
    # CommonMark: a backtick fence's info string cannot hold a backtick (it is a code span).
    if run[0] == "`" and "`" in match.group(2):
        return None
    return OpenFence(run[0], len(run))
