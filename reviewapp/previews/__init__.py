"""The prompt preview and golden cases: the domain behind ``/preview/``.

Everything renders through ``clarifications.render_case`` and reads and writes
JSON the way ``python -m clarifications`` does (``clarifications.cli``'s
``parse_line``/``dump_line``: JavaScript number semantics, compact UTF-8), so
the playground, the API, the saved cases and the command line can never
disagree about what an input renders to.

- ``parsing``: ``parse_json`` for untrusted JSON (size and depth limits, ``InvalidJson``);
- ``rendering``: ``render``, ``pretty`` and the playground's ``Rendering``;
- ``gallery``: the ``EXAMPLES``;
- ``golden``: checking golden cases (``check``, ``CaseResult``, line and word diffs) and saving one;
- ``maintenance``: QA's changes to a case (accept the current output, rename, tags, delete), logged;
- ``jsonl``: the shared JSON Lines file, read, written and imported.
"""

from reviewapp.previews.gallery import EXAMPLES, SAMPLE_EXTRACTED, Example, example
from reviewapp.previews.golden import (
    CaseResult,
    DiffLine,
    canonical,
    check,
    check_all,
    check_case,
    classify_diff,
    mark_words,
    save_golden_case,
    word_diff,
)
from reviewapp.previews.jsonl import (
    NAME_MAX_LENGTH,
    CaseRecord,
    ImportSummary,
    InvalidCaseFile,
    import_cases,
    read_jsonl,
    to_jsonl,
)
from reviewapp.previews.maintenance import (
    MAX_TAG_LENGTH,
    MAX_TAGS,
    CaseChanged,
    accept_current_output,
    all_tags,
    delete_case,
    digest,
    normalise_tags,
    rename_case,
    set_tags,
)
from reviewapp.previews.parsing import (
    MAX_DEPTH,
    MAX_FORM_BYTES,
    MAX_INPUT_BYTES,
    InvalidJson,
    JsonDict,
    find_too_deep,
    parse_json,
)
from reviewapp.previews.rendering import (
    Rendering,
    case_input,
    input_for_item,
    line_from_texts,
    pretty,
    render,
    render_bytes,
    render_input,
)

__all__ = [
    "EXAMPLES",
    "MAX_DEPTH",
    "MAX_FORM_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_TAGS",
    "MAX_TAG_LENGTH",
    "NAME_MAX_LENGTH",
    "SAMPLE_EXTRACTED",
    "CaseChanged",
    "CaseRecord",
    "CaseResult",
    "DiffLine",
    "Example",
    "ImportSummary",
    "InvalidCaseFile",
    "InvalidJson",
    "JsonDict",
    "Rendering",
    "accept_current_output",
    "all_tags",
    "canonical",
    "case_input",
    "check",
    "check_all",
    "check_case",
    "classify_diff",
    "delete_case",
    "digest",
    "example",
    "find_too_deep",
    "import_cases",
    "input_for_item",
    "line_from_texts",
    "mark_words",
    "normalise_tags",
    "parse_json",
    "pretty",
    "read_jsonl",
    "rename_case",
    "render",
    "render_bytes",
    "render_input",
    "save_golden_case",
    "set_tags",
    "to_jsonl",
    "word_diff",
]
