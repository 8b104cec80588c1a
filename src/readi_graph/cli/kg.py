"""`readi kg freebase`: the public Freebase dump filtered into files a store loads.

    readi kg freebase --dump freebase-rdf-latest.gz --out fb/
    readi kg freebase --dump freebase-rdf-latest.gz --out fb-cwq/ --around topics.txt --hops 2

See datasets/freebase_dump/run.py; README, "Running the papers' benchmarks".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from readi_graph.cli.checks import at_least, existing_file
from readi_graph.core.base import InputError

DEFAULT_INVENTORY = Path("../shared/data/freebase/fb_relations_domain_range_label.json")


def freebase(args: argparse.Namespace) -> int:
    from readi_graph.datasets.freebase_dump.filter import BOOKKEEPING, DumpFilter
    from readi_graph.datasets.freebase_dump.run import run

    inventory = Path(args.relations)
    if not inventory.is_file():
        raise InputError(f"--relations {inventory}: no relation inventory there (a file)")
    if args.around and not Path(args.around).is_file():
        raise InputError(f"--around {args.around}: no such file (one entity a line)")
    for dump in args.dump:
        existing_file(dump, "--dump")
    drop = () if args.keep_bookkeeping else BOOKKEEPING
    dump_filter = DumpFilter.from_inventory(inventory, drop=drop, language=args.language)
    stats = run(
        [Path(d) for d in args.dump],
        Path(args.out),
        dump_filter,
        around=Path(args.around) if args.around else None,
        hops=args.hops,
        hub_cap=args.hub_cap,
        part_lines=args.part_lines,
        level=0 if args.no_gzip else 1,
        quiet=args.quiet,
    )
    print(json.dumps(stats))
    return 0


def add_parsers(commands: Any) -> None:
    kg = commands.add_parser("kg", help="prepare a KG for readi-graph")
    kinds = kg.add_subparsers(dest="kg", required=True)
    fb = kinds.add_parser(
        "freebase",
        help="filter the public Freebase dump (streamed) into N-Triples parts a store loads",
    )
    fb.add_argument(
        "--dump",
        nargs="+",
        required=True,
        help="the dump (.gz, .zst, .xz, .bz2 or plain), or several files in order",
    )
    fb.add_argument("--out", required=True, help="directory for part-NNNNN.nt.gz and stats.json")
    fb.add_argument(
        "--relations",
        default=str(DEFAULT_INVENTORY),
        help="relation inventory to keep (JSON keyed by id, or one id a line)",
    )
    fb.add_argument("--language", default="en", help="names and literals kept (default: en)")
    fb.add_argument(
        "--keep-bookkeeping",
        action="store_true",
        help="also keep the inventory's type./common./freebase./kg. relations",
    )
    fb.add_argument(
        "--around",
        help="keep only the neighbourhood of these entities (a file, one mid or IRI a line)",
    )
    fb.add_argument(
        "--hops", type=at_least(0), default=2, help="neighbourhood radius (with --around)"
    )
    fb.add_argument(
        "--hub-cap",
        type=at_least(1),
        default=1000,
        help="neighbours a node is expanded to per hop (with --around)",
    )
    fb.add_argument(
        "--part-lines", type=at_least(1), default=100_000_000, help="lines per output file"
    )
    fb.add_argument("--no-gzip", action="store_true", help="write plain .nt parts")
    fb.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    fb.set_defaults(func=freebase)
