"""The environment that makes this machine compute as one without AVX-512 would.

NumPy dispatches by CPU feature group (``X86_V4``, ``AVX512_ICL``, ``AVX512_SPR``), PyTorch's own
kernels by ``ATEN_CPU_CAPABILITY``, and its matrix products go to MKL and oneDNN, which read their
own variables. Shared by tests/posenc/test_cpu_features.py and tests/book/test_avx2_nbval.py.
"""

AVX2_ONLY = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}
