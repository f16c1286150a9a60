"""The book's build: the site, notebook execution, the Colab cell, the handouts, the Sphinx extensions
and templates, and the words of the site, the handouts and the PDF (``locale/*.po``).

It is installed into .venv (editable, by requirements.txt) and is not part of posenc's wheel: the book
depends on posenc, never the reverse. ``python -m posenc_book build | execute | handouts | colab | toc``
backs the Makefile's targets.
"""
