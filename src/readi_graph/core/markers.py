"""The fixed strings by which a prompt and its sections are recognised.

Prompts are read back by code as well as by models: the offline oracle editor finds an edit
prompt and its "Candidate Relations" line, scripted test models route on a prompt's first
words. Those strings are named here and used by the code that writes the prompts, by the code
that reads them and by the tests; `tests/test_prompts_markers.py` checks that every template
still contains the markers it is known by, so rewording a prompt fails a test instead of
silently breaking the oracle.
"""

from __future__ import annotations

# What each prompt starts with or contains, by prompt file (prompts/<name>.md).
GENERATE = "You plan how to answer"  # both generate prompts, KG and table
KG_GENERATE = f"{GENERATE} a question from a knowledge graph"
TABLE_GENERATE = f"{GENERATE} a question from a table"
KG_EDIT = "could not be instantiated"
ANSWER_ONLY_FROM = "Answer the question using only"  # the answer instruction (prompts.instruction)
FIDELIS_PLAN = "plan for it"
FIDELIS_SELECT = "You choose how a search"
FIDELIS_VERIFY = "You check a reasoning path"
TOG_RELATIONS = "You choose which relations a search"
TOG_ENTITIES = "You score the entities a search"
TOG_REASON = "You judge whether the knowledge triples"
TOG_ANSWER = "from the question's entities, depth by depth"
TOG_KNOWLEDGE = "The knowledge graph gave no triples"  # ToG's answer without evidence
REASONING_PATHS = "Reasoning Paths:\n"  # FiDeLiS's answer prompt: the paths, one per line

# Section labels, each at the start of a line and followed by the section's value.
QUESTION = "Question: "
PREVIOUS_PATH = "Previous Path: "
CANDIDATE_RELATIONS = "Candidate Relations: "
EARLIER_RELATIONS = "Earlier Relations: "
EDIT_ERRORS = ">>>> Error Message"  # the edit prompt's numbered errors (then `Note:` lines)
EDIT_CONTEXT = ">>>> Instantiation Context"  # ends the errors
KNOWLEDGE_TRIPLES = "Knowledge Triples:"  # the KG answer prompt's triples (the offline answer)
REACHED_BY = "Reached by: "  # ToG: the path to the entity whose relations (tails) are scored
HOPS_LEFT = "Hops left: "  # ToG: the relation reply's count of the relations still needed
CHOOSE_AT_MOST = "Choose at most "  # ToG: `Choose at most W:`, the width
RELATIONS_LIST = "Relations:\n"  # ToG: the relations to choose from, one per line
CANDIDATES_LIST = "Candidates:\n"  # ToG: the entities to score, one per line
RELATION = "Relation: "  # ToG's entity prompt: the relation the candidates were reached by
TRIPLES = "Knowledge Triples:\n"  # ToG: the triples (by depth, or as chains in the answer)
DEPTH = "Depth "  # ToG: `Depth N:` opens the triples found at depth N (the flat layout)
CANDIDATES = "Candidates:\n"  # FiDeLiS's selection: `N. path`, one per line
CHOOSE = "Choose "  # FiDeLiS's selection: `Choose N:`, the beam width
STATEMENT = "Statement: "  # FiDeLiS's verification: the plan's declarative statement
PATH = "Path: "  # FiDeLiS's verification: the path to check
SAMPLE_ROWS = "Sample Rows:\n"  # the table planning prompts: the first rows, one per line
CELLS = "Cells the question may mean (by column):"  # then `"Header": [cells]`, one per line

# Which template holds which markers (checked by the test named above).
TEMPLATE_MARKERS: dict[str, tuple[str, ...]] = {
    "kg_generate": (KG_GENERATE, QUESTION),
    "kg_edit": (
        KG_EDIT,
        QUESTION,
        PREVIOUS_PATH,
        EDIT_ERRORS,
        EDIT_CONTEXT,
        CANDIDATE_RELATIONS,
        EARLIER_RELATIONS,
    ),
    "kg_edit_paper": (
        KG_EDIT,
        QUESTION,
        PREVIOUS_PATH,
        EDIT_ERRORS,
        EDIT_CONTEXT,
        CANDIDATE_RELATIONS,
    ),
    "kg_answer": (QUESTION, KNOWLEDGE_TRIPLES),
    "kg_answer_flat": (QUESTION, KNOWLEDGE_TRIPLES),
    "table_generate": (TABLE_GENERATE, QUESTION, SAMPLE_ROWS, CELLS),
    "table_edit": (QUESTION, SAMPLE_ROWS, CELLS),
    "table_answer": (QUESTION,),
    "fidelis_plan": (FIDELIS_PLAN, QUESTION),
    "fidelis_select": (FIDELIS_SELECT, QUESTION, CANDIDATES, CHOOSE),
    "fidelis_verify": (FIDELIS_VERIFY, STATEMENT, PATH),
    "fidelis_reason": (QUESTION, REASONING_PATHS),
    "fidelis_reason_flat": (QUESTION, REASONING_PATHS),
    "tog_relations": (TOG_RELATIONS, QUESTION, REACHED_BY, RELATIONS_LIST, CHOOSE_AT_MOST),
    "tog_entities": (TOG_ENTITIES, QUESTION, REACHED_BY, RELATION, CANDIDATES_LIST),
    "tog_entities_share": (TOG_ENTITIES, QUESTION, REACHED_BY, RELATION, CANDIDATES_LIST),
    "tog_knowledge": (TOG_KNOWLEDGE, QUESTION),
    "tog_reason": (TOG_REASON, QUESTION, TRIPLES, DEPTH),
    "tog_answer": (TOG_ANSWER, QUESTION, TRIPLES),
    "tog_answer_flat": (TOG_ANSWER, QUESTION, TRIPLES, DEPTH),
}
