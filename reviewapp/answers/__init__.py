"""Answering a question that moved from the chat to the app.

The page and the JSON API both call ``writing.answer_question``, which
validates the answer and writes it, with its conversation and audit event,
in one transaction on accounted's database. The modules form layers, each
importing only its own and those below (``tests/test_layers.py``
keeps it so); import each name from the module that defines it:

1. inputs: ``inputs`` (the question types and the answer dataclasses) and ``evidence``
   (``raw_answer`` as evidence: the customer's words and their source, or, for a representation
   only, the firm's attributed text, appended; a stored one read back into labelled pieces);
2. validation: ``validation`` (the limits and rules, ``validate``, ``AnswerInvalid``, and the JSON
   API's body read into an answer), ``uploads`` (a sharper file checked before it is stored),
   ``dates`` (an event date that looks mistyped: a warning, never a refusal);
3. the JSON accounted stores: ``channel_context`` (reading the open question, writing the answer
   into the JSON), ``conversation`` (the WhatsApp conversation's compare-and-set), ``log`` (the
   app's own log read back: amendable answers, ``replaced_answer``), ``suggestions`` (the
   company's earlier answers);
4. ``resettle``: each sync poll marks again the app answers whose conversation mark accounted's
   sweep undid; ``context_fix`` (``manage.py fix_context_answers``) takes the app's own text out of
   ``context_answer`` in rows written under the old rule. The read model's sync
   (``reviewapp.readmodel.sync``) sits here: it reads ``log`` and runs ``resettle``, and the write
   re-indexes through it;
5. the write: ``writing`` (``answer_question``, the locked write, ``AnswerConflict``,
   ``AnswerResult``, accounted's ``processing_history`` event), ``resend`` (a newer item, or an
   uploaded file, replacing the old one), ``bulk`` (one answer for several items);
6. ``view_models``: what the screens show: ``preview`` (what a context renders to, now and after
   what is typed), ``panel`` (the answer panel, ``AnswerPanel``; the live preview's panel),
   ``outcome`` (what a posted answer leads to: the next page, the panel again, the API's state).
"""
