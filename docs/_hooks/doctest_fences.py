"""MkDocs hook: ``>>>`` examples outside code fences become ```` ```pycon ```` blocks,
and Sphinx roles such as ``:func:`name``` become code.

The package's docstrings carry doctests (they run in tests/test_doctests.py) as plain
reST-style text; in Markdown their ``>>>`` lines would render as nested quotes and their
``[...]`` outputs as links. Fencing them shows them as the Python sessions they are.
"""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor
from mkdocs.plugins import event_priority

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# Sphinx roles in docstrings (:func:`aec_env`, :class:`~x.Y`) are shown as code.
ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


class DoctestFences(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fence = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            opened = FENCE.match(line)
            if fence:
                fence = "" if line.strip().startswith(fence) else fence
            elif opened:
                fence = opened.group(1)
            elif line.lstrip().startswith(">>>"):
                indent = line[: len(line) - len(line.lstrip())]
                out += ["", indent + "```pycon"]
                while i < len(lines) and lines[i].strip():
                    out.append(lines[i])
                    i += 1
                out += [indent + "```", ""]
                continue
            out.append(ROLE.sub(r"`\1`", line))
            i += 1
        return out


class DoctestFencesExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # the name is Markdown's API
        # Before superfences (priority 25 or lower) turns fences into code blocks.
        md.preprocessors.register(DoctestFences(md), "doctest_fences", 40)


@event_priority(100)  # before mkdocstrings reads the Markdown extensions
def on_config(config: Any) -> Any:
    config.markdown_extensions.append(DoctestFencesExtension())
    return config
