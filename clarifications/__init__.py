"""Clarifications a human gave about one underlag in a capture channel.

A pure-Python port of the TypeScript ``chat-clarifications`` module and its
siblings (the verifikat notes renderer and the categorisation agent's view).
Standard library only (orjson speeds up the command line when installed);
never imports Django. Functions take the parsed ``channel_context`` JSON and
return plain values; no JSON value makes them raise.
"""

from clarifications.bounded import RenderedItem, render_item
from clarifications.cli import render_case
from clarifications.flattening import flatten
from clarifications.model import (
    Analysis,
    Clarifications,
    OpenQuestion,
    Participant,
    Representation,
)
from clarifications.reading import analyse, summarise
from clarifications.render import BoundedLines, render_agent_view, render_lines, render_lines_bounded, render_notes

__all__ = [
    "Analysis",
    "BoundedLines",
    "Clarifications",
    "OpenQuestion",
    "Participant",
    "RenderedItem",
    "Representation",
    "analyse",
    "flatten",
    "render_agent_view",
    "render_case",
    "render_item",
    "render_lines",
    "render_lines_bounded",
    "render_notes",
    "summarise",
]
