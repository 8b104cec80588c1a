"""Entity linking in scripts written without spaces (issue 30): a label inside a Japanese,
Chinese or Thai question is found, on the embedded store (label scan) and through the bounded
look-ups an endpoint gets (no scan of every label)."""

from __future__ import annotations

from pathlib import Path

import pytest

from readi_graph.core.run.counting import count_queries
from readi_graph.environments.kg.entities import names, spans
from readi_graph.environments.kg.knowledge_graph import KnowledgeGraph
from readi_graph.environments.kg.store.local import load_metaqa

KB = """\
フォレスト・ガンプ/一期一会|directed_by|ロバート・ゼメキス
フォレスト・ガンプ/一期一会|has_tags|映画
Forrest Gump|directed_by|Robert Zemeckis
英雄|directed_by|张艺谋
英雄|has_tags|电影
ต้มยำกุ้ง|directed_by|ปรัชญา ปิ่นแก้ว
ต้มยำกุ้ง|has_tags|ภาพยนตร์
東京物語|directed_by|小津安二郎
東京物語|release_year|東京
京都|has_tags|映画
"""


@pytest.fixture(params=["embedded", "endpoint-like"])
def kg(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> KnowledgeGraph:
    """The same KB scanned (embedded), and looked up span by span as on an endpoint, where a
    scan of every label would fail the test."""
    kb = tmp_path / "kb.txt"
    kb.write_text(KB, encoding="utf-8")
    scan = request.param == "embedded"
    graph = KnowledgeGraph(load_metaqa(kb), "metaqa", name="scripts", scan_labels=scan)
    if not scan:
        monkeypatch.setattr(
            graph.names, "_normalized_index", lambda: pytest.fail("an endpoint was scanned")
        )
    return graph


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        # Japanese: the name inside the sentence; "映画" (film, a tag) is a short common word
        ("ロバート・ゼメキスが監督した映画は？", ["ロバート・ゼメキス"]),
        ("フォレスト・ガンプ/一期一会の監督は誰ですか", ["フォレスト・ガンプ/一期一会"]),
        ("Forrest Gumpの監督は誰ですか", ["Forrest Gump"]),  # Latin words beside kana
        ("小津安二郎の作品", ["小津安二郎"]),
        # Chinese: a three-character name, and a two-character title when nothing longer is
        ("张艺谋导演了哪些电影", ["张艺谋"]),
        ("英雄的导演是谁", ["英雄"]),
        # Thai: a title inside the sentence, and a name whose parts a space separates
        ("ใครกำกับต้มยำกุ้ง", ["ต้มยำกุ้ง"]),
        ("ปรัชญา ปิ่นแก้วกำกับภาพยนตร์เรื่องอะไร", ["ปรัชญา ปิ่นแก้ว"]),
    ],
)
def test_a_label_inside_a_question_without_spaces_is_found(
    kg: KnowledgeGraph, question: str, entities: list[str]
) -> None:
    found = kg.link_topic_entities(question)
    assert found.entities == entities, found.notes


def test_overlapping_names_are_another_reading(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("東京都を舞台にした作品")  # 東京 and 京都 overlap
    assert found.entities == ["東京"]
    assert found.mentions[0].others == ("京都",) and "may also mean" in found.notes[1]


def test_a_longer_name_wins_over_the_words_inside_it(kg: KnowledgeGraph) -> None:
    assert kg.link_topic_entities("東京物語の監督").entities == ["東京物語"]  # not 東京


def test_nothing_found_is_said(kg: KnowledgeGraph) -> None:
    found = kg.link_topic_entities("誰が監督しましたか")
    assert found.entities == [] and "none was found" in found.notes[0]


def test_endpoint_look_ups_stay_bounded_on_a_long_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text(KB, encoding="utf-8")
    kg = KnowledgeGraph(load_metaqa(kb), "metaqa", scan_labels=False)
    monkeypatch.setattr(kg.names, "_normalized_index", lambda: pytest.fail("scanned"))
    question = "張" * 300 + "小津安二郎の作品" + "は" * 300  # the name past what is read
    read = spans.spans(question)
    assert max(s.end for s in read) <= spans.MAX_UNSPACED  # only the first characters read
    assert len(read) <= names.NAMES_LIMIT
    with count_queries() as counted:
        kg.link_topic_entities(question)
    assert counted.n <= -(-names.NAMES_LIMIT // names.NAMES_CHUNK)  # spellings, in chunks
    near = "小津安二郎の作品" + "は" * 300
    assert kg.link_topic_entities(near).entities == ["小津安二郎"]


def test_spaced_scripts_are_read_as_before() -> None:
    """Text without such scripts gives the same word spans as splitting on whitespace."""
    question = "which films did Steven Spielberg's friend direct?"
    words = question.split()
    single = [s.form for s in spans.spans(question) if s.last - s.first == 1]
    assert [w for w in words if w in single] == words
    assert not any(s.first < 0 for s in spans.spans(question))  # no substrings
