"""Tool arguments, declared once as a pydantic model.

A tool's arguments are a subclass of :class:`Arguments`: Python fields in snake_case, sent on
the wire in lowerCamelCase, each with a description. The input schema is generated from the
model (:mod:`mcp_common.schema`) and :func:`parse_arguments` turns a client's raw payload into
a validated instance, so what a tool declares and what it reads can never drift apart.

The field types below are lenient where the anchor was (numeric strings, ``"true"``/``"false"``,
comma-separated lists, blank strings meaning absent) and strict where it matters (no
float-as-int, no bool-as-int). Unknown arguments are refused with a did-you-mean, deprecated
aliases (:class:`Deprecated`) are resolved and logged, oversized strings and over-long or too
deeply nested values are refused before any validation runs.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from mcp_common.masking import mask_credentials
from mcp_common.result import ErrorCode, ToolError

_log = logging.getLogger(__name__)

DEFAULT_MAX_STRING_LENGTH = 100_000
MAX_ITEMS = 10_000
MAX_DEPTH = 32
"""Deeper nesting than this is refused: no argument of any tool needs more than a few levels."""
# an unknown argument name longer than this is cut in the message and gets no suggestion
_LONGEST_NAME = 64
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})

ArgumentsT = TypeVar("ArgumentsT", bound="Arguments")


class Arguments(BaseModel):
    """Base of every tool's argument model.

    Fields are snake_case in Python and lowerCamelCase on the wire; every field needs a
    ``description`` (the contract checks refuse a schema without one). Unknown keys are refused.
    """

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
    )


class NoArguments(Arguments):
    """The arguments of a tool that takes none."""


@dataclass(frozen=True, slots=True)
class Deprecated:
    """Field metadata: older names still accepted for this field (logged, never declared)."""

    names: tuple[str, ...]

    def __init__(self, *names: str) -> None:
        object.__setattr__(self, "names", tuple(names))


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    # mask before cutting: a cut between a URL's password and its '@' would hide it from the mask
    text = mask_credentials(text)
    return text if len(text) <= 60 else text[:57] + "..."


class _RefusedError(ValueError):
    """A value a lenient reader refuses; its text completes ``<argument> <text>``."""


def _to_string(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _RefusedError(f"must be a string but was {_show(value)}")
    return value if isinstance(value, str) else str(value)


def _to_int(value: Any) -> Any:
    if isinstance(value, bool | float) or not isinstance(value, int | str):
        raise _RefusedError(f"must be an integer but was {_show(value)}")
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        if not (digits.isdigit() and digits.isascii() and len(digits) <= 18):
            raise _RefusedError(f"must be an integer but was {_show(value)}")
        return int(text)
    return value


def _to_bool(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _RefusedError(f"must be true or false but was {_show(value)}")


def _to_string_list(value: Any) -> Any:
    items: list[Any]
    if isinstance(value, str):
        text = value.strip()
        parsed = None
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
        items = parsed if isinstance(parsed, list) else text.split(",")
    elif isinstance(value, list):
        items = value
    else:
        raise _RefusedError(f"must be an array of strings but was {_show(value)}")
    result: list[str] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise _RefusedError(f"must hold only strings but held {_show(item)}")
        text = (item if isinstance(item, str) else str(item)).strip()
        if text:
            result.append(text)
    return result


Str = Annotated[str, BeforeValidator(_to_string)]
"""A string; numbers are accepted as their text."""
Int = Annotated[int, BeforeValidator(_to_int)]
"""An integer, or a string holding one (``" 7 "``); floats and booleans are refused."""
Bool = Annotated[bool, BeforeValidator(_to_bool)]
"""A boolean, or one of ``true/false/yes/no/1/0`` as text (any case)."""
StrList = Annotated[list[str], BeforeValidator(_to_string_list)]
"""A JSON array of strings, or a comma-separated string; items trimmed, empties dropped."""


class _AfterCheck:
    """Field metadata that runs :meth:`_apply` after the field's own validation."""

    def _apply(self, value: Any) -> Any:
        raise NotImplementedError

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._apply, handler(source))


@dataclass(frozen=True, slots=True)
class Between(_AfterCheck):
    """Field metadata: an integer within ``minimum..maximum`` (outside is an error)."""

    minimum: int
    maximum: int

    def _apply(self, value: Any) -> Any:
        if not self.minimum <= value <= self.maximum:
            raise _RefusedError(
                f"must be between {self.minimum} and {self.maximum} but was {value}"
            )
        return value

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.update(minimum=self.minimum, maximum=self.maximum)
        return json_schema


class OneOf(_AfterCheck):
    """Field metadata: a string that must be one of ``choices`` (matched case-insensitively,
    answered in its declared spelling); ``choices`` may be a string enum class."""

    def __init__(self, choices: Iterable[str]) -> None:
        self.choices = tuple(str(getattr(c, "value", c)) for c in choices)

    def _apply(self, value: Any) -> Any:
        folded = value.strip().lower()
        for choice in self.choices:
            if choice.lower() == folded:
                return choice
        raise _RefusedError(f"must be one of {', '.join(self.choices)} but was {_show(value)}")

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema["enum"] = list(self.choices)
        return json_schema


@dataclass(frozen=True, slots=True)
class Clamp(_AfterCheck):
    """Field metadata: an integer forced into ``minimum..maximum`` (limits: never rejected)."""

    minimum: int
    maximum: int

    def _apply(self, value: Any) -> Any:
        return max(self.minimum, min(self.maximum, value))


@dataclass(frozen=True, slots=True)
class NonEmpty(_AfterCheck):
    """Field metadata: a list that must hold at least one item once blanks are dropped."""

    def _apply(self, value: Any) -> Any:
        if not value:
            raise _RefusedError("needs at least one value")
        return value


# ------------------------------------------------------------------------------------------
# parsing a raw payload


@cache
def deprecated_aliases(model: type[Arguments]) -> dict[str, str]:
    """Old argument name -> canonical wire name, from the model's :class:`Deprecated` marks."""
    aliases: dict[str, str] = {}
    for name, info in model.model_fields.items():
        canonical = info.alias or name
        for mark in info.metadata:
            if isinstance(mark, Deprecated):
                for old in mark.names:
                    aliases[old] = canonical
    return aliases


@cache
def wire_names(model: type[Arguments]) -> dict[str, str]:
    """Canonical wire name -> Python field name."""
    return {(info.alias or name): name for name, info in model.model_fields.items()}


@cache
def _max_length(model: type[Arguments], field: str, default: int) -> int:
    for mark in model.model_fields[field].metadata:
        limit = getattr(mark, "max_length", None)
        if isinstance(limit, int):
            return limit
    return default


def _unknown_message(key: str, known: list[str], aliases: Mapping[str, str]) -> str:
    candidates = known + sorted(aliases)
    lowered = {c.lower().replace("_", ""): c for c in candidates}
    guess = lowered.get(key.lower().replace("_", "").replace("-", ""))
    if guess is None and len(key) <= _LONGEST_NAME:
        close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
        guess = close[0] if close else None
    if guess is not None:
        guess = aliases.get(guess, guess)
    hint = f" Did you mean '{guess}'?" if guess else ""
    accepted = ", ".join(sorted(known)) if known else "none"
    shown = mask_credentials(key)
    if len(shown) > _LONGEST_NAME:
        shown = shown[: _LONGEST_NAME - 3] + "..."
    return f"unknown argument '{shown}'.{hint} Accepted arguments: {accepted}"


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def _walk(value: Any) -> Iterator[tuple[Any, int]]:
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        yield item, depth
        if isinstance(item, Mapping):
            pending.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            pending.extend((v, depth + 1) for v in item)


def _check_size(name: str, value: Any, limit: int) -> None:
    # nested junk is bounded too: refused before it is validated, copied or logged
    items = 0
    for item, depth in _walk(value):
        if depth > MAX_DEPTH:
            raise _invalid(f"{name} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, str) and len(item) > limit:
            raise _invalid(f"{name} is {len(item)} characters long; at most {limit} are accepted")
        if isinstance(item, list | Mapping):
            items += len(item)
            if items > MAX_ITEMS:
                raise _invalid(
                    f"{name} holds more than {MAX_ITEMS} items; at most that many are accepted"
                )


def _message(error: Mapping[str, Any], python_to_wire: Mapping[str, str]) -> str:
    location = error.get("loc", ())
    field = str(location[0]) if location else ""
    name = python_to_wire.get(field, field)
    context = error.get("ctx") or {}
    cause = context.get("error")
    if error.get("type") == "missing":
        return f"missing required argument: {name}"
    if isinstance(cause, _RefusedError):
        return f"{name} {cause}"
    detail = str(error.get("msg", "is invalid"))
    where = ".".join(str(part) for part in location[1:])
    return f"{name}{'[' + where + ']' if where else ''}: {detail}"


def parse_arguments(
    raw: object,
    model: type[ArgumentsT],
    *,
    tool: str = "tool",
    max_string_length: int = DEFAULT_MAX_STRING_LENGTH,
) -> ArgumentsT:
    """Validate a client's raw payload into ``model``; a :class:`ToolError` explains a refusal.

    ``None`` values and blank strings count as absent. An alias given together with a different
    value under its canonical name is refused.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise _invalid(
            f"arguments must be a JSON object of named arguments, not {type(raw).__name__}"
        )
    names = wire_names(model)
    aliases = deprecated_aliases(model)
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise _invalid(f"argument names must be strings, got {_show(key)}")
        name = key
        if key not in names and key in aliases:
            name = aliases[key]
            _log.warning("%s: argument %r is deprecated, use %r", tool, key, name)
            if name in raw and raw[name] is not None and raw[name] != value:
                raise _invalid(f"{key} is a deprecated alias of {name}; give only one of them")
        elif key not in names:
            raise _invalid(_unknown_message(key, sorted(names), aliases))
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        _check_size(name, value, _max_length(model, names[name], max_string_length))
        values.setdefault(name, value)
    try:
        return model.model_validate(values)
    except ValidationError as error:
        python_to_wire = {python: wire for wire, python in names.items()}
        first = error.errors(include_url=False)[0]
        raise _invalid(_message(first, python_to_wire)) from None
