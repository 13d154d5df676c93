"""Answering a question that moved from the chat to the app.

The page and the JSON API both call ``writing.answer_question``, which
validates the answer and writes it, with its conversation and audit event,
in one transaction on accounted's database. Import each name from the module
that defines it:

- ``inputs``: the question types and the answer dataclasses;
- ``validation``: the limits and rules (``validate``, ``AnswerInvalid``), text through
  ``reviewapp.text``, and the JSON API's body read into an answer (``answer_from_json``);
- ``uploads``: a sharper file checked before it is stored (``check_file``);
- ``evidence``: ``raw_answer`` as evidence: the customer's words and their source, or the firm's attributed
  text (``ENTERED_BY_FIRM``), appended, never erased; a stored one read back into labelled pieces;
- ``channel_context``: reading the open question, writing the answer into the JSON, what it renders to;
- ``conversation``: the WhatsApp conversation's compare-and-set;
- ``resettle``: each sync poll marks again the app answers whose conversation mark accounted's sweep undid;
- ``resend``: a newer item, or an uploaded file, replacing the old one;
- ``writing``: ``answer_question``, the locked write (``AnswerConflict``, ``AnswerResult``) and
  accounted's ``processing_history`` event;
- ``log``: the app's own log read back: amendable answers, ``replaced_answer``;
- ``panel``: what the answer panel shows (``AnswerPanel``);
- ``screen``: what the answer views do with a request: save (and go on to the next item), preview,
  the API's state.
"""
