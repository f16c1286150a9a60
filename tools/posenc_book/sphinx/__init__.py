"""The Sphinx extensions of every edition, loaded by module name (``posenc_book.sphinx.<name>``)
from _config.yml and posenc_book.build."""
