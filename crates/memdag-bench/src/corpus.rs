//! The generated corpus: clustered unit vectors and replicated text, from a fixed seed.

/// SplitMix64 random numbers; the seed is printed with every report.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn gauss(&mut self) -> f64 {
        let u = self.unit().max(1e-12);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (core::f64::consts::TAU * v).cos()
    }
}

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

/// Unit vectors around `centres` random centres, with Gaussian noise `sigma` per coordinate,
/// re-normalized: the shape of real sentence embeddings (PEERS.md uses 200 centres, 0.06).
#[derive(Debug, Clone)]
pub struct Clusters {
    centres: Vec<Vec<f32>>,
    sigma: f64,
    dim: usize,
}

impl Clusters {
    /// `count` centres in `dim` dimensions.
    pub fn new(rng: &mut Rng, count: usize, dim: usize, sigma: f64) -> Self {
        let centres = (0..count)
            .map(|_| {
                let mut c: Vec<f32> = (0..dim).map(|_| rng.gauss() as f32).collect();
                normalize(&mut c);
                c
            })
            .collect();
        Clusters {
            centres,
            sigma,
            dim,
        }
    }

    /// One vector near a random centre.
    pub fn sample(&self, rng: &mut Rng) -> Vec<f32> {
        let c = &self.centres[(rng.next_u64() % self.centres.len() as u64) as usize];
        let mut v: Vec<f32> = (0..self.dim)
            .map(|i| c[i] + (self.sigma * rng.gauss()) as f32)
            .collect();
        normalize(&mut v);
        v
    }
}

/// The generated vectors of a workload: `n` record vectors, then `queries` query vectors, all
/// from one [`Clusters`] drawn first from `Rng(seed)`. The workload and the peers comparison
/// (`tests/bench/peers.mjs`, through the wasm module) both take their vectors from here.
pub fn vector_corpus(
    seed: u64,
    centres: usize,
    dim: usize,
    sigma: f64,
    n: usize,
    queries: usize,
) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let mut rng = Rng(seed);
    let clusters = Clusters::new(&mut rng, centres, dim, sigma);
    let records = (0..n).map(|_| clusters.sample(&mut rng)).collect();
    let qs = (0..queries).map(|_| clusters.sample(&mut rng)).collect();
    (records, qs)
}

/// The `k` record vectors of [`vector_corpus`]`(seed, centres, dim, sigma, n, _)` nearest to
/// each of `queries` (unit vectors), by record index, nearest first: the exact reference, from
/// the `f32` vectors themselves, whatever precision a store keeps them at. The records are
/// generated again one at a time, so the corpus is never held.
pub fn true_nearest(
    seed: u64,
    centres: usize,
    dim: usize,
    sigma: f64,
    n: usize,
    queries: &[Vec<f32>],
    k: usize,
) -> Vec<Vec<u32>> {
    use memdag_core::index::topk::TopK;
    let mut rng = Rng(seed);
    let clusters = Clusters::new(&mut rng, centres, dim, sigma);
    let mut tops: Vec<TopK> = queries.iter().map(|_| TopK::new(k)).collect();
    for i in 0..n {
        let v = clusters.sample(&mut rng);
        for (q, top) in queries.iter().zip(&mut tops) {
            let sim = memdag_core::index::distance::dot(q, &v);
            top.push(i as u32, sim);
        }
    }
    tops.into_iter()
        .map(|t| t.into_sorted().into_iter().map(|s| s.doc).collect())
        .collect()
}

/// Base texts to replicate: the LoCoMo dev turns when given, else a synthetic vocabulary.
pub fn synthetic_texts(rng: &mut Rng, count: usize) -> Vec<String> {
    const WORDS: &[&str] = &[
        "deploy", "agent", "memory", "cache", "error", "retry", "user", "thread", "vector",
        "index", "query", "token", "summary", "budget", "latency", "tool", "search", "result",
        "config", "server", "client", "request", "timeout", "weekend", "painting", "family",
        "camping", "music", "book", "friend", "career", "support", "group", "beach",
    ];
    (0..count)
        .map(|_| {
            let len = 8 + (rng.next_u64() % 20) as usize;
            let mut s = String::new();
            for i in 0..len {
                // A Zipf-like skew: low word indices are common.
                let r = rng.unit();
                let w = WORDS[((r * r) * WORDS.len() as f64) as usize % WORDS.len()];
                if i > 0 {
                    s.push(' ');
                }
                s.push_str(w);
                if rng.next_u64().is_multiple_of(7) {
                    s.push_str(&format!(" w{}", rng.next_u64() % 5000));
                }
            }
            s
        })
        .collect()
}

/// The text of record `i` of a corpus replicated from `base`: copies suffixed ` #<copy>`.
pub fn replicated(base: &[String], i: usize) -> String {
    let copy = i / base.len();
    if copy == 0 {
        base[i].clone()
    } else {
        format!("{} #{copy}", base[i % base.len()])
    }
}
