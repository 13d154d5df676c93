"""The prompt lines' phrases are the seed's, character for character.

Other tests read the sentences from ``clarifications.phrases`` rather than retype
them; this is the one place that holds those constants to the TypeScript they
port (``../shared/seed/chat-clarifications.ts``, renderClarificationLines). The
notes and agent-view phrases are not in that file: the golden cases hold them.
"""

from __future__ import annotations

import pytest

from clarifications import phrases
from tests.clarifications.golden import golden_path

SEED = golden_path().parents[1] / "seed" / "chat-clarifications.ts"

LINE_PHRASES = [
    "PARTICIPANTS_PREFIX",
    "PURPOSE_PREFIX",
    "EVENT_DATE_PREFIX",
    "PURPOSE_MISSING_LINE",
    "DENIED_LINE",
    "USER_NOTE_PREFIX",
    "CONTEXT_ANSWER_PREFIX",
    "OPEN_QUESTION_LINE",
    "ASK_REPRESENTATION",
    "ASK_RESEND",
    "ASK_CONTEXT",
    "WHERE_MOVED_TO_APP",
    "WHERE_OPEN",
]


@pytest.mark.parametrize("name", LINE_PHRASES)
def test_each_line_phrase_is_written_in_the_seed(name: str) -> None:
    seed = SEED.read_text(encoding="utf-8")  # missing: a loud FileNotFoundError, never a skip
    value = getattr(phrases, name)
    # Python's {what} is the template literal's ${what}.
    assert value.replace("{", "${") in seed, name


def test_the_whatsapp_label_is_the_seeds() -> None:
    assert f"c.channel === 'whatsapp' ? '{phrases.WHATSAPP_LABEL}'" in SEED.read_text(encoding="utf-8")
