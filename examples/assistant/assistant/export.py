"""Export the assistant's answers as ``pytest-citations import`` reads them: one JSON record a
line, the raw response wrapper ``{"id", "question", "response": {…}}``.

    python -m assistant.export answers.jsonl

The record's ``id`` is the question's id from the assistant's logs, so that a case keeps its
identity from one export to the next, whatever the answer says.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import QUESTIONS, answer


def main(argv: list[str]) -> int:
    target = Path(argv[0] if argv else "answers.jsonl")
    lines = [
        json.dumps(
            {"id": question.id, "question": question.text, "response": answer(question.text)},
            ensure_ascii=False,
        )
        for question in QUESTIONS
    ]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{target}: {len(lines)} answers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
