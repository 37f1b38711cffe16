"""Answer formats, chosen by name or detected, and the envelopes records come in.

A record is the answer object a stack returned, or that object inside an envelope that adds
what the object lacks (the question, an id, the request's documents):

- ``{"id": …, "question": …, "response": {<answer object>}}`` (also under ``answer``,
  ``result``, ``output``, ``message`` or ``completion`` when that holds an object);
- an OpenAI Batch API output line ``{"custom_id", "response": {"status_code", "body"}}``;
- an Anthropic Message Batches result line ``{"custom_id", "result": {"type", "message"}}``;
- a bare Responses ``output`` list (what ``print(response.output)`` shows): one response.

The question is read from ``question``/``query``/``input``/``prompt``, or from the last user
message of a ``request`` (or ``messages``) kept beside the answer; the record's id from
``question_id``, ``custom_id`` or ``id``, never a provider's response id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...cases.tags import refused_tag
from ...errors import ConfigurationError
from ..identity import is_response_id
from .anthropic import ANTHROPIC
from .base import (
    AnswerFormat,
    AnswerFormatError,
    Document,
    RawAnswer,
    RecordContext,
    Source,
    Span,
    as_list,
    as_mapping,
    content_text,
    dicts,
)
from .gemini import GEMINI
from .gemini_interactions import GEMINI_INTERACTIONS
from .generic import GENERIC
from .langchain import LANGCHAIN
from .llamaindex import LLAMAINDEX
from .openai import OPENAI_CHAT, OPENAI_RESPONSES
from .perplexity import PERPLEXITY, PERPLEXITY_AGENT

#: Every format by name, in the order ``auto`` tries them: the most specific shapes first
#: (Perplexity's Agent API adds a ``search_results`` item to the Responses shape, and Sonar
#: adds ``citations`` to the chat shape, so each goes before OpenAI's; the generic ``answer``
#: + ``citations`` shape is the last resort).
FORMATS: dict[str, AnswerFormat] = {
    fmt.name: fmt
    for fmt in (
        PERPLEXITY_AGENT,
        OPENAI_RESPONSES,
        GEMINI,
        GEMINI_INTERACTIONS,
        PERPLEXITY,
        OPENAI_CHAT,
        ANTHROPIC,
        LLAMAINDEX,
        LANGCHAIN,
        GENERIC,
    )
}
AUTO = "auto"
#: What ``format`` accepts.
FORMAT_NAMES = (AUTO, *FORMATS)

_WRAPPER_KEYS = ("response", "answer", "result", "output", "message", "completion")
_QUESTION_KEYS = ("question", "query", "input", "prompt")
#: Deeper than this, an object is not an answer (and a cycle must end somewhere).
_MAX_DEPTH = 64


@dataclass(frozen=True)
class ReadRecord:
    """A record read by its format: the answer and what the envelope added."""

    format: str
    answer: RawAnswer
    question: str | None
    record_id: str | None
    tags: tuple[str, ...] = ()


def check_format(name: str) -> str:
    """The format name, or a :class:`ConfigurationError` naming the known ones."""
    if name not in FORMAT_NAMES:
        raise ConfigurationError(
            f"unknown answer format {name!r} (known: " + ", ".join(FORMAT_NAMES) + ")"
        )
    return name


def to_plain(obj: Any, depth: int = 0) -> Any:
    """JSON-like data from an answer object: dicts and lists as they are, SDK objects through
    ``model_dump()`` (pydantic: OpenAI, Anthropic, LangChain, LlamaIndex nodes), ``to_dict()``
    or ``dict()``, dataclasses (LlamaIndex ``Response``) field by field."""
    if depth > _MAX_DEPTH:
        raise AnswerFormatError(f"the answer object is nested deeper than {_MAX_DEPTH} levels")
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    if isinstance(obj, Mapping):
        return {str(key): to_plain(value, depth + 1) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_plain(item, depth + 1) for item in obj]
    for method in ("model_dump", "to_dict", "dict"):
        dump = getattr(obj, method, None)
        if callable(dump):
            try:
                return to_plain(dump(), depth + 1)
            except TypeError:
                continue  # a method of that name that wants arguments: not a serialiser
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            field.name: to_plain(getattr(obj, field.name), depth + 1)
            for field in dataclasses.fields(obj)
        }
    raise AnswerFormatError(f"cannot read an answer from a {type(obj).__name__} object")


def detect_format(payload: Mapping[str, Any]) -> str | None:
    """The name of the first format whose shape the (unwrapped) answer object has."""
    for fmt in FORMATS.values():
        if fmt.matches(payload):
            return fmt.name
    return None


def _text_id(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _batch_payload(record: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The answer inside a Batch API output line, None when the record is not one."""
    if "custom_id" not in record:
        return None
    response = as_mapping(record.get("response"))
    if response is not None and "body" in response:  # OpenAI Batch API
        error = as_mapping(record.get("error"))
        status = response.get("status_code")
        body = as_mapping(response.get("body"))
        if error or (isinstance(status, int) and not 200 <= status < 300):
            detail = error or as_mapping((body or {}).get("error")) or {}
            message = detail.get("message") or f"HTTP {status}"
            raise AnswerFormatError(f"the batch request failed: {message}")
        if body is None:
            raise AnswerFormatError("the batch output line has no response body")
        return body
    result = as_mapping(record.get("result"))
    if result is not None and "type" in result:  # Anthropic Message Batches
        if result.get("type") != "succeeded":
            error = as_mapping(result.get("error")) or {}
            inner = as_mapping(error.get("error")) or error
            message = inner.get("message")
            raise AnswerFormatError(
                f"the batch request {result.get('type')}" + (f": {message}" if message else "")
            )
        message_object = as_mapping(result.get("message"))
        if message_object is None:
            raise AnswerFormatError("the batch result has no message")
        return message_object
    return None


def _last_user_text(messages: Any) -> str | None:
    for message in reversed(dicts(messages)):
        if message.get("role") == "user":
            text = content_text(message.get("content"))
            if text and text.strip():
                return text.strip()
    return None


def _question(*containers: Mapping[str, Any]) -> str | None:
    for container in containers:
        for key in _QUESTION_KEYS:
            value = container.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    for container in containers:
        request = as_mapping(container.get("request")) or {}
        for messages in (
            request.get("messages"),
            request.get("input"),
            container.get("messages"),
            container.get("input"),
        ):
            text = _last_user_text(messages)
            if text:
                return text
    return None


def _documents(envelope: Mapping[str, Any]) -> tuple[Any, ...]:
    """The request's documents: a ``documents`` list, else the document blocks of the
    request's messages in order (Anthropic counts ``document_index`` that way)."""
    listed = envelope.get("documents")
    if isinstance(listed, list):
        return tuple(listed)
    request = as_mapping(envelope.get("request")) or {}
    return tuple(
        block
        for message in dicts(request.get("messages"))
        for block in dicts(message.get("content"))
        if block.get("type") == "document"
    )


def unwrap(record: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The answer object of a record and the envelope around it (the record itself when
    there is none)."""
    batch = _batch_payload(record)
    if batch is not None:
        return batch, record
    for key in _WRAPPER_KEYS:
        inner = as_mapping(record.get(key))
        if inner is not None:
            return inner, record
    return record, {}


def is_output_list(value: Any) -> bool:
    """True for a bare Responses ``output`` list: typed items, one of them a ``message``
    holding ``output_text`` (an array of Anthropic messages, whose text blocks are of type
    ``text``, is an array of records)."""
    items = as_list(value)
    if not items or not all(
        isinstance(item, Mapping) and isinstance(item.get("type"), str) for item in items
    ):
        return False
    return any(
        item.get("type") == "message"
        and any(part.get("type") == "output_text" for part in dicts(item.get("content")))
        for item in items
    )


def read_record(record: Any, format: str = AUTO) -> ReadRecord:
    """Read one record (a dict, an SDK object, or a bare Responses ``output`` list) as
    ``format``, or as the format it has."""
    check_format(format)
    plain = to_plain(record)
    if is_output_list(plain):
        plain = {"output": plain}
    if not isinstance(plain, Mapping):
        kind = "null" if plain is None else type(plain).__name__
        raise AnswerFormatError(f"a record must be a JSON object, got {kind}")
    payload, envelope = unwrap(plain)
    name = format if format != AUTO else detect_format(payload)
    if name is None:
        keys = ", ".join(sorted(map(str, payload))[:8]) or "none"
        raise AnswerFormatError(
            f"not a known answer shape (keys: {keys}); pass the format "
            "(" + ", ".join(FORMATS) + ") or use the generic shape "
            "{'answer': '… [1]', 'citations': ['https://…']}"
        )
    fmt = FORMATS[name]
    if format != AUTO and not fmt.matches(payload):
        raise AnswerFormatError(f"the record does not have the {name} shape: {_expected(name)}")
    answer = fmt.read(payload, RecordContext(documents=_documents(envelope)))
    return ReadRecord(
        format=name,
        answer=answer,
        question=_question(envelope, payload),
        record_id=_record_id(envelope, payload, fmt.is_response(payload)),
        tags=_tags(envelope.get("tags")),
    )


def _record_id(
    envelope: Mapping[str, Any], payload: Mapping[str, Any], is_response: bool
) -> str | None:
    """The record's own name for its question: ``question_id``, a batch line's
    ``custom_id``, else an ``id`` that is not a provider's response id (those are new on
    every call: the answer object's own id when it is a provider's response, the same id
    copied into the envelope, or any id of the shape providers give responses)."""
    named = (envelope.get("question_id"), payload.get("question_id"), envelope.get("custom_id"))
    found = next(filter(None, map(_text_id, named)), None)
    if found:
        return found
    response_id = _text_id(payload.get("id")) if is_response else None
    ids = (envelope.get("id"), None if is_response else payload.get("id"))
    for value in map(_text_id, ids):
        if value and value != response_id and not is_response_id(value):
            return value
    return None


def _tags(raw: Any) -> tuple[str, ...]:
    """The envelope's tags. They become pytest markers: one printable word each, and never
    a mark with behaviour (an application's own logs must not skip or excuse a check)."""
    listed = [raw] if isinstance(raw, str) else as_list(raw)
    tags = (tag.strip() for tag in listed if isinstance(tag, str))
    kept = tuple(tag for tag in tags if tag and tag.isprintable() and " " not in tag)
    for tag in kept:
        refused = refused_tag(tag)
        if refused is not None:
            raise AnswerFormatError(refused)
    return kept


def _expected(name: str) -> str:
    return {
        "openai-responses": "expected 'output' with a message item",
        "perplexity-agent": "expected 'output' with a search_results item",
        "gemini": "expected 'candidates' with a content",
        "gemini-interactions": "expected 'steps' (or 'outputs') with a model_output",
        "openai-chat": "expected 'choices' with a message",
        "perplexity": "expected 'search_results', or 'citations' beside 'choices'",
        "anthropic": "expected 'content' as a list of blocks",
        "llamaindex": "expected 'source_nodes'",
        "langchain": "expected 'source_documents'/'context', or a 'result'/'output' string",
        "generic": "expected an 'answer' (or 'text') string",
    }[name]


__all__ = [
    "AUTO",
    "FORMATS",
    "FORMAT_NAMES",
    "AnswerFormat",
    "AnswerFormatError",
    "Document",
    "RawAnswer",
    "ReadRecord",
    "RecordContext",
    "Source",
    "Span",
    "check_format",
    "detect_format",
    "is_output_list",
    "read_record",
    "to_plain",
    "unwrap",
]
