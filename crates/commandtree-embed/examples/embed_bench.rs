//! The Rust side of `bench/embed.sh`: embeddings per second at given batch sizes, the latency
//! of one short query, and the latency of a search over 100,000 stored embeddings (query
//! embedding included), plus loading those 100,000 from SQLite.
//!
//! Usage: embed_bench MODEL_DIR TEXTS_FILE SECONDS BATCH...
//! Prints `key value` lines for the script to tabulate.

use commandtree_embed::search::Index;
use commandtree_embed::{Embedder, to_blob};
use std::time::Instant;

const STORED: usize = 100_000;
const QUERY: &str = "reset the development database";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: embed_bench MODEL_DIR TEXTS_FILE SECONDS BATCH...");
        std::process::exit(2);
    }
    let e = Embedder::load(std::path::Path::new(&args[1])).unwrap_or_else(|err| {
        eprintln!("{err}");
        std::process::exit(1)
    });
    let texts: Vec<String> = std::fs::read_to_string(&args[2])
        .expect("texts file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    let seconds: f64 = args[3].parse().expect("seconds");
    println!("isa {}", e.isa());
    println!("threads {}", e.threads());
    let tokens: usize = texts.iter().map(|t| e.tokenize(t).unwrap().len()).sum();
    println!("mean_tokens {:.1}", tokens as f64 / texts.len() as f64);

    for bs in args[4..]
        .iter()
        .map(|s| s.parse::<usize>().expect("batch size"))
    {
        let batch: Vec<&str> = (0..bs).map(|i| texts[i % texts.len()].as_str()).collect();
        for _ in 0..3 {
            e.embed(&batch).unwrap();
        }
        let start = Instant::now();
        let mut n = 0;
        while start.elapsed().as_secs_f64() < seconds {
            e.embed(&batch).unwrap();
            n += bs;
        }
        println!("bs{bs} {:.1}", n as f64 / start.elapsed().as_secs_f64());
    }

    let mut lat: Vec<f64> = (0..300)
        .map(|_| {
            let t = Instant::now();
            e.embed_one(QUERY).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    println!("query_ms {:.2}", lat[lat.len() / 2]);
    println!("query_p95_ms {:.2}", lat[lat.len() * 95 / 100]);

    // 100,000 stored embeddings: the bench texts' vectors, each copy moved a little, so the
    // index holds distinct realistic unit vectors.
    let base = e.embed(&texts).unwrap();
    let mut index = Index::default();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut noise = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let mut stored = Vec::with_capacity(STORED);
    for i in 0..STORED {
        let mut v = base[i % base.len()];
        for x in v.iter_mut() {
            *x += 0.05 * noise();
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        index.push(format!("cmd:{i}"), &v);
        stored.push(v);
    }
    let mut lat: Vec<f64> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let hits = index.query(&e, QUERY, 0.3, 20).unwrap();
            std::hint::black_box(hits);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    println!("search100k_ms {:.2}", lat[lat.len() / 2]);

    // The same 100,000 read back from a workspace database, as `ct search` does.
    let dir = tempfile::Builder::new()
        .prefix("ct-embed-bench-")
        .tempdir()
        .unwrap();
    let db = dir.path().join("commandtree.sqlite3");
    let mut store = commandtree_store::Store::open(&db, true).unwrap().unwrap();
    store
        .write(|tx| {
            let mut st = tx.prepare(
                "INSERT INTO commands (command_id, content_hash, summary, embedding, security_warning, last_updated)
                 VALUES (?1, '', 'summary', ?2, NULL, '')",
            )?;
            for (i, v) in stored.iter().enumerate() {
                st.execute((format!("cmd:{i}"), to_blob(v)))?;
            }
            Ok(())
        })
        .unwrap();
    let mut lat: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let idx = Index::load(&store, &|_| true).unwrap();
            assert_eq!(idx.len(), STORED);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    println!("dbload100k_ms {:.1}", lat[lat.len() / 2]);
    drop(store);
}
