"""sentence-transformers side of bench/embed.sh: embeddings/s of all-MiniLM-L6-v2 on the CPU.

Usage: embed_st.py MODEL_DIR THREADS SECONDS BATCH...
Prints one line per batch size: `st BS EMB_PER_S`. The workload (bench/embed_texts.txt) and the
timing rules (warm-up, fixed wall time, tokenisation and pooling included) are the same as the
Rust side's, so the two numbers compare directly.
"""

import os
import sys

import embed_rate


def main() -> None:
    model_dir, threads, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    sizes = [int(s) for s in sys.argv[4:]]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "embed_texts.txt"), encoding="utf-8") as f:
        texts = [line.rstrip("\n") for line in f if line.strip()]
    model = SentenceTransformer(model_dir, device="cpu")
    with torch.inference_mode():
        embed_rate.report(
            "st", lambda batch: model.encode(batch, batch_size=len(batch)), texts, sizes, seconds
        )


if __name__ == "__main__":
    main()
