"""A tiny RoPE decoder with an explicit KV cache, to watch positions as a server uses them.

:class:`TinyDecoder` is a randomly initialised Llama-style decoder (RMSNorm, causal self-attention
with RoPE in the ``"half"`` layout, a SwiGLU feed-forward, no biases), small enough to run on a CPU
in milliseconds. Its parameters carry the names of Hugging Face's ``LlamaForCausalLM``, and
``tests/posenc/test_serving.py`` loads them into one and compares the logits. :class:`KVCache` holds the
keys and values of earlier tokens, with the position each key was given; it can drop tokens (a
sliding window, attention sinks), store the keys before or after the rotation, and re-index the
positions inside the cache as StreamingLLM does. :func:`greedy_generate` runs the two together.

This package imports torch; ``import posenc`` does not import it. The NumPy helpers that build
position ids (:func:`posenc.positions_from_mask`, :func:`posenc.packed_position_ids`, ...) are
``posenc``'s own.
"""

from posenc._checks import require_extra

require_extra(__name__, "torch", "torch")

from posenc.serving.cache import KVCache
from posenc.serving.decoder import TinyDecoder
from posenc.serving.generate import POSITION_MODES, Generation, greedy_generate

__all__ = [
    "POSITION_MODES",
    "Generation",
    "KVCache",
    "TinyDecoder",
    "greedy_generate",
]
