"""OpenAPI links a view declares (`extend_schema(extensions=links(...))`, foundation/schema.py)
land in the answer they name; a link to an operation the schema lacks, or from an answer it
does not document, stops the schema being made (a typo would leave a link nobody can follow)."""

from __future__ import annotations

import pytest

from foundation.schema import LINKS, document_errors, link, links

GET_THING = link("things_retrieve", "The thing.", id="$response.body#/id")


def schema_with(declared: dict) -> dict:
    """Two operations, a create whose extensions are `declared` and a read by id."""
    create = {"operationId": "things_create", "responses": {"201": {"description": "Made."}}}
    read = {"operationId": "things_retrieve", "responses": {"200": {"description": "It."}}}
    return {
        "paths": {
            "/api/things/": {"post": {**create, **declared}},
            "/api/things/{id}/": {"get": read},
        }
    }


def test_a_declared_link_moves_into_the_answer_it_names():
    schema = document_errors(schema_with(links(201, GetThing=GET_THING)), None, None, True)
    create = schema["paths"]["/api/things/"]["post"]
    assert LINKS not in create
    assert create["responses"]["201"]["links"] == {
        "GetThing": {
            "operationId": "things_retrieve",
            "description": "The thing.",
            "parameters": {"id": "$response.body#/id"},
        }
    }
    assert "links" not in create["responses"]["401"]  # an error answer document_errors adds


def test_a_link_to_an_operation_the_schema_lacks_is_an_error():
    typo = link("thing_retrieve", "The thing.", id="$response.body#/id")
    with pytest.raises(ValueError, match="thing_retrieve"):
        document_errors(schema_with(links(201, GetThing=typo)), None, None, True)


def test_a_link_from_an_answer_the_schema_does_not_document_is_an_error():
    with pytest.raises(ValueError, match="things_create 200"):
        document_errors(schema_with(links(200, GetThing=GET_THING)), None, None, True)
