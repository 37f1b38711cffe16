"""Which names a case's ``tags:`` may carry. A tag becomes a pytest marker of the case's
items, so a tag that names a mark with behaviour would let a case file (or an application's
own answer logs, through ``pytest-citations import``) skip its own checks or turn a
contradicted claim into an expected failure. Those names are refused wherever tags are read.
"""

from __future__ import annotations

from collections.abc import Iterable

#: pytest's own marks that change how an item runs or whether it runs at all.
BEHAVIOUR_MARKS = frozenset(
    {
        "skip",
        "skipif",
        "xfail",
        "usefixtures",
        "filterwarnings",
        "parametrize",
        "tryfirst",
        "trylast",
    }
)


def refused_tag(tag: str, registered: Iterable[str] = ()) -> str | None:
    """Why ``tag`` may not be a tag, or None when it may. ``registered`` holds the marks
    another plugin (or a conftest) registered: they may act on an item too."""
    if tag in BEHAVIOUR_MARKS:
        return (
            f"tag {tag!r} is pytest's own {tag} mark: a case's tags may not decide whether "
            "its checks run or count (choose another name)"
        )
    if tag in set(registered):
        return (
            f"tag {tag!r} is a mark another plugin registered, which may change how the "
            "case's items run: choose another name (declare your own tags under 'markers' "
            "in the ini file)"
        )
    return None
