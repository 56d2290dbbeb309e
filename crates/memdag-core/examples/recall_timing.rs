//! Times Mode-1 recall on synthetic stores of 10k and 100k records.
//!
//! ```text
//! cargo run -p memdag-core --release --example recall_timing [-- 10000 100000]
//! ```
//! Records: 2,000 threads, 200 users, text of words with Zipf frequencies from a 4,096-word
//! vocabulary, one in three
//! citing up to two earlier records, one in four with a compact node. Each recall has a
//! 2,000-token budget, the thread and user of a random record, and two keywords drawn
//! like the text (so often common words), then again without keywords.

use std::time::Instant;

use memdag_core::recall::RecallQuery;
use memdag_core::search::SearchQuery;
use memdag_core::{CompactNode, NewTurn, Section, Step, Store};

/// Syllables of the synthetic vocabulary.
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tas", "vo", "qui", "zel", "dor", "pha", "nu", "sti", "gra", "bel",
    "ox", "yun",
];
/// Distinct words in the synthetic vocabulary.
const VOCAB_SIZE: usize = 4096;

/// xorshift64*: small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Words drawn with Zipf frequencies (s = 1), like natural text: a few very common words and a
/// long tail of rare ones.
struct Vocab {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Vocab {
    fn new() -> Self {
        let words = (0..VOCAB_SIZE)
            .map(|i| {
                let (a, b, c) = (i % 16, (i / 16) % 16, i / 256);
                format!("{}{}{}", SYLLABLES[a], SYLLABLES[b], SYLLABLES[c % 16])
            })
            .collect();
        let mut total = 0.0;
        let cumulative = (0..VOCAB_SIZE)
            .map(|r| {
                total += 1.0 / (r as f64 + 1.0);
                total
            })
            .collect();
        Vocab { words, cumulative }
    }
    fn word(&self, rng: &mut Rng) -> &str {
        let total = self.cumulative[VOCAB_SIZE - 1];
        let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let i = self
            .cumulative
            .partition_point(|&c| c < x)
            .min(VOCAB_SIZE - 1);
        &self.words[i]
    }
    fn sentence(&self, rng: &mut Rng, words: usize) -> String {
        (0..words)
            .map(|_| self.word(rng))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn build(n: usize, rng: &mut Rng, v: &Vocab) -> Store {
    let mut store = Store::new();
    for i in 0..n {
        let parents = if i > 0 && rng.below(3) == 0 {
            (0..1 + rng.below(2))
                .map(|_| format!("r{}", rng.below(i)))
                .collect()
        } else {
            Vec::new()
        };
        let compact = (rng.below(4) == 0).then(|| CompactNode {
            summary: v.sentence(rng, 12),
            sections: vec![
                Section {
                    name: "Goal".into(),
                    text: v.sentence(rng, 10),
                },
                Section {
                    name: "Progress".into(),
                    text: v.sentence(rng, 25),
                },
            ],
        });
        let steps = (0..rng.below(4))
            .map(|_| Step {
                tool: "shell".into(),
                args: v.sentence(rng, 4),
                result: v.sentence(rng, 40),
                ok: rng.below(5) != 0,
            })
            .collect();
        let (in_len, out_len) = (15 + rng.below(30), 20 + rng.below(60));
        store
            .add_turn(NewTurn {
                id: Some(format!("r{i}")),
                thread: format!("t{}", rng.below(2000)),
                user: format!("u{}", rng.below(200)),
                created_at: 1_700_000_000_000 + i as i64 * 30_000,
                input: v.sentence(rng, in_len),
                output: v.sentence(rng, out_len),
                steps,
                parents,
                compact,
                ..Default::default()
            })
            .expect("add");
    }
    store
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000]
    } else {
        sizes
    };
    for n in sizes {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let vocab = Vocab::new();
        let t = Instant::now();
        let mut store = build(n, &mut rng, &vocab);
        let build_s = t.elapsed().as_secs_f64();
        for keywords in [true, false] {
            let mut times = Vec::new();
            let mut search_times = Vec::new();
            let mut tokens = 0;
            for _ in 0..500 {
                let r = store
                    .get(&format!("r{}", rng.below(n)))
                    .expect("record")
                    .clone();
                let q = RecallQuery {
                    thread: r.thread,
                    user: Some(r.user).filter(|u| !u.is_empty()),
                    keywords: if keywords {
                        vec![vocab.word(&mut rng).into(), vocab.word(&mut rng).into()]
                    } else {
                        Vec::new()
                    },
                    budget_tokens: 2000,
                    ..Default::default()
                };
                if keywords {
                    // The search that recall's match section runs, alone.
                    let sq = SearchQuery {
                        text: q.keywords.join(" "),
                        k: 16,
                        snippets: false,
                        ..Default::default()
                    };
                    let t = Instant::now();
                    store.search(&sq).expect("search");
                    search_times.push(t.elapsed().as_secs_f64() * 1e3);
                }
                let t = Instant::now();
                let recall = store.recall(&q).expect("recall");
                times.push(t.elapsed().as_secs_f64() * 1e3);
                tokens += recall.tokens;
                assert!(recall.tokens <= 2000);
            }
            times.sort_by(f64::total_cmp);
            let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
            println!(
            "records {n:>7}  build {build_s:6.2} s  keywords {keywords:5}  recall p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms  mean block {} tokens",
            pct(0.5),
            pct(0.99),
            times[times.len() - 1],
            tokens / times.len()
        );
            if !search_times.is_empty() {
                search_times.sort_by(f64::total_cmp);
                let p50 = search_times[search_times.len() / 2];
                println!("{:>52}  of which search alone p50 {p50:.3} ms", "");
            }
        }
    }
}
