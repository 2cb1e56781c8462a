"""`{% number_attrs Config "field" %}`: the HTML attributes of a number input from a config
dataclass field's bounds (foundation.typed.bounded), so a form shows the limits the server
applies."""

from __future__ import annotations

import dataclasses
import typing

from django import template
from django.utils.html import format_html

from foundation.typed import bounds_of

register = template.Library()


@register.simple_tag
def number_attrs(config, name: str):
    cls = config if isinstance(config, type) else type(config)
    low, high = bounds_of(cls).get(name, (None, None))
    hint = typing.get_type_hints(cls)[name]
    whole = hint is int or (typing.get_args(hint) and typing.get_args(hint)[0] is int)
    attrs = [("type", "number"), ("step", "1" if whole else "any")]
    attrs += [(k, v) for k, v in (("min", low), ("max", high)) if v is not None]
    assert name in {f.name for f in dataclasses.fields(cls)}, name
    return format_html(" ".join(f'{k}="{{}}"' for k, _ in attrs), *(v for _, v in attrs))
