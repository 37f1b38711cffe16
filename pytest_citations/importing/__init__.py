"""From the answers a RAG application produced to case files.

Read answer records of the shapes real stacks emit (generic ``answer`` + ``citations``,
OpenAI Responses and Chat Completions, Anthropic Messages, Gemini, Perplexity, LangChain,
LlamaIndex), turn each into a case whose claims the answer splitter derives, and write case
YAML that imports byte-identically every time. No pytest here: the command line and the
``citation_verifier`` fixture are thin shells over these functions.

- :func:`import_answers` — JSONL/JSON files in, case files out (merged into the reviewed
  files already there), a report of every record and file;
- :func:`read_answer` / :func:`claim_requests` — one answer object (a dict or an SDK object)
  to its claims and the verifier's requests, for testing a live pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .answers import (
        UNMARKED_POLICIES,
        AnswerClaim,
        ImportedAnswer,
        Unmarked,
        build_answer,
        claim_requests,
        read_answer,
    )
    from .casefiles import CASE_SCHEMA_URL, GROUPINGS, Grouping, import_answers
    from .formats import (
        AUTO,
        FORMAT_NAMES,
        FORMATS,
        AnswerFormat,
        AnswerFormatError,
        detect_format,
        read_record,
    )
    from .records import AnswerRecord, BadAnswerRecord, read_records
    from .render import case_mapping, render_case_file
    from .result import ClaimChange, ImportedFile, ImportResult, RecordOutcome

#: Where each name is defined: imported on first use (a run that reads no answer never
#: loads the importer).
_EXPORTS = {
    "UNMARKED_POLICIES": "answers",
    "AnswerClaim": "answers",
    "ImportedAnswer": "answers",
    "Unmarked": "answers",
    "build_answer": "answers",
    "claim_requests": "answers",
    "read_answer": "answers",
    "CASE_SCHEMA_URL": "casefiles",
    "GROUPINGS": "casefiles",
    "Grouping": "casefiles",
    "import_answers": "casefiles",
    "AUTO": "formats",
    "FORMAT_NAMES": "formats",
    "FORMATS": "formats",
    "AnswerFormat": "formats",
    "AnswerFormatError": "formats",
    "detect_format": "formats",
    "read_record": "formats",
    "AnswerRecord": "records",
    "BadAnswerRecord": "records",
    "read_records": "records",
    "case_mapping": "render",
    "render_case_file": "render",
    "ClaimChange": "result",
    "ImportedFile": "result",
    "ImportResult": "result",
    "RecordOutcome": "result",
}


__getattr__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "AUTO",
    "CASE_SCHEMA_URL",
    "FORMATS",
    "FORMAT_NAMES",
    "GROUPINGS",
    "UNMARKED_POLICIES",
    "AnswerClaim",
    "AnswerFormat",
    "AnswerFormatError",
    "AnswerRecord",
    "BadAnswerRecord",
    "ClaimChange",
    "Grouping",
    "ImportResult",
    "ImportedAnswer",
    "ImportedFile",
    "RecordOutcome",
    "Unmarked",
    "build_answer",
    "case_mapping",
    "claim_requests",
    "detect_format",
    "import_answers",
    "read_answer",
    "read_record",
    "read_records",
    "render_case_file",
]
