"""The OpenAPI schema says what the API does (drf-spectacular post-processing): every error
answer documented, every string of a request free of NUL bytes (the input policy); the paging
parameters' bounds come from foundation.paging. Checked by tests/site/test_api_fuzz.py
(Schemathesis)."""

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


def document_errors(result, generator, request, public):
    """drf-spectacular POSTPROCESSING_HOOKS: error answers and NUL-free request strings."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = ERROR
    seen: set[str] = set()
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
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
