"""kc_dispatch.h and kc_dispatch.c: the measured kernel orders of
gen/dispatch.toml and the KC_DISPATCH override, which every cipher's core
puts before its feature order (gen/dispatch.py)."""

from .. import dispatch
from .render import provenance, render

SOURCES = ["gen/dispatch.py", "gen/dispatch.toml", "templates/kc_dispatch.h.j2", "templates/kc_dispatch.c.j2"]


def files(records=None):
    """{path under generated/: text}; `records` default: gen/dispatch.toml's."""
    context = dispatch.render_context(dispatch.load() if records is None else records)
    return {
        "include/kc_dispatch.h": render("kc_dispatch.h.j2", provenance=provenance(SOURCES), **context),
        "src/kc_dispatch.c": render("kc_dispatch.c.j2", provenance=provenance(SOURCES), **context),
    }
