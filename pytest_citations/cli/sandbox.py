"""``pytest-citations sandbox``: local stand-ins of the Crawlbase API and of an
OpenAI-compatible judge on 127.0.0.1, to try recording without an account."""

from __future__ import annotations

import argparse
import os
import signal
import threading

from .common import EXIT_CODES, EXIT_OK, EXIT_USAGE, Subcommands, say

#: Where the stand-ins listen unless told: fixed, so that the variables to export are the
#: same on every start (the documentation's tour shows them).
CRAWLBASE_PORT, JUDGE_PORT = 8701, 8702
#: Seconds between two looks at what the stand-ins answered.
POLL_SECONDS = 0.1


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``sandbox`` subcommand."""
    sandbox = commands.add_parser(
        "sandbox",
        parents=[parent],
        help="serve local stand-ins of Crawlbase and of a judge, to try recording "
        "without an account",
        description="Start local stand-ins of the Crawlbase API and of an OpenAI-compatible "
        "judge on 127.0.0.1, print the environment variables that point a run at them "
        "and the pages they serve (one per fetch rule), then serve until Ctrl-C, printing "
        "each request. The judge is a deterministic stand-in: what you record against it "
        "is never a real judgement. It refuses to start in a shell that holds real tokens "
        "(CRAWLBASE_TOKEN, OPENAI_API_KEY, …), so that no recording mixes the two.",
        epilog=EXIT_CODES,
    )
    sandbox.add_argument(
        "--crawlbase-port",
        type=_port,
        default=CRAWLBASE_PORT,
        metavar="PORT",
        help=f"port of the Crawlbase stand-in ({CRAWLBASE_PORT}; 0: any free one)",
    )
    sandbox.add_argument(
        "--judge-port",
        type=_port,
        default=JUDGE_PORT,
        metavar="PORT",
        help=f"port of the judge stand-in ({JUDGE_PORT}; 0: any free one)",
    )
    sandbox.set_defaults(run=run)


def _port(raw: str) -> int:
    """A port a socket can bind (0: any free one); argparse names the option in the error."""
    port = int(raw) if raw.strip().isdigit() else -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port number from 0 to 65535, got {raw!r}")
    return port


def run(args: argparse.Namespace) -> int:
    """Serve the stand-ins until SIGINT or SIGTERM; exit 0 then."""
    # The stand-ins are a program of their own that a replay, the plugin and every other
    # command never need: imported here, only when the sandbox is asked for.
    from ..sandbox.banner import banner, request_lines, stopped
    from ..sandbox.stand_ins import PortUnavailable, Sandbox, real_secrets

    real = real_secrets(os.environ)
    if real:
        say(_refusal(real))
        return EXIT_USAGE
    stop = threading.Event()
    previous = {
        number: signal.signal(number, lambda *_: stop.set())
        for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        try:
            sandbox = Sandbox.start(args.crawlbase_port, args.judge_port)
        except PortUnavailable as error:
            say(f"{error}; choose another port with --{error.stand_in}-port")
            return EXIT_USAGE
        print("\n".join(banner(sandbox)), flush=True)
        while not stop.wait(POLL_SECONDS):
            _print(request_lines(sandbox))
        sandbox.stop()
        _print([*request_lines(sandbox), stopped(sandbox)])
        return EXIT_OK
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _print(lines: list[str]) -> None:
    if lines:
        print("\n".join(lines), flush=True)


def _refusal(real: list[str]) -> str:
    """Why the sandbox does not start: the variables (never their values) to unset."""
    several = len(real) > 1
    names = f"{', '.join(real[:-1])} and {real[-1]}" if several else real[0]
    return (
        f"{names} {'are' if several else 'is'} set in this shell: the sandbox does not start "
        "beside real tokens, so that no recording mixes real services with its stand-ins. "
        f"Unset {'them' if several else 'it'} first: unset {' '.join(real)}"
    )
