"""The parts of an ``.xlsx`` workbook that openpyxl builds whole in memory, bounded before it
reads them.

In read-only mode openpyxl streams the worksheets, but parses every other part whole: the
content types, the relationships, the workbook, the styles (``xl/styles.xml``, each ``<xf>``
becoming an object of about 600 bytes), the document properties; and it holds every shared
string in a list. A 200 KB workbook whose styles part holds fifty million empty elements took
the server past 4 GB, and one of nine million shared strings 1.5 GB. So, before openpyxl
opens the workbook, the elements of every part but the worksheets are counted with a
streaming parser, each as :data:`ELEMENT_BYTES` bytes of ``--max-document-bytes`` (such a
part is a document held whole). Which parts are worksheets is read the way openpyxl reads
it: the workbook named by ``_rels/.rels``, its worksheets named by the workbook's
relationships.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Callable
from xml.etree import ElementTree
from xml.parsers import expat

from mcp_common import ErrorCode, ToolError

from uniqueness_server.read_limits import ReadLimits

ELEMENT_BYTES = 16
"""What one element of a part parsed whole counts against ``--max-document-bytes``."""
_ROOT_RELATIONSHIPS = "_rels/.rels"
_CONTENT_TYPES = "[Content_Types].xml"
_STYLES = "xl/styles.xml"  # openpyxl reads the styles from this name, whatever names it
_OFFICE_DOCUMENT = "/officeDocument"
_WORKSHEET = "/worksheet"
_CHUNK = 1 << 20


class _OverLimitError(Exception):
    """A count passed its limit."""


def check_workbook_parts(archive: zipfile.ZipFile, label: str, limits: ReadLimits) -> None:
    """Refuse ``archive`` (an ``.xlsx`` of the file ``label``) before openpyxl builds it when
    the parts it holds whole have more elements than ``--max-document-bytes`` allows."""
    names = {name for name in archive.namelist() if not name.endswith("/")}
    room = limits.max_document_bytes // ELEMENT_BYTES
    over = limits.document_too_large(label, "once the parts of the workbook held whole are built")

    def whole(name: str) -> None:
        nonlocal room
        room -= _elements(archive, name, room, over, label)

    # the parts naming the others are counted before they are read
    for name in (_CONTENT_TYPES, _ROOT_RELATIONSHIPS):
        if name in names:
            whole(name)
    workbook = _targets(archive, _ROOT_RELATIONSHIPS, _OFFICE_DOCUMENT, names)
    held = {_CONTENT_TYPES, _ROOT_RELATIONSHIPS, _STYLES, *workbook}
    streamed: set[str] = set()
    for part in workbook:
        whole(part)
        relationships = posixpath.join(
            posixpath.dirname(part), "_rels", posixpath.basename(part) + ".rels"
        )
        if relationships in names:
            whole(relationships)
            held.add(relationships)
            streamed |= _targets(archive, relationships, _WORKSHEET, names)
    for name in sorted(names - streamed - {_CONTENT_TYPES, _ROOT_RELATIONSHIPS, *held}):
        whole(name)
    if _STYLES in names:
        whole(_STYLES)


def _elements(archive: zipfile.ZipFile, name: str, room: int, over: ToolError, label: str) -> int:
    """How many elements the part ``name`` holds, refused with ``over`` past ``room``."""
    count = 0

    def start(_: str) -> None:
        nonlocal count
        count += 1
        if count > room:
            raise _OverLimitError

    try:
        _parse(archive, name, start, label)
    except _OverLimitError:
        raise over from None
    return count


def _parse(archive: zipfile.ZipFile, name: str, start: Callable[[str], None], label: str) -> None:
    """Stream the part ``name`` through expat, calling ``start`` with each element's tag; a
    part that is no XML (a picture) is skipped, openpyxl does not parse it."""
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda tag, _: start(tag)
    with archive.open(name) as stream:
        head = stream.read(_CHUNK)
        if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
            return
        try:
            chunk = head
            while chunk:
                parser.Parse(chunk, False)
                chunk = stream.read(_CHUNK)
            parser.Parse(b"", True)
        except expat.ExpatError as exc:
            raise ToolError(
                f"{label} is not a readable .xlsx workbook: {name} is not valid XML ({exc})",
                ErrorCode.INVALID_ARGUMENT,
            ) from exc


def _targets(archive: zipfile.ZipFile, relationships: str, kind: str, names: set[str]) -> set[str]:
    """The parts of ``names`` that the relationships part ``relationships`` (already counted)
    targets with a type ending in ``kind``, as paths in the archive."""
    if relationships not in names:
        return set()
    base = posixpath.dirname(posixpath.dirname(relationships))
    found: set[str] = set()
    # counted already; expat expands no external entity and bounds internal ones
    for element in ElementTree.fromstring(archive.read(relationships)).iter():  # noqa: S314
        target = element.get("Target")
        if target is None or not (element.get("Type") or "").endswith(kind):
            continue
        path = target.lstrip("/") if target.startswith("/") else posixpath.join(base, target)
        path = posixpath.normpath(path)
        if path in names:
            found.add(path)
    return found
