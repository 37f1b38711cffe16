"""``pytest-citations serve``: the HTTP service (``GET /health``, ``POST /verify``, its
OpenAPI description at ``/openapi.json`` and interactive docs at ``/docs``)."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ..distribution import install_command
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

# The service's modules import FastAPI and uvicorn (the optional extra), which every other
# command would then pay for: the options are described here and read in ``run``.
PROTECTION = (
    "Requests are answered only when their Host header is the address the service listens "
    "on (localhost, 127.0.0.1 or [::1] on a loopback address) or an --allow-host name "
    "(else 421), never for a page of another origin (403; no CORS headers are sent), "
    "and, with CITATIONS_SERVICE_TOKEN set, only with Authorization: Bearer <token> "
    "(else 401; /docs and /openapi.json stay open). Listening beyond loopback (--host "
    "0.0.0.0) needs CITATIONS_SERVICE_TOKEN. "
)


def add(commands: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``serve`` subcommand."""
    serve = commands.add_parser(
        "serve",
        parents=[parent],
        help="run the HTTP service: POST /verify, docs at /docs (extra: service)",
        description="Serve GET /health and POST /verify, with the OpenAPI description at "
        "/openapi.json and interactive docs at /docs. Without a token or key the service "
        "still starts: /health says which variables are missing and /verify answers 503. "
        + PROTECTION,
        epilog=EXIT_CODES,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (8000)")
    serve.add_argument(
        "--allow-host",
        dest="allow_hosts",
        action="append",
        metavar="NAME[:PORT]",
        help="also answer requests whose Host is NAME (on any port, or on PORT), such as "
        "the public name behind a reverse proxy; repeatable; environment: "
        "CITATIONS_SERVICE_ALLOW_HOSTS (separated by commas)",
    )
    serve.add_argument(
        "--allow-origin",
        dest="allow_origins",
        action="append",
        metavar="ORIGIN",
        help="also answer browser requests from ORIGIN (https://name[:port]); repeatable; "
        "environment: CITATIONS_SERVICE_ALLOW_ORIGINS (separated by commas)",
    )
    serve.add_argument(
        "--body-timeout",
        metavar="SECONDS",
        help="seconds a /verify body may take to arrive after its headers; then 408 and "
        "the connection is closed (default 10); environment: CITATIONS_SERVICE_BODY_TIMEOUT",
    )
    serve.add_argument(
        "--header-timeout",
        metavar="SECONDS",
        help="seconds a request's headers may take to arrive, from the connection's opening "
        "or the previous answer; then the connection is closed (default 10); environment: "
        "CITATIONS_SERVICE_HEADER_TIMEOUT",
    )
    serve.add_argument(
        "--max-connections",
        metavar="N",
        help="connections served at once; a request over it is answered 503 (default 100); "
        "environment: CITATIONS_SERVICE_MAX_CONNECTIONS",
    )
    serve.set_defaults(run=run)


def _port(raw: str) -> int:
    """A port a socket can bind (0: any free one); argparse names the option in the error."""
    try:
        port = int(raw)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"--port must be a port number from 0 to 65535, got {raw!r}"
        )
    return port


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted, with the global options over the environment."""
    try:  # the optional extra (FastAPI, uvicorn), loaded only by this command
        from ..service import serve
    except ImportError:  # pragma: no cover - depends on the optional extra
        say(f"serve needs the service extra: {install_command('service')}")
        return EXIT_USAGE
    try:
        settings = settings_from(args)
        options = service_options(args)
    except ConfigurationError as error:
        say(error)
        return EXIT_USAGE
    # Every missing variable at start-up, so that one restart fixes them all.
    missing = missing_variables(settings, "POST /verify answers 503 until they are set.")
    if missing is not None:
        say(missing)
    if options["access"].token is not None:
        say("every request but /docs needs Authorization: Bearer <CITATIONS_SERVICE_TOKEN>")
    serve(args.host, args.port, settings=settings, **options)
    return EXIT_OK


def service_options(args: argparse.Namespace) -> dict[str, Any]:
    """The service's ``limits``, ``access`` and ``server`` limits: the options over the
    environment; a ConfigurationError when a value is wrong or the address needs a token."""
    # Imported here: the service needs the optional extra's FastAPI, which the other
    # commands never load.
    from ..service import Access, Limits, ServerLimits
    from ..service.models import BODY_TIMEOUT_LIMIT
    from ..service.server import SERVER_LIMITS, check_bind

    rows = {limit.field: limit for limit in (BODY_TIMEOUT_LIMIT, *SERVER_LIMITS)}

    def given(field: str) -> float | None:
        value = getattr(args, field)
        return None if value is None else rows[field].parse(value, f"--{rows[field].name}")

    access = Access.from_env(allow_hosts=args.allow_hosts, allow_origins=args.allow_origins)
    check_bind(args.host, access)
    limits = Limits.from_env()
    body_timeout = given("body_timeout")
    if body_timeout is not None:
        limits = dataclasses.replace(limits, body_timeout=body_timeout)
    connections = given("max_connections")
    server = ServerLimits.from_env(
        header_timeout=given("header_timeout"),
        max_connections=None if connections is None else int(connections),
    )
    return {"limits": limits, "access": access, "server": server}
