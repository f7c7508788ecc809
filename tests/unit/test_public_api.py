"""The public surface: `redstring.__all__` is complete and closed.

A type that appears in an exported signature but is not itself exported forces
users into private import paths, which then break on the next refactor.
"""

from __future__ import annotations

import collections.abc
import contextlib
import datetime
import importlib
import inspect
import pathlib
import pkgutil
import types
import typing
import uuid
from typing import Any

import pydantic

import redstring

EXPORTED = {getattr(redstring, name) for name in redstring.__all__}


def _namespace() -> dict[str, Any]:
    """Names that TYPE_CHECKING-only imports leave unresolved at runtime."""
    namespace: dict[str, Any] = {}
    for module in (collections.abc, contextlib, types, typing, datetime, pathlib, uuid):
        namespace.update(vars(module))
    for info in pkgutil.walk_packages(redstring.__path__, "redstring."):
        if ".testing" in info.name or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        namespace.update(
            {name: value for name, value in vars(module).items() if not name.startswith("__")}
        )
    return namespace


NAMESPACE = _namespace()


def test_every_name_in_all_exists() -> None:
    missing = [name for name in redstring.__all__ if not hasattr(redstring, name)]
    assert missing == []


def test_all_is_sorted_and_has_no_duplicates() -> None:
    assert len(set(redstring.__all__)) == len(redstring.__all__)


def _referenced(annotation: Any) -> set[type]:
    """Every class named in an annotation, generics unwrapped."""
    found: set[type] = set()
    stack = [annotation]
    while stack:
        current = stack.pop()
        origin = typing.get_origin(current)
        if origin is not None:
            if origin not in (typing.Union, types.UnionType, typing.Literal):
                stack.append(origin)
            if origin is not typing.Literal:
                stack.extend(typing.get_args(current))
        elif isinstance(current, type) or getattr(current, "__supertype__", None) is not None:
            found.add(current)
    return found


def _signature_types(obj: Any) -> set[Any]:
    names: set[Any] = set()
    targets: list[Any] = []
    if inspect.isclass(obj):
        for klass in obj.__mro__:
            if not klass.__module__.startswith("redstring"):
                continue
            for member_name, member in vars(klass).items():
                if member_name.startswith("_") and member_name != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                elif isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    targets.append(member)
            if issubclass(klass, pydantic.BaseModel):
                for field in klass.model_fields.values():
                    names |= _referenced(field.annotation)
    elif inspect.isfunction(obj):
        targets.append(obj)
    for target in targets:
        function = inspect.unwrap(target)
        globalns = {**NAMESPACE, **getattr(function, "__globals__", {})}
        hints = typing.get_type_hints(function, globalns=globalns)
        for hint in hints.values():
            names |= _referenced(hint)
    return names


def test_every_type_named_in_an_exported_signature_is_exported() -> None:
    """Walks the MRO, so a base class's `__init__` counts too."""
    leaks: dict[str, list[str]] = {}
    for name in redstring.__all__:
        obj = getattr(redstring, name)
        for referenced in _signature_types(obj):
            module = getattr(referenced, "__module__", "")
            if module.startswith("redstring") and referenced not in EXPORTED:
                leaks.setdefault(name, []).append(getattr(referenced, "__name__", repr(referenced)))
    assert leaks == {}


class Hidden:
    """Stands in for a type a careless export would leak."""


def test_the_gate_sees_a_leak() -> None:
    """The gate itself: an unexported type in a signature must be found."""

    def exported(argument: Hidden) -> None:
        del argument

    assert Hidden in _signature_types(exported)
