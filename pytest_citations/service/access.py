"""Who may call the service: the bearer token, the ``Host`` names and the browser origins it
answers, read from the environment or given in code.

A page the user visits on any other site can send requests to ``127.0.0.1``; with DNS
rebinding it can even read the answers. So a request is answered only when its ``Host``
header names the address it arrived on (any loopback name, for a loopback address) or an
allowed name, and a browser request only when it comes from the service's own origin or
an allowed one. The token, when set, is a :class:`Secret`: masked in every ``repr``.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..errors import ConfigurationError
from ..sanitize import Secret

#: The environment variables the service reads (``serve`` options win over them).
TOKEN_VARIABLE = "CITATIONS_SERVICE_TOKEN"
HOSTS_VARIABLE = "CITATIONS_SERVICE_ALLOW_HOSTS"
ORIGINS_VARIABLE = "CITATIONS_SERVICE_ALLOW_ORIGINS"

#: A token shorter than this is refused: it could be guessed.
MIN_TOKEN_CHARS = 16
#: Visible ASCII without spaces: what an ``Authorization`` header carries unchanged.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")
_LABEL = r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?"
_NAME = re.compile(rf"{_LABEL}(\.{_LABEL})*")
#: The names of the loopback interface a client may put in ``Host``.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
DEFAULT_PORTS = {"http": 80, "https": 443}
#: ``Sec-Fetch-Site`` values of a request that a page of another origin made.
CROSS_SITE = frozenset({"cross-site", "same-site"})


def canonical(host: str) -> str:
    """An address in one spelling (``::1`` for ``0:0::1``, ``192.0.2.5`` for the IPv4-mapped
    ``::ffff:192.0.2.5`` a dual-stack socket reports); a name in lower case."""
    host = host.strip("[]").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    mapped = getattr(address, "ipv4_mapped", None)
    return str(mapped or address)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is loopback."""
    host = canonical(host)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_host(text: str) -> tuple[str, int | None]:
    """``NAME`` or ``NAME:PORT`` (``[v6]:PORT`` for IPv6) as a lower-case name and a port, or
    a ValueError: a ``Host`` header, or an entry of the allow-list."""
    text = text.strip()
    if not text or any(mark in text for mark in "/?#@\\ ") or not text.isascii():
        raise ValueError(text)
    split = urlsplit(f"//{text}")
    name, port = split.hostname, split.port  # .port raises ValueError on a bad port
    if not name or split.netloc != text:
        raise ValueError(text)
    if text.startswith("["):
        ipaddress.IPv6Address(name)  # a bracketed name must be an IPv6 address
    elif not _NAME.fullmatch(name):
        raise ValueError(text)
    return canonical(name), port


def origin_of(scheme: str, host: str) -> str | None:
    """The serialised origin (``https://example.org``, ``http://[::1]:8000``) of ``host``
    reached over ``scheme``, as a browser writes it in ``Origin``; None when not valid."""
    scheme = scheme.lower()
    if scheme not in DEFAULT_PORTS:
        return None
    try:
        name, port = parse_host(host)
    except ValueError:
        return None
    shown = f"[{name}]" if ":" in name else name
    if port is not None and port != DEFAULT_PORTS[scheme]:
        shown += f":{port}"
    return f"{scheme}://{shown}"


def parse_origin(text: str) -> str | None:
    """``https://example.org[:port]`` in the form a browser sends it, or None."""
    split = urlsplit(text.strip())
    if split.path not in ("", "/") or split.query or split.fragment or not split.netloc:
        return None
    return origin_of(split.scheme, split.netloc)


def split_list(raw: str) -> list[str]:
    """A list written in one variable: entries separated by commas or spaces."""
    return [entry for entry in re.split(r"[,\s]+", raw) if entry]


def _hosts(entries: Iterable[str]) -> tuple[tuple[str, int | None], ...]:
    allowed = []
    for entry in entries:
        try:
            allowed.append(parse_host(entry))
        except ValueError:
            raise ConfigurationError(
                f"allowed host {entry!r} is not a host name or address, with an optional "
                "port (NAME or NAME:PORT, [IPv6]:PORT)"
            ) from None
    return tuple(allowed)


def _origins(entries: Iterable[str]) -> frozenset[str]:
    allowed = set()
    for entry in entries:
        origin = parse_origin(entry)
        if origin is None:
            raise ConfigurationError(
                f"allowed origin {entry!r} is not an origin: http(s)://NAME[:PORT], no path"
            )
        allowed.add(origin)
    return frozenset(allowed)


def _token(raw: str | Secret | None) -> Secret | None:
    value = raw.reveal() if isinstance(raw, Secret) else (raw or "")
    value = value.strip()
    if not value:
        return None
    # The message names the variable, never the value (nor a part of it).
    if len(value) < MIN_TOKEN_CHARS or not _TOKEN_CHARS.fullmatch(value):
        raise ConfigurationError(
            f"{TOKEN_VARIABLE} must be at least {MIN_TOKEN_CHARS} characters of visible "
            'ASCII, without spaces (a random one: python -c "import secrets; '
            'print(secrets.token_urlsafe(32))")'
        )
    return Secret(value, TOKEN_VARIABLE)


@dataclass(frozen=True)
class Access:
    """Who the service answers: with ``token`` set, only requests that carry it as
    ``Authorization: Bearer <token>``; ``allow_hosts`` (``NAME`` on any port, or
    ``NAME:PORT``) are answered besides the address a request arrived on;
    ``allow_origins`` are browser origins answered besides the service's own."""

    token: Secret | None = field(default=None, repr=False)
    allow_hosts: tuple[tuple[str, int | None], ...] = ()
    allow_origins: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        token: str | Secret | None = None,
        allow_hosts: Iterable[str] = (),
        allow_origins: Iterable[str] = (),
    ) -> Access:
        """Access from plain values, each checked (a :class:`ConfigurationError` says why,
        never showing the token)."""
        return cls(_token(token), _hosts(allow_hosts), _origins(allow_origins))

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        allow_hosts: Iterable[str] | None = None,
        allow_origins: Iterable[str] | None = None,
    ) -> Access:
        """``CITATIONS_SERVICE_TOKEN``, ``CITATIONS_SERVICE_ALLOW_HOSTS`` and
        ``CITATIONS_SERVICE_ALLOW_ORIGINS`` (lists separated by commas or spaces); a list
        given here replaces the variable's."""
        env = os.environ if env is None else env
        hosts = split_list(env.get(HOSTS_VARIABLE, "")) if allow_hosts is None else allow_hosts
        origins = allow_origins
        if origins is None:
            origins = split_list(env.get(ORIGINS_VARIABLE, ""))
        return cls.of(env.get(TOKEN_VARIABLE), hosts, origins)

    def host_allowed(self, host: str | None, server: tuple[str, int] | None, scheme: str) -> bool:
        """Whether a request whose ``Host`` header is ``host``, that arrived on the local
        address ``server``, names this service: that address (any loopback name and
        127.0.0.1 or [::1] for a loopback one) on its port, or an allowed host."""
        try:
            name, port = parse_host(host or "")
        except ValueError:
            return False
        port = DEFAULT_PORTS.get(scheme, 80) if port is None else port
        for allowed, allowed_port in self.allow_hosts:
            if name == allowed and allowed_port in (None, port):
                return True
        if server is None:  # a Unix socket: only its own machine can reach it
            return name in LOOPBACK_NAMES
        address, bound_port = canonical(server[0]), server[1]
        names = LOOPBACK_NAMES | {address} if is_loopback(address) else {address}
        return name in names and port == bound_port

    def origin_allowed(self, origins: list[str], sites: list[str], own: str | None) -> bool:
        """Whether a request with these ``Origin`` and ``Sec-Fetch-Site`` headers came from
        the service's own origin ``own``, an allowed origin, or no page at all."""
        cross_site = any(site.strip().lower() in CROSS_SITE for site in sites)
        if not origins:
            return not cross_site
        if len(origins) > 1:
            return False
        origin = parse_origin(origins[0])
        if origin is None:  # "null" (a sandboxed or file: page), or garbage
            return False
        if origin in self.allow_origins:
            return True
        return origin == own and not cross_site

    def authorized(self, headers: list[str]) -> bool:
        """Whether the ``Authorization`` headers carry the token (always, without one).
        The comparison takes the same time wherever the given value differs."""
        if self.token is None:
            return True
        if len(headers) != 1:
            return False
        scheme, _, given = headers[0].strip().partition(" ")
        expected = self.token.reveal().encode("ascii")
        # Always compare, so that a wrong scheme costs the same time as a wrong token.
        matches = hmac.compare_digest(given.strip().encode("latin-1"), expected)
        return matches and scheme.lower() == "bearer"
