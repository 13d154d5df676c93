"""One item's outputs in time bounded whatever the size of its stored texts.

``render_item`` gives what ``render_case`` gives for an item (summary, prompt
lines, verifikat notes, agent view, problems), reading the record once, with
each free-text value of the prompt lines rendered to at most
``max_value_chars`` characters. Every output whose values fit is exactly the
reference's; when one does not, ``whole`` is False and the lines and agent
view hold the exact start of the reference's (see ``render_lines_bounded``).
A caller that shows at most ``max_value_chars`` characters of the lines
never shows anything else than the reference's output, and can say it is cut.
"""

from dataclasses import dataclass

from clarifications.model import Clarifications, JsonDict
from clarifications.reading import read
from clarifications.render import agent_bullet, agent_view, notes_from, render_lines_bounded


@dataclass(frozen=True, slots=True)
class RenderedItem:
    """An item's outputs; ``lines_most_chars`` and ``agent_view_most_chars`` bound the uncut lengths.

    Each ``*_most_chars`` is the length of the output's lines joined with
    ``"\\n"`` as the reference renders them: exact when ``whole``, else at
    least that (the cut values counted as stored).
    """

    summary: Clarifications | None
    summary_json: JsonDict | None
    lines: list[str]
    notes: str | None
    agent_view: list[str]
    problems: list[str]
    # The channel_context's own problems (``analyse``'s), without the item's.
    context_problems: tuple[str, ...]
    whole: bool
    lines_most_chars: int
    agent_view_most_chars: int


def render_item(
    channel_context: object, document_id: object, extracted_data: object, *, max_value_chars: int
) -> RenderedItem:
    """``render_case({"channel_context": …, "item": {…}})`` with the prompt's values bounded.

    ``render_item({"user_note": "x" * 26_000_000}, None, None, max_value_chars=100)``
    takes what a note of a few thousand characters takes; its ``lines`` are
    ``["anteckning från användaren: " + "x" * 100]`` and ``whole`` is False.
    """
    reading = read(channel_context)
    summary = reading.summary()
    bounded = render_lines_bounded(summary, max_value_chars)
    notes = notes_from(reading)
    problems = reading.problems
    context_problems = tuple(problems)
    view = agent_view(agent_bullet(document_id, extracted_data, problems), bounded.lines)
    shown_lines = sum(len(line) for line in bounded.lines) + max(len(bounded.lines) - 1, 0)
    shown_view = sum(len(line) for line in view) + len(view) - 1
    return RenderedItem(
        summary=summary,
        summary_json=None if summary is None else summary.to_json(),
        lines=bounded.lines,
        notes=notes,
        agent_view=view,
        problems=problems,
        context_problems=context_problems,
        whole=bounded.whole,
        lines_most_chars=bounded.most_chars,
        # The agent view holds each line once, indented: only the lines' cut values differ.
        agent_view_most_chars=shown_view + bounded.most_chars - shown_lines,
    )
