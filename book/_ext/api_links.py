"""Sphinx extension: a link to a name that a module re-exports reaches the name where it is documented.

The API reference (book/en/api.md) documents each function once, in the module that defines it
(``posenc.rope.apply_rope``), while the docstrings, like the chapters, name the shorter path that
``import posenc`` offers (``posenc.apply_rope``), or a re-export (``posenc.serving.positions_from_mask``,
or ``heatmap`` in the docstring of ``posenc.plot``, which re-exports it).
Sphinx would leave such a link unresolved, and the nitpicky build (warnings as errors) fail. When a
Python reference finds no target, this imports the module part of its name, looks the object up, and
resolves the reference to ``<obj.__module__>.<obj.__qualname__>`` instead, if that one is documented.
"""

from __future__ import annotations

import importlib


def defining_name(target: str) -> str | None:
    """``"posenc.apply_rope"`` -> ``"posenc.rope.apply_rope"``; None if ``target`` is no re-export."""
    module_name, _, attribute = target.rpartition(".")
    if not module_name.startswith("posenc"):
        return None
    try:
        obj = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError):
        return None
    home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not home or not qualname or f"{home}.{qualname}" == target:
        return None
    return f"{home}.{qualname}"


def resolve_reexport(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    if "." not in target and node.get("py:module"):
        target = f"{node['py:module']}.{target}"  # a bare name in a module's docstring: ``heatmap``
    target = defining_name(target)
    if target is None:
        return None
    domain = env.get_domain("py")
    moved = node.deepcopy()
    moved["reftarget"] = target
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], target, moved, contnode)


def setup(app):
    app.connect("missing-reference", resolve_reexport)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
