"""The prompt preview and golden cases: the domain behind ``/preview/``.

Everything renders through ``clarifications.render_case`` and reads and writes
JSON the way ``python -m clarifications`` does (``clarifications.cli``'s
``parse_line``/``dump_line``: JavaScript number semantics, compact UTF-8), so
the playground, the API, the saved cases and the command line can never
disagree about what an input renders to.

- ``parsing``: ``parse_json`` for untrusted JSON (size and depth limits, ``InvalidJson``);
- ``rendering``: ``render``, ``pretty`` and the playground's ``Rendering``;
- ``gallery``: the ``EXAMPLES``;
- ``golden``: checking golden cases (``check``, ``CaseResult``, diffs) and saving one;
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
    save_golden_case,
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
    "NAME_MAX_LENGTH",
    "SAMPLE_EXTRACTED",
    "CaseRecord",
    "CaseResult",
    "DiffLine",
    "Example",
    "ImportSummary",
    "InvalidCaseFile",
    "InvalidJson",
    "JsonDict",
    "Rendering",
    "canonical",
    "case_input",
    "check",
    "check_all",
    "check_case",
    "classify_diff",
    "example",
    "find_too_deep",
    "import_cases",
    "input_for_item",
    "line_from_texts",
    "parse_json",
    "pretty",
    "read_jsonl",
    "render",
    "render_bytes",
    "render_input",
    "save_golden_case",
    "to_jsonl",
]
