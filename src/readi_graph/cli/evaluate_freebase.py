"""`readi eval webqsp|cwq`: Freebase questions against a SPARQL endpoint (or an RDF file).

`--relations` takes the Freebase relation inventory (`fb_relations_domain_range_label.json`, a
JSON object keyed by relation id, or a text file with one id per line) so the ~21k relations
need not be listed from the endpoint. WebQSP also has `--planner gold`: its inferential chains
instantiated without an LLM.
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
from dataclasses import replace
from typing import Any

from readi_graph.cli.checks import existing_file, json_file, kg_answers
from readi_graph.cli.evaluate import evaluate, evaluate_kg_model
from readi_graph.cli.options import add_kg_source, make_optional
from readi_graph.core.base import InputError, Term
from readi_graph.datasets.freebase import GOLD_QUERY, FreebaseQuestion, load_cwq, load_webqsp
from readi_graph.environments.kg.knowledge_graph import KGSettings, KnowledgeGraph, count_queries
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.environments.kg.store.vocabulary import FREEBASE_NS
from readi_graph.eval import runner
from readi_graph.eval.instance_ends import ends_as_answers


def _relations(path: str | None) -> list[str] | None:
    if not path:
        return None
    if path.endswith(".json"):
        ids = list(json_file(path, "--relations"))
    else:
        ids = existing_file(path, "--relations").read_text(encoding="utf-8").split()
    return [i if "://" in i else FREEBASE_NS + i for i in ids]


def _schema(path: str | None) -> RelationSchema | None:
    """Domains and ranges (hence reverse twins) when the inventory file carries them."""
    if not path or not path.endswith(".json"):
        return None
    inventory = json_file(path, "--relations")
    if isinstance(inventory, dict) and all(isinstance(v, dict) for v in inventory.values()):
        return RelationSchema.from_inventory(inventory, FREEBASE_NS)
    return None


def load_freebase(args: argparse.Namespace) -> KnowledgeGraph:
    # Virtuoso stops silently at 10,000 rows: stay under it so a cut is seen (from_endpoint)
    rows = {"row_limit": 9_999} if args.endpoint else {}
    settings = KGSettings.preset("freebase", frontier_cap=args.frontier_cap, **rows)
    relations = _relations(args.relations)
    kg: KnowledgeGraph
    if args.endpoint:
        kg = KnowledgeGraph.from_endpoint(
            args.endpoint, settings, relations=relations, default_graph=args.graph
        )
        kg_answers(kg)  # an endpoint that cannot be reached fails here, before any model
    elif args.kg:
        kg = KnowledgeGraph.from_file(existing_file(args.kg, "--kg"), settings)
    else:
        raise InputError("give the Freebase KG: --endpoint URL (SPARQL) or --kg FILE (RDF)")
    kg.schema = _schema(args.relations) or kg.schema
    kg.binding = BindingOptions.named(args.binding)
    return kg


def _named(kg: KnowledgeGraph, questions: list[FreebaseQuestion]) -> list[FreebaseQuestion]:
    """Topics as `Name [mid]`: the walk starts from the gold mid (names are ambiguous on
    Freebase), the model reads the name. A mid without any name known stays a bare mid."""
    mids = {i for q in questions for i in q.topic_ids}
    labels = kg.labels(Term.iri(FREEBASE_NS + m) for m in mids) if mids else {}
    names = {t.value.removeprefix(FREEBASE_NS): label for t, label in labels.items() if label}

    def shown(topic: str, mid: str | None) -> str:
        if not mid:
            return topic
        name = topic if topic != mid else names.get(mid)
        return f"{name} [{mid}]" if name else mid

    return [
        replace(
            q,
            topics=tuple(
                shown(t, q.topic_ids[i] if i < len(q.topic_ids) else None)
                for i, t in enumerate(q.topics)
            ),
        )
        for q in questions
    ]


def _items(questions: list[FreebaseQuestion]) -> list[runner.Item]:
    return [
        runner.Item(
            q.id,
            {"question": q.question, "topic_entities": list(q.topics)},
            [list(group) for group in q.answers],
            {"type": q.kind} if q.kind else {},
        )
        for q in questions
    ]


def topics_from(questions: list[FreebaseQuestion]) -> dict[str, Any]:
    """Where the topic entities came from, for the summary: questions per source, and a
    warning when some came from the gold query (its constraint entities are gold)."""
    sources = Counter(q.topics_from for q in questions)
    notes: dict[str, Any] = {"topic_entities_from": dict(sorted(sources.items()))}
    if sources.get(GOLD_QUERY):
        notes["topic_entities_note"] = (
            f"{sources[GOLD_QUERY]} questions have no topic field: their topic entities are "
            "every entity of the gold SPARQL query, constraint entities included (gold "
            "information a model is not given)"
        )
    return notes


def _run(args: argparse.Namespace, questions: list[FreebaseQuestion], label: str) -> int:
    kg = load_freebase(args)
    questions = _named(kg, questions)
    if getattr(args, "planner", None) == "gold":
        return webqsp_gold(args, kg, questions, label)
    return evaluate_kg_model(args, kg, _items(questions), label, notes=topics_from(questions))


def eval_webqsp(args: argparse.Namespace) -> int:
    if args.subgraphs:
        return eval_subgraphs(args, f"webqsp {args.split}")
    questions = list(itertools.islice(load_webqsp(_data(args), args.split), args.limit))
    return _run(args, questions, f"webqsp {args.split}")


def eval_cwq(args: argparse.Namespace) -> int:
    if args.subgraphs:
        return eval_subgraphs(args, f"cwq {args.split}")
    questions = list(itertools.islice(load_cwq(_data(args), args.split), args.limit))
    return _run(args, questions, f"cwq {args.split}")


def _data(args: argparse.Namespace) -> str:
    if not args.data:
        raise InputError("give the questions: --data DIR (official JSON) or --subgraphs PATH")
    return str(args.data)


def eval_subgraphs(args: argparse.Namespace, label: str) -> int:
    """Each question on its own subgraph (RoG's release format), built when it starts."""
    from readi_graph.datasets.subgraphs import load_subgraphs
    from readi_graph.eval.subgraphs import PerQuestionKGs, subgraph_items

    if getattr(args, "planner", None) == "gold":
        raise InputError(
            "--planner gold needs WebQSP's inferential chains (--data), not --subgraphs"
        )
    subgraphs, questions = load_subgraphs(args.subgraphs, args.split, args.limit)
    with subgraphs:
        kgs = PerQuestionKGs(
            subgraphs,
            questions,
            settings=KGSettings.preset("freebase", frontier_cap=args.frontier_cap),
            schema=_schema(args.relations),
            binding=BindingOptions.named(args.binding),
        )
        items = subgraph_items(questions)
        return evaluate_kg_model(
            args, kgs.kg_for, items, f"{label} subgraphs", annotate=kgs.annotate
        )


def webqsp_gold(
    args: argparse.Namespace, kg: KnowledgeGraph, questions: list[FreebaseQuestion], label: str
) -> int:
    """Instantiate each inferential chain forward from its topic mid: the environment alone."""
    from readi_graph.environments.kg.reasoning.instantiation import connect, merge
    from readi_graph.environments.kg.relations.paths import Candidate, KGPath

    by_id = {q.id: q for q in questions}

    class GoldChain:  # quacks like a compiled graph for the runner
        def __init__(self, question: FreebaseQuestion) -> None:
            self.q = question

        def invoke(self, _input: Any, _config: Any, **_: Any) -> dict[str, Any]:
            q = self.q
            if not q.topic_ids or not q.chain:
                return {"answers": [], "attempts": []}
            with count_queries() as queries:
                path = KGPath(q.topic_ids[0], q.chain)
                plan = [(Candidate(FREEBASE_NS + r, "forward"),) for r in q.chain]
                instance = connect(kg, path, plan)
                answers = merge([instance]).answers
                labels = kg.labels(answers)
            return {
                "answers": sorted(kg.display(t, labels.get(t)) for t in answers),
                "usage": {"queries": queries.n, "llm_calls": 0},
                "attempts": [{"path": " -> ".join(path.relations), "complete": instance.complete}],
            }

    return evaluate(
        args,
        _items(questions),
        lambda item: GoldChain(by_id[item.id]),
        ends_as_answers,
        f"{label} planner=gold",
        notes={
            "accuracy_is": "reached: a gold answer among the chain's ends (no answer step)",
            **topics_from(questions),
        },
    )


def add_webqsp_arguments(parser: argparse.ArgumentParser) -> None:
    _freebase_arguments(parser)
    parser.add_argument("--planner", choices=("gold", "model"), default="model")
    parser.set_defaults(func=eval_webqsp)


def add_cwq_arguments(parser: argparse.ArgumentParser) -> None:
    _freebase_arguments(parser)
    parser.set_defaults(func=eval_cwq)


def _freebase_arguments(parser: argparse.ArgumentParser) -> None:
    add_kg_source(parser)
    parser.add_argument("--kg", help="a Freebase-style RDF file instead of --endpoint")
    parser.add_argument(
        "--subgraphs",
        help="per-question subgraphs in RoG's format (JSON lines, Parquet, or the release's "
        "directory): each question runs on its own subgraph; replaces --data",
    )
    make_optional(parser, "data")
    parser.add_argument("--relations", help="relation inventory (JSON keyed by id, or text)")
