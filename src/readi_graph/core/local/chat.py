"""The bundled local model as a LangChain chat model: transformers in-process, replies
constrained to JSON schemas by llguidance.

`LocalChatModel` is a small `BaseChatModel`: a request bound with
`response_format={"type": "json_object", "schema": ...}` (what `core.models.llm` sends, the same
shape llama.cpp's server reads) is decoded under that schema, token by token: llguidance
computes which tokens keep the reply valid and the others are masked out of the logits. So
plans, table headers (an enum of the table's headers) and answers come back as valid JSON
even from a 135M model. Without a schema the reply is free text.

LangChain's own `ChatHuggingFace` over a `HuggingFacePipeline` was the first choice, but it
has no async path (`ainvoke` raises), reports no token usage and has no way to constrain a
reply to a schema; this class is those three things and nothing else. Its async path is
LangChain's default: the sync generation in a worker thread, so an event loop never blocks on
loading or generating. One generation runs at a time per process (2 cores are busy anyway).
"""

from __future__ import annotations

import json
import threading
from typing import Any

import numpy as np
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from readi_graph.core.base import PromptTooLong
from readi_graph.core.local.weights import load

_generating = threading.Lock()
# Compact JSON: no free whitespace between tokens, which a tiny model may repeat forever.
JSON_OPTIONS: Any = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
# Bounds added where a schema sets none, so a reply always closes within `max_tokens`: a tiny
# model otherwise fills an unbounded string or list until it runs out ("1998, 1999, ...").
STRING_CHARS, ARRAY_ITEMS, OBJECT_KEYS = 120, 8, 4


class LocalChatModel(BaseChatModel):
    """SmolLM2-135M-Instruct (or `gguf`), loaded on the first call; see the module docstring."""

    model_name: str = "local"
    temperature: float = 0.3
    max_tokens: int = 384  # per reply; a plan or an answer of the demos needs < 200
    gguf: str | None = None  # default: READI_LOCAL_GGUF, else the bundled SmolLM2

    @property
    def _llm_type(self) -> str:
        return "readi-local-transformers"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_name": self.model_name,
            "gguf": self.gguf,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        import torch

        loaded = load(self.gguf)
        tokenizer = loaded.tokenizer
        prompt = tokenizer.apply_chat_template(
            [_turn(m) for m in messages],
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
        )
        n_prompt = int(prompt["input_ids"].shape[1])
        reply_tokens = kwargs.get("max_tokens") or self.max_tokens
        fits(n_prompt, reply_tokens, context_tokens(loaded.model))
        schema = _schema(kwargs.get("response_format"))
        processors = []
        if schema is not None:
            processors.append(SchemaConstraint(loaded.grammar_tokenizer, schema, n_prompt))
        sample = self.temperature > 0
        with _generating, torch.inference_mode():
            output = loaded.model.generate(
                **prompt,
                max_new_tokens=reply_tokens,
                do_sample=sample,
                temperature=self.temperature if sample else None,
                top_p=None,
                top_k=None,
                logits_processor=processors or None,
                pad_token_id=tokenizer.eos_token_id,
                eos_token_id=tokenizer.eos_token_id,
            )
        tokens = output[0, n_prompt:].tolist()
        finished = bool(tokens) and tokens[-1] == tokenizer.eos_token_id
        text = tokenizer.decode(tokens, skip_special_tokens=True)
        for marker in stop or []:
            text = text.split(marker, 1)[0]
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": n_prompt,
                "output_tokens": len(tokens),
                "total_tokens": n_prompt + len(tokens),
            },
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": "stop" if finished else "length",
            },
        )
        if run_manager is not None:
            run_manager.on_llm_new_token(text)
        return ChatResult(generations=[ChatGeneration(message=message)])


def context_tokens(model: Any) -> int:
    """The tokens the model's context holds (SmolLM2-135M: 8,192)."""
    return int(getattr(model.config, "max_position_embeddings", 0) or 8192)


def fits(prompt_tokens: int, reply_tokens: int, context: int) -> None:
    """A prompt that leaves no room for its reply is refused at once (`PromptTooLong`):
    past its context the model's output is garbage, and on a CPU it takes minutes."""
    if prompt_tokens + reply_tokens > context:
        raise PromptTooLong(
            f"the prompt has {prompt_tokens:,} tokens and its reply may take {reply_tokens:,}; "
            f"the bundled model's context holds {context:,}: shorten the question (or lower "
            "RunContext.prompt_budget)"
        )


class SchemaConstraint:
    """A transformers logits processor that keeps the reply inside a JSON schema (llguidance).

    Called once per generated token with the sequence so far: it feeds the last sampled token
    to the matcher, then masks every token the schema does not allow next. Once the reply is
    complete only end-of-sequence is allowed."""

    def __init__(self, grammar_tokenizer: Any, schema: dict[str, Any], n_prompt: int) -> None:
        import llguidance

        grammar = llguidance.LLMatcher.grammar_from_json_schema(
            json.dumps(bounded(schema)), overrides=JSON_OPTIONS
        )
        self.matcher = llguidance.LLMatcher(grammar_tokenizer, grammar, log_level=0)
        if self.matcher.is_error():
            raise ValueError(f"unusable JSON schema: {self.matcher.get_error()}")
        self.n_prompt = n_prompt
        self.eos = int(grammar_tokenizer.eos_token)

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        if input_ids.shape[1] > self.n_prompt:
            self.matcher.consume_token(int(input_ids[0, -1]))
        vocab = scores.shape[-1]
        if self.matcher.is_error() or self.matcher.is_stopped():
            allowed = np.zeros(vocab, dtype=bool)
            allowed[self.eos] = True
        else:
            bits = np.frombuffer(self.matcher.compute_bitmask(), dtype=np.uint8)
            allowed = np.unpackbits(bits, bitorder="little")[:vocab].astype(bool)
            if len(allowed) < vocab:
                allowed = np.pad(allowed, (0, vocab - len(allowed)))
        scores[:, torch.from_numpy(~allowed)] = float("-inf")
        return scores


def bounded(schema: Any) -> Any:
    """`schema` with a length bound on every string, list and open object that has none, and
    no keys beyond the named ones where the schema names them."""
    if isinstance(schema, list):
        return [bounded(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bounded(v) for k, v in schema.items()}
    kind = out.get("type")
    if kind == "string" and "enum" not in out and "const" not in out:
        out.setdefault("maxLength", STRING_CHARS)
    elif kind == "array":
        out.setdefault("maxItems", ARRAY_ITEMS)
    elif kind == "object" and "additionalProperties" not in out and "properties" in out:
        out["additionalProperties"] = False  # only the named keys (JSON Schema allows more)
    elif kind == "object" and out.get("additionalProperties") is not False:
        out.setdefault("maxProperties", OBJECT_KEYS)
    return out


def _schema(response_format: Any) -> dict[str, Any] | None:
    """The JSON schema of an OpenAI-style `response_format` (`json_object` with `schema`, as
    llama.cpp reads it, or `json_schema`), else None."""
    if not isinstance(response_format, dict):
        return None
    if isinstance(response_format.get("schema"), dict):
        return dict(response_format["schema"])
    nested = response_format.get("json_schema")
    if isinstance(nested, dict) and isinstance(nested.get("schema"), dict):
        return dict(nested["schema"])
    return None


def _turn(message: BaseMessage) -> dict[str, str]:
    role = (
        "system"
        if isinstance(message, SystemMessage)
        else "user"
        if isinstance(message, HumanMessage)
        else "assistant"
    )
    return {"role": role, "content": str(message.text)}
