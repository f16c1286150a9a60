"""``python -m posenc.bench``: run the benchmark and exit with its status (0 if every target is met)."""

from posenc.bench import main

raise SystemExit(main())
