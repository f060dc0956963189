"""docs/api.md and docs/api/*.md name every op, namespace function, utility and kernel TF.js 4.22 has (read
from the vendored bundles as tests/ops/test_coverage.py reads them; its ALLOW names are left out): each name
as webtf spells it inside a code span, each kernel name anywhere in the text."""

from __future__ import annotations

import re
from pathlib import Path

from tests.ops.test_coverage import ALLOW, snake, tfjs_names

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_api_docs_name_every_tfjs_name(browser, server):
    names = tfjs_names(browser, server)
    text = "\n".join(p.read_text() for p in [DOCS / "api.md", *sorted((DOCS / "api").glob("*.md"))])
    in_code = set(re.findall(r"[A-Za-z_]\w*", " ".join(re.findall(r"`([^`]*)`", text))))
    words = set(re.findall(r"[A-Za-z_]\w*", text))
    missing = []
    for group, tfjs in sorted(names.items()):
        if group == "converter":
            continue  # graph op names: docs/api/extra.md and the graph-model docs describe them by family
        allowed = ALLOW.get(group, {})
        found = words if group.startswith("kernel:") else in_code
        for name in sorted(set(tfjs) - set(allowed)):
            if (name if group.startswith("kernel:") else snake(name)) not in found:
                missing.append(f"{group} {name}")
    assert not missing, f"{len(missing)} TF.js names the API docs do not name: {', '.join(missing)}"
