"""Emission: renders the checked-in product (generated/) from kernels,
backends and the Jinja2 templates."""
