//! Query latency of search with both indexes warm (the lexical index built, the embeddings in
//! memory), on synthetic workspaces of 10,000 and 100,000 commands: the semantic-only ranking
//! (what search was before: similarity above the threshold, best first) against the hybrid one
//! (every similarity, the BM25 list and their fusion), in the same run. The query's own
//! embedding is left out of both (the same model call either way). Run by `bench/search-latency.sh`.

use commandtree_core::CommandItem;
use commandtree_embed::search::Index as Vectors;
use commandtree_engine::lexical;
use commandtree_engine::names::At;
use commandtree_engine::search::{Ask, DEFAULT_THRESHOLD, fuse};
use std::path::Path;
use std::time::Instant;

const VERBS: &[&str] = &[
    "build", "test", "lint", "format", "deploy", "clean", "serve", "watch", "release", "bench",
    "migrate", "seed", "docs", "check", "install", "package",
];
const NOUNS: &[&str] = &[
    "api", "web", "cli", "core", "db", "ui", "worker", "auth", "billing", "search", "mobile",
    "admin", "gateway", "cache", "queue", "report",
];

mod common;
use common::Lcg;

/// A number in [-1, 1).
fn unit(rng: &mut Lcg) -> f32 {
    (rng.next() % 20_000) as f32 / 10_000.0 - 1.0
}

fn workspace(n: usize, rng: &mut Lcg) -> (Vec<CommandItem>, Vectors) {
    let mut commands = Vec::with_capacity(n);
    let mut vectors = Vectors::default();
    for i in 0..n {
        let verb = VERBS[rng.next() as usize % VERBS.len()];
        let noun = NOUNS[rng.next() as usize % NOUNS.len()];
        let pkg = format!("/w/packages/{noun}-{}/package.json", i / 40);
        let label = format!("{verb}:{noun}{}", i % 97);
        let mut c = CommandItem::new("npm", Path::new(&pkg), &label, format!("npm run {label}"));
        c.description = Some(format!("{verb} the {noun} service ({i})"));
        commands.push(c);
        let mut v = [0f32; commandtree_embed::DIM];
        for x in v.iter_mut() {
            *x = unit(rng);
        }
        vectors.push(commands[i].id.clone(), &v);
    }
    (commands, vectors)
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let mut rng = Lcg(7);
    let root = Path::new("/w");
    println!("| commands | semantic only (ms) | hybrid (ms) | ratio | target |");
    println!("|---|---|---|---|---|");
    for (n, target) in [(10_000usize, 20.0), (100_000, 50.0)] {
        let (commands, vectors) = workspace(n, &mut rng);
        let lex = lexical::Index::build(commands.iter().map(|c| lexical::fields(c, root, None)));
        let at = At::root(root);
        let ask = Ask::default();
        let (mut semantic, mut hybrid) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            let mut q = [0f32; commandtree_embed::DIM];
            for x in q.iter_mut() {
                *x = unit(&mut rng);
            }
            let text = format!(
                "{} the {} service",
                VERBS[r % VERBS.len()],
                NOUNS[r % NOUNS.len()]
            );
            let t = Instant::now();
            let hits = vectors.search(&q, DEFAULT_THRESHOLD, ask.limit);
            std::hint::black_box(hits);
            semantic.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            // The index holds the commands in their order (as `similarities` maps rows back).
            let sims: Vec<Option<f32>> = vectors.scores(&q).into_iter().map(Some).collect();
            let ranked = lex.rank(&text);
            let hits = fuse(at, &commands, &text, &ranked, Some(&sims), &ask);
            std::hint::black_box(hits);
            hybrid.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (s, h) = (median(semantic), median(hybrid));
        println!(
            "| {n} | {s:.1} | {h:.1} | {:.2}x | hybrid <= {target} ms: {} |",
            h / s,
            if h <= target { "met" } else { "NOT met" }
        );
    }
}
