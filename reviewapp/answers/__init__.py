"""Answering a question that moved from the chat to the app.

The page and the JSON API both call ``answer_question``, which validates the
answer and writes it as a compare-and-set on ``channel_context``. Callers use
``from reviewapp import answers`` and ``answers.<name>``; the package is split
by what a reader is looking for:

- ``inputs``: the question types and the answer dataclasses;
- ``validation``: the limits and rules (``validate``, ``check_file``, ``AnswerInvalid``);
- ``from_json``: the JSON API's body read into an answer;
- ``channel_context``: reading the open question and writing the answer into the JSON;
- ``writing``: ``answer_question``, the locked write (``AnswerConflict``, ``AnswerResult``);
- ``display``: the latest answer event and the outputs a context renders to.
"""

from reviewapp.answers.channel_context import (
    RAW_DATE,
    RAW_DENIED,
    RAW_PARTICIPANTS,
    RAW_PREFIX,
    RAW_PURPOSE,
    answer_json,
    answered_context,
    chat_window_ends,
    conflict_reason,
    pending_question,
    question_to_answer,
    raw_answer_line,
    representation_json,
    utc_stamp,
)
from reviewapp.answers.display import latest_answer_event, outputs
from reviewapp.answers.from_json import answer_from_json
from reviewapp.answers.inputs import (
    CONTEXT,
    QUESTION_TYPES,
    REPRESENTATION,
    RESEND,
    Answer,
    ContextAnswer,
    ParticipantInput,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.validation import (
    MAX_COMPANY_LENGTH,
    MAX_EVENT_YEAR,
    MAX_NAME_LENGTH,
    MAX_PARTICIPANTS,
    MAX_PURPOSE_LENGTH,
    MAX_TEXT_LENGTH,
    MIN_EVENT_YEAR,
    AnswerInvalid,
    CheckedFile,
    check_file,
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
    "MAX_NAME_LENGTH",
    "MAX_PARTICIPANTS",
    "MAX_PURPOSE_LENGTH",
    "MAX_TEXT_LENGTH",
    "MIN_EVENT_YEAR",
    "QUESTION_TYPES",
    "RAW_DATE",
    "RAW_DENIED",
    "RAW_PARTICIPANTS",
    "RAW_PREFIX",
    "RAW_PURPOSE",
    "REPRESENTATION",
    "RESEND",
    "Answer",
    "AnswerConflict",
    "AnswerInvalid",
    "AnswerResult",
    "CheckedFile",
    "ContextAnswer",
    "ParticipantInput",
    "RepresentationAnswer",
    "ResendAnswer",
    "answer_from_json",
    "answer_json",
    "answer_question",
    "answered_context",
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
    "raw_answer_line",
    "representation_json",
    "utc_stamp",
    "validate",
]
