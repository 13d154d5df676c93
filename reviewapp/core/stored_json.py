"""accounted's jsonb values read in Python: the value, or ``Undecodable`` with the reason it cannot be."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

import msgspec


@dataclass(frozen=True, slots=True)
class Undecodable:
    """A stored JSON value Python cannot read (a 5 000-digit number, 10 000-deep nesting).

    PostgreSQL accepts both; ``json.loads`` refuses the number (Python's
    4 300-digit limit) and runs out of stack on the nesting. The row is then
    shown as malformed with ``reason``, instead of failing every page it is on.
    """

    reason: str
    size: int

    def __bool__(self) -> bool:
        return False


# Below this many brackets a document cannot nest deep enough for json.loads
# to run out of stack, so msgspec's answer is json's; above, json decides.
_SHALLOW: Final = 1_000
_DECODER: Final = msgspec.json.Decoder()


def decode_json(text: str | None) -> Any:
    """The parsed JSON, or ``Undecodable`` with the reason it could not be read.

    msgspec first (a whole-table sync decodes two documents a row, and msgspec
    takes a fifth of json's time), ``json.loads`` for what msgspec refuses, so
    the values and the reasons are json's: a number past a double's range
    (json reads 1e400 as infinity), a lone surrogate, a deep nesting.
    """
    if text is None:
        return None
    if text.count("[") + text.count("{") < _SHALLOW:
        try:
            return _DECODER.decode(text)
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass  # json.loads reads it, or says why in its words
    try:
        return json.loads(text)
    except RecursionError:
        return Undecodable("nested too deep to read", len(text))
    except ValueError as error:  # JSONDecodeError is a ValueError too, as is the digit limit
        return Undecodable(str(error).split(";")[0][:200], len(text))
