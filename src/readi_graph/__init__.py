"""readi-graph: Readi reasoning-path editing over knowledge graphs, for LangGraph.

`build_graph(env, llm)` is the product: a compiled LangGraph graph over a `KnowledgeGraph` or a
`Table` (Readi: generate, bind, connect, diagnose, edit, answer; or `strategy="fidelis"` /
`"tog"` over a KG). The
environments underneath (load, resolve, bind, connect, diagnose, merge) are public too, for
evaluation without an LLM. The layout is described in docs/architecture.md.
"""

from readi_graph import moved
from readi_graph.core.base import (
    EndpointError,
    EndpointUnavailable,
    InputError,
    KGFormatError,
    PromptTooLong,
    QueryRejected,
    QuestionTooLong,
    ReadiError,
    Term,
    Triple,
    UnknownEntity,
    UnsafeQueryInput,
)
from readi_graph.core.context import ReadiContext, RunContext
from readi_graph.core.diagnosis import CandidateRelation, Diagnosis, Reason
from readi_graph.core.models.llm import (
    ModelConflict,
    ModelNotConfigured,
    ModelRefused,
    ModelUnavailable,
)
from readi_graph.core.models.reply_cache import ReplyCache
from readi_graph.core.parsing import OutputParseError
from readi_graph.core.state import ReadiInput, ReadiOutput, ReadiState
from readi_graph.environments.kg.entities.names import Resolution
from readi_graph.environments.kg.explore import Explorer
from readi_graph.environments.kg.knowledge_graph import (
    Edge,
    KGSettings,
    KnowledgeGraph,
    count_queries,
)
from readi_graph.environments.kg.reasoning.diagnosis import diagnose
from readi_graph.environments.kg.reasoning.instantiation import (
    Hop,
    Instance,
    Merged,
    bind,
    connect,
    merge,
)
from readi_graph.environments.kg.relations.paths import Binding, Candidate, KGPath
from readi_graph.environments.kg.relations.retrieval import RelationIndex
from readi_graph.environments.kg.relations.schema import RelationSchema
from readi_graph.environments.table.settings import TableSettings
from readi_graph.environments.table.table import Table, TableFormatError
from readi_graph.graph import build_graph
from readi_graph.strategies.fidelis.context import FidelisContext
from readi_graph.strategies.readi.graph import make_builder
from readi_graph.strategies.tog.context import TogContext, call_bound
from readi_graph.tool import as_tool

__version__ = "0.1.0"

__all__ = [
    "Binding",
    "Candidate",
    "CandidateRelation",
    "Diagnosis",
    "Edge",
    "EndpointError",
    "EndpointUnavailable",
    "Explorer",
    "FidelisContext",
    "Hop",
    "InputError",
    "Instance",
    "KGFormatError",
    "KGPath",
    "KGSettings",
    "KnowledgeGraph",
    "Merged",
    "ModelConflict",
    "ModelNotConfigured",
    "ModelRefused",
    "ModelUnavailable",
    "OutputParseError",
    "PromptTooLong",
    "QueryRejected",
    "QuestionTooLong",
    "ReadiContext",
    "ReadiError",
    "ReadiInput",
    "ReadiOutput",
    "ReadiState",
    "Reason",
    "RelationIndex",
    "RelationSchema",
    "ReplyCache",
    "Resolution",
    "RunContext",
    "Table",
    "TableFormatError",
    "TableSettings",
    "Term",
    "TogContext",
    "Triple",
    "UnknownEntity",
    "UnsafeQueryInput",
    "as_tool",
    "bind",
    "build_graph",
    "call_bound",
    "connect",
    "count_queries",
    "diagnose",
    "make_builder",
    "merge",
]

moved.install()  # old module paths: moved.py
