"""``pytest-citations cassettes sign|keygen``: signed recordings by hand. ``keygen`` makes a
key pair, ``sign`` signs cassettes whose hand edits were reviewed (every writer of the
package signs on its own when ``CITATIONS_SIGNING_KEY`` is set); and the ``--trusted-keys``
option of the commands that read cassettes, whose default is the project's
``citations_trusted_keys``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..atomic import write_atomically
from ..errors import ConfigurationError
from ..paths import shown
from ..recording.files import CassetteContentError, read_cassette
from ..recording.sealing import UnsealableText, sign_text
from ..recording.signing import (
    SIGNING_KEY_VARIABLE,
    TRUSTED_KEYS_INI,
    SignatureRefused,
    Signer,
    SigningKeyError,
    TrustedKeys,
    generate_key,
    signer_from_environment,
)
from ..upkeep.owners import cassette_files
from .common import EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Subcommands, say
from .project import project_config

_SIGN = (
    f"Sign cassettes with the private key in {SIGNING_KEY_VARIABLE}, after their hand edits "
    "were reviewed: a replay with citations_trusted_keys accepts a cassette only when one "
    "of those keys signed its content as it is. Only the top-level 'signature' entry "
    "changes; every other byte is kept, and each file is written atomically. Recording "
    f"runs, drift --update and cassettes upgrade sign what they write when {SIGNING_KEY_VARIABLE} "
    "is set."
)
_KEYGEN = (
    "Make an Ed25519 key pair for signed cassettes: the private key goes to PATH (a new "
    "file, readable by you alone; put its content in the CITATIONS_SIGNING_KEY secret and "
    "keep it out of version control), the public key is printed, one line, for "
    "citations_trusted_keys."
)


def add_trust_option(parser: argparse.ArgumentParser) -> None:
    """``--trusted-keys FILE``: the public keys every cassette read must be signed by."""
    parser.add_argument(
        "--trusted-keys",
        metavar="FILE",
        help="public keys, one a line ('ssh-ed25519 AAAA…'): a cassette none of them signed "
        f"is refused (default: {TRUSTED_KEYS_INI} of the ini file pytest finds from --root)",
    )


def trust_of(args: argparse.Namespace, root: Path) -> TrustedKeys | None:
    """The keys of ``--trusted-keys``, else of the project's ``citations_trusted_keys``
    (None: cassettes are read whoever signed them). Raises ``ConfigurationError``."""
    given = getattr(args, "trusted_keys", None)
    if given:
        try:
            lines = Path(given).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigurationError(f"--trusted-keys {given} cannot be read: {error}") from None
        return TrustedKeys.parse(lines, given)
    config = project_config(root)
    listed = config.lines(TRUSTED_KEYS_INI) if config is not None else None
    if config is None or listed is None:
        return None
    return TrustedKeys.parse(listed, f"{TRUSTED_KEYS_INI} in {shown(config.path, root)}")


def add_actions(actions: Subcommands, parent: argparse.ArgumentParser) -> None:
    """The ``sign`` and ``keygen`` actions of the ``cassettes`` command."""
    sign = actions.add_parser(
        "sign",
        parents=[parent],
        help=f"sign reviewed cassettes with the key in {SIGNING_KEY_VARIABLE}",
        description=_SIGN,
        epilog=EXIT_CODES + " Sign exits 1 when a cassette could not be signed, and 2 when "
        f"{SIGNING_KEY_VARIABLE} is not set or holds no Ed25519 private key.",
    )
    sign.add_argument(
        "paths", nargs="+", metavar="PATH", help="a cassette, or a folder of cassettes"
    )
    sign.add_argument(
        "--root",
        default=".",
        help="the project's root (cassettes are named relative to it, and its ini file's "
        f"{TRUSTED_KEYS_INI} is compared with the key; default: the current folder)",
    )
    sign.set_defaults(run=run_sign)
    keygen = actions.add_parser(
        "keygen",
        parents=[parent],
        help="make a key pair for signed cassettes",
        description=_KEYGEN,
        epilog=EXIT_CODES + " Keygen exits 2 when PATH exists.",
    )
    keygen.add_argument("path", metavar="PATH", help="the private key's new file")
    keygen.set_defaults(run=run_keygen)


def sign_file(path: Path, signer: Signer) -> tuple[str, bool]:
    """Sign one cassette: what happened (``signed``, ``already signed``, or why not) and
    whether it could be signed."""
    own = TrustedKeys({signer.fingerprint: signer.public}, "the signing key")
    found: list[dict[str, object]] = []
    link = _link_on_the_way(path)
    if link is not None:
        # A signature says "reviewed here": written through a link it would land on a file
        # outside the cassettes given, as prune and the recordings job refuse to.
        return f"not signed: {link} is a link; sign the file it points to where it lives", False
    try:
        raw = path.read_bytes()
        read_cassette(raw, found.append)
        try:
            own.check(found[0])
            return "already signed", True
        except SignatureRefused:
            pass
        text = sign_text(raw.decode("utf-8"), found[0], signer)
        # The signed text is read back as a replay reads it before it replaces anything.
        read_cassette(text.encode("utf-8"), own.check)
        write_atomically(path, text)
    except OSError as error:
        return f"not signed: it cannot be read or written ({error.strerror or error})", False
    except (CassetteContentError, SignatureRefused, UnsealableText) as error:
        return f"not signed: {error}", False
    return "signed", True


def _link_on_the_way(path: Path) -> Path | None:
    """The first link among ``path`` and the folders it names (as given, from the working
    folder down), or None."""
    parts = path.parts
    for depth in range(1, len(parts) + 1):
        step = Path(*parts[:depth])
        if step.is_symlink():
            return step
    return None


def run_sign(args: argparse.Namespace) -> int:
    """Sign every cassette given; a line per cassette; exit 1 when one could not be."""
    root = Path(args.root)
    try:
        signer = signer_from_environment()
        if signer is None:
            raise SigningKeyError(
                f"{SIGNING_KEY_VARIABLE} is not set: it holds the private key that signs "
                "(pytest-citations cassettes keygen makes one)"
            )
        paths = cassette_files(list(map(Path, args.paths)))
        trust = trust_of(args, root)
    except (ConfigurationError, OSError) as error:
        say(error)
        return EXIT_USAGE
    if trust is not None and signer.fingerprint not in trust.keys:
        say(
            f"{SIGNING_KEY_VARIABLE} holds the key {signer.fingerprint}, which is not among "
            f"{trust.source}: a replay there refuses what it signs"
        )
    failed = False
    for path in paths:
        outcome, done = sign_file(path, signer)
        failed = failed or not done
        print(f"{shown(path, root)}: {outcome} ({signer.fingerprint})")
    return EXIT_FAILED if failed else EXIT_OK


def run_keygen(args: argparse.Namespace) -> int:
    """Write a new private key to a new file, readable by its owner alone; print the
    public key."""
    path = Path(args.path)
    pem, signer = generate_key()
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        say(f"{path} exists: keygen writes a new file only, never over a key")
        return EXIT_USAGE
    except OSError as error:
        say(f"cannot write {path}: {error.strerror or error}")
        return EXIT_USAGE
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(pem)
    print(signer.public_line())
    say(
        f"wrote the private key {signer.fingerprint} to {path} (readable by you alone). Put "
        f"its content in the {SIGNING_KEY_VARIABLE} secret (gh secret set "
        f"{SIGNING_KEY_VARIABLE} < {path}), the line above under {TRUSTED_KEYS_INI} in the "
        "ini file, and keep the file out of version control"
    )
    return EXIT_OK
