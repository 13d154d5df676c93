"""The prompt preview and golden cases: the domain behind ``/preview/``.

Everything renders through ``clarifications.render_case`` and reads and writes
JSON the way ``python -m clarifications`` does (``clarifications.cli``'s
``parse_line``/``dump_line``: JavaScript number semantics, compact UTF-8), so
the playground, the API, the saved cases and the command line can never
disagree about what an input renders to.

- ``parsing``: ``parse_json`` for untrusted JSON (size and depth limits, ``InvalidJson``);
- ``rendering``: ``render``, ``pretty`` and the playground's ``Rendering``;
- ``gallery``: the ``EXAMPLES`` and ``find_example``;
- ``golden``: checking golden cases (``check``, ``CaseResult``, line and word diffs) and saving one;
- ``maintenance``: QA's changes to a case (accept the current output, rename, tags, delete), logged;
- ``jsonl``: the shared JSON Lines file, read, written and imported.
"""
