#!/usr/bin/env python3
"""Writes a synthetic workspace of copies of a realistic project layout (about 1,000 files each:
sources, tests, docs, scripts, build files of many tools, node_modules, .git, a gitignored build
folder). With --python, each copy is a Python project instead: about 1,000 files, most of them
library modules of 1-24 KiB that discovery must read to learn they are not runnable, a few
scripts with a `__main__` block, docs, shell scripts, a package.json and a Makefile.
Usage: make_tree.py DEST COPIES [--python]"""
import json, os, random, sys

def w(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)

def project(d, n):
    count = 0
    for i in range(40):
        for j in range(12):
            ext = [".ts", ".rs", ".go", ".java", ".c", ".h"][j % 6]
            w(f"{d}/src/mod{i}/sub{i % 5}/file{j}{ext}", f"// module {i} file {j}\nexport const x{j} = {i};\n")
            count += 1
    for i in range(60):
        w(f"{d}/tests/unit/test_{i}.spec.ts", "describe('x', () => {});\n"); count += 1
    for i in range(20):
        w(f"{d}/docs/guide/page{i}.md", f"# Page {i}\n\nHow to use feature {i}.\n"); count += 1
    for i in range(10):
        w(f"{d}/scripts/task{i}.sh", f"#!/usr/bin/env bash\n# Run task {i}\n# @param env Target environment (default: dev)\necho {i}\n", 0o755); count += 1
    for i in range(4):
        w(f"{d}/tools/tool{i}.py", f'"""Tool {i}."""\nimport argparse\nif __name__ == "__main__":\n    p = argparse.ArgumentParser()\n    p.add_argument("--count", help="How many")\n'); count += 1
    scripts = {f"script{i}": f"node tools/run.js --step {i}" for i in range(20)}
    w(f"{d}/package.json", json.dumps({"name": f"p{n}", "scripts": scripts}, indent=2))
    w(f"{d}/package-lock.json", "{}\n")
    w(f"{d}/Makefile", "CC := gcc\n.PHONY: all\n" + "".join(f"target{i}: dep ## Target {i}\n\techo {i}\n" for i in range(30)))
    w(f"{d}/justfile", "set shell := ['bash', '-c']\n" + "".join(f"# Recipe {i}\nrecipe{i} arg='x':\n    echo {i}\n" for i in range(10)))
    w(f"{d}/Taskfile.yml", "version: '3'\ntasks:\n" + "".join(f"  task{i}:\n    desc: Task {i}\n    cmds: [echo {i}]\n" for i in range(10)))
    w(f"{d}/Cargo.toml", f"[package]\nname = \"p{n}\"\nversion = \"0.1.0\"\n")
    w(f"{d}/docker-compose.yml", "services:\n  web:\n    image: nginx\n  db:\n    image: postgres\n")
    w(f"{d}/Dockerfile", "FROM alpine\n")
    w(f"{d}/pyproject.toml", "[project]\nname = \"x\"\n[project.scripts]\ncli = \"x.main:run\"\n")
    w(f"{d}/README.md", f"# Project {n}\n")
    w(f"{d}/.vscode/tasks.json", '{"version":"2.0.0","tasks":[{"label":"build","type":"shell","command":"make"}]}')
    w(f"{d}/.vscode/launch.json", '{"configurations":[{"name":"Run","type":"node","request":"launch"}]}')
    w(f"{d}/.gitignore", "build/\n")
    count += 15
    for p in range(20):
        w(f"{d}/node_modules/pkg{p}/package.json", json.dumps({"name": f"pkg{p}", "scripts": {"build": "x"}}))
        for f in range(9):
            w(f"{d}/node_modules/pkg{p}/lib/f{f}.js", "module.exports = 1;\n")
        count += 10
    for i in range(60):
        w(f"{d}/.git/objects/{i:02x}/obj{i}", "blob\n"); count += 1
    for i in range(100):
        w(f"{d}/build/out{i}.o", "obj\n"); count += 1
    while count < 1000:
        w(f"{d}/assets/img{count}.svg", "<svg/>\n"); count += 1
    return count

FUNC = '''def {name}(self, value, *, strict=False):
    """Return the {name} of ``value`` (raises ValueError when strict and unknown).

    Café-safe: non-ASCII text such as naïve or Zürich is kept as it is.
    """
    if value is None:
        return self.default
    result = [item for item in self.items if item.key == value]
    if strict and not result:
        raise ValueError(f"unknown {{value!r}} in {name}")
    return result[0] if result else self.default

'''

def python_module(rng, i, j):
    body = [f'"""Module {i}.{j}: helpers for the {j} subsystem."""\n',
            "from __future__ import annotations\n\nimport os\nimport re\n\n",
            f"class Handler{j}:\n    default = None\n\n"]
    size = rng.choice([1, 2, 2, 3, 4, 6, 8, 12, 24]) * 1024
    k = 0
    while sum(map(len, body)) < size:
        body.append("    " + FUNC.format(name=f"lookup_{k}").replace("\n", "\n    ").rstrip(" "))
        k += 1
    return "".join(body)

def python_project(d, n):
    rng = random.Random(n)
    count = 0
    for i in range(30):
        for j in range(30):
            w(f"{d}/src/pkg{n}/mod{i}/m{j}.py", python_module(rng, i, j)); count += 1
    main = '\n\nif __name__ == "__main__":\n    import argparse\n    p = argparse.ArgumentParser()\n    p.add_argument("--count", help="How many")\n'
    for i in range(4):
        w(f"{d}/tools/tool{i}.py", python_module(rng, 99, i) + main); count += 1
    w(f"{d}/manage.py", '#!/usr/bin/env python3\n"""Management commands."""\nimport sys\n', 0o755); count += 1
    for i in range(60):
        w(f"{d}/tests/test_{i}.py", python_module(rng, 98, i)); count += 1
    for i in range(20):
        w(f"{d}/docs/page{i}.md", f"# Page {i}\n\nHow to use feature {i}.\n"); count += 1
    for i in range(5):
        w(f"{d}/scripts/task{i}.sh", f"#!/usr/bin/env bash\n# Run task {i}\necho {i}\n", 0o755); count += 1
    w(f"{d}/package.json", json.dumps({"name": f"p{n}", "scripts": {"lint": "eslint ."}}, indent=2))
    w(f"{d}/Makefile", "".join(f"target{i}: ## Target {i}\n\techo {i}\n" for i in range(5)))
    w(f"{d}/README.md", f"# Project {n}\n")
    count += 3
    while count < 1000:
        w(f"{d}/data/row{count}.csv", "a,b\n1,2\n"); count += 1
    return count

dest, copies = sys.argv[1], int(sys.argv[2])
make = python_project if "--python" in sys.argv[3:] else project
total = sum(make(os.path.join(dest, f"proj{n:04d}"), n) for n in range(copies))
print(total)
