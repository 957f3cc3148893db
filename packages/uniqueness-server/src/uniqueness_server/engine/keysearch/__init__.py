"""Key discovery over in-memory codes: HyUCC's hybrid of sampling and checking (see
:mod:`.search`). Depends only on numpy and plain data (:class:`.records.Records`)."""

from uniqueness_server.engine.keysearch.cover import TooManyCandidatesError
from uniqueness_server.engine.keysearch.records import CodeBlock, Records
from uniqueness_server.engine.keysearch.search import (
    KeysFound,
    Progress,
    Sink,
    Verify,
    minimal_keys,
)

__all__ = [
    "CodeBlock",
    "KeysFound",
    "Progress",
    "Records",
    "Sink",
    "TooManyCandidatesError",
    "Verify",
    "minimal_keys",
]
