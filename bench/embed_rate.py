"""The timing loop bench/embed_st.py and bench/embed_ort.py share, so both sides of
bench/embed.sh measure alike: per batch size, three warm-up calls, then whole calls until
`seconds` have passed; one line `NAME BS EMB_PER_S` each."""

import time


def report(name, encode, texts, sizes, seconds):
    for bs in sizes:
        batch = [texts[i % len(texts)] for i in range(bs)]
        for _ in range(3):
            encode(batch)
        n = 0
        start = time.perf_counter()
        while True:
            encode(batch)
            n += bs
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        print(f"{name} {bs} {n / elapsed:.1f}", flush=True)
