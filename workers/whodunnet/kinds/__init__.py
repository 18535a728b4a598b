"""Evidence kinds: one folder each, listed by ``whodunnet.registry``.

A kind folder holds everything about one kind of evidence: ``sniff.py`` (is a file of this
kind?), its parser and ``analyzer.py`` (file → summary and findings, streamed through
``text.read_text`` for text kinds), ``settings.py`` when a person can tune it,
``findings.py`` (how the UI shows each finding's numbers), ``combine.py`` when it draws
findings from several files, and ``fuzz_seeds/``. Its ``__init__.py`` puts them together
in one ``spec.Kind``. See ``docs/adding-an-evidence-kind.md``.
"""
