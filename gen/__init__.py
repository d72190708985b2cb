"""Generator of constant-time SIMD cipher kernels from declarative specs."""
