"""What a student handout adds after each exercise: an answer prompt and, for some exercises, a check.

``tools/strip_solutions.py --handouts`` reads this table. ``WORDS`` holds each edition's prompts and
verdicts; ``CHECKS`` holds, by exercise label without its language suffix, a check cell's code (the same
in every edition) and its sentences in each language.

A check tests properties of the student's answer that a right answer must have (a shape, an invariance,
an identity with a chapter's function) and that do not give the answer away. Its ``code`` is the body of
a function that returns one ``(holds, detail)`` pair per sentence of ``claims``: ``detail`` is a measured
value, printed next to its threshold, or "". ``wrong`` is a plausible mistake that the check must reject,
and ``right`` a right answer for a check whose names the chapter's own solution code does not define;
tests/test_handouts.py runs both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WORDS = {
    "en": {
        "answer": "**Your answer:**",
        "checked": "Write it in the code cell below; the cell after that checks it without giving the "
        "solution away.",
        "comment": "Check: run this cell after your answer. It tests properties of your answer and does not "
        "show the solution.",
        "missing": "Not checked yet: {name} is not defined. Write your answer in the cell above and run it "
        "first.",
        "passed": "Your answer passes every check.",
        "failed": "Not yet: the lines marked ✗ do not hold for your answer.",
    },
    "id": {
        "answer": "**Jawaban Anda:**",
        "checked": "Tulislah di sel kode di bawah ini; sel sesudahnya memeriksa jawaban Anda tanpa "
        "membocorkan solusinya.",
        "comment": "Pemeriksaan: jalankan sel ini setelah jawaban Anda. Sel ini menguji sifat-sifat jawaban "
        "Anda tanpa menampilkan solusinya.",
        "missing": "Belum diperiksa: {name} belum didefinisikan. Tulislah jawaban Anda di sel di atas, "
        "lalu jalankan sel itu terlebih dahulu.",
        "passed": "Jawaban Anda lolos semua pemeriksaan.",
        "failed": "Belum tepat: baris yang bertanda ✗ tidak berlaku untuk jawaban Anda.",
    },
    "ko": {
        "answer": "**답:**",
        "checked": "아래 코드 셀에 작성하라. 그다음 셀이 풀이를 보여 주지 않고 답을 검사한다.",
        "comment": "검사: 답을 작성한 뒤 이 셀을 실행하라. 풀이는 보여 주지 않고 답의 성질만 검사한다.",
        "missing": "아직 검사할 수 없다. 정의되지 않은 이름: {name}. 위 셀에 답을 작성하고 먼저 실행하라.",
        "passed": "모든 검사를 통과했다.",
        "failed": "아직 아니다. ✗ 표시된 줄은 이 답에서 성립하지 않는다.",
    },
}


@dataclass(frozen=True)
class Check:
    """One exercise's check cell: code shared by the editions, sentences in each language."""

    names: tuple[str, ...]  # what the student defines, named in `define` and used by `code`
    code: str  # the body of _check(): returns one (holds, detail) pair per claim
    define: dict[str, str]  # per language: what to define, shown in the answer prompt
    claims: dict[str, tuple[str, ...]]  # per language: one sentence per pair that `code` returns
    wrong: str  # a plausible wrong answer that the check must reject
    right: str | None = field(default=None)  # a right answer, if the chapter's solution defines other names


CHECKS = {
    "ex-motivation-3": Check(
        names=("causal_self_attention",),
        code='''\
x = np.random.default_rng(seed=1).normal(size=(5, w_query.shape[0]))
out = causal_self_attention(x)
changed = x.copy()
changed[-1] += 1.0
earlier = float(np.abs(causal_self_attention(changed)[:-1] - out[:-1]).max())
last = float(np.abs(out[-1] - self_attention(x)[-1]).max())
return [
    (out.shape == x.shape, f"{out.shape}"),
    (earlier < 1e-10, f"max |difference| = {earlier:.1e} (< 1e-10)"),
    (last < 1e-10, f"max |difference| = {last:.1e} (< 1e-10)"),
]''',
        define={
            "en": "Define your masked layer as `causal_self_attention(x)`; like `self_attention`, it takes "
            "the rows of `x` as the tokens.",
            "id": "Definisikan lapisan dengan mask Anda sebagai `causal_self_attention(x)`; seperti "
            "`self_attention`, lapisan itu menerima baris-baris `x` sebagai token.",
            "ko": "마스크를 적용한 층을 `causal_self_attention(x)`라는 함수로 정의하라. `self_attention`처럼 "
            "`x`의 각 행을 토큰 하나로 받는다.",
        },
        claims={
            "en": (
                "the output has the shape of the input",
                "changing the last token leaves every earlier row as it was",
                "the last row is the last row of self_attention: the last token sees every token",
            ),
            "id": (
                "keluarannya berbentuk sama dengan masukannya",
                "mengubah token terakhir tidak mengubah baris-baris sebelumnya",
                "baris terakhir sama dengan baris terakhir self_attention: token terakhir melihat "
                "semua token",
            ),
            "ko": (
                "출력의 모양이 입력과 같다",
                "마지막 토큰을 바꿔도 그 앞의 행은 그대로다",
                "마지막 행이 self_attention의 마지막 행과 같다. 마지막 토큰은 모든 토큰을 본다",
            ),
        },
        wrong='''\
def causal_self_attention(x):
    queries, keys, values = x @ w_query, x @ w_key, x @ w_value
    scores = queries @ keys.T / np.sqrt(queries.shape[-1])
    scores[np.tril_indices(len(x), k=-1)] = -np.inf  # the mask on the wrong side of the diagonal
    return softmax(scores) @ values''',
    ),
    "ex-formula-3": Check(
        names=("best", "distance_all"),
        code='''\
pair_0 = posenc.sinusoidal_encoding(1001, 2)  # the columns (sin p, cos p) for p = 0 ... 1000
distances = np.linalg.norm(pair_0[1:] - pair_0[0], axis=1)  # for the offsets 1 ... 1000 from p = 0
whole = isinstance(best, (int, np.integer)) and 1 <= best <= 1000
table = posenc.sinusoidal_encoding(int(best) + 1, 64)
error = abs(float(distance_all) - float(np.linalg.norm(table[int(best)] - table[0])))
return [
    (whole, f"best = {best}"),
    (whole and distances[best - 1] <= distances.min() + 1e-12, ""),
    (error < 1e-4, f"|distance_all - |PE(best) - PE(0)|| = {error:.1e} (< 1e-4)"),
]''',
        define={
            "en": "Define `best`, the offset you find, and `distance_all`, the distance for that offset with "
            r"all pairs of $d_{\text{model}} = 64$.",
            "id": "Definisikan `best`, yaitu selisih yang Anda temukan, dan `distance_all`, yaitu jarak "
            r"untuk selisih itu dengan semua pasangan dari $d_{\text{model}} = 64$.",
            "ko": r"찾은 간격을 변수 `best`에, 그 간격에서 $d_{\text{model}} = 64$의 모든 쌍으로 "
            "계산한 거리를 변수 `distance_all`에 저장하라.",
        },
        claims={
            "en": (
                "best is a whole offset from 1 to 1000",
                "no offset from 1 to 1000 brings pair 0 closer than best does",
                "distance_all is the distance between PE(p + best) and PE(p) with all pairs of "
                "d_model = 64",
            ),
            "id": (
                "best adalah selisih bilangan bulat dari 1 sampai 1.000",
                "tidak ada selisih dari 1 sampai 1.000 yang membawa pasangan 0 lebih dekat daripada best",
                "distance_all adalah jarak antara PE(p + best) dan PE(p) dengan semua pasangan dari "
                "d_model = 64",
            ),
            "ko": (
                "best는 1부터 1000까지의 정수 간격이다",
                "1부터 1000까지의 어떤 간격도 0번 쌍을 best보다 더 가깝게 만들지 않는다",
                "distance_all은 d_model = 64의 모든 쌍으로 잰 PE(p + best)와 PE(p) 사이의 거리다",
            ),
        },
        wrong="best, distance_all = 355, 7.3",
    ),
    "ex-numpy-3": Check(
        names=("get_positional_encoding_stacked",),
        code='''\
stacked = get_positional_encoding_stacked(1000, 512)
same_shape = stacked.shape == (1000, 512)
error = float(np.abs(stacked - get_positional_encoding(1000, 512)).max()) if same_shape else float("inf")
return [
    (same_shape, f"{stacked.shape}"),
    (error < 1e-10, f"max |difference| = {error:.1e} (< 1e-10)"),
]''',
        define={
            "en": "Define `get_positional_encoding_stacked(max_seq_len, d_model)`, with the arguments of "
            "`get_positional_encoding`.",
            "id": "Definisikan `get_positional_encoding_stacked(max_seq_len, d_model)` dengan argumen yang "
            "sama seperti `get_positional_encoding`.",
            "ko": "다음 함수를 정의하라: `get_positional_encoding_stacked(max_seq_len, d_model)`. 인수는 "
            "`get_positional_encoding`과 같다.",
        },
        claims={
            "en": (
                "get_positional_encoding_stacked(1000, 512) has the shape (1000, 512)",
                "it equals get_positional_encoding(1000, 512)",
            ),
            "id": (
                "get_positional_encoding_stacked(1000, 512) berbentuk (1000, 512)",
                "hasilnya sama dengan get_positional_encoding(1000, 512)",
            ),
            "ko": (
                "get_positional_encoding_stacked(1000, 512)의 모양이 (1000, 512)다",
                "그 결과가 get_positional_encoding(1000, 512)와 같다",
            ),
        },
        wrong='''\
def get_positional_encoding_stacked(max_seq_len, d_model):
    angles = np.arange(max_seq_len)[:, None] * 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    # stacked on a new first axis, not the last
    return np.stack([np.sin(angles), np.cos(angles)]).reshape(max_seq_len, d_model)''',
    ),
    "ex-pytorch-1": Check(
        names=("CheckedPositionalEncoding",),
        code='''\
def raises_value_error(layer, x):
    try:
        layer(x)
    except ValueError:
        return True
    return False


x = torch.randn(2, 4, 16, generator=torch.Generator().manual_seed(1))
fits = not raises_value_error(CheckedPositionalEncoding(16, max_seq_length=4), x)
same = fits and torch.equal(CheckedPositionalEncoding(16, 4)(x), PositionalEncoding(16, 4)(x))
return [
    (issubclass(CheckedPositionalEncoding, PositionalEncoding), ""),
    (raises_value_error(CheckedPositionalEncoding(16, max_seq_length=1), torch.zeros(2, 6, 16)), ""),
    (fits, ""),
    (same, ""),
]''',
        define={
            "en": "Define the class `CheckedPositionalEncoding`, with the arguments of `PositionalEncoding`.",
            "id": "Definisikan kelas `CheckedPositionalEncoding` dengan argumen yang sama seperti "
            "`PositionalEncoding`.",
            "ko": "클래스 `CheckedPositionalEncoding`을 정의하라. 생성자 인수는 `PositionalEncoding`과 같다.",
        },
        claims={
            "en": (
                "CheckedPositionalEncoding is a subclass of PositionalEncoding",
                "with a one-row table, a sequence of 6 tokens raises a ValueError",
                "a sequence exactly as long as the table raises nothing",
                "and it gets the same output as from PositionalEncoding",
            ),
            "id": (
                "CheckedPositionalEncoding adalah subkelas dari PositionalEncoding",
                "dengan tabel satu baris, sekuens 6 token memunculkan ValueError",
                "sekuens yang tepat sepanjang tabel tidak memunculkan galat",
                "dan keluarannya sama dengan keluaran PositionalEncoding",
            ),
            "ko": (
                "CheckedPositionalEncoding은 PositionalEncoding의 하위 클래스다",
                "행이 하나뿐인 표에 토큰 6개짜리 시퀀스를 넣으면 ValueError가 일어난다",
                "표와 길이가 똑같은 시퀀스는 오류 없이 통과한다",
                "그때의 출력은 PositionalEncoding의 출력과 같다",
            ),
        },
        wrong='''\
class CheckedPositionalEncoding(PositionalEncoding):
    def forward(self, x):
        if x.size(1) >= self.pe.size(1):  # also refuses a sequence exactly as long as the table
            raise ValueError("sequence too long")
        return super().forward(x)''',
    ),
    "ex-rotation-1": Check(
        names=("offset_between",),
        code='''\
rng = np.random.default_rng(seed=1)
p, q = rng.uniform(0, 10_000, size=(2, 200))
estimates = np.array([offset_between(encoding_at(a, 64), encoding_at(b, 64)) for a, b in zip(p, q)], float)
right_side = int((np.sign(estimates) == np.sign(q - p)).sum())
error = float(np.abs(estimates - (q - p)).max())
return [
    (right_side == 200, f"{right_side} / 200"),
    (error < 1e-6, f"max |offset_between - (q - p)| = {error:.1e} (< 1e-6)"),
]''',
        define={
            "en": r"For part 2, define `offset_between(a, b)`, which returns $q - p$ for "
            r"$a = \mathrm{PE}(p)$ and $b = \mathrm{PE}(q)$ with $d_{\text{model}} = 64$.",
            "id": r"Untuk bagian 2, definisikan `offset_between(a, b)` yang mengembalikan $q - p$ untuk "
            r"$a = \mathrm{PE}(p)$ dan $b = \mathrm{PE}(q)$ dengan $d_{\text{model}} = 64$.",
            "ko": r"2번의 답으로 함수 `offset_between(a, b)`를 정의하라. $d_{\text{model}} = 64$일 때 "
            r"$a = \mathrm{PE}(p)$와 $b = \mathrm{PE}(q)$를 받아 $q - p$를 돌려준다.",
        },
        claims={
            "en": (
                "ahead or behind is right for 200 random pairs of positions from 0 to 10,000",
                "offset_between(PE(p), PE(q)) equals q - p for each of them",
            ),
            "id": (
                "sesudah atau sebelum ditentukan dengan benar untuk 200 pasangan posisi acak antara 0 "
                "dan 10.000",
                "offset_between(PE(p), PE(q)) sama dengan q - p untuk setiap pasangan itu",
            ),
            "ko": (
                "0과 10,000 사이의 무작위 위치 쌍 200개 모두에서 뒤인지 앞인지를 맞힌다",
                "그 모든 쌍에서 offset_between(PE(p), PE(q))가 q - p와 같다",
            ),
        },
        wrong='''\
def offset_between(a, b):
    omega = posenc.frequencies(a.size)[0]  # the fastest pair: its angle wraps around many times
    (sin_a, cos_a), (sin_b, cos_b) = a[:2], b[:2]
    return np.arctan2(cos_a * sin_b - sin_a * cos_b, sin_a * sin_b + cos_a * cos_b) / omega''',
    ),
    "ex-rope-3": Check(
        names=("partial_rope",),
        code='''\
rng = np.random.default_rng(seed=1)
x = rng.normal(size=(6, 64))
turned = partial_rope(x, offset=100)
same_shape = turned.shape == x.shape
moved = float(np.abs(turned[:, :16] - x[:, :16]).max()) if same_shape else 0.0
lengths = np.hypot(turned[:, :8], turned[:, 8:16]) - np.hypot(x[:, :8], x[:, 8:16]) if same_shape else np.inf
length_error = float(np.abs(lengths).max())


def at(vector, position):
    return partial_rope(vector[np.newaxis, :], offset=int(position))[0]


q, k = rng.normal(size=(2, 64))
shifts = rng.integers(0, 4096, size=(50, 3))
shift_error = max(abs(float(at(q, m) @ at(k, n) - at(q, m + s) @ at(k, n + s))) for m, n, s in shifts)
return [
    (same_shape, f"{turned.shape}"),
    (same_shape and np.array_equal(turned[:, 16:], x[:, 16:]), ""),
    (moved > 1e-3, f"max |change| = {moved:.3f} (> 1e-3)"),
    (length_error < 1e-10, f"max |change of length| = {length_error:.1e} (< 1e-10)"),
    (shift_error < 1e-9, f"max |score(m, n) - score(m + s, n + s)| = {shift_error:.1e} (< 1e-9)"),
]''',
        define={
            "en": "Define `partial_rope(x, offset=0)`; like `posenc.apply_rope`, it takes `x` of shape "
            "(sequence length, $d$) and the position of its first row.",
            "id": "Definisikan `partial_rope(x, offset=0)`; seperti `posenc.apply_rope`, fungsi itu menerima "
            "`x` berbentuk (panjang sekuens, $d$) dan posisi baris pertamanya.",
            "ko": "다음 함수를 정의하라: `partial_rope(x, offset=0)`. `posenc.apply_rope`처럼 모양이 "
            "(시퀀스 길이, $d$)인 `x`와 첫 행의 위치를 받는다.",
        },
        claims={
            "en": (
                "the output has the shape of the input",
                "dimensions 16 to 63, three quarters of the head, stay as they are",
                "dimensions 0 to 15 are turned",
                "in dimensions 0 to 15, each pair (i, i + 8) keeps its length: the half layout",
                "the score depends only on n - m",
            ),
            "id": (
                "keluarannya berbentuk sama dengan masukannya",
                "dimensi 16 sampai 63, tiga perempat *head*, dibiarkan apa adanya",
                "dimensi 0 sampai 15 diputar",
                "pada dimensi 0 sampai 15, setiap pasangan (i, i + 8) tetap sama panjangnya: tata letak "
                "paruhan",
                "skornya hanya bergantung pada n - m",
            ),
            "ko": (
                "출력의 모양이 입력과 같다",
                "헤드의 4분의 3인 16~63번 차원은 그대로다",
                "0~15번 차원은 회전한다",
                "0~15번 차원에서 각 쌍 (i, i + 8)의 길이가 그대로다. 절반 배치다",
                "점수가 n - m에만 의존한다",
            ),
        },
        wrong='''\
def partial_rope(x, offset=0):
    return posenc.apply_rope(x, offset=offset, layout="half")  # turns the whole head''',
    ),
    "ex-longctx-1": Check(
        names=("bfloat16_distinct",),
        code='''\
measured = {k: torch.arange(2**k).to(torch.bfloat16).unique().numel() for k in range(9, 21)}
differ = [k for k, count in measured.items() if bfloat16_distinct(k) != count]
return [
    (not differ, f"k = {differ}" if differ else ""),
]''',
        define={
            "en": r"Define your formula as a function `bfloat16_distinct(k)`: the number of distinct "
            r"bfloat16 values among the positions $0, \dots, 2^k - 1$.",
            "id": r"Definisikan rumus Anda sebagai fungsi `bfloat16_distinct(k)`: banyaknya nilai bfloat16 "
            r"yang berbeda di antara posisi $0, \dots, 2^k - 1$.",
            "ko": r"찾은 식을 함수 `bfloat16_distinct(k)`로 정의하라. 위치 $0, \dots, 2^k - 1$ 가운데 "
            r"서로 다른 bfloat16 값의 개수를 돌려준다.",
        },
        claims={
            "en": ("bfloat16_distinct(k) is the number that torch counts, for every k from 9 to 20",),
            "id": ("bfloat16_distinct(k) sama dengan banyaknya nilai yang dihitung torch, untuk setiap k "
                   "dari 9 sampai 20",),
            "ko": ("9부터 20까지의 모든 k에서 bfloat16_distinct(k)가 torch로 센 개수와 같다",),
        },
        right='''\
def bfloat16_distinct(k):
    return 257 + 128 * (k - 8)''',
        wrong='''\
def bfloat16_distinct(k):
    return 2**8 + 128 * (k - 8)  # forgets that 0 ... 256 are 257 numbers''',
    ),
    "ex-experiment-1": Check(
        names=("order_tokens", "order_swapped"),
        code='''\
rows = order_tokens.shape[0]
same_shape = tuple(order_swapped.shape) == tuple(order_tokens.shape)
first, last = (order_swapped[:, 0], order_swapped[:, -1]) if same_shape else (None, None)
exchanged = same_shape and torch.equal(first, order_tokens[:, -1])
exchanged = exchanged and torch.equal(last, order_tokens[:, 0])
middle = same_shape and torch.equal(order_swapped[:, 1:-1], order_tokens[:, 1:-1])
return [
    (rows == 1000, f"{rows}"),
    (same_shape, f"{tuple(order_swapped.shape)}"),
    (exchanged, ""),
    (middle, ""),
]''',
        define={
            "en": "Store your 1,000 test sequences in `order_tokens` and their swaps in `order_swapped`.",
            "id": "Simpanlah 1.000 sekuens uji Anda di `order_tokens` dan pasangan tukarnya di "
            "`order_swapped`.",
            "ko": "테스트 시퀀스 1,000개를 변수 `order_tokens`에, 맞바꾼 시퀀스들을 변수 `order_swapped`에 "
            "저장하라.",
        },
        claims={
            "en": (
                "order_tokens holds 1,000 sequences",
                "order_swapped has the shape of order_tokens",
                "in order_swapped, the first and last tokens of each sequence are exchanged",
                "the tokens in between are left as they are",
            ),
            "id": (
                "order_tokens berisi 1.000 sekuens",
                "order_swapped berbentuk sama dengan order_tokens",
                "dalam order_swapped, token pertama dan terakhir setiap sekuens dipertukarkan",
                "token-token di antaranya dibiarkan apa adanya",
            ),
            "ko": (
                "order_tokens에 시퀀스가 1,000개 있다",
                "order_swapped의 모양이 order_tokens와 같다",
                "order_swapped에서는 각 시퀀스의 첫 토큰과 마지막 토큰이 맞바뀌어 있다",
                "그 사이의 토큰은 그대로다",
            ),
        },
        right='''\
order_tokens, _ = ex.make_batch("order", np.random.default_rng(5), 1000, 16)
order_swapped = order_tokens.clone()
order_swapped[:, [0, -1]] = order_tokens[:, [-1, 0]]''',
        wrong="order_swapped = order_tokens.flip(dims=[1])  # reverses the whole sequence",
    ),
    "ex-ropetoday-2": Check(
        names=("shard_work",),
        code='''\
cases = [(24, 3), (16, 2), (32, 4)]
works = [tuple(np.asarray(part) for part in shard_work(n, r)) for n, r in cases]
shapes = all(b.shape == (r,) and c.shape == (r,) for (n, r), (b, c) in zip(cases, works))
totals = [(int(b.sum()), int(c.sum()), n * (n + 1) // 2) for (n, r), (b, c) in zip(cases, works)]
whole = shapes and all(b == t and c == t for b, c, t in totals)
even = shapes and all(len(set(b.tolist())) == 1 for b, _ in works)
rising = shapes and all(bool(np.all(np.diff(c) > 0)) for _, c in works)
return [
    (shapes, ""),
    (whole, f"{totals[0][0]} and {totals[0][1]} pairs for 24 positions, of {totals[0][2]}" if shapes else ""),
    (even, ""),
    (rising, ""),
]''',
        define={
            "en": "Define `shard_work(seq_len, ranks)`: it returns two arrays with one number per rank, the "
            "causal (query, key) pairs of each rank under load-balanced and under contiguous sharding.",
            "id": "Definisikan `shard_work(seq_len, ranks)`: fungsi ini mengembalikan dua *array* berisi "
            "satu angka untuk setiap *rank*, yaitu banyaknya pasangan (*query*, *key*) kausal setiap "
            "*rank* pada pembagian seimbang dan pada pembagian bersambung.",
            "ko": "`shard_work(seq_len, ranks)`를 정의하라. 랭크마다 숫자 하나씩 담은 배열 두 개를 돌려준다. "
            "부하를 고르게 나눈 분할과 연속 분할에서 각 랭크가 맡는 인과적 (쿼리, 키) 쌍의 수이다.",
        },
        claims={
            "en": (
                "each array has one number per rank",
                "under both shardings the ranks together do every causal pair, seq_len (seq_len + 1) / 2",
                "load-balanced, every rank does the same work",
                "contiguous, each rank does more than the one before it",
            ),
            "id": (
                "setiap *array* berisi satu angka untuk setiap *rank*",
                "pada kedua pembagian, semua *rank* bersama-sama mengerjakan setiap pasangan kausal, "
                "seq_len (seq_len + 1) / 2",
                "pada pembagian seimbang, setiap *rank* mengerjakan beban yang sama",
                "pada pembagian bersambung, setiap *rank* mengerjakan lebih banyak daripada "
                "*rank* sebelumnya",
            ),
            "ko": (
                "두 배열 모두 랭크마다 숫자가 하나씩 있다",
                "두 분할 모두에서 랭크들이 함께 모든 인과적 쌍, 곧 seq_len (seq_len + 1) / 2개를 맡는다",
                "고르게 나누면 모든 랭크의 일이 같다",
                "연속으로 나누면 각 랭크가 바로 앞 랭크보다 일이 많다",
            ),
        },
        wrong='''\
def shard_work(seq_len, ranks):
    # counts the positions a rank holds, not the keys each of its queries sees
    balanced = posenc.load_balanced_positions(seq_len, ranks).sum(axis=1)
    contiguous = np.arange(seq_len).reshape(ranks, -1).sum(axis=1)
    return balanced, contiguous''',
    ),
}
