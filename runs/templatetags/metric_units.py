"""`{% metric_units_json %}`: the metric unit table (runs/units.py) as a JSON script element
(id "metric-units"), for static/runs/plots.js: one table for Python and the pages."""

from __future__ import annotations

from django import template
from django.utils.html import json_script

from runs import units

register = template.Library()


@register.simple_tag
def metric_units_json():
    return json_script(units.table(), "metric-units")
