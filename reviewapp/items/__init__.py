"""The item page's content, built once for the page and the API alike.

``describe_item`` gathers everything the item page shows: the analysis of
``channel_context``, the prompt lines and agent view exactly as
``clarifications`` renders them, the verifikat notes (and why they are empty
when they are), the one open question with its owner and deadlines, what the
human said, and the event history with what each app answer changed. The
HTML page and ``GET /api/items/<id>`` both render this one ``ItemView``, so
they cannot disagree.

- ``item_view``: ``ItemView`` and its parts, with their JSON;
- ``describe``: ``describe_item`` and ``item_json``, which build them;
- ``labels``: the words shown, and why the notes or the agent view are empty.
"""

from reviewapp.items.describe import (
    answer_change,
    describe_item,
    document_id_of,
    document_kind,
    item_json,
    lines_of,
    page_queryset,
)
from reviewapp.items.item_view import (
    AnswerChange,
    EventView,
    HumanSaid,
    ItemView,
    KeyChange,
    OpenQuestionView,
    PersonView,
    StateBadge,
)
from reviewapp.items.labels import (
    AGENT_CAPTION_ONLY,
    AGENT_MALFORMED,
    AGENT_NO_ANSWERS,
    EVENT_LABELS,
    NOTES_EMPTY_DENIED,
    NOTES_EMPTY_MALFORMED,
    NOTES_EMPTY_NO_ANSWERS,
    NOTES_EMPTY_NOTHING_FOR_VOUCHER,
    NOTES_EMPTY_OPEN_QUESTION,
    QUESTION_WHAT,
    channel_label,
    question_what,
    state_label,
)

__all__ = [
    "AGENT_CAPTION_ONLY",
    "AGENT_MALFORMED",
    "AGENT_NO_ANSWERS",
    "EVENT_LABELS",
    "NOTES_EMPTY_DENIED",
    "NOTES_EMPTY_MALFORMED",
    "NOTES_EMPTY_NOTHING_FOR_VOUCHER",
    "NOTES_EMPTY_NO_ANSWERS",
    "NOTES_EMPTY_OPEN_QUESTION",
    "QUESTION_WHAT",
    "AnswerChange",
    "EventView",
    "HumanSaid",
    "ItemView",
    "KeyChange",
    "OpenQuestionView",
    "PersonView",
    "StateBadge",
    "answer_change",
    "channel_label",
    "describe_item",
    "document_id_of",
    "document_kind",
    "item_json",
    "lines_of",
    "page_queryset",
    "question_what",
    "state_label",
]
