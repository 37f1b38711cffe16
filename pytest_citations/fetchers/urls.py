"""Cited URLs: which are usable, and the form in which they are sent to a crawler.

Core, with no HTTP client behind it, so that case files can check their URLs cheaply.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

import idna

#: Longest URL accepted, after IDNA and percent-encoding (the sitemap protocol's limit, and
#: what browsers and CDNs reliably carry). Longer ones are ``invalid_url``, not sent.
MAX_URL_CHARS = 2048
_HOST = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]+(?:%25[\w.~-]+)?")
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"


#: Links that stand for a page rather than being one: host and path prefix. Google Search
#: grounding cites ``vertexaisearch.cloud.google.com/grounding-api-redirect/<token>``, which
#: redirects to the page the answer was grounded in.
REDIRECTORS = (("vertexaisearch.cloud.google.com", "/grounding-api-redirect/"),)


def is_redirector(url: str) -> bool:
    """True for a link whose path is a redirect token, not the cited page's path."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    return any(host == name and parts.path.startswith(path) for name, path in REDIRECTORS)


def is_supported_url(url: str) -> bool:
    """An absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # "http://[::1" and other broken netlocs
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def _ascii_host(host: str) -> str | None:
    """The host as sent: IDNA-encoded when it is not ASCII; None when it is not a valid
    host name or address (spaces, broken punycode such as ``xn--``)."""
    if host.startswith("[") and host.endswith("]"):
        return host if _IPV6.fullmatch(host[1:-1]) else None
    try:
        if not host.isascii():
            return idna.encode(host, uts46=True).decode("ascii")
        if "xn--" in host.lower():
            idna.decode(host)
    except (idna.IDNAError, UnicodeError):
        return None
    return host if _HOST.fullmatch(host) else None


def request_url(url: str) -> str | None:
    """The URL as it is sent to the crawler: an internationalised host IDNA-encoded, a
    non-ASCII path or query percent-encoded (UTF-8). None for a URL that is not an absolute
    http(s) URL, whose host is not a valid name or address, or that is longer than
    :data:`MAX_URL_CHARS`. A valid ASCII URL comes back unchanged."""
    url = url.strip()
    if not is_supported_url(url):
        return None
    parts = urlsplit(url)
    userinfo, at, hostport = parts.netloc.rpartition("@")
    host, colon, port = hostport, "", ""
    if hostport.startswith("["):
        end = hostport.find("]") + 1
        host, rest = hostport[:end], hostport[end:]
        colon, port = rest[:1], rest[1:]
    elif ":" in hostport:
        host, colon, port = hostport.partition(":")
    ascii_host = _ascii_host(host)
    if ascii_host is None or (colon and not port.isdigit()):
        return None
    if not url.isascii():
        netloc = quote(userinfo, safe=":%") + at + ascii_host + colon + port
        url = urlunsplit(
            (
                parts.scheme,
                netloc,
                quote(parts.path, safe=_PATH_SAFE),
                quote(parts.query, safe=_QUERY_SAFE),
                quote(parts.fragment, safe=_QUERY_SAFE),
            )
        )
    return url if len(url) <= MAX_URL_CHARS else None


def is_pdf(url: str) -> bool:
    """A URL whose path ends in ``.pdf`` (F7)."""
    return urlsplit(url).path.lower().endswith(".pdf")
