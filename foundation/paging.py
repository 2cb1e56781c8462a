"""The API's paging: DRF's limit/offset, strict (see StrictLimitOffsetPagination)."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination


class StrictLimitOffsetPagination(LimitOffsetPagination):
    """DRF's paging, but `limit` and `offset` that are not whole numbers >= 0 (`null`, `-1`,
    `x`) are a 400 naming the parameter instead of silently the default."""

    max_limit = 1000

    def _strict(self, request, name: str, default):
        raw = request.query_params.get(name)
        if raw is None:
            return default
        if not raw.isascii() or not raw.isdigit():
            raise ValidationError({name: [f"{name}: {raw[:40]!r} is not a whole number >= 0"]})
        return int(raw)

    def get_limit(self, request):
        limit = self._strict(request, self.limit_query_param, self.default_limit)
        if limit is not None and not 1 <= limit <= self.max_limit:
            raise ValidationError({"limit": [f"limit: must be in [1, {self.max_limit}]"]})
        return limit

    def get_offset(self, request):
        return self._strict(request, self.offset_query_param, 0)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1 if parameter["name"] == "limit" else 0
            if parameter["name"] == "limit":
                parameter["schema"]["maximum"] = self.max_limit
        return parameters
