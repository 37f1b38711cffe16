"""What a report says about the run itself: enough to tell how it was made and to
reproduce it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class RunInfo:
    """The run's metadata, written at the top of the JSON report and the HTML page."""

    plugin_version: str = ""
    judge: str = ""
    model: str = ""
    embedder: str = ""
    record_mode: str = ""
    started: str = ""
    run_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return asdict(self)
