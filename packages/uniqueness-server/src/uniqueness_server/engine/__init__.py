"""The uniqueness engine: a plain Python API, no MCP.

Open a source with :func:`open_file` or :meth:`DatabaseRegistry.open`, then ask
:func:`check_uniqueness`, :func:`find_keys` or :func:`profile_columns`; close the table after.
"""

from uniqueness_server.engine.check import check_uniqueness
from uniqueness_server.engine.database import DatabaseRegistry, read_only_query
from uniqueness_server.engine.files import open_file
from uniqueness_server.engine.formats import FORMAT_CHOICES, Format
from uniqueness_server.engine.keys import MAX_KEY_COLUMNS, find_keys
from uniqueness_server.engine.limits import DEFAULT_MAX_LINE_BYTES, MAX_LINE_BYTES_LIMIT
from uniqueness_server.engine.model import (
    CheckResult,
    ColumnProfile,
    DuplicateGroup,
    Key,
    KeySearch,
    Nulls,
    Profile,
)
from uniqueness_server.engine.profile import profile_columns
from uniqueness_server.engine.table import Table

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "FORMAT_CHOICES",
    "MAX_KEY_COLUMNS",
    "MAX_LINE_BYTES_LIMIT",
    "CheckResult",
    "ColumnProfile",
    "DatabaseRegistry",
    "DuplicateGroup",
    "Format",
    "Key",
    "KeySearch",
    "Nulls",
    "Profile",
    "Table",
    "check_uniqueness",
    "find_keys",
    "open_file",
    "profile_columns",
    "read_only_query",
]
