"""The OpenAPI schema says what the API does (drf-spectacular post-processing): every error
answer documented, every string of a request free of NUL bytes (the input policy), and the
links from an answer to the operations that take its ids (OpenAPI links, which a client and
Schemathesis' stateful run follow); the paging parameters' bounds come from foundation.paging.
Checked by tests/site/test_api_fuzz.py (Schemathesis)."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

NUL_FREE = "^[^\\u0000]*$"
ERROR = {
    "type": "object",
    "description": "What was refused: {field: [message, ...]}, or {detail: message}, or "
    "{index, field, error} for a metric batch.",
    "additionalProperties": True,
}
ERRORS = {
    "400": "A field was refused; the answer names it and nothing was written.",
    "401": "No valid token or session (`Authorization: Token <key>`).",
    "403": "Authenticated, but not allowed.",
    "404": "No such object that you can see (another team's answers alike).",
}


LINKS = "x-codeopt-links"
"""Where a view declares the links of its answers (`extend_schema(extensions=links(...))`):
drf-spectacular has no declaration for OpenAPI links; document_errors moves them in place."""


def link(operation_id: str, description: str, **parameters: str) -> dict:
    """An OpenAPI link to `operation_id`, its parameters runtime expressions such as
    `$response.body#/id` or `$request.path.id`."""
    return {"operationId": operation_id, "description": description, "parameters": parameters}


def links(status: int, **named: dict) -> dict:
    """`extend_schema(extensions=...)` for the links of the answer `status`, by name."""
    return {LINKS: {str(status): named}}


def _place_links(operation: dict, operation_ids: set[str]) -> None:
    """Move an operation's declared links (LINKS) into its responses; a link to an operation
    the schema does not have, or from an answer it does not document, is an error."""
    for status, named in operation.pop(LINKS, {}).items():
        response = operation.get("responses", {}).get(status)
        targets = {name: declared["operationId"] for name, declared in named.items()}
        missing = {name: target for name, target in targets.items() if target not in operation_ids}
        if response is None or missing:
            source = f"{operation['operationId']} {status}"
            raise ValueError(f"links of {source}: no such answer or operation {missing}")
        response.setdefault("links", {}).update(named)


def _nul_free(schema: dict, components: dict, seen: set[str]) -> None:
    """Add the NUL-free pattern to every string `schema` allows, following $refs once."""
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name not in seen:
            seen.add(name)
            _nul_free(components.get(name, {}), components, seen)
        return
    if schema.get("type") == "string" and "enum" not in schema and "format" not in schema:
        schema.setdefault("pattern", NUL_FREE)
    for key in ("properties",):
        for child in schema.get(key, {}).values():
            _nul_free(child, components, seen)
    for key in ("items", "additionalProperties"):
        _nul_free(schema.get(key), components, seen)
    for key in ("oneOf", "anyOf", "allOf"):
        for child in schema.get(key, []):
            _nul_free(child, components, seen)


CLOSED: dict[str, dict] = {}
"""Request components whose server refuses unknown fields: {component name: schema keys to
add} (closed)."""


def closed(**extra):
    """Class decorator for a request serializer whose view refuses unknown fields: its
    schema says so (additionalProperties: false), plus `extra` schema keys (a oneOf of the
    fields one of which is required, say)."""

    def mark(serializer):
        CLOSED[serializer.__name__.removesuffix("Serializer")] = extra
        return serializer

    return mark


def _close(components: dict) -> None:
    for name, extra in CLOSED.items():
        for component in (name, f"{name}Request"):  # COMPONENT_SPLIT_REQUEST names both
            if component in components:
                components[component].update({"additionalProperties": False, **extra})


def document_errors(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS: error answers, NUL-free request strings and the
    links views declare (LINKS)."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR
    _close(components)
    seen: set[str] = set()
    paths = result.get("paths", {})
    operation_ids = {op["operationId"] for ops in paths.values() for op in ops.values()}
    for path, operations in paths.items():
        for method, operation in operations.items():
            _place_links(operation, operation_ids)
            if path.startswith("/api/schema"):
                continue
            responses = operation.setdefault("responses", {})
            codes = ["401", "403"]
            if operation.get("requestBody") or operation.get("parameters"):
                codes.append("400")
            if "{" in path or method in ("post", "patch"):
                codes.append("404")
            for code in codes:
                responses.setdefault(
                    code,
                    {
                        "description": ERRORS[code],
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },  # noqa: E501
                    },
                )
            for parameter in operation.get("parameters", []):
                _nul_free(parameter.get("schema", {}), components, seen)
            for media in operation.get("requestBody", {}).get("content", {}).values():
                _nul_free(media.get("schema", {}), components, seen)
    return result


class ObjectSchema(AutoSchema):
    """For a view whose `list` answers one object (not an array of them)."""

    def _is_list_view(self, serializer=None) -> bool:
        return False
