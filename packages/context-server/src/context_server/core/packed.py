"""Parsed facts kept packed: one MessagePack string per file, decoded when a question reads it.

A file's facts as Python objects (imports, declarations, references, each a string or a
small object) cost about 5 KB and a hundred objects; packed, about 1.6 KB and one object.
On a project of 100,000 files that is the difference between a server of 1.2 GB whose
garbage collector scans ten million objects on every full pass and one of a few hundred
MB. The packed form is what a parse produces (a parse worker sends it as is), what the
index store writes and what it reads back: a restart never builds objects it does not need.
The files read most recently are kept decoded.

Decoding checks what the types cannot say (see :func:`unpack`): packed facts may come from
a store file, which is untrusted input.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping

import msgspec

from context_server.core.facts import DECLARATION_KINDS, SourceFacts

KEPT_DECODED = 2048
"""Files whose decoded facts are kept (the most recently read)."""

_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(SourceFacts)
# What decoding malformed facts may raise (msgspec's errors are ValueErrors).
_MALFORMED = (ValueError, TypeError, IndexError)


def pack(facts: SourceFacts) -> bytes:
    """The packed form of ``facts``."""
    return _ENCODER.encode(facts)


def unpack(data: bytes, languages: frozenset[str], module: str | None = None) -> SourceFacts:
    """The facts packed in ``data``, decoded by msgspec straight into the declared types (a
    bool is no int there, a missing or mistyped field is refused, in C), then checked for
    what a type cannot say: a language of ``languages``, the ``module`` the file was parsed
    under (when given), declaration kinds, ranges and lengths. ``ValueError`` (msgspec's
    errors are ValueErrors) for anything else."""
    facts = _DECODER.decode(data)
    if facts.language not in languages or (module is not None and facts.module != module):
        raise ValueError("facts of another language or module")
    for declaration in facts.declarations:
        if (
            declaration.kind not in DECLARATION_KINDS
            or min(*declaration.lines, *declaration.span) < 0
        ):
            raise ValueError("bad declaration")
    if len(facts.uses) not in (0, len(facts.references)) or min(facts.uses, default=1) < 1:
        raise ValueError("bad use counts")
    return facts


Repair = Callable[[str], SourceFacts]
"""Called with the path of packed facts that failed their checks (a poisoned or corrupt
store row): parses the file again and returns its facts."""


class Unchecked:
    """The packed facts of a project read from the index store that have not passed their
    checks yet (see :func:`unpack`), known by path and by the very bytes read: kept by the
    project's cache across its indexes, so that a rebuild after an edit checks only what
    was never checked (facts parsed by this process need no check). Bytes that failed
    their checks stay here: any index still holding them checks them again. Safe to share
    between threads."""

    def __init__(self, stored: Mapping[str, bytes] | None = None) -> None:
        self._stored: dict[str, bytes] = dict(stored or {})
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._stored)

    def add(self, stored: Mapping[str, bytes]) -> None:
        """``stored`` (path -> packed facts) was read from the store: check each first."""
        with self._lock:
            self._stored.update(stored)

    def needs(self, path: str, data: bytes) -> bool:
        """Whether ``data``, the packed facts of ``path``, must be checked before use."""
        return self._stored.get(path) is data

    def passed(self, path: str, data: bytes) -> None:
        """The packed facts ``data`` of ``path`` passed their checks."""
        with self._lock:
            if self._stored.get(path) is data:
                del self._stored[path]


class PackedFacts(Mapping[str, SourceFacts]):
    """Every source file's facts by root-relative path, packed (see the module), in the
    order given. Reading one decodes it (the last :data:`KEPT_DECODED` read stay decoded);
    iterating :meth:`items` decodes each in turn and keeps none. Safe to share between
    threads.

    Facts read back from the index store are checked when they are first decoded, not when
    the store is read (a restart that answers from the stored graph decodes none of them):
    facts that fail their checks (see :func:`unpack`) are never used, ``repair`` gives the
    file's facts parsed again, and those replace them."""

    def __init__(
        self,
        packed: dict[str, bytes],
        languages: Mapping[str, str],
        modules: Mapping[str, str],
        repair: Repair,
        unchecked: Unchecked | None = None,
    ) -> None:
        """``packed``: path -> packed facts; ``languages``: path -> dialect name (known
        without decoding); ``modules``: path -> the module name the file is parsed under;
        ``repair``: see the class; ``unchecked``: the packed facts read from the store
        that have not passed their checks yet, shared by every index of the project (None:
        all of ``packed``)."""
        self._packed = packed
        self._languages = languages
        self._modules = modules
        self._repair = repair
        self._decoded: OrderedDict[str, SourceFacts] = OrderedDict()
        self._lock = threading.Lock()
        self._names = frozenset(languages.values())
        self._unchecked = unchecked if unchecked is not None else Unchecked(packed)

    def _decode(self, path: str, data: bytes) -> SourceFacts:
        if not self._unchecked.needs(path, data):
            # parsed by this process, or these very bytes passed their checks before:
            # decoding them cannot fail
            return _DECODER.decode(data)
        try:
            facts = unpack(data, self._names, self._modules[path])
            if facts.language == self._languages[path]:
                self._unchecked.passed(path, data)
                return facts
        except _MALFORMED:
            pass
        facts = self._repair(path)
        repaired = pack(facts)
        with self._lock:
            if self._packed.get(path) is data:
                self._packed[path] = repaired
        return facts

    def __getitem__(self, path: str) -> SourceFacts:
        with self._lock:
            found = self._decoded.get(path)
            if found is not None:
                self._decoded.move_to_end(path)
                return found
            data = self._packed[path]
        facts = self._decode(path, data)
        with self._lock:
            self._decoded[path] = facts
            if len(self._decoded) > KEPT_DECODED:
                self._decoded.popitem(last=False)
        return facts

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def __contains__(self, path: object) -> bool:
        return path in self._packed

    def items(self) -> Iterator[tuple[str, SourceFacts]]:  # type: ignore[override]
        """Every path with its facts, in order, decoded one by one (none kept)."""
        for path, data in self._packed.items():
            with self._lock:
                found = self._decoded.get(path)
            yield path, found if found is not None else self._decode(path, data)

    def values(self) -> Iterator[SourceFacts]:  # type: ignore[override]
        """Every file's facts, in order (see :meth:`items`)."""
        for _, facts in self.items():
            yield facts

    def language(self, path: str) -> str:
        """The dialect of ``path``'s facts, without decoding them."""
        return self._languages[path]

    def packed(self, path: str) -> bytes:
        """The packed facts of ``path``."""
        with self._lock:
            return self._packed[path]
