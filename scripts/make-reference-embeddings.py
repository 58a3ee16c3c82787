#!/usr/bin/env python3
"""Writes the reference embeddings the Rust embedder is tested against
(crates/commandtree-embed/tests/data/reference.json), computed by sentence-transformers itself.

Run once, by hand; the output is committed. It needs sentence-transformers, which pulls torch
(several GB), so use a virtual environment outside the repository:

    python3 -m venv ../venvs/st && ../venvs/st/bin/pip install sentence-transformers
    bash scripts/fetch-test-model.sh
    ../venvs/st/bin/python scripts/make-reference-embeddings.py [MODEL_DIR]

MODEL_DIR defaults to the cache folder fetch-test-model.sh fills. Vectors are stored as base64
of 384 little-endian float32 values: exact and compact.
"""

import base64
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "commandtree-embed", "tests", "data", "reference.json")

LONG_SUMMARY = (
    "Runs the complete release pipeline for the web application: it installs the locked "
    "dependencies, compiles the TypeScript sources with the production configuration, runs the "
    "unit and integration test suites with coverage, bundles and minifies the client assets, "
    "builds a Docker image tagged with the current commit, pushes it to the registry and finally "
    "deploys it to the staging cluster with Helm, waiting for every pod to become ready."
)

README_TEXT = " ".join(
    [
        "CommandTree discovers every runnable command in a workspace, including shell scripts,",
        "npm scripts, Makefile targets, VS Code tasks and launch configurations, just recipes,",
        "Taskfiles, mise tasks, Cargo, Gradle, Maven, Docker Compose and .NET projects.",
        "It shows them as one tree, runs them with parameters, lets the user star and tag them,",
        "explains each one in plain language with a security warning when it is dangerous,",
        "and finds them by meaning with local embeddings computed on the CPU.",
    ]
    * 8
)

BASH_SCRIPT = "\n".join(
    [
        "#!/usr/bin/env bash",
        "# Resets the development database and loads the fixtures.",
        "set -euo pipefail",
        'DB_URL="${DATABASE_URL:-postgres://localhost:5432/dev}"',
        'psql "$DB_URL" -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public;"',
        "for f in migrations/*.sql; do",
        '  echo "applying $f"',
        '  psql "$DB_URL" -f "$f"',
        "done",
        'psql "$DB_URL" -f fixtures/seed.sql',
        'echo "done: $(date -u +%Y-%m-%dT%H:%M:%SZ)"',
    ]
    * 6
)

SENTENCES = [
    "npm run build",
    "cargo test --workspace --locked",
    "make clean && make -j4 all",
    "python -m pytest tests/ -x -q",
    "docker compose up -d --build api worker",
    "",
    "   \n\t  ",
    "lint",
    "Builds the TypeScript project and outputs to the dist directory.",
    "Deletes every file under /var/lib/app and restarts the service as root. "
    "Warning: this cannot be undone and wipes production data.",
    LONG_SUMMARY,
    README_TEXT,
    BASH_SCRIPT,
    "Déploie l'application sur le serveur de préproduction 🚀 et vérifie les journaux.",
    "运行所有单元测试并生成覆盖率报告",
    "データベースをリセットして、初期データを投入します。",
    "개발 서버를 시작하고 파일 변경을 감시합니다",
    "تشغيل خادم التطوير المحلي",
    "🔥🚀✨",
    "#!/usr/bin/env bash\nset -euo pipefail\nrm -rf dist/\ntsc -p tsconfig.build.json\ncp -r assets dist/",
    "re\u200bset the cafe\u0301 ＤＡＴＡＢＡＳＥ",
    "a" * 400,
    'ct search "reset the dev database" --json --limit 5',
    "Straße prüfen und Größe ändern",
    "supercalifragilistic" * 8,
    "tab\there\x00null\x1bescape\u00adsoft",
    "Starts the local development server with hot reloading.",
    README_TEXT * 3,
]


def main() -> None:
    from sentence_transformers import SentenceTransformer
    import sentence_transformers
    import torch

    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "commandtree", "models", "all-MiniLM-L6-v2",
    )
    model = SentenceTransformer(model_dir, device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    vectors = model.encode(SENTENCES, batch_size=8, convert_to_numpy=True)
    out = []
    for text, vec in zip(SENTENCES, vectors):
        tokenize = getattr(model, "preprocess", None) or model.tokenize
        tokens = len(tokenize([text])["input_ids"][0])
        raw = struct.pack("<384f", *[float(x) for x in vec])
        out.append({"text": text, "tokens": tokens, "f32le": base64.b64encode(raw).decode()})
    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "generator": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}",
        "script": "scripts/make-reference-embeddings.py",
        "sentences": out,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(out)} sentences to {os.path.relpath(OUT)}; tokens: {[s['tokens'] for s in out]}")


if __name__ == "__main__":
    main()
