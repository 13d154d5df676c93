"""The item page's content, built once for the page and the API alike.

``describe_item`` gathers everything the item page shows about one live row
of accounted's ``invoice_inbox_items``: the analysis of ``channel_context``,
the prompt lines and agent view exactly as ``clarifications`` renders them,
the verifikat notes (and why they are empty when they are), the one open
question with its owner and deadlines, what the human said, whether it is
booked, the conversation, the linked items, the ids support is asked
about, and the history from accounted's ``processing_history``, the app's
own answer log and the chat. A row whose JSON cannot be decoded gets a view with
only the reason. The HTML page and ``GET /api/items/<id>`` both render this
one ``ItemView``, so they cannot disagree.

- ``item_view``: ``ItemView`` and its parts, with their JSON;
- ``describe``: ``describe_item`` and ``item_json``, which build them;
- ``history``: accounted's log, the app's log and the conversation, merged (``item_history``);
- ``transcript``: the conversation about the item (``whatsapp_messages``), as the reader may see it;
- ``links``: the item a resend was settled with, and the items it replaced;
- ``changes``: what an app answer changed;
- ``labels``: the words shown, and why the notes or the agent view are empty.
"""

from reviewapp.items.changes import answer_change, lines_of
from reviewapp.items.describe import (
    describe_item,
    document_id_of,
    document_json,
    document_kind,
    item_ids,
    item_json,
    page_queryset,
    unreadable_columns,
)
from reviewapp.items.history import HISTORY_LIMIT, item_history, merge
from reviewapp.items.item_view import (
    AnswerChange,
    EventView,
    HumanSaid,
    ItemIds,
    ItemView,
    KeyChange,
    OpenQuestionView,
    PersonView,
    StateBadge,
    UnreadableColumn,
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
from reviewapp.items.links import ItemLinks, LinkedItem, item_links
from reviewapp.items.transcript import FULL_PERMISSION, RETENTION, TRANSCRIPT_LIMIT, MessageView, item_transcript

__all__ = [
    "AGENT_CAPTION_ONLY",
    "AGENT_MALFORMED",
    "AGENT_NO_ANSWERS",
    "EVENT_LABELS",
    "FULL_PERMISSION",
    "HISTORY_LIMIT",
    "NOTES_EMPTY_DENIED",
    "NOTES_EMPTY_MALFORMED",
    "NOTES_EMPTY_NOTHING_FOR_VOUCHER",
    "NOTES_EMPTY_NO_ANSWERS",
    "NOTES_EMPTY_OPEN_QUESTION",
    "QUESTION_WHAT",
    "RETENTION",
    "TRANSCRIPT_LIMIT",
    "AnswerChange",
    "EventView",
    "HumanSaid",
    "ItemIds",
    "ItemLinks",
    "ItemView",
    "KeyChange",
    "LinkedItem",
    "MessageView",
    "OpenQuestionView",
    "PersonView",
    "StateBadge",
    "UnreadableColumn",
    "answer_change",
    "channel_label",
    "describe_item",
    "document_id_of",
    "document_json",
    "document_kind",
    "item_history",
    "item_ids",
    "item_json",
    "item_links",
    "item_transcript",
    "lines_of",
    "merge",
    "page_queryset",
    "question_what",
    "state_label",
    "unreadable_columns",
]
