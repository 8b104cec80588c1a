"""Which model serves a run, decided without loading or calling anything, and a client's
failures in our words.

The order (`core.models.llm.ModelRef` applies it per run): a model object given to `build_graph`;
else the name in the run's context (`--model`); else the graph's name; else `READI_MODEL`. A
name is served by `OPENAI_BASE_URL` (any OpenAI-compatible server: vLLM, Ollama, llama.cpp)
or by OpenAI (`OPENAI_API_KEY`); `local` is the bundled SmolLM2 model, in-process
(`core/local/model.py`). A name that nothing serves raises `ModelNotConfigured` naming the
options: it is never replaced by another model. Only when no name is given at all does a run
fall back: to gpt-4o-mini where an endpoint or key is set, else to the bundled model (when its
extra is installed), and then the output's notes say so (`BUNDLED_NOTE`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel

from readi_graph.core.base import EndpointUnavailable, ReadiError
from readi_graph.core.context import RunContext

LOCAL = "local"  # the name of the bundled model
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"  # when no name is given and an endpoint or key is set
OPENAI_URL = "https://api.openai.com/v1"
BUNDLED_NOTICE = (  # said before a run (readi's stderr)
    "no model named (--model, READI_MODEL) and no OPENAI_API_KEY or OPENAI_BASE_URL set: the "
    "bundled local model (SmolLM2-135M, in-process) answers; it exercises the pipeline, it "
    "does not answer well"
)
BUNDLED_NOTE = (
    "No model was named (no --model, no model in the run's context, no READI_MODEL) and no "
    "OPENAI_API_KEY or OPENAI_BASE_URL is set: the bundled local model (SmolLM2-135M, "
    "in-process) answered; it exercises the pipeline, it does not answer well."
)


class ModelNotConfigured(ReadiError):
    """A model was named that nothing is configured to serve, or none is available at all."""


class ModelUnavailable(ReadiError, ConnectionError):
    """The model's server could not be reached (refused, reset, timed out) after the retries;
    the message names its URL and the variable that set it. Transient: retried first."""


class ModelRefused(ReadiError):
    """The model's server refused the request (a wrong key, an unknown model, a bad request):
    retrying cannot help; the message names the server and what it said."""


@dataclass(frozen=True)
class ModelChoice:
    """What will serve a run, decided without loading or calling anything."""

    name: str | None  # as named (None: nothing named)
    source: str  # where the name came from ("--model", "READI_MODEL", ...), "" when none
    served_by: Literal["local", "openai"]
    base_url: str | None = None  # OPENAI_BASE_URL, when set

    @property
    def stands_in(self) -> bool:
        """The bundled model serves a run that named no model."""
        return self.served_by == "local" and self.name is None


def _openai_settings() -> tuple[str | None, str | None]:
    key = os.environ.get("OPENAI_API_KEY") or None
    base_url = os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or None
    return key, base_url


def choose_model(name: str | None, source: str = "") -> ModelChoice:
    """What serves `name` (None: nothing named), or `ModelNotConfigured` naming the options;
    see the module's docstring for the order. Nothing is loaded or contacted."""
    from readi_graph.core.local.model import local_available
    from readi_graph.core.local.weights import INSTALL

    if name == LOCAL:  # asked for by name: it must be here (said before any other work)
        if not local_available():
            raise ModelNotConfigured(f"the bundled model ('local') is not installed: {INSTALL}")
        return ModelChoice(name, source, "local")
    key, base_url = _openai_settings()
    if key or base_url:
        return ModelChoice(name, source, "openai", base_url)
    if name is not None:
        if not source and name == os.environ.get("READI_MODEL"):
            source = "READI_MODEL"
        named = f"model {name!r}" + (f" (from {source})" if source else "")
        raise ModelNotConfigured(
            f"{named} has nothing to serve it: set OPENAI_BASE_URL to an OpenAI-compatible "
            "server (vLLM, Ollama, llama.cpp) or OPENAI_API_KEY for OpenAI, or name 'local' "
            "for the bundled model, or name no model at all"
        )
    if local_available():
        return ModelChoice(None, "", "local")
    raise ModelNotConfigured(
        "no chat model: pass llm=<any LangChain chat model> to build_graph, or set "
        "OPENAI_API_KEY (OpenAI), or OPENAI_BASE_URL for an OpenAI-compatible server "
        "(vLLM, Ollama, llama.cpp) together with READI_MODEL=<model name>, or install the "
        f"bundled local model ([local]): {INSTALL}"
    )


def default_model(context: RunContext) -> BaseChatModel:
    """The chat model `context.model` names (None: nothing named), built as `choose_model`
    decides; the bundled model is built without loading it (it loads on its first call)."""
    from readi_graph.core.local.model import local_chat_model

    choice = choose_model(context.model)
    if choice.served_by == "local":
        return cast(BaseChatModel, local_chat_model(context.temperature))
    from langchain_openai import ChatOpenAI

    key, base_url = _openai_settings()
    return ChatOpenAI(
        model=context.model or DEFAULT_OPENAI_MODEL,
        base_url=base_url,
        api_key=key or "EMPTY",  # type: ignore[arg-type]  # local servers ignore it
        temperature=context.temperature,
        use_responses_api=False,
        timeout=context.llm_timeout,
        max_retries=0,  # retries are the graph's RetryPolicy, bounded and visible
    )


def is_transient(exc: BaseException) -> bool:
    """Worth retrying: timeouts, connection failures, rate limits and server errors."""
    if isinstance(exc, TimeoutError | ConnectionError | EndpointUnavailable):
        return True
    try:
        import httpx

        if isinstance(exc, httpx.TransportError):
            return True
    except ImportError:  # pragma: no cover - httpx is a dependency
        pass
    names = {t.__name__ for t in type(exc).__mro__}  # langchain-openai subclasses openai's
    if names & {"APIConnectionError", "APITimeoutError", "RateLimitError", "InternalServerError"}:
        return True
    status: Any = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def in_our_words(llm: BaseChatModel, exc: Exception) -> Exception:
    """An OpenAI or httpx client error as `ModelUnavailable` (unreachable: retried, then one
    sentence naming the server) or `ModelRefused` (a 4xx: a wrong key, an unknown model);
    anything else, a model's own exceptions included, as it is."""
    clients = {t.__module__.partition(".")[0] for t in type(exc).__mro__}
    if isinstance(exc, ReadiError) or not clients & {"openai", "httpx"}:
        return exc
    where = server_of(llm)
    reason = " ".join(str(exc).split())[:200] or type(exc).__name__
    if is_transient(exc):
        return ModelUnavailable(f"the model server at {where} could not be reached: {reason}")
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return ModelRefused(f"the model server at {where} refused the request: {reason}")
    return exc


def server_of(llm: BaseChatModel) -> str:
    """The server a model object talks to, as the variable that set it when one did."""
    url = getattr(llm, "openai_api_base", None) or OPENAI_URL
    _, configured = _openai_settings()
    if configured and configured.rstrip("/") == str(url).rstrip("/"):
        variable = "OPENAI_BASE_URL" if os.environ.get("OPENAI_BASE_URL") else "OPENAI_API_BASE"
        return f"{variable}={configured}"
    return str(url)
