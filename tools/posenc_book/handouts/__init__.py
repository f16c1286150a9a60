"""The student handouts: the chapters without solutions (strip), with answer and check cells (checks)."""
