"""Answering a question that moved from the chat to the app.

The page and the JSON API both call ``answer_question``, which validates the
answer and writes it, with its conversation and audit event, in one
transaction on accounted's database. Callers use ``from reviewapp import
answers`` and ``answers.<name>``; the package is split by what a reader is
looking for:

- ``inputs``: the question types and the answer dataclasses;
- ``validation``: the limits and rules (``validate``, ``AnswerInvalid``), text through ``reviewapp.text``;
- ``uploads``: a sharper file checked before it is stored (``check_file``);
- ``from_json``: the JSON API's body read into an answer;
- ``channel_context``: reading the open question and writing the answer into the JSON;
- ``conversation``: the WhatsApp conversation's compare-and-set;
- ``history``: the ``processing_history`` event;
- ``resend``: a newer item, or an uploaded file, replacing the old one;
- ``writing``: ``answer_question``, the locked write (``AnswerConflict``, ``AnswerResult``);
- ``log``: the app's own log read back: amendable answers, ``replaced_answer``, resend links;
- ``display``: the latest answer event and the outputs a context renders to;
- ``panel``: what the item page's answer panel shows (imported by the views, not here:
  it builds forms, which import this package);
- ``next_item``: save and next, inside the list the person is working through.
"""

from reviewapp.answers.channel_context import (
    RAW_DATE,
    RAW_DENIED,
    RAW_PARTICIPANTS,
    RAW_PURPOSE,
    answer_json,
    answer_value,
    answer_version,
    answered_context,
    chat_window_ends,
    conflict_reason,
    pending_question,
    question_to_answer,
    raw_answer_of,
    rendered_raw_answer,
    representation_json,
    to_millis,
    utc_stamp,
)
from reviewapp.answers.display import latest_answer_event, outputs
from reviewapp.answers.from_json import answer_from_json
from reviewapp.answers.inputs import (
    CONTEXT,
    QUESTION_TYPES,
    READABLE,
    REPLACED,
    REPRESENTATION,
    RESEND,
    RESEND_CHOICES,
    UPLOAD,
    Answer,
    ContextAnswer,
    ParticipantInput,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.log import (
    AnswerText,
    ReplacedAnswer,
    answer_text,
    app_answer_in_place,
    app_answers,
    replaced_answer,
    resend_links,
)
from reviewapp.answers.uploads import MAX_IMAGE_PIXELS, CheckedFile, check_file
from reviewapp.answers.validation import (
    MAX_COMPANY_LENGTH,
    MAX_EVENT_YEAR,
    MAX_NAME_LENGTH,
    MAX_PARTICIPANTS,
    MAX_PURPOSE_LENGTH,
    MAX_RAW_ANSWER_LENGTH,
    MAX_TEXT_LENGTH,
    MIN_EVENT_YEAR,
    AnswerInvalid,
    clean_company,
    clean_event_date,
    clean_line,
    clean_name,
    clean_text,
    validate,
)
from reviewapp.answers.writing import AnswerConflict, AnswerResult, answer_question

__all__ = [
    "CONTEXT",
    "MAX_COMPANY_LENGTH",
    "MAX_EVENT_YEAR",
    "MAX_IMAGE_PIXELS",
    "MAX_NAME_LENGTH",
    "MAX_PARTICIPANTS",
    "MAX_PURPOSE_LENGTH",
    "MAX_RAW_ANSWER_LENGTH",
    "MAX_TEXT_LENGTH",
    "MIN_EVENT_YEAR",
    "QUESTION_TYPES",
    "RAW_DATE",
    "RAW_DENIED",
    "RAW_PARTICIPANTS",
    "RAW_PURPOSE",
    "READABLE",
    "REPLACED",
    "REPRESENTATION",
    "RESEND",
    "RESEND_CHOICES",
    "UPLOAD",
    "Answer",
    "AnswerConflict",
    "AnswerInvalid",
    "AnswerResult",
    "AnswerText",
    "CheckedFile",
    "ContextAnswer",
    "ParticipantInput",
    "ReplacedAnswer",
    "RepresentationAnswer",
    "ResendAnswer",
    "answer_from_json",
    "answer_json",
    "answer_question",
    "answer_text",
    "answer_value",
    "answer_version",
    "answered_context",
    "app_answer_in_place",
    "app_answers",
    "chat_window_ends",
    "check_file",
    "clean_company",
    "clean_event_date",
    "clean_line",
    "clean_name",
    "clean_text",
    "conflict_reason",
    "latest_answer_event",
    "outputs",
    "pending_question",
    "question_to_answer",
    "raw_answer_of",
    "rendered_raw_answer",
    "replaced_answer",
    "representation_json",
    "resend_links",
    "to_millis",
    "utc_stamp",
    "validate",
]
