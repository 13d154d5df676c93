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
- ``caps``: how long texts and lists are cut, and the marks saying so;
- ``describe``: ``describe_item`` and ``item_json``, which build them;
- ``history``: accounted's log, the app's log and the conversation, merged (``item_history``);
- ``transcript``: the conversation about the item (``whatsapp_messages``), as the reader may see it;
- ``links``: the item a resend was settled with, and the items it replaced;
- ``changes``: what an app answer changed;
- ``raw_answers``: each stored ``raw_answer`` in pieces labelled by who wrote them;
- ``labels``: the words shown, and why the notes or the agent view are empty.
"""
