"""ONNX Runtime side of bench/embed.sh: embeddings/s of all-MiniLM-L6-v2 exported with torch.onnx.

Usage: embed_ort.py MODEL_DIR ONNX_FILE THREADS SECONDS BATCH...
Exports the model's encoder (transformers' BertModel, from the same folder) to ONNX_FILE when it
is not there yet, then prints one line per batch size: `ort BS EMB_PER_S`. Tokenisation
(the model's fast tokenizer, truncated at 256, padded to the longest in the batch, as
sentence-transformers does), mean pooling and L2 normalisation are included in the timing, as on
the Rust and sentence-transformers sides. The export is checked against sentence-transformers
(cosine) before anything is timed.
"""

import os
import sys

import embed_rate


def export(model_dir: str, path: str) -> None:
    import torch
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = bert

        # Keyword arguments: the positional order of BertModel.forward changes between versions.
        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = Encoder().eval()
    ids = torch.ones((2, 16), dtype=torch.int64)
    mask = torch.ones((2, 16), dtype=torch.int64)
    types = torch.zeros((2, 16), dtype=torch.int64)
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, mask, types),
            tmp,
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                name: {0: "batch", 1: "seq"}
                for name in ["input_ids", "attention_mask", "token_type_ids", "last_hidden_state"]
            },
            opset_version=17,
            dynamo=False,
        )
    os.replace(tmp, path)


def main() -> None:
    model_dir, onnx_file = sys.argv[1], sys.argv[2]
    threads, seconds = int(sys.argv[3]), float(sys.argv[4])
    sizes = [int(s) for s in sys.argv[5:]]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not os.path.exists(onnx_file):
        export(model_dir, onnx_file)

    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(onnx_file, opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.enable_truncation(256)
    tok.enable_padding()  # to the longest of the batch

    def encode(batch):
        enc = tok.encode_batch(batch)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        (hidden,) = session.run(
            None,
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "embed_texts.txt"), encoding="utf-8") as f:
        texts = [line.rstrip("\n") for line in f if line.strip()]

    # The export must give sentence-transformers' vectors, or the speed means nothing.
    from sentence_transformers import SentenceTransformer

    want = SentenceTransformer(model_dir, device="cpu").encode(texts)
    got = encode(texts)
    worst = float(min((got * want).sum(axis=1) / np.linalg.norm(want, axis=1)))
    print(f"ort_min_cosine {worst:.9f}", file=sys.stderr)
    if worst < 0.999:
        sys.exit(f"the ONNX export disagrees with sentence-transformers (cosine {worst})")

    embed_rate.report("ort", encode, texts, sizes, seconds)


if __name__ == "__main__":
    main()
