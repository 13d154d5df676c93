"""Clarifications a human gave about one underlag in a capture channel.

A pure-Python port of the TypeScript ``chat-clarifications`` module and its
siblings (the verifikat notes renderer and the categorisation agent's view).
Standard library only (orjson speeds up the command line when installed);
never imports Django. Functions take the parsed ``channel_context`` JSON and
return plain values; no JSON value makes them raise.
"""

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
from clarifications.render import render_agent_view, render_lines, render_notes

__all__ = [
    "Analysis",
    "Clarifications",
    "OpenQuestion",
    "Participant",
    "Representation",
    "analyse",
    "flatten",
    "render_agent_view",
    "render_case",
    "render_lines",
    "render_notes",
    "summarise",
]
