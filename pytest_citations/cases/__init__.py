"""Case files: YAML with a question, an answer, its citations and its claims.

Parsing is strict and every problem names the file and the line, all of them at once, so
a broken case file is one readable collection error. No pytest here: the plugin wraps
these types. The keys a case file may hold are the tables of :mod:`.fields`.
"""

from __future__ import annotations

from .fields import EXPECTABLE_LABELS, SIGNATURE_KEYS
from .model import Case, CaseFileError, Claim
from .reader import iter_claims, load_cases, looks_like_case_file
from .spelling import looks_like_misspelt_case_file

__all__ = [
    "EXPECTABLE_LABELS",
    "SIGNATURE_KEYS",
    "Case",
    "CaseFileError",
    "Claim",
    "iter_claims",
    "load_cases",
    "looks_like_case_file",
    "looks_like_misspelt_case_file",
]
