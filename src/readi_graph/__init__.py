"""readi-graph: Readi reasoning-path editing over knowledge graphs and tables, for LangGraph.

The KG environment (this release): load a KG, resolve topic entities, bind natural-language
relations to KG relations, instantiate reasoning paths set-at-a-time, diagnose failures.
"""

from readi_graph.diagnosis import CandidateRelation, Diagnosis, Reason, diagnose
from readi_graph.envs.base import (
    EndpointError,
    EndpointUnavailable,
    KGFormatError,
    QueryRejected,
    ReadiError,
    Term,
    Triple,
    UnsafeQueryInput,
)
from readi_graph.envs.kg import Edge, KGSettings, KnowledgeGraph, count_queries
from readi_graph.envs.names import Resolution
from readi_graph.instantiation import Hop, Instance, Merged, bind, connect, merge
from readi_graph.paths import Binding, Candidate, KGPath
from readi_graph.retrieval import RelationIndex

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
    "QueryRejected",
    "ReadiError",
    "Reason",
    "RelationIndex",
    "Resolution",
    "Term",
    "Triple",
    "UnsafeQueryInput",
    "bind",
    "connect",
    "count_queries",
    "diagnose",
    "merge",
]
