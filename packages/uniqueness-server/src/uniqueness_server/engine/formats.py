"""File formats: names, detection from content and extension, and gzip sniffing."""

from __future__ import annotations

import gzip
import zlib
from enum import StrEnum
from pathlib import Path

from mcp_common import ErrorCode, ToolError

GZIP_MAGIC = b"\x1f\x8b"
_PARQUET_MAGIC = b"PAR1"
_ZIP_MAGIC = b"PK\x03\x04"
_PEEK = 65_536


class Format(StrEnum):
    """A file format the engine reads."""

    CSV = "csv"
    TSV = "tsv"
    JSON = "json"
    JSONL = "jsonl"
    YAML = "yaml"
    TOON = "toon"
    PARQUET = "parquet"
    XLSX = "xlsx"


FORMAT_CHOICES: tuple[str, ...] = ("auto", *(f.value for f in Format))

_EXTENSIONS = {
    ".csv": Format.CSV,
    ".txt": Format.CSV,
    ".tsv": Format.TSV,
    ".tab": Format.TSV,
    ".json": Format.JSON,
    ".jsonl": Format.JSONL,
    ".ndjson": Format.JSONL,
    ".yaml": Format.YAML,
    ".yml": Format.YAML,
    ".toon": Format.TOON,
    ".parquet": Format.PARQUET,
    ".pq": Format.PARQUET,
    ".xlsx": Format.XLSX,
}


def is_gzip(path: Path) -> bool:
    """Whether the file starts with the gzip magic bytes (the name does not matter)."""
    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def read_prefix(path: Path, compressed: bool, size: int = _PEEK, label: str | None = None) -> bytes:
    """Up to ``size`` bytes of the (decompressed) content, for sniffing (``label`` names the
    file in messages; default its name)."""
    try:
        if compressed:
            with gzip.open(path, "rb") as handle:
                return handle.read(size)
        with path.open("rb") as handle:
            return handle.read(size)
    except (OSError, EOFError, zlib.error) as exc:
        raise unreadable_gzip(path.name if label is None else label, exc) from exc


def read_all(path: Path, compressed: bool, label: str | None = None) -> bytes:
    """The whole (decompressed) content; a truncated gzip stream is an error, never EOF."""
    try:
        if compressed:
            with gzip.open(path, "rb") as handle:
                return handle.read()
        return path.read_bytes()
    except (OSError, EOFError, zlib.error) as exc:
        raise unreadable_gzip(path.name if label is None else label, exc) from exc


def unreadable_gzip(label: str, exc: BaseException) -> ToolError:
    """The error for a gzip stream (of the file ``label``) that breaks before its end."""
    return ToolError(
        f"reading {label} failed before the end of the data: the gzip stream is "
        f"truncated or corrupt ({exc})",
        ErrorCode.FAILED,
    )


def _strip_gz(name: str) -> str:
    return name[:-3] if name.lower().endswith(".gz") else name


def detect_format(
    path: Path, compressed: bool, requested: str = "auto", label: str | None = None
) -> Format:
    """The format to read ``path`` as: ``requested`` unless ``auto``, else content then name
    (``label``, the file as messages name it; default its name)."""
    if requested != "auto":
        return Format(requested)
    label = path.name if label is None else label
    head = read_prefix(path, compressed, 4096, label)
    if head.startswith(_PARQUET_MAGIC):
        return Format.PARQUET
    if head.startswith(_ZIP_MAGIC):
        if _strip_gz(path.name).lower().endswith(".xlsx") or b"xl/" in head:
            return Format.XLSX
        raise ToolError(
            f"{label} is a ZIP archive that is not an .xlsx workbook; unzip it first",
            ErrorCode.UNSUPPORTED,
        )
    by_name = _EXTENSIONS.get(Path(_strip_gz(path.name)).suffix.lower())
    if by_name is not None:
        return by_name
    if b"\x00" in head:
        raise ToolError(
            f"{label} looks like a binary file in no supported format; supported formats: "
            f"{', '.join(f.value for f in Format)}",
            ErrorCode.UNSUPPORTED,
        )
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        return Format.JSON
    if text.startswith(b"{"):
        _, _, rest = text.partition(b"\n")
        return Format.JSONL if rest.strip().startswith(b"{") else Format.JSON
    if suffix := Path(_strip_gz(path.name)).suffix:
        raise ToolError(
            f"unknown format for extension {suffix!r}; pass format (one of "
            f"{', '.join(f.value for f in Format)})",
            ErrorCode.UNSUPPORTED,
        )
    return Format.CSV
