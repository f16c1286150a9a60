"""PyTorch modules: token embeddings, the sinusoidal positional encoding and RoPE.

With :mod:`posenc.serving`, the torch layer of posenc: ``import posenc`` does not import it, and the
NumPy core below it never imports torch (``.importlinter``).
"""

from __future__ import annotations

import math

import numpy as np

from posenc._checks import check_d_model, check_int, check_offset, require_extra

require_extra(__name__, "torch", "torch")

import torch
from torch import nn

from posenc.encoding import cos_sin_table, sinusoidal_encoding
from posenc.rope import (
    Layout,
    check_attention_factor,
    check_dim,
    check_layout,
    check_position_array,
    check_positions_shape,
    check_rotary_dim,
    check_seq_dim,
    rope_frequencies,
    rotation_table,
    rows_shape,
)

__all__ = ["InputEmbeddings", "PositionalEncoding", "RotaryEmbedding", "apply_rope"]


class InputEmbeddings(nn.Module):
    """Token embeddings scaled by ``sqrt(d_model)``.

    Parameters
    ----------
    vocab_size : int
        Number of token ids, >= 1.
    d_model : int
        Width of each embedding; a positive even integer.

    Notes
    -----
    ``nn.Embedding`` starts from N(0, 1) entries, so an embedding has norm
    about ``sqrt(d_model)`` before scaling; scaling follows Vaswani et al.
    (2017), who share these weights with the output layer.

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import InputEmbeddings
    >>> _ = torch.manual_seed(0)
    >>> embed = InputEmbeddings(vocab_size=10, d_model=8)
    >>> embed(torch.tensor([[1, 2, 3]])).shape
    torch.Size([1, 3, 8])

    Each row is the token's embedding times ``sqrt(d_model)``:

    >>> torch.equal(embed(torch.tensor([4]))[0], embed.embedding.weight[4] * 8**0.5)
    True
    """

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=1)
        self.d_model = check_d_model(d_model)
        self.embedding = nn.Embedding(self.vocab_size, self.d_model)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Embed ``token_ids`` of any shape into ``(*shape, d_model)``."""
        return self.embedding(token_ids) * math.sqrt(self.d_model)


class PositionalEncoding(nn.Module):
    """Add the sinusoidal encoding to a batch of embedded sequences.

    Parameters
    ----------
    d_model : int
        Width of each embedding; a positive even integer.
    max_seq_length : int
        Longest sequence the module accepts, >= 1.

    Notes
    -----
    The table is a registered buffer of shape ``(1, max_seq_length, d_model)``:
    it is saved in ``state_dict`` and follows ``.to(device)`` and
    ``.to(dtype)``, but it is not a parameter and is never trained.

    The result has ``x``'s dtype, as in transformers: float16 or bfloat16
    embeddings plus the float32 table are summed in float32 and rounded once
    back to ``x``'s dtype (PyTorch's promotion alone would return float32).

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import PositionalEncoding
    >>> add_positions = PositionalEncoding(d_model=4, max_seq_length=16)
    >>> x = torch.zeros(2, 3, 4)  # a batch of two sequences of three embeddings

    On zeros, what is added shows: row ``pos`` is ``sin(pos), cos(pos), sin(pos / 100), cos(pos / 100)``.

    >>> add_positions(x)[0].round(decimals=3)
    tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],
            [ 0.8410,  0.5400,  0.0100,  1.0000],
            [ 0.9090, -0.4160,  0.0200,  1.0000]])
    >>> list(add_positions.state_dict())  # a buffer, saved with the model, never trained
    ['pe']
    """

    def __init__(self, d_model: int, max_seq_length: int) -> None:
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        table = sinusoidal_encoding(self.max_seq_length, self.d_model, dtype=np.float32)
        self.register_buffer("pe", torch.from_numpy(table).unsqueeze(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Return ``x + PE``, of ``x``'s dtype, for ``x`` of shape ``(batch, seq, d_model)``."""
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(f"x must have shape (batch, seq, d_model={self.d_model}), got {tuple(x.shape)}")
        seq_length = x.size(1)
        if seq_length > self.max_seq_length:
            raise ValueError(f"sequence length {seq_length} exceeds max_seq_length {self.max_seq_length}")
        # Summed in the wider dtype, then rounded once to x's: a half-precision model's activations
        # stay half (promotion would silently turn them into float32 and double the memory downstream).
        return (x + self.pe[:, :seq_length]).to(x.dtype)


class RotaryEmbedding(nn.Module):
    """Rotary position embedding: rotate queries or keys by their positions.

    Parameters
    ----------
    dim : int
        Head dimension; a positive even integer.
    max_seq_length : int
        Number of positions in the tables, >= 1; ``forward`` accepts
        positions ``0 ... max_seq_length - 1``.
    base : float, default 10000.0
        Finite number > 1; ``theta_i = base ** (-2 i / rotary_dim)``.
    layout : {"interleaved", "half"}, default "interleaved"
        Pairs ``(2i, 2i + 1)`` (RoFormer, GPT-J, Meta's ``freqs_cis``) or
        ``(i, i + rotary_dim/2)`` (GPT-NeoX and every Llama-family checkpoint
        of transformers: its ``rotate_half``). **A Llama, Qwen, Mistral, Gemma
        or Phi checkpoint needs "half"**: the default gives a wrong result
        (off by about 5.7 on Llama 3.1's q), without an error.
        :meth:`from_config` takes the architecture's layout.
    frequencies : array_like, optional
        ``rotary_dim // 2`` finite frequencies > 0 to use instead of ``base``,
        e.g. from :func:`posenc.scaled_frequencies`.
    rotary_dim : int, optional
        Rotate only the first ``rotary_dim`` features of each head (even,
        ``<= dim``) and pass the rest through, as GPT-NeoX (``rotary_pct``)
        and Hugging Face's ``partial_rotary_factor`` do; the frequencies are
        those of a head of size ``rotary_dim``. Default: ``dim``.
    attention_factor : float, default 1.0
        Multiplies the cos and sin tables, as transformers'
        ``attention_scaling``: YaRN's ``0.1 ln(s) + 1`` (Qwen2.5-YaRN: 1.1386)
        and LongRoPE's factor (Phi-3-mini-128k: 1.1902), see
        :func:`posenc.rope_parameters`. The attention logits get its square.
    check_positions : bool, default True
        Check ``positions`` and tensor ``offset`` against the tables. In eager
        mode that reads their minimum and maximum back to the host in one
        transfer (a synchronisation per call on a GPU); ``False`` skips it for
        callers who validate positions themselves (an out-of-table position
        then is ``embedding``'s IndexError on the CPU, a device-side assert on
        CUDA). It can be changed on the module.

    Notes
    -----
    ``forward`` computes :func:`posenc.apply_rope`, equal to float32 rounding
    (the two round in different orders). The tables ``cos`` and ``sin``, of
    shape ``(max_seq_length, rotary_dim // 2)``, come from the accurate angle
    addition of :func:`posenc.cos_sin_table` (float64 factors, rounded once to
    float32). They are buffers registered with ``persistent=False``: derived
    from the arguments, they stay out of ``state_dict`` and follow
    ``.to(device)``. A forward pass only slices or gathers rows of them; no
    trigonometry is evaluated per call.

    **The tables stay float32.** ``.to(torch.bfloat16)``, ``.half()`` and a
    parent model's ``.bfloat16()`` cast every floating buffer, and a
    bfloat16 table rounds each cos and sin to 8 significant bits (the
    mechanism behind transformers #29496 and gpt-neox #1016). This module
    undoes that for its own tables (``_apply``, which every such cast goes
    through, puts back the float32 tables on the new device); a cast to
    float64 is followed. Input of a lower precision (bfloat16, float16) is
    rotated in float32 and rounded once to its dtype. float64 input is
    rotated in float64 arithmetic but with the float32 tables, so it is only
    float32-accurate (about 1e-7 from a float64 rotation, for entries of
    size 1); for float64 accuracy (about 1e-15) cast the module with
    ``.double()``, which builds float64 tables. For bfloat16 input at 8,192 positions (dim 128) the
    largest error against a float64 rotation of the same input is about
    1.5e-2, half a bfloat16 step of the largest entries, against 2.6e-2 when
    the tables themselves are bfloat16 (``tests/posenc/test_nn.py`` measures it).

    **Where models live.** Built under ``with torch.device("meta")`` (as
    transformers' ``from_pretrained`` and FSDP build a model), the tables are
    empty meta tensors; ``to_empty`` computes them (so does every move or
    cast), and so does the first call after ``from_pretrained`` has replaced
    them by ``torch.empty_like``, compiled or not (:meth:`reset_parameters`
    does it by hand). Under ``torch.compile``, a
    position outside the tables is clamped in the gather (an out-of-bounds
    gather would abort the process) and ``torch._assert_async`` raises a
    RuntimeError that names it (on CUDA: a device-side assert).

    **Against transformers.** Its cos and sin come from float32 angles
    ``p * theta_i``: for Llama 3.1 they are off from the exact rotation by up
    to 2.8e-4 below position 4,096 and 9.3e-3 below 131,072, where these
    tables are off by 3e-8 (``tests/posenc/test_rope_models.py``). A parity
    test against transformers at long positions needs a tolerance of about
    1e-2 (times the size of q); a kernel test against this module can be
    tight.

    Examples
    --------
    >>> import torch
    >>> from posenc.nn import RotaryEmbedding
    >>> rope = RotaryEmbedding(dim=4, max_seq_length=32)

    The same vector at positions 0, 1 and 2 is turned by 0, 1 and 2 radians in its first pair and by
    0, 0.01 and 0.02 radians in its second:

    >>> x = torch.tensor([1.0, 0.0, 1.0, 0.0]).expand(3, 4)
    >>> rope(x).round(decimals=3)
    tensor([[ 1.0000,  0.0000,  1.0000,  0.0000],
            [ 0.5400,  0.8410,  1.0000,  0.0100],
            [-0.4160,  0.9090,  1.0000,  0.0200]])

    The score of a rotated query and a rotated key depends only on how far apart they are:

    >>> q, k = torch.randn(2, 4, generator=torch.Generator().manual_seed(0))
    >>> scores = rope(q.expand(8, 4)) @ rope(k.expand(8, 4)).T  # query at m, key at n
    >>> torch.allclose(scores[0, 2], scores[5, 7], atol=1e-5)  # n - m = 2 in both
    True

    ``offset`` gives the position of the first row, as for the new tokens of a KV cache:

    >>> torch.equal(rope(x[:1], offset=2), rope(x)[2:])
    True
    """

    def __init__(
        self,
        dim: int,
        max_seq_length: int,
        *,
        base: float = 10000.0,
        layout: Layout = "interleaved",
        frequencies=None,
        rotary_dim: int | None = None,
        attention_factor: float = 1.0,
        check_positions: bool = True,
    ) -> None:
        super().__init__()
        self.dim = check_dim("dim", dim)
        self.max_seq_length = check_int("max_seq_length", max_seq_length, minimum=1)
        self.layout = check_layout(layout)
        self.rotary_dim = check_rotary_dim(rotary_dim, self.dim)
        if not isinstance(check_positions, (bool, np.bool_)):
            raise TypeError(f"check_positions must be True or False, got {check_positions!r}")
        self.check_positions = bool(check_positions)
        self.frequencies = rope_frequencies(self.rotary_dim, base, frequencies)
        self.attention_factor = check_attention_factor(attention_factor)
        self._follow = None  # from_config: the state of a dynamic or LongRoPE module, see _follow_length
        # Under `with torch.device("meta")` (how transformers and FSDP build a model before loading it) the
        # tables are empty meta tensors: nothing is computed, and they are built when the module is
        # materialised (to_empty, or the first forward after from_pretrained replaced them).
        device = torch.get_default_device()
        self.register_buffer("cos", torch.empty(0), persistent=False)
        self.register_buffer("sin", torch.empty(0), persistent=False)
        self._build_tables(device, torch.float32)

    def extra_repr(self) -> str:
        partial = f", rotary_dim={self.rotary_dim}" if self.rotary_dim < self.dim else ""
        factor = f", attention_factor={self.attention_factor:.6g}" if self.attention_factor != 1 else ""
        return (
            f"dim={self.dim}, max_seq_length={self.max_seq_length}, layout={self.layout!r}{partial}{factor}"
        )

    def _build_tables(self, device, dtype) -> None:
        """(Re)compute the cos and sin tables from ``frequencies`` on ``device``, in ``dtype``."""
        shape = (self.max_seq_length, self.rotary_dim // 2)
        device = torch.device(device)
        if device.type == "meta":
            cos, sin = (
                torch.empty(shape, dtype=dtype, device=device),
                torch.empty(shape, dtype=dtype, device=device),
            )
        else:
            exact = self.attention_factor == 1 and dtype == torch.float32
            # The factor multiplies float64 values, rounded once: as accurate as the tables without it.
            cos, sin = cos_sin_table(
                self.max_seq_length, self.frequencies, dtype=np.float32 if exact else np.float64
            )
            if not exact:
                cos, sin = cos * self.attention_factor, sin * self.attention_factor
            cos = torch.from_numpy(cos).to(device=device, dtype=dtype)
            sin = torch.from_numpy(sin).to(device=device, dtype=dtype)
        self.cos, self.sin = cos, sin
        self._built = (id(self.cos), id(self.sin))
        self._valid_rows = self.max_seq_length  # rows computed with the current frequencies

    def _stale(self) -> bool:
        # transformers' from_pretrained replaces non-persistent buffers by torch.empty_like (uninitialised
        # memory) without going through _apply: the identity of the tensors tells.
        return self._built != (id(self.cos), id(self.sin)) or self.cos.is_meta

    def reset_parameters(self) -> None:
        """Rebuild the cos and sin tables from the frequencies, where they are, in float32 (float64 if cast).

        The tables are not parameters and are not saved: this recomputes them, as after ``to_empty``.
        FSDP's deferred initialisation calls a module's ``reset_parameters`` after ``to_empty``.

        Examples
        --------
        >>> import torch
        >>> from posenc.nn import RotaryEmbedding
        >>> with torch.device("meta"):  # as transformers and FSDP build a model before loading it
        ...     rope = RotaryEmbedding(4, 8)
        >>> rope.cos.is_meta
        True
        >>> rope = rope.to_empty(device="cpu")  # materialised: the tables are computed
        >>> rope.cos[1].round(decimals=3)
        tensor([0.5400, 1.0000])
        >>> rope.reset_parameters()  # the same, by hand
        >>> rope.cos[1].round(decimals=3)
        tensor([0.5400, 1.0000])
        """
        dtype = torch.float64 if self.cos.dtype == torch.float64 else torch.float32
        self._build_tables(self.cos.device, dtype)

    def set_frequencies(self, frequencies, *, attention_factor: float | None = None) -> None:
        """Replace the frequencies (and the attention factor) and rebuild the tables where they are.

        Parameters
        ----------
        frequencies : array_like
            ``rotary_dim // 2`` finite frequencies > 0, e.g. from :func:`posenc.scaled_frequencies`
            with a new ``seq_len`` (LongRoPE's short or long factors, dynamic NTK).
        attention_factor : float, optional
            The new factor of the tables; unchanged if not given.

        Examples
        --------
        >>> from posenc.nn import RotaryEmbedding
        >>> rope = RotaryEmbedding(4, 8)
        >>> rope.set_frequencies([0.5, 0.005], attention_factor=2.0)
        >>> rope.cos[2].round(decimals=3), rope.frequencies
        (tensor([1.0810, 2.0000]), array([0.5  , 0.005]))
        """
        self.frequencies = rope_frequencies(self.rotary_dim, frequencies=frequencies)
        if attention_factor is not None:
            self.attention_factor = check_attention_factor(attention_factor)
        self.reset_parameters()

    def _apply(self, fn, recurse=True):
        # Module.to(device or dtype), .half(), .bfloat16(), to_empty and a parent's casts all reach the
        # buffers through _apply. The tables are derived, so wherever new ones land they are computed
        # there, in float32 (float64 after a cast to float64): a cast below float32 would round them
        # (what chapter 7 warns about), and to_empty leaves uninitialised memory in them.
        before = self.cos
        super()._apply(fn, recurse)
        if self.cos is not before or self._stale():
            dtype = torch.float64 if self.cos.dtype == torch.float64 else torch.float32
            self._build_tables(self.cos.device, dtype)
        return self

    def forward(self, x: torch.Tensor, offset=0, *, positions=None, seq_dim: int = -2) -> torch.Tensor:
        """Rotate ``x`` of shape ``(..., seq_len, dim)`` by the positions of its rows.

        Parameters
        ----------
        x : torch.Tensor
            Floating-point queries or keys, e.g. ``(batch, heads, seq_len, dim)``, or any shape with the
            sequence on axis ``seq_dim`` and the features last.
        offset : int or torch.Tensor, default 0
            Row ``t`` is at position ``offset + t``; an integer >= 0, or a 0-d
            integer tensor (which is not read back to the host when compiled
            with ``torch.compile``, so a CUDA graph can replay it).
        positions : torch.Tensor, optional
            Integer positions >= 0 of every row instead, of shape ``(seq_len,)``
            or, for ``x`` whose first axis is the batch, ``(batch, seq_len)`` or ``(1, seq_len)``:
            Hugging Face's ``position_ids``, one row per sequence (left padding, packed documents).
            ``offset`` must then be 0.
        seq_dim : int, default -2
            The axis of ``x`` that holds the sequence: -2 for ``(batch, heads, seq_len, dim)``, 1 for
            ``(batch, seq_len, heads, dim)`` as flash-attn and torchtune lay it out (Hugging Face's
            ``apply_rotary_pos_emb(..., unsqueeze_dim=2)``).

        Returns
        -------
        torch.Tensor
            ``x`` rotated, of its shape and dtype.
        """
        if not torch.is_floating_point(x):
            raise TypeError(f"x must be a floating-point tensor, got dtype {x.dtype}")
        if x.dim() < 2 or x.size(-1) != self.dim:
            raise ValueError(f"x must have shape (..., seq_len, dim={self.dim}), got {tuple(x.shape)}")
        seq_dim = check_seq_dim(seq_dim, x.dim())
        # Both also under torch.compile, where each runs eagerly (_eager: a graph break, an error with
        # fullgraph=True): tables that transformers' loader left empty, and a length that changes the
        # frequencies, are never read as they are.
        if self._stale():
            _eager(self.reset_parameters)()
        if self._follow is not None:
            _eager(self._follow_input)(x, offset, positions, seq_dim)
        seq_len = x.size(seq_dim)
        index = self._rows(x, offset, positions, seq_dim)
        if index is None:  # a Python int offset: a slice, no gather
            cos, sin = self.cos[offset : offset + seq_len], self.sin[offset : offset + seq_len]
        else:
            # embedding() rejects negative and out-of-table indices, where plain indexing would wrap.
            cos = nn.functional.embedding(index, self.cos)
            sin = nn.functional.embedding(index, self.sin)
        # (seq_len, pairs) or (batch, seq_len, pairs) -> ones on x's other axes (HF's unsqueeze_dim).
        shape = rows_shape(cos.dim() - 1, x.dim(), seq_dim, seq_len, cos.size(-1), cos.size(0))
        cos, sin = cos.reshape(shape), sin.reshape(shape)
        if self.rotary_dim < self.dim:
            rotated = self._rotate(x[..., : self.rotary_dim], cos, sin)
            return torch.cat((rotated, x[..., self.rotary_dim :]), dim=-1)
        return self._rotate(x, cos, sin)

    @classmethod
    def from_config(
        cls, config, max_seq_length: int | None = None, *, layer_type: str | None = None, **kwargs
    ) -> RotaryEmbedding:
        """The rotary embedding of a checkpoint, from its configuration, as transformers applies it.

        Parameters
        ----------
        config : str, os.PathLike, dict or transformers config object
            As for :func:`posenc.rope_parameters`: a ``config.json``, its dict, or a config object.
        max_seq_length : int, optional
            Rows of the tables; default the config's ``max_position_embeddings``.
        layer_type : str, optional
            For a config with one RoPE per layer type (Gemma 3), the one to build.
        **kwargs
            Other arguments of the constructor: ``check_positions``.

        Returns
        -------
        RotaryEmbedding
            A module with the config's frequencies, ``attention_factor``, ``rotary_dim``, head size
            (``dim``) and the architecture's ``layout`` (``"half"``, transformers' ``rotate_half``,
            except the families that pair features (2i, 2i + 1) in transformers 5.23: GPT-J, CodeGen,
            Cohere, GLM, Ernie 4.5, Helium, Llama 4, DeepSeek and the other MLA models).

        Notes
        -----
        ``"dynamic"`` and ``"longrope"`` change their frequencies with the length, as transformers'
        ``dynamic_rope_update`` does, before each eager call, from ``L' = max(position) + 1``:

        - ``"longrope"`` uses the long factors while ``L'`` exceeds ``original_max_position_embeddings``
          and the short ones otherwise: the same batch gives the same result whatever came before.
        - ``"dynamic"`` keeps state, as transformers does (book, chapter 9): the frequencies are
          recomputed for ``L'`` only when ``L'`` is longer than every earlier call's, and go back to the
          unscaled ones only when ``L' < max_position_embeddings`` after a longer call. So after one long
          request, a shorter one (still longer than ``max_position_embeddings``) keeps the long
          request's frequencies; :meth:`reset_length` forgets the history.

        Only the rows up to ``L'`` are recomputed when the frequencies change (in place: the tables keep
        their identity). Finding ``L'`` reads the positions back to the host (as transformers does);
        under ``torch.compile`` that step runs eagerly, a graph break on every call of such a module
        (with ``fullgraph=True``, an error), so that a compiled call follows the length as an eager one.

        Examples
        --------
        >>> from posenc.nn import RotaryEmbedding
        >>> qwen_yarn = {"hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1e6,
        ...              "max_position_embeddings": 32768,
        ...              "rope_scaling": {"type": "yarn", "factor": 4.0,
        ...                               "original_max_position_embeddings": 32768}}
        >>> RotaryEmbedding.from_config(qwen_yarn, 4096)
        RotaryEmbedding(dim=128, max_seq_length=4096, layout='half', attention_factor=1.13863)
        """
        # Imported here: the NumPy core module that reads configs (no cycle, no cost otherwise).
        from posenc.config import read_config, rope_parameters

        read_here = {"dim", "base", "layout", "frequencies", "rotary_dim", "attention_factor"}
        taken = sorted(set(kwargs) & read_here)
        if taken:
            raise TypeError(
                f"from_config reads {taken[0]!r} from the config; of the constructor's arguments it takes "
                "check_positions only (build RotaryEmbedding(...) directly to choose the others)"
            )
        config = read_config(config)  # a path or an object read once, kept by a following module
        read = rope_parameters(config, layer_type=layer_type)
        if max_seq_length is None:
            if read.max_position_embeddings is None:
                raise ValueError("max_seq_length is needed: the config has no max_position_embeddings")
            max_seq_length = read.max_position_embeddings
        module = cls(
            read.head_dim,
            max_seq_length,
            layout=read.layout,
            frequencies=read.frequencies,
            rotary_dim=read.rotary_dim,
            attention_factor=read.attention_factor,
            **kwargs,
        )
        if read.rope_type in ("dynamic", "longrope"):
            module._follow = {
                "config": config,
                "layer_type": layer_type,
                "rope_type": read.rope_type,
                "original": read.original_max_position_embeddings,
                "max_positions": read.max_position_embeddings,
                "initial": read.frequencies,
                "cached": read.max_position_embeddings,  # transformers' max_seq_len_cached
                "long": False,
            }
        return module

    def reset_length(self) -> None:
        """Forget the lengths seen by a dynamic module (from :meth:`from_config`): unscaled frequencies.

        Examples
        --------
        >>> from posenc.nn import RotaryEmbedding
        >>> dynamic = {"hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 16,
        ...            "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
        >>> rope = RotaryEmbedding.from_config(dynamic, 64)
        >>> before = rope.frequencies
        >>> _ = rope(torch.zeros(40, 16))  # 40 > 16 positions: the base grows
        >>> bool((rope.frequencies < before).any())
        True
        >>> rope.reset_length()
        >>> bool((rope.frequencies == before).all())
        True
        """
        if self._follow is None:
            return
        self._follow["cached"], self._follow["long"] = self._follow["max_positions"], False
        self._set_following(self._follow["initial"])

    def _length(self, x: torch.Tensor, offset, positions, seq_dim: int) -> int:
        """transformers' ``max(position_ids) + 1`` for this call (a host read for tensors)."""
        seq_len = x.size(seq_dim)
        if positions is not None:
            positions = torch.as_tensor(positions)
            return int(positions.max()) + 1 if positions.numel() else 0
        if isinstance(offset, torch.Tensor):
            return int(offset) + seq_len
        return int(offset) + seq_len

    def _follow_input(self, x: torch.Tensor, offset, positions, seq_dim: int) -> None:
        self._follow_length(self._length(x, offset, positions, seq_dim))

    def _follow_length(self, length: int) -> None:
        """transformers' dynamic_rope_update: LongRoPE's short or long factors, dynamic NTK's growth."""
        from posenc.config import rope_parameters

        state = self._follow
        if state["rope_type"] == "longrope":
            long = length > state["original"]
            if long != state["long"]:
                state["long"] = long
                read = rope_parameters(state["config"], length, layer_type=state["layer_type"])
                self._set_following(read.frequencies)
        else:
            cached = state["cached"]
            if length > cached:  # growth: the frequencies of this length
                read = rope_parameters(state["config"], length, layer_type=state["layer_type"])
                self._set_following(read.frequencies)
                state["cached"] = length
            if length < state["max_positions"] and cached > state["max_positions"]:  # back to the original
                self._set_following(state["initial"])
                state["cached"] = state["max_positions"]
        self._fill_rows(min(max(length, 0), self.max_seq_length))

    def _set_following(self, frequencies) -> None:
        self.frequencies = np.asarray(frequencies, dtype=np.float64)
        self._valid_rows = 0

    def _fill_rows(self, stop: int) -> None:
        """Recompute rows ``valid ... stop - 1`` of the tables in place, with the current frequencies."""
        start = self._valid_rows
        if stop <= start or self.cos.is_meta:
            return
        cos, sin = cos_sin_table(stop - start, self.frequencies, offset=start)
        with torch.no_grad():
            self.cos[start:stop].copy_(torch.from_numpy(cos * self.attention_factor))
            self.sin[start:stop].copy_(torch.from_numpy(sin * self.attention_factor))
        self._valid_rows = stop

    def _rows(self, x: torch.Tensor, offset, positions, seq_dim: int):
        """``None`` for a Python int offset (checked), else the table rows to gather, checked."""
        seq_len = x.size(seq_dim)
        if positions is not None:
            if isinstance(offset, torch.Tensor) or check_int("offset", offset) != 0:
                raise ValueError(f"give offset or positions, not both: got offset={offset!r} and positions")
            if not isinstance(positions, torch.Tensor):
                positions = torch.as_tensor(np.asarray(positions))
            if positions.dtype == torch.bool or positions.is_floating_point() or positions.is_complex():
                raise TypeError(f"positions must be an integer tensor, got dtype {positions.dtype}")
            check_positions_shape(tuple(positions.shape), tuple(x.shape), seq_dim)
            index = positions.to(device=self.cos.device, dtype=torch.long)
            return self._check_rows("positions", index)
        if isinstance(offset, torch.Tensor):
            if (
                offset.dim() != 0
                or offset.dtype == torch.bool
                or offset.is_floating_point()
                or offset.is_complex()
            ):
                hint = " (per-token positions, e.g. position_ids, go in positions=)" if offset.dim() else ""
                raise TypeError(
                    "offset must be an integer or a 0-d integer tensor, got a tensor of dtype "
                    f"{offset.dtype} and shape {tuple(offset.shape)}{hint}"
                )
            index = offset.to(device=self.cos.device, dtype=torch.long) + torch.arange(
                seq_len, device=self.cos.device
            )
            return self._check_rows("offset + t", index)
        offset = check_int("offset", offset)
        if offset + seq_len > self.max_seq_length:
            raise ValueError(
                f"offset + seq_len = {offset} + {seq_len} = {offset + seq_len} exceeds "
                f"max_seq_length {self.max_seq_length}, the rows of the tables (build the module with a "
                "larger max_seq_length; from_config's second argument)"
            )
        return None

    def _check_rows(self, name: str, index: torch.Tensor) -> torch.Tensor:
        """Return ``index``, checked to lie in ``0 ... max_seq_length - 1`` (a ValueError naming ``name``).

        In eager mode the check reads the smallest and largest row back to the host in one transfer (one
        synchronisation on a GPU); ``check_positions=False`` skips it. torch.compile and CUDA graph
        capture cannot read back: there the rows are clamped into the table, so the gather never reads
        out of bounds (on the CPU an out-of-bounds gather in compiled code aborts the process), and
        ``torch._assert_async`` raises a RuntimeError naming ``name`` on the CPU (a device-side assert on
        CUDA) unless ``check_positions`` is False.
        """
        if index.numel() == 0:
            return index
        last = self.max_seq_length - 1
        if torch.compiler.is_compiling() or (index.is_cuda and torch.cuda.is_current_stream_capturing()):
            if self.check_positions:
                inside = ((index >= 0) & (index <= last)).all()
                torch._assert_async(inside, f"{name} must be in 0 ... max_seq_length - 1 = {last}")
            return index.clamp(0, last)
        if not self.check_positions:
            return index
        low, high = torch.stack(torch.aminmax(index)).tolist()
        if low < 0:
            raise ValueError(f"{name} must be >= 0, got minimum {low}")
        if high > last:
            raise ValueError(
                f"{name} must be < max_seq_length = {self.max_seq_length} (the rows of the tables; build the "
                f"module with a larger max_seq_length), got maximum {high}"
            )
        return index

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        return _rotate(x, cos, sin, self.layout)


def _eager(method):
    """``method`` run outside torch.compile's graph: it reads tensors back to the host and calls NumPy."""
    return torch.compiler.disable(method, recursive=True)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """Turn the pairs of ``x`` (its whole last axis) by ``cos`` and ``sin``, in at least float32."""
    work = x.to(torch.promote_types(x.dtype, cos.dtype))
    half = x.size(-1) // 2
    if layout == "interleaved" and work.dtype in (torch.float32, torch.float64):
        # (x_2i, x_2i+1) as the complex number x_2i + 1j x_2i+1: one complex
        # product per pair, in a single pass, is the rotation. view_as_complex needs the pairs
        # adjacent (last stride 1) and every other stride and the offset even.
        pairs = work.unflatten(-1, (half, 2))
        if (
            pairs.stride(-1) != 1
            or pairs.storage_offset() % 2
            or any(step % 2 for step in pairs.stride()[:-1])
        ):
            pairs = pairs.contiguous()
        rotated = torch.view_as_real(torch.view_as_complex(pairs) * torch.complex(cos, sin))
        return rotated.flatten(-2).to(x.dtype)
    if layout == "interleaved":
        first, second = work[..., 0::2], work[..., 1::2]
    else:
        first, second = work[..., :half], work[..., half:]
    # addcmul fuses a product and a sum: four passes over half of x instead of six.
    rotated = (torch.addcmul(first * cos, second, sin, value=-1), torch.addcmul(first * sin, second, cos))
    if layout == "interleaved":
        out = torch.stack(rotated, dim=-1).flatten(-2)
    else:
        out = torch.cat(rotated, dim=-1)
    return out.to(x.dtype)


def apply_rope(
    x: torch.Tensor,
    *,
    offset: int = 0,
    positions=None,
    base: float = 10000.0,
    layout: Layout = "interleaved",
    frequencies=None,
    rotary_dim: int | None = None,
    seq_dim: int = -2,
    attention_factor: float = 1.0,
) -> torch.Tensor:
    """:func:`posenc.apply_rope` for a torch tensor: the same arguments and result, differentiable.

    ``posenc.apply_rope`` calls this for a ``torch.Tensor``. The cos and sin of each position are
    computed on the host in float64 (as :func:`posenc.apply_rope` does: accurate to float32 rounding at
    any position), rounded once to float32 (float64 for float64 ``x``) and moved to ``x``'s device;
    ``positions`` given as a tensor are read back to the host. For a model's forward pass, where the
    same positions come back every step, :class:`RotaryEmbedding` keeps the tables on the device.

    Parameters
    ----------
    x : torch.Tensor
        Floating-point queries or keys, ``(..., seq_len, dim)`` with the sequence on axis ``seq_dim``.
    offset, positions, base, layout, frequencies, rotary_dim, seq_dim, attention_factor
        As for :func:`posenc.apply_rope`; ``positions`` may be a tensor.

    Returns
    -------
    torch.Tensor
        ``x`` rotated: its shape, dtype and device, with ``x``'s autograd history.

    Examples
    --------
    >>> import torch
    >>> import posenc
    >>> x = torch.tensor([[1.0, 0.0], [1.0, 0.0]], requires_grad=True)
    >>> out = posenc.apply_rope(x)
    >>> out.detach()
    tensor([[1.0000, 0.0000],
            [0.5403, 0.8415]])
    >>> out.sum().backward()  # d(sum)/dx at position 1: (cos 1 + sin 1, cos 1 - sin 1)
    >>> x.grad
    tensor([[ 1.0000,  1.0000],
            [ 1.3818, -0.3012]])
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(
            f"x must be a torch.Tensor (posenc.apply_rope takes NumPy arrays), got {type(x).__name__}"
        )
    if not torch.is_floating_point(x):
        raise TypeError(f"x must be a floating-point tensor, got dtype {x.dtype}")
    if x.dim() < 2:
        raise ValueError(f"x must have shape (..., seq_len, dim), got shape {tuple(x.shape)}")
    dim = check_dim("x.shape[-1] (dim)", x.size(-1))
    seq_dim = check_seq_dim(seq_dim, x.dim())
    seq_len = x.size(seq_dim)
    offset = check_offset(offset, seq_len)
    layout = check_layout(layout)
    rotary_dim = check_rotary_dim(rotary_dim, dim)
    theta = rope_frequencies(rotary_dim, base, frequencies)
    attention_factor = check_attention_factor(attention_factor)
    if positions is not None:
        if offset != 0:
            raise ValueError(f"give offset or positions, not both: got offset={offset} and positions")
        if isinstance(positions, torch.Tensor):
            positions = positions.detach().cpu().numpy()
        positions = check_position_array(positions, tuple(x.shape), seq_dim)
    table_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    complex_dtype = np.complex128 if table_dtype == torch.float64 else np.complex64
    rotation = rotation_table(theta, seq_len, offset, positions, complex_dtype, attention_factor)
    shape = rows_shape(rotation.ndim - 1, x.dim(), seq_dim, seq_len, theta.size, len(rotation))
    cos = torch.from_numpy(np.ascontiguousarray(rotation.real)).to(x.device).reshape(shape)
    sin = torch.from_numpy(np.ascontiguousarray(rotation.imag)).to(x.device).reshape(shape)
    if rotary_dim < dim:
        return torch.cat((_rotate(x[..., :rotary_dim], cos, sin, layout), x[..., rotary_dim:]), dim=-1)
    return _rotate(x, cos, sin, layout)
