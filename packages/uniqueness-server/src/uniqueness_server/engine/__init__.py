"""The uniqueness engine: a plain Python API, no MCP.

Open a source with :func:`open_file` or :meth:`DatabaseRegistry.open`, then ask
:func:`check_uniqueness` (or :func:`approximate_check`), :func:`find_keys` or
:func:`profile_columns`; close the table after. A source's queries run on its backend
(:mod:`uniqueness_server.engine.backend` describes the interface, :mod:`.backends` holds one
module per backend).
"""

from uniqueness_server.engine.approximate import approximate_check
from uniqueness_server.engine.check import check_uniqueness
from uniqueness_server.engine.database import DatabaseRegistry
from uniqueness_server.engine.files import open_file
from uniqueness_server.engine.formats import FORMAT_CHOICES, Format
from uniqueness_server.engine.keys import MAX_KEY_COLUMNS, find_keys
from uniqueness_server.engine.limits import DEFAULT_MAX_LINE_BYTES, MAX_LINE_BYTES_LIMIT
from uniqueness_server.engine.metadata import read_metadata
from uniqueness_server.engine.model import (
    Approximation,
    CheckResult,
    ColumnEstimate,
    ColumnProfile,
    DeclaredKey,
    DuplicateGroup,
    Key,
    KeySearch,
    Nulls,
    Profile,
    Statistics,
    TableMetadata,
)
from uniqueness_server.engine.profile import profile_columns
from uniqueness_server.engine.table import Table

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "FORMAT_CHOICES",
    "MAX_KEY_COLUMNS",
    "MAX_LINE_BYTES_LIMIT",
    "Approximation",
    "CheckResult",
    "ColumnEstimate",
    "ColumnProfile",
    "DatabaseRegistry",
    "DeclaredKey",
    "DuplicateGroup",
    "Format",
    "Key",
    "KeySearch",
    "Nulls",
    "Profile",
    "Statistics",
    "Table",
    "TableMetadata",
    "approximate_check",
    "check_uniqueness",
    "find_keys",
    "open_file",
    "profile_columns",
    "read_metadata",
]
