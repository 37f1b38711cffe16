"""Re-record the shipped example cassettes against the local emulators: the case files'
(``cassettes/cases/``) and the example assistant's (``examples/assistant/cassettes/``: its
tests' ``check_answer`` calls and its imported answer export).

    python tests/record_examples.py

The examples' pages live in ``pytest_citations/sandbox/site.py``,
``pytest_citations/sandbox/calibration_site.py`` and the assistant's own
``examples/assistant/assistant/knowledge/``; nothing here touches the internet. To record
real pages instead, set real tokens and run pytest yourself:

    CRAWLBASE_TOKEN=… OPENAI_API_KEY=… pytest --citations cases/ --citations-record=all
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The package of this checkout, its emulators included.
sys.path.insert(0, str(ROOT))

from pytest_citations.sandbox import (  # noqa: E402
    CrawlbaseEmulator,
    JudgeEmulator,
    assistant_site,
    calibration_site,
    site,
)

ASSISTANT = ROOT / "examples" / "assistant"
#: Where each recording runs, and its arguments (the case files, then the assistant's tests
#: and its imported answers).
RECORDINGS = (
    (ROOT, ["--citations", "cases/"]),
    (ASSISTANT, []),
    (ASSISTANT, ["--citations", "cases/"]),
)

# Throwaway values: the recording must show none of them (they are checked below).
TOKENS = {
    "CRAWLBASE_TOKEN": "example-recording-crawlbase-token",
    "CRAWLBASE_JS_TOKEN": "example-recording-javascript-token",
    "OPENAI_API_KEY": "example-recording-openai-key",
}


def main() -> int:
    """Record, then prove the cassettes hold no secret and replay offline."""
    with (
        CrawlbaseEmulator(
            token=TOKENS["CRAWLBASE_TOKEN"], js_token=TOKENS["CRAWLBASE_JS_TOKEN"]
        ) as crawlbase,
        JudgeEmulator(openai_key=TOKENS["OPENAI_API_KEY"]) as judge,
    ):
        site.install(crawlbase, judge)
        calibration_site.install(crawlbase, judge)
        assistant_site.install(crawlbase, judge, ASSISTANT)
        env = {
            **os.environ,
            **TOKENS,
            "CRAWLBASE_API_URL": crawlbase.url,
            "OPENAI_BASE_URL": judge.openai_base_url,
            "JUDGE_PROVIDER": "openai",
        }
        for folder, arguments in RECORDINGS:
            command = [sys.executable, "-m", "pytest", *arguments, "--citations-record=rewrite"]
            command += ["-p", "no:cacheprovider", "-q"]
            subprocess.run(command, cwd=folder, env=env, check=False)
        print(f"crawl requests {crawlbase.crawl_count}, judge calls {judge.call_count}")
    leaks = [
        str(path)
        for folder in (ROOT / "cassettes", ASSISTANT / "cassettes")
        for path in folder.rglob("*.yaml")
        for value in TOKENS.values()
        if value in path.read_text(encoding="utf-8")
    ]
    if leaks:
        print("secret found in:", *leaks, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
