"""readi-graph: Readi reasoning-path editing over knowledge graphs, for LangGraph.

`build_graph(kg, llm)` is the product: a compiled LangGraph graph (generate, bind, connect,
diagnose, edit, answer). The KG environment underneath (load, resolve, bind, connect, diagnose,
merge) is public too, for evaluation without an LLM.
"""

from readi_graph.core.base import (
    EndpointError,
    EndpointUnavailable,
    KGFormatError,
    QueryRejected,
    ReadiError,
    Term,
    Triple,
    UnsafeQueryInput,
)
from readi_graph.core.context import ReadiContext
from readi_graph.core.llm import ModelNotConfigured
from readi_graph.core.llm_cache import ReplyCache
from readi_graph.core.state import ReadiInput, ReadiOutput, ReadiState
from readi_graph.environments.kg.diagnosis import CandidateRelation, Diagnosis, Reason, diagnose
from readi_graph.environments.kg.instantiation import Hop, Instance, Merged, bind, connect, merge
from readi_graph.environments.kg.knowledge_graph import (
    Edge,
    KGSettings,
    KnowledgeGraph,
    count_queries,
)
from readi_graph.environments.kg.names import Resolution
from readi_graph.environments.kg.parsing import OutputParseError
from readi_graph.environments.kg.paths import Binding, Candidate, KGPath
from readi_graph.environments.kg.retrieval import RelationIndex
from readi_graph.strategies.readi.graph import build_graph, make_builder
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
    "Hop",
    "Instance",
    "KGFormatError",
    "KGPath",
    "KGSettings",
    "KnowledgeGraph",
    "Merged",
    "ModelNotConfigured",
    "OutputParseError",
    "QueryRejected",
    "ReadiContext",
    "ReadiError",
    "ReadiInput",
    "ReadiOutput",
    "ReadiState",
    "Reason",
    "RelationIndex",
    "ReplyCache",
    "Resolution",
    "Term",
    "Triple",
    "UnsafeQueryInput",
    "as_tool",
    "bind",
    "build_graph",
    "connect",
    "count_queries",
    "diagnose",
    "make_builder",
    "merge",
]
