"""Every Swedish phrase the renderers emit, in one place.

The texts are copied character for character from the reference (the seed
``chat-clarifications.ts``, the verifikat notes renderer and the
categorisation intent). The agent's prompt template keys rules to some of
them (``OBESVARAD FRÅGA``, ``uppgivna av användaren``), so a "small wording
fix" here silently breaks an instruction elsewhere: change them only together
with the prompt that quotes them.
"""

from typing import Final

# --- Prompt lines (render_lines) -------------------------------------------

# Prefixes are followed by the flattened value; the renderers concatenate
# rather than format because they run once per row of a list page.
PARTICIPANTS_PREFIX: Final = "deltagare (uppgivna av användaren): "
PARTICIPANT_SEPARATOR: Final = ", "
COMPANY_OPEN: Final = " ("
COMPANY_CLOSE: Final = ")"
PURPOSE_PREFIX: Final = "syfte (uppgivet av användaren): "
EVENT_DATE_PREFIX: Final = "datum (uppgivet av användaren): "
PURPOSE_MISSING_LINE: Final = "syfte SAKNAS: fråga bara efter syftet, inte om deltagarna igen."
DENIED_LINE: Final = "svar från användaren: detta är INTE representation. Fråga varken om deltagare eller syfte."
USER_NOTE_PREFIX: Final = "anteckning från användaren: "
CONTEXT_ANSWER_PREFIX: Final = "användarens egna ord: "

#: The marker the intent's prompt template quotes verbatim.
OPEN_QUESTION_MARKER: Final = "OBESVARAD FRÅGA"
OPEN_QUESTION_LINE: Final = OPEN_QUESTION_MARKER + ": {what}. Detta är den ENDA fråga som saknar svar ({where})."
ASK_REPRESENTATION: Final = "deltagare och syfte (representation)"
ASK_RESEND: Final = "ett tydligare foto av underlaget"
ASK_CONTEXT: Final = "vad köpet avsåg"
WHERE_MOVED_TO_APP: Final = "frågan ställdes i {via} men förblev obesvarad och ägs nu av appen"
WHERE_OPEN: Final = "frågan är ställd i {via} och väntar på svar"
WHATSAPP_LABEL: Final = "WhatsApp"
#: What the reference's template literal prints for a record without a
#: channel (``${undefined}``). Kept for fidelity; the record is reported as a
#: problem by ``analyse``.
MISSING_CHANNEL_LABEL: Final = "undefined"

# --- Verifikat notes (render_notes) ----------------------------------------

NOTES_REPRESENTATION_PREFIX: Final = "Representation: "
NOTES_DROPPED: Final = " … och {count} till"
NOTES_PURPOSE_PREFIX: Final = "Syfte: "
NOTES_SEPARATOR: Final = " · "
NOTES_ELLIPSIS: Final = "…"

# --- Categorisation agent view (render_agent_view) -------------------------

AGENT_BULLET_PREFIX: Final = "  • invoice_inbox: "
AGENT_PART_SEPARATOR: Final = ", "
AGENT_DOCUMENT_ID: Final = "document_id="
AGENT_SUPPLIER: Final = "leverantör="
AGENT_DATE: Final = "datum="
AGENT_TOTAL: Final = "total="
AGENT_VAT: Final = "moms="
AGENT_DEFAULT_CURRENCY: Final = "SEK"
AGENT_NO_DATA: Final = "(ingen extraherad data: läs underlaget med gnubok_get_document_content)"
AGENT_CLARIFICATION_INDENT: Final = "    - "
AGENT_GUIDANCE: Final = (
    'Rader märkta "uppgivna av användaren" kommer från en tidigare konversation'
    " om samma underlag (t.ex. WhatsApp när kvittot skickades in). Det är"
    " MÄNSKLIGT bekräftade uppgifter och väger tyngre än vad du själv läser ut"
    " ur bilden. Fråga ALDRIG om något som redan står där; behöver du"
    " komplettera, fråga bara om den del som faktiskt saknas. Står det"
    ' "OBESVARAD FRÅGA": ställ exakt den frågan och ingen annan. När du'
    " stagear: ta med deltagare och syfte i notes så de följer med till"
    " verifikationen."
)
