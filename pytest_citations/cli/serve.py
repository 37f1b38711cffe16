"""``pytest-citations serve``: the HTTP service (``GET /health``, ``POST /verify``, its
OpenAPI description at ``/openapi.json`` and interactive docs at ``/docs``)."""

from __future__ import annotations

import argparse

from ..errors import ConfigurationError
from .common import (
    EXIT_CODES,
    EXIT_OK,
    EXIT_USAGE,
    Subcommands,
    missing_variables,
    say,
    settings_from,
)


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``serve`` subcommand."""
    serve = commands.add_parser(
        "serve",
        parents=[parent],
        help="run the HTTP service: POST /verify, docs at /docs (extra: service)",
        description="Serve GET /health and POST /verify, with the OpenAPI description at "
        "/openapi.json and interactive docs at /docs. Without a token or key the service "
        "still starts: /health says which variables are missing and /verify answers 503.",
        epilog=EXIT_CODES,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    serve.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted, with the global options over the environment."""
    try:
        from ..service import serve
    except ImportError:  # pragma: no cover - depends on the optional extra
        say("serve needs: pip install 'pytest-citations[service]'")
        return EXIT_USAGE
    try:
        settings = settings_from(args)
    except ConfigurationError as error:
        say(error)
        return EXIT_USAGE
    # Every missing variable at start-up, so that one restart fixes them all.
    missing = missing_variables(settings, "POST /verify answers 503 until they are set.")
    if missing is not None:
        say(missing)
    serve(args.host, args.port, settings=settings)
    return EXIT_OK
