"""The plain Python API of context-server: parsing, indexing, resolution, tokens, output.

Nothing in this package knows about MCP; the tools in :mod:`context_server.tools` adapt it.
"""

from context_server.core.languages import LANGUAGES, SourceLanguage, select_languages
from context_server.core.service import ContextSelection, ContextService, SelectedFile

__all__ = [
    "LANGUAGES",
    "ContextSelection",
    "ContextService",
    "SelectedFile",
    "SourceLanguage",
    "select_languages",
]
