"""How the GitHub Actions runner reads a step's output, as its code does (actions/runner,
``ActionCommandManager.TryProcessCommand`` over ``ActionCommand.TryParseV2`` and
``ActionCommand.TryParse``):

- the output is read line by line (``\\r``, ``\\n`` and ``\\r\\n`` end a line);
- a line is a command when, its leading white space trimmed, it starts with ``::`` and holds a
  second ``::`` (``::name props::data``), or else when it holds ``##[`` anywhere and a ``]``
  after it (``##[name props]data``), and the name is a registered command (any case);
- ``stop-commands`` with data ``X`` stops every command until a line whose command is ``X``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The commands the runner registers (its command extensions, and stop-commands).
REGISTERED = frozenset({
    "add-mask", "add-matcher", "add-path", "debug", "echo", "endgroup", "error", "group",
    "notice", "remove-matcher", "save-state", "set-env", "set-output", "stop-commands",
    "warning",
})  # fmt: skip
#: What .NET's ``string.TrimStart()`` removes (``char.IsWhiteSpace``).
_LEADING_SPACE = re.compile(
    r"^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*"
)
_LINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Command:
    """A command the runner parsed: its name (lower case), properties, data and line."""

    name: str
    properties: dict[str, str] = field(hash=False)
    data: str
    line: str


def _parse_v2(line: str, registered: set[str]) -> Command | None:
    message = _LEADING_SPACE.sub("", line)
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    info = message[2:end]
    name = info.split(" ", 1)[0]
    if name.lower() not in registered:
        return None
    properties = {}
    if " " in info:
        for pair in info.split(" ", 1)[1].strip().split(","):
            key, _, value = pair.partition("=")
            if key and value:
                properties[key] = value
    return Command(name.lower(), properties, message[end + 2 :], line)


def _parse_legacy(line: str, registered: set[str]) -> Command | None:
    start = line.find("##[")
    if start < 0:
        return None
    end = line.find("]", start)
    if end < 0:
        return None
    info = line[start + 3 : end]
    name = info.split(" ", 1)[0]
    if name.lower() not in registered:
        return None
    return Command(name.lower(), {}, line[end + 1 :], line)


def parsed(output: str) -> list[Command]:
    """Every line of ``output`` the runner parses as a command, processed or not."""
    registered = set(REGISTERED)
    found = []
    for line in _LINE.split(output):
        command = _parse_v2(line, registered) or _parse_legacy(line, registered)
        if command is not None:
            found.append(command)
    return found


def processed(output: str) -> list[Command]:
    """The commands the runner carries out, in order: those ``stop-commands`` leaves."""
    registered = set(REGISTERED)
    token: str | None = None
    done = []
    for line in _LINE.split(output):
        command = _parse_v2(line, registered) or _parse_legacy(line, registered)
        if command is None:
            continue
        if token is not None:
            if command.name == token.lower():
                registered.discard(token.lower())
                token = None
            continue
        if command.name == "stop-commands":
            token = command.data
            registered.add(token.lower())
        done.append(command)
    return done
