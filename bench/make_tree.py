#!/usr/bin/env python3
"""Writes a synthetic workspace of copies of a realistic project layout (about 1,000 files each:
sources, tests, docs, scripts, build files of many tools, node_modules, .git, a gitignored build
folder). Usage: make_tree.py DEST COPIES"""
import json, os, sys

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

dest, copies = sys.argv[1], int(sys.argv[2])
total = sum(project(os.path.join(dest, f"proj{n:04d}"), n) for n in range(copies))
print(total)
