"""ToolArguments: the one way a tool reads its arguments.

Lenient where the anchor was (numeric strings, ``"true"``/``"false"``, comma-separated lists,
blank strings meaning absent), strict where it matters (no float-as-int, no bool-as-int,
unknown arguments refused with a did-you-mean, oversized strings refused). Every read is
recorded so a contract test can compare what a tool reads with what its schema declares.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_common.definition import ToolDefinition
from mcp_common.masking import mask_credentials
from mcp_common.result import ErrorCode, ToolError

_log = logging.getLogger(__name__)

DEFAULT_MAX_STRING_LENGTH = 100_000
_MAX_ITEMS = 10_000
# an unknown argument name longer than this is cut in the message and gets no suggestion
_LONGEST_NAME = 64
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    # mask before cutting: a cut between a URL's password and its '@' would hide it from the mask
    text = mask_credentials(text)
    return text if len(text) <= 60 else text[:57] + "..."


class ToolArguments:
    """The validated arguments of one call, read through typed accessors.

    Construction already refuses a non-object payload, unknown keys (with a suggestion),
    an alias given together with its canonical name, and strings longer than the schema's
    ``maxLength`` (default 100,000 characters).
    """

    def __init__(
        self,
        raw: object,
        definition: ToolDefinition,
        *,
        max_string_length: int = DEFAULT_MAX_STRING_LENGTH,
    ) -> None:
        self._definition = definition
        self._tool = definition.name
        self._read: set[str] = set()
        self._max = max_string_length
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise _invalid(
                f"arguments must be a JSON object of named arguments, not {type(raw).__name__}"
            )
        declared = definition.properties
        aliases = definition.deprecated_aliases
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if not isinstance(key, str):
                raise _invalid(f"argument names must be strings, got {_show(key)}")
            name = key
            if key not in declared and key in aliases:
                name = aliases[key]
                _log.warning("%s: argument %r is deprecated, use %r", self._tool, key, name)
                if name in raw and raw[name] is not None and raw[name] != value:
                    raise _invalid(f"{key} is a deprecated alias of {name}; give only one of them")
            elif key not in declared:
                raise _invalid(self._unknown_message(key))
            if value is None:
                continue
            self._check_size(name, value)
            values.setdefault(name, value)
        self._values = values

    def _unknown_message(self, key: str) -> str:
        known = sorted(self._definition.properties)
        candidates = known + sorted(self._definition.deprecated_aliases)
        lowered = {c.lower().replace("_", ""): c for c in candidates}
        guess = lowered.get(key.lower().replace("_", "").replace("-", ""))
        if guess is None and len(key) <= _LONGEST_NAME:
            close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
            guess = close[0] if close else None
        if guess is not None:
            guess = self._definition.deprecated_aliases.get(guess, guess)
        hint = f" Did you mean '{guess}'?" if guess else ""
        accepted = ", ".join(known) if known else "none"
        shown = mask_credentials(key)
        if len(shown) > _LONGEST_NAME:
            shown = shown[: _LONGEST_NAME - 3] + "..."
        return f"unknown argument '{shown}'.{hint} Accepted arguments: {accepted}"

    def _check_size(self, name: str, value: Any) -> None:
        limit = self._definition.properties.get(name, {}).get("maxLength", self._max)
        # nested junk is bounded too: a reader refuses it later, but only after it sat in memory
        pending, items = [value], 0
        while pending:
            item = pending.pop()
            if isinstance(item, str) and len(item) > limit:
                raise _invalid(
                    f"{name} is {len(item)} characters long; at most {limit} are accepted"
                )
            if isinstance(item, list | Mapping):
                items += len(item)
                if items > _MAX_ITEMS:
                    raise _invalid(
                        f"{name} holds more than {_MAX_ITEMS} items; at most that many are accepted"
                    )
                pending.extend(item.values() if isinstance(item, Mapping) else item)

    @property
    def tool_name(self) -> str:
        """The name of the tool these arguments belong to."""
        return self._tool

    @property
    def read_names(self) -> frozenset[str]:
        """Every argument name a reader asked for so far (present or not)."""
        return frozenset(self._read)

    @property
    def given_names(self) -> frozenset[str]:
        """Canonical names of the arguments the caller actually gave (non-null)."""
        return frozenset(self._values)

    def _get(self, name: str) -> Any:
        self._read.add(name)
        value = self._values.get(name)
        if isinstance(value, str) and not value.strip():
            return None
        return value

    def is_given(self, name: str) -> bool:
        """Whether ``name`` was given with a non-blank value (records the read)."""
        return self._get(name) is not None

    # strings -------------------------------------------------------------------------------
    def optional_string(self, name: str, default: str | None = None) -> str | None:
        """A string argument (numbers are accepted as their text), or ``default``."""
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise _invalid(f"{name} must be a string but was {_show(value)}")
        return value if isinstance(value, str) else str(value)

    def required_string(self, name: str) -> str:
        """A string argument that must be present and non-blank."""
        value = self.optional_string(name)
        if value is None:
            raise _invalid(f"missing required argument: {name}")
        return value

    # integers ------------------------------------------------------------------------------
    def optional_int(self, name: str, default: int | None = None) -> int | None:
        """An integer, or a string holding one (``" 7 "``); floats and booleans are refused."""
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, (bool, float)):
            raise _invalid(f"{name} must be an integer but was {_show(value)}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            text = value.strip()
            sign = text[1:] if text[:1] in "+-" else text
            if sign.isdigit() and sign.isascii() and len(sign) <= 18:
                return int(text)
        raise _invalid(f"{name} must be an integer but was {_show(value)}")

    def required_int(self, name: str) -> int:
        """An integer argument that must be present."""
        value = self.optional_int(name)
        if value is None:
            raise _invalid(f"missing required argument: {name}")
        return value

    def optional_bounded_int(self, name: str, default: int, minimum: int, maximum: int) -> int:
        """An integer within ``minimum..maximum``; a value outside is an error, not a clamp."""
        value = self.optional_int(name, default)
        assert value is not None
        if not minimum <= value <= maximum:
            raise _invalid(f"{name} must be between {minimum} and {maximum} but was {value}")
        return value

    def clamped_int(self, name: str, default: int, minimum: int, maximum: int) -> int:
        """An integer forced into ``minimum..maximum`` (for limits: clamped, never rejected)."""
        value = self.optional_int(name, default)
        assert value is not None
        return max(minimum, min(maximum, value))

    # booleans ------------------------------------------------------------------------------
    def optional_boolean(self, name: str, default: bool) -> bool:
        """A boolean, or one of ``true/false/yes/no/1/0`` as text (any case)."""
        value = self._get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
        raise _invalid(f"{name} must be true or false but was {_show(value)}")

    # lists and enums -----------------------------------------------------------------------
    def optional_string_list(self, name: str) -> list[str] | None:
        """A JSON array of strings, or a comma-separated string; items trimmed, empties dropped.

        ``None`` when absent; a literal empty array gives ``[]``.
        """
        value = self._get(name)
        if value is None:
            return None
        items: list[Any]
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                try:
                    parsed = json.loads(text)
                except json.JSONDecodeError:
                    parsed = None
                items = parsed if isinstance(parsed, list) else text.split(",")
            else:
                items = text.split(",")
        elif isinstance(value, list):
            items = value
        else:
            raise _invalid(f"{name} must be an array of strings but was {_show(value)}")
        result: list[str] = []
        for item in items:
            if isinstance(item, bool) or not isinstance(item, str | int | float):
                raise _invalid(f"{name} must hold only strings but held {_show(item)}")
            text = (item if isinstance(item, str) else str(item)).strip()
            if text:
                result.append(text)
        return result

    def required_string_list(self, name: str) -> list[str]:
        """A non-empty list of strings (see :meth:`optional_string_list`)."""
        value = self.optional_string_list(name)
        if not value:
            raise _invalid(f"missing required argument: {name} (give at least one value)")
        return value

    def optional_enum(self, name: str, choices: Sequence[str], default: str) -> str:
        """One of ``choices`` (matched case-insensitively), or ``default``."""
        value = self.optional_string(name)
        if value is None:
            return default
        for choice in choices:
            if choice.lower() == value.strip().lower():
                return choice
        raise _invalid(f"{name} must be one of {', '.join(choices)} but was {_show(value)}")
