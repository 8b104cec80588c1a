"""The parts of a question that may name a node (entity linking reads them, `linking.py`).

In scripts written with spaces a candidate is a run of up to `SPAN_TOKENS` words, in its
usual forms (without quotes, final punctuation or a possessive), ranked by how name-like it
is. Japanese, Chinese, Thai, Lao, Khmer and Myanmar are written without spaces between words,
so a name sits inside a longer run of characters ("ロバート・ゼメキスが監督した映画"): there
every substring of `MIN_CHARS` to `MAX_CHARS` characters of such a run (digits, single
spaces and ASCII signs between its characters included: "ปรัชญา ปิ่นแก้ว") is a candidate,
over the first `MAX_UNSPACED` characters of such runs, so a question costs a bounded number
of look-ups on an endpoint. A run is split from the Latin words beside it ("Forrest Gumpの
監督" holds the words "Forrest Gump"). With no case to tell a name from a word, a substring
counts as name-like when it holds a space or `MIN_NAME_CHARS` ideographs or kana; a shorter
one ("映画", film) or one word of a script of letters ("ภาพยนตร์") only when nothing
name-like is found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SPAN_TOKENS = 16  # words in the longest name looked for
MAX_TOKENS = 64  # words of the question read
MIN_CHARS, MAX_CHARS = 2, 24  # characters of a name inside a run written without spaces
MIN_NAME_CHARS = 3  # shorter ones are often plain words ("映画", "电影")
MAX_UNSPACED = 80  # characters of such runs read per question
# Scripts written without spaces between words, with their punctuation and iteration marks.
UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3001-\u303f"  # CJK symbols and punctuation (、。「」々〆), not the ideographic space
    "\u3040-\u30ff"  # Hiragana, Katakana (・ー)
    "\u31f0-\u31ff"  # Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff01-\uff0f\uff1a-\uff20\uff5b-\uff65"  # fullwidth punctuation
    "\uff66-\uff9f"  # halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
TOKEN = re.compile(rf"[{UNSPACED}]+|[^\s{UNSPACED}]+")
# A run: such characters and digits, with up to 3 spaces or ASCII signs between them
# ("ปรัชญา ปิ่นแก้ว", "フォレスト・ガンプ/一期一会", "ターミネーター2").
_JOIN = " !-/:-@\\[-`{-~"
_JOINERS = frozenset(" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RUN = re.compile(rf"[{UNSPACED}0-9]+(?:[{_JOIN}]{{1,3}}[{UNSPACED}0-9]+)*")
# Scripts of letters, not ideographs: a word is many characters long ("ภาพยนตร์", film).
_LETTERS = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")
_UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")
_WORD = re.compile(r"\w+")
_EDGES = "\"'“”‘’«»()[]{}<>"
_ENDS = ",;:!?."
STOPWORDS = frozenset(
    """a an the and or but nor of in on at to for from by with about as into onto over under
    than then that this these those it its is are was were be been being am do does did done
    have has had having what which who whom whose when where why how there here not no yes
    all any some each other such so very can could will would shall should may might must
    i me my we our you your he him his she her they them their also same both either neither
    one ones s""".split()
)


def unspaced(text: str) -> bool:
    """Whether `text` holds characters of a script written without spaces."""
    return _UNSPACED_CHAR.search(text) is not None


@dataclass(frozen=True)
class Span:
    first: int  # token indexes, end exclusive (-1: a substring of an unspaced run)
    last: int
    start: int  # character offsets
    end: int
    form: str  # the text looked up
    rank: int  # 0: name-like, 1: one lower-case word ("film", "fall": common words that
    # some node is named after) or a short run of unspaced characters ("映画"), 2: stopwords
    # and numbers only ("The", "1941")
    order: tuple[int, ...]  # among overlapping spans, the smallest is taken

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end

    def same_place(self, other: Span) -> bool:
        return (self.start, self.end) == (other.start, other.end)


def spans(question: str) -> list[Span]:
    """Every candidate of `question` (see the module's docstring): word spans shortest
    first, then the substrings of unspaced runs, shortest first."""
    tokens = [m.span() for m in TOKEN.finditer(question)][:MAX_TOKENS]
    spaced = [not unspaced(question[b:e]) for b, e in tokens]
    found = []
    for size in range(1, SPAN_TOKENS + 1):
        for first in range(len(tokens) - size + 1):
            if not all(spaced[first : first + size]):
                continue
            start, end = tokens[first][0], tokens[first + size - 1][1]
            for form in _forms(question[start:end]):
                found.append(_span(first, first + size, start, end, form))
    return found + _substrings(question)


def _substrings(question: str) -> list[Span]:
    """Substrings of the runs written without spaces (a run may hold single spaces between
    such words: "ปรัชญา ปิ่นแก้ว"), over the first `MAX_UNSPACED` characters of them."""
    runs: list[tuple[int, int]] = []
    budget = MAX_UNSPACED
    for match in _RUN.finditer(question):
        if not unspaced(match.group()):  # digits and signs alone: "1941", "2-3"
            continue
        begin, end = match.start(), min(match.end(), match.start() + budget)
        runs.append((begin, end))
        budget -= end - begin
        if budget <= 0:
            break
    found = []
    for size in range(MIN_CHARS, MAX_CHARS + 1):
        for begin, end in runs:
            for start in range(begin, end - size + 1):
                form = question[start : start + size]
                if form[0] in _JOINERS or form[-1] in _JOINERS:
                    continue
                rank = _rank(form)
                found.append(Span(-1, -1, start, start + size, form, rank, (-size, 0, 0, start)))
    return found


def _rank(form: str) -> int:
    """Name-like (0) or maybe a plain word (1), for a substring of an unspaced run: several
    words (a space inside), or `MIN_NAME_CHARS` ideographs or kana ("张艺谋", not "电影"); in
    the scripts of letters (Thai, Lao, Khmer, Myanmar) a single word of any length is 1."""
    if " " in form.strip():
        return 0
    if _LETTERS.search(form):
        return 1
    return 0 if len(form) >= MIN_NAME_CHARS else 1


def _span(first: int, last: int, start: int, end: int, form: str) -> Span:
    """A span, ranked: lower-case stopwords at its edges belong to the question ("in Time
    Changer", "the Desperate Hours"), capitalized words to a name ("One on One")."""
    tokens = form.split()
    edges = 0
    while edges < len(tokens) and tokens[edges] in STOPWORDS:
        edges += 1
    core = tokens[edges:]
    while core and core[-1] in STOPWORDS:
        core, edges = core[:-1], edges + 1
    capitals = sum(t[:1].isupper() for t in tokens)
    words = [w for w in _WORD.findall(form.lower()) if w not in STOPWORDS]
    if any(not w.isdigit() for w in words):
        rank = 0 if len(words) > 1 or capitals else 1
    else:
        rank = 0 if capitals > 1 else 2  # "I Do", "To Have and Have Not"
    return Span(first, last, start, end, form, rank, (-len(core), -capitals, edges, first))


def _forms(text: str) -> list[str]:
    """As written, without surrounding quotes, brackets and final punctuation, and without a
    possessive ("Zemeckis's" -> "Zemeckis")."""
    bare = text.strip(_EDGES + _ENDS).strip(_EDGES)
    forms = [text, bare]
    for suffix in ("'s", "’s", "'", "’"):
        if bare.endswith(suffix) and len(bare) > len(suffix):
            forms.append(bare[: -len(suffix)])
            break
    return [f for f in dict.fromkeys(forms) if f.strip()]
