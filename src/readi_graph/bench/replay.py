"""Replaying real model paths on a real Freebase fragment: `readi bench replay`.

The Readi authors published, for 100 CWQ questions, the paths GPT-3.5 wrote and the Freebase
triples their own run retrieved (`../shared/data/readi_cwq/`). Their union is a real Freebase
fragment: named entities (by name, so homonyms share a node, as names do), CVT nodes by mid
(`m.0abc12`, unlabelled, so compound), real relation ids. A scripted model writes exactly the
published paths, no edit is allowed, and the graph does the rest: this measures how often the
first path instantiates and reaches a gold answer, with the relation index over all 20,951
Freebase relations (not just the fragment's), as on the real KG.
"""

from __future__ import annotations

import json
import re
import statistics
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from readi_graph.core.text import normalize_name
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.relations.binding import BindingOptions
from readi_graph.environments.kg.relations.schema import FREEBASE_NS, RelationSchema
from readi_graph.environments.kg.store.local import load_ntriples
from readi_graph.environments.kg.store.sparql import literal

NAME = FREEBASE_NS + "type.object.name"
ENTITY = "urn:readi:cwq:entity:"  # named nodes: the fragment gives names, not their mids
_MID = re.compile(r"^[mg]\.[0-9a-z_]+$")
NO_ANSWER = "(replay: no answer model; the instances are the answer)"


def fragment_triples(run_jsonl: str | Path) -> list[tuple[str, str, str]]:
    """The distinct (subject, relation, object) triples of a published run, as written."""
    found: dict[tuple[str, str, str], None] = {}
    for line in Path(run_jsonl).read_text(encoding="utf-8").splitlines():
        if line.strip():
            for s, p, o in json.loads(line).get("kg_triples_set") or []:
                found[(str(s).strip(), str(p).strip(), str(o).strip())] = None
    return list(found)


def node_iri(name: str) -> str:
    """A CVT mid keeps its Freebase IRI (no label: a compound node); a name gets its own."""
    return FREEBASE_NS + name if _MID.match(name) else ENTITY + quote(name, safe="")


def fragment_ntriples(triples: Iterable[tuple[str, str, str]]) -> str:
    """N-Triples of the fragment, names as `type.object.name` labels (also loads in Virtuoso)."""
    lines: dict[str, None] = {}
    for s, p, o in triples:
        if not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+", p):
            continue  # not a relation id
        lines[f"<{node_iri(s)}> <{FREEBASE_NS}{p}> <{node_iri(o)}> ."] = None
        for name in (s, o):
            if not _MID.match(name):
                lines[f"<{node_iri(name)}> <{NAME}> {literal(name, lang='en')} ."] = None
    return "\n".join(lines) + "\n"


def fragment_kg(
    run_jsonl: str | Path,
    schema: RelationSchema,
    binding: BindingOptions | None = None,
    *,
    inventory: Sequence[str] | None = None,
) -> KnowledgeGraph:
    """The fragment in an embedded store. Relations are indexed as the KG lists them, or
    over a given inventory (all of Freebase's, as on the real KG: harder, since relations
    absent from the fragment then compete for the top-k)."""
    backend = load_ntriples(fragment_ntriples(fragment_triples(run_jsonl)))
    return KnowledgeGraph(
        backend, relations=inventory, schema=schema, binding=binding, name="cwq-fragment"
    )


class ReplayModel(BaseChatModel):
    """Writes the published paths for a question's generation prompt; answers nothing."""

    paths: dict[str, dict[str, list[str]]]  # question -> {topic: ["T -> r1 -> r2", ...]}
    _calls: dict[str, int] = PrivateAttr(default_factory=dict)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "readi-replay"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        prompt = str(messages[-1].content)
        question = _after(prompt, "Question:")
        reply = NO_ANSWER
        if "Topic Entities:" in prompt and question in self.paths:
            reply = "Path: " + json.dumps(self.paths[question], ensure_ascii=False)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(reply))])


def _after(prompt: str, marker: str) -> str:
    return prompt.rsplit(marker, 1)[-1].split("\n", 1)[0].strip() if marker in prompt else ""


def replay(
    questions: Sequence[dict[str, Any]], kg: KnowledgeGraph, *, concurrency: int = 1
) -> dict[str, Any]:
    """Run each question's published paths through the graph (no edits) and score them."""
    from readi_graph.core.context import ReadiContext
    from readi_graph.core.state import ReadiInput
    from readi_graph.graph import build_graph

    model = ReplayModel(
        paths={q["question"]: q.get("relation_path_candidates") or {} for q in questions}
    )
    graph = build_graph(kg, model)
    context = ReadiContext(max_edits=0)
    inputs: list[ReadiInput] = [
        {"question": q["question"], "topic_entities": list(q.get("relation_path_candidates") or {})}
        for q in questions
    ]
    started = time.perf_counter()
    outputs = graph.batch(
        inputs,
        {"max_concurrency": concurrency},
        context=context,
        return_exceptions=True,
    )
    seconds = time.perf_counter() - started
    return score(questions, outputs, seconds)


def _gold(question: dict[str, Any]) -> set[str]:
    answers = question.get("answer")
    values = answers if isinstance(answers, list) else [answers]
    return {normalize_name(str(a)) for a in values if a}


def score(
    questions: Sequence[dict[str, Any]], outputs: Sequence[Any], seconds: float
) -> dict[str, Any]:
    first = gold_hits = errors = local = wrong = 0
    queries: list[int] = []
    for q, out in zip(questions, outputs, strict=True):
        if isinstance(out, BaseException) or out.get("error"):
            errors += 1
            continue
        attempts = [a for a in out.get("attempts") or [] if a.get("source") == "generate"]
        by_topic: dict[str, bool] = {}
        for a in attempts:
            topic = a["path"].split(" -> ", 1)[0]
            by_topic[topic] = by_topic.get(topic, False) or bool(a.get("complete"))
        instantiated = bool(by_topic) and all(by_topic.values())
        hit = bool(_gold(q) & {normalize_name(a) for a in out.get("answers") or []})
        first += instantiated
        gold_hits += hit
        wrong += instantiated and not hit  # no edit would be asked for: a silent miss
        local += any(a.get("local") for a in attempts)
        queries.append(int((out.get("usage") or {}).get("queries", 0)))
    n = max(len(questions), 1)
    return {
        "questions": len(questions),
        "first_path_instantiated": round(first / n, 3),
        "gold_among_instances": round(gold_hits / n, 3),
        "instantiated_without_gold": round(wrong / n, 3),
        "bound_locally": round(local / n, 3),
        "queries_per_question": round(statistics.mean(queries), 2) if queries else 0.0,
        "errors": errors,
        "seconds_per_question": round(seconds / n, 3),
    }


def bench_replay(
    real_paths: str | Path, run_jsonl: str | Path, freebase: str | Path
) -> dict[str, Any]:
    """The paper's binding and this library's, side by side on the same fragment and paths,
    with relations indexed from the fragment and from the whole inventory."""
    schema = RelationSchema.from_freebase(freebase)
    questions = json.loads(Path(real_paths).read_text(encoding="utf-8"))
    results: dict[str, Any] = {}
    variants = (
        ("paper", BindingOptions.paper()),
        ("readi-graph", BindingOptions()),
        ("readi-graph + local", BindingOptions(local_fallback=True)),
    )
    for index in ("fragment", "inventory"):
        for name, options in variants:
            used = schema if options.twins else RelationSchema()
            relations = sorted(schema.info) if index == "inventory" else None
            kg = fragment_kg(run_jsonl, used, options, inventory=relations)
            results[f"{index} index, {name} binding"] = replay(questions, kg)
    return results
