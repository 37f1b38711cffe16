"""The service documents itself (issue 11): the OpenAPI description at ``/openapi.json`` and
interactive docs at ``/docs``, with request and response models and their examples; and
what it documents is what it answers (each real response is validated against its schema).

The app runs under uvicorn on 127.0.0.1 (see ``running.serving``); the docs page loads
its scripts from a CDN in a browser, so only its HTML is fetched here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from ops_support import BOILING_URL, OLD_REPORT_URL, SUPPORTED_CLAIM, Web
from running import Service, assert_no_secret, serve_command, serving

from pytest_citations.service import Limits
from pytest_citations.verdicts import VERDICT_FIELDS


@pytest.fixture(scope="module")
def limited(web: Web) -> Iterator[Service]:
    """The service with a limit of 3 URLs: the description must say 3, not the default."""
    with serving(web.env, Limits(max_urls=3)) as running:
        yield running


@pytest.fixture(scope="module")
def openapi(limited: Service) -> dict[str, Any]:
    response = limited.client.get(limited.url + "/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def conforms(openapi: dict[str, Any], component: str, body: Any) -> None:
    """Validate ``body`` against a schema of the document's components (JSON Schema 2020-12,
    as OpenAPI 3.1 uses it)."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": openapi["components"]}
    jsonschema.Draft202012Validator(schema).validate(body)


def test_the_description_names_both_routes_and_every_status(openapi: dict[str, Any]) -> None:
    assert openapi["openapi"].startswith("3.")
    assert openapi["info"]["title"] == "pytest-citations"
    assert set(openapi["paths"]) == {"/health", "/verify"}
    assert set(openapi["paths"]["/health"]) == {"get"}
    verify = openapi["paths"]["/verify"]
    assert set(verify) == {"post"}
    assert set(verify["post"]["responses"]) == {
        "200", "401", "403", "408", "413", "415", "421", "422", "502", "503"
    }  # fmt: skip
    assert set(openapi["paths"]["/health"]["get"]["responses"]) == {"200", "401", "403", "421"}


def test_the_request_model_has_its_limits_and_an_example(openapi: dict[str, Any]) -> None:
    body = openapi["paths"]["/verify"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]

    assert body["required"] is True
    assert schema["required"] == ["claim", "urls"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["urls"]["maxItems"] == 3  # this service's limit
    assert schema["properties"]["urls"]["items"]["maxLength"] == 2048
    assert schema["properties"]["claim"]["maxLength"] == 2000
    for field in ("claim", "urls"):
        assert schema["properties"][field]["description"]
    [example] = schema["examples"]
    jsonschema.Draft202012Validator(schema).validate(example)


def test_every_response_model_has_an_example_that_fits_it(openapi: dict[str, Any]) -> None:
    schemas = openapi["components"]["schemas"]
    for name in ("VerifyResponse", "Health", "ValidationErrors", "Message"):
        examples = schemas[name]["examples"]
        assert examples, name
        for example in examples:
            conforms(openapi, name, example)


def test_the_citation_model_has_exactly_the_verdict_fields(openapi: dict[str, Any]) -> None:
    citation = openapi["components"]["schemas"]["UrlVerdict"]

    assert list(citation["properties"]) == list(VERDICT_FIELDS)
    assert all(citation["properties"][name].get("description") for name in VERDICT_FIELDS)


def test_the_documented_example_request_is_answered(
    limited: Service, openapi: dict[str, Any]
) -> None:
    schema = openapi["paths"]["/verify"]["post"]["requestBody"]["content"]["application/json"]
    [example] = schema["schema"]["examples"]

    response = limited.verify(example)

    assert response.status_code == 200, response.text
    conforms(openapi, "VerifyResponse", response.json())


def test_real_answers_fit_their_documented_models(
    limited: Service, openapi: dict[str, Any]
) -> None:
    answered = limited.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, OLD_REPORT_URL]})
    invalid = limited.verify({"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL, "ftp://x.org/a"]})
    malformed = limited.verify({"claim": " ", "urls": [BOILING_URL] * 4, "k": 1})
    too_large = limited.verify(content=b"{" + b" " * 70_000 + b"}")
    health = limited.client.get(limited.url + "/health")

    assert answered.status_code == 200
    conforms(openapi, "VerifyResponse", answered.json())
    assert invalid.status_code == 200
    assert invalid.json()["invalid_urls"] == ["ftp://x.org/a"]
    conforms(openapi, "VerifyResponse", invalid.json())
    assert malformed.status_code == 422
    conforms(openapi, "ValidationErrors", malformed.json())
    assert [error["loc"] for error in malformed.json()["detail"]] == [
        ["body", "claim"],
        ["body", "urls"],
        ["body", "k"],
    ]  # every problem at once
    assert too_large.status_code == 413
    conforms(openapi, "Message", too_large.json())
    assert health.status_code == 200
    conforms(openapi, "Health", health.json())


def test_docs_page_is_served(limited: Service) -> None:
    response = limited.client.get(limited.url + "/docs")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "/openapi.json" in response.text
    assert "swagger-ui" in response.text.lower()


def test_serve_names_every_missing_variable_at_start_and_documents_itself(
    web: Web, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    env = web.without("CRAWLBASE_TOKEN", "OPENAI_API_KEY")
    with serve_command(["--judge", "openai"], env, log) as (base, health):
        described = httpx.get(base + "/openapi.json", timeout=5)
        refused = httpx.post(
            base + "/verify", json={"claim": SUPPORTED_CLAIM, "urls": [BOILING_URL]}
        )

    said = log.read_text(encoding="utf-8", errors="replace")
    assert "CRAWLBASE_TOKEN and OPENAI_API_KEY are not set" in said
    assert health.json()["missing"] == ["CRAWLBASE_TOKEN", "OPENAI_API_KEY"]
    assert described.status_code == 200
    assert refused.status_code == 503
    assert refused.json()["detail"] == "CRAWLBASE_TOKEN and OPENAI_API_KEY are not set"
    assert_no_secret(said)
    assert "Traceback" not in said
