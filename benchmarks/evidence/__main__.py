"""``python -m benchmarks.evidence COMMAND``: see benchmarks/README.md, section "``evidence/``:
the whole evidence in front of the judge at equal cost"."""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path

from benchmarks.evidence import cost, data, evaluate, frontier, route, signals, train, xquad

DEFAULT_CACHE = Path.home() / ".cache" / "citations-bench" / "evidence"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.evidence")
    parser.add_argument(
        "command", choices=["signals", "train", "apply", "xquad", "frontier", "cost"]
    )
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--units", default="spans", choices=["spans", "sentences"])
    parser.add_argument("--unit-words", type=float, default=data.UNIT_WORDS)
    parser.add_argument("--layout", default="sentence_paragraphs")
    parser.add_argument("--no-alone", action="store_true", help="skip embedding units alone")
    args = parser.parse_args()
    if args.command == "xquad":
        print(xquad.table(xquad.evaluate(args.cache_dir, args.limit)))
        return
    claims = data.load_claims(
        limit=args.limit, mode=args.units, unit_words=args.unit_words, layout=args.layout
    )
    if args.command == "signals":
        signals.compute(claims, args.cache_dir, signals_path(args), alone=not args.no_alone)
    elif args.command == "frontier":
        held = signals_path(args)
        cache = held.with_suffix("")
        cache.mkdir(exist_ok=True)
        short = args.units != "spans" or args.layout != "sentence_paragraphs"
        frontier.run(claims, signals.load(held), cache, short=short)
    elif args.command == "cost":
        print(
            json.dumps(
                {"wice": cost.measure(claims), "plugin world": cost.plugin_world()}, indent=1
            )
        )
    elif args.command == "apply":  # the shipped head, as route.py runs it
        held = signals.load(signals_path(args))
        print(evaluate.HEADER)
        print(evaluate.score("today (top 3 + straddle)", evaluate.today(), claims, held).row())
        shipped = route.Head.load()
        for budget in (500.0, route.BUDGET, 600.0):
            name = f"route.py, shipped head, {budget:g} words"
            sent = functools.partial(train.sent, fitted=shipped, budget=budget)
            print(evaluate.score(name, sent, claims, held).row())
    elif args.command == "train":
        train.run(claims, signals.load(signals_path(args)))


def signals_path(args: argparse.Namespace) -> Path:
    """Where a unit layout's signals are kept."""
    name = f"wice_{args.layout}_{args.units}{args.unit_words:g}.pkl"
    return Path(args.cache_dir) / name


if __name__ == "__main__":
    main()
