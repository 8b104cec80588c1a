"""ToG's call bound, whatever the model replies: an adversarial scripted model (hypothesis
draws every reply: greedy or invented relations, any `Hops left`, wrong score counts, 'all' and
'none', floods, verdicts without answers), under the defaults and `TogContext.paper()`, never
makes a question take more than (1+W)(T0+(D-1)W)+D+1 calls, and the bound
holds by construction: the budget kept in state (`calls_left`) is never what stops a call.
Profiles: `ci` runs 40 questions; `READI_HYPOTHESIS=slow` runs 2,000."""

from __future__ import annotations

import os
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readi_graph.core import markers
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.graph import build_graph
from readi_graph.strategies.tog.context import TogContext, call_bound

from fakes import function_model

EXAMPLES = int(os.environ.get("READI_GRAPH_EXAMPLES", 0)) or (
    2_000 if os.environ.get("READI_HYPOTHESIS") == "slow" else 40
)
TOPICS = ["Pedro Almodóvar", "Woody Allen", "Spanish", "Tom Hanks", "Nobody Atall", "1994"]
SCORES = st.one_of(
    st.floats(0, 1).map(lambda x: f"{x:.2f}"), st.sampled_from(["0", "1", "7.5", "-1", "x"])
)


def adversary(data: Any) -> Any:
    def reply(prompt: str) -> str:
        own = prompt.split("### Your turn")[-1]
        if markers.TOG_RELATIONS in prompt:
            listed = own.split(markers.RELATIONS_LIST)[1].split("\nChoose")[0].splitlines()
            names = st.sampled_from([*listed, "invented_relation", "<- nope"])
            picks = data.draw(st.lists(st.tuples(names, SCORES), max_size=12))
            body = "\n".join(f"{{{name} (Score: {score})}}" for name, score in picks)
            greedy = "\n".join(f"{{{name} (Score: 0.5)}}" for name in listed)  # all of them
            reply = data.draw(st.sampled_from([greedy, body, body * 3, "{}", "no idea", ""]))
            hops = data.draw(
                st.sampled_from(["", "\nHops left: 0", "\nHops left: 1", "\nHops left: 9"])
            )
            return reply + hops
        if markers.TOG_ENTITIES in prompt:
            n = len(re.findall(r"(?m)^\d+\. ", own))
            size = data.draw(st.sampled_from([n, n, n - 1, n + 2]))  # mostly the right count
            scores = ", ".join(data.draw(st.lists(SCORES, min_size=size, max_size=size)))
            return "Scores: " + data.draw(st.sampled_from([scores, scores, "all", "none"]))
        if markers.TOG_REASON in prompt:
            return data.draw(st.sampled_from(
                ["{Yes}. {A | B}", "{Yes}.", "{Yes} {}", "{No}.", "yes", "maybe",
                 '{"sufficient": "yes", "answers": []}', "{No} {C}"]
            ))  # fmt: skip
        return data.draw(st.sampled_from(["{A}", "", "{}", "I cannot tell."]))

    return function_model(reply)


@settings(
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=st.data(),
    width=st.integers(1, 4),
    depth=st.integers(1, 4),
    topics=st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True),
    prune=st.sampled_from(["llm", "llm", "llm", "bm25"]),
    entities=st.sampled_from(["scored", "scored", "scored", "random"]),
    preset=st.sampled_from(["default", "paper"]),
)
def test_no_question_takes_more_calls_than_the_bound(
    metaqa_kg: KnowledgeGraph,
    data: Any,
    width: int,
    depth: int,
    topics: list[str],
    prune: str,
    entities: str,
    preset: str,
) -> None:
    settings = dict(width=width, depth=depth, prune=prune, entity_pruning=entities,
                    max_candidates=8)  # fmt: skip
    context = TogContext.paper(**settings) if preset == "paper" else TogContext(**settings)  # type: ignore[arg-type]
    model = adversary(data)
    question = {"question": "which films " + " and ".join(f"[{t}]" for t in topics),
                "topic_entities": topics}  # fmt: skip
    out = build_graph(metaqa_kg, model, strategy="tog").invoke(question, context=context)
    found = sum(1 for t in topics if metaqa_kg.resolve(t).found)
    bound = call_bound(width, depth, found)  # with none found: 1, the paper's fallback
    assert out["usage"]["llm_calls"] == len(model.prompts) <= bound
    assert out["usage"].get("budget_spent", 0) == 0  # the structure bounds the calls
    assert len(out["attempts"]) <= depth
    for record in out["attempts"]:
        kept: dict[int, int] = {}
        for r in record["relations"]:
            kept[r["entity"]] = kept.get(r["entity"], 0) + r["kept"]
        assert all(n <= width for n in kept.values())
        assert sum(c["kept"] for c in record["candidates"]) <= width
        assert len(record["frontier"]) <= (found if record["depth"] == 1 else width)
    assert out["answer_source"] in ("graph", "model_knowledge", "none")
    assert isinstance(out["answer"], str) and isinstance(out["answers"], list)
