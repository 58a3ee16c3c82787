#!/usr/bin/env python3
"""Generate JSON fixtures for the tests."""
import json
import pathlib

out = pathlib.Path("tests/fixtures")
out.mkdir(parents=True, exist_ok=True)
for i in range(10):
    (out / f"order_{i}.json").write_text(json.dumps({"id": i, "total": i * 10}))
print("wrote 10 fixtures")
