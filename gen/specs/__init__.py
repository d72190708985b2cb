"""Declarative cipher specs: what each cipher is, with no knowledge of SIMD."""
