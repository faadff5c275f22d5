//! The hit ratios of classes of Chen's generators sharing one LRU page
//! cache, from their request streams alone, without I/O or time
//! (docs/PREDICTION.md, "Che's approximation and Chen's depth
//! distribution").
//!
//! Each class is `COUNT:SHARE_BYTES:WEIGHT`: that many generators (all
//! reads, of `SIZE` bytes on average, `SEQ` of them sequential), each over
//! its own file of `SHARE_BYTES`, each issuing requests at `WEIGHT` times
//! the rate of a generator of weight 1 (the next request comes from a
//! generator drawn in proportion to its weight). The files lie one after
//! another, the classes in the order given, and the cache starts with the
//! last pages of the last files, clean: as the simulator's does after
//! laying them out. A request hits if every page it covers is cached;
//! missing pages are cached as most recently used. Prints each class's
//! request and block (page) hit ratios over the second half of the
//! requests, and the block hit ratios two forms of Che's approximation
//! give for the same classes and rates:
//! - `che` as `willy`'s model has it: pages accessed uniformly and
//!   independently, a page of class `i` cached after touching `u` files'
//!   worth of pages with probability `1 - exp(-u)`;
//! - `che, own curve`: each generator's own LRU stack as Chen's depth
//!   distribution makes it, the one-generator block hit curve `H(x)` of a
//!   private cache of a fraction `x` of its file ([`StackProfile`]). After
//!   touching `u` files' worth of pages, the top `x(u)` of its stack is
//!   cached, with `u(x) = ∫_0^x dy / (1 - H(y))` (each touch below the
//!   cached part adds a page); `1 - exp(-u)` is the case `H(x) = x`.
//!   Both solve `Σ count·share·x_i(rate_i·T / share) = cache` for `T`,
//!   and give each class `H_i(x_i)`.
//!
//! `cargo run --release -p willy --example shared_lru -- CACHE_BYTES SIZE SEQ REQUESTS COUNT:SHARE_BYTES:WEIGHT ...`

use rand::{Rng, SeedableRng};
use willy::analysis::StackProfile;
use willy::generator::Generator;
use willy::sim::cache::PageCache;
use willy::workload::Workload;

const PAGE: u64 = 4096;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shared_lru: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// One class: how many generators, each one's file, and its weight.
struct Class {
    count: usize,
    share: u64,
    weight: f64,
}

fn parse(a: &[String]) -> Result<(u64, u64, f64, u64, Vec<Class>), String> {
    let usage = "usage: shared_lru CACHE_BYTES SIZE SEQ REQUESTS COUNT:SHARE_BYTES:WEIGHT ...";
    if a.len() < 5 {
        return Err(usage.into());
    }
    let num = |s: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| format!("not a number at least 0: {s} ({usage})"))
    };
    let classes = a[4..]
        .iter()
        .map(|spec| {
            let v = spec.split(':').map(num).collect::<Result<Vec<f64>, _>>()?;
            match v[..] {
                [count, share, weight] if count >= 1.0 && share >= PAGE as f64 && weight > 0.0 => {
                    Ok(Class {
                        count: count as usize,
                        share: share as u64,
                        weight,
                    })
                }
                _ => Err(format!(
                    "a class is COUNT:SHARE_BYTES:WEIGHT, at least 1, {PAGE} and above 0: {spec}"
                )),
            }
        })
        .collect::<Result<Vec<Class>, String>>()?;
    let (cache, size) = (num(&a[0])? as u64, num(&a[1])? as u64);
    let (seq, requests) = (num(&a[2])?, num(&a[3])? as u64);
    if cache < PAGE || requests < 2 {
        return Err(format!(
            "the cache needs a page at least, and REQUESTS 2 ({usage})"
        ));
    }
    Ok((cache, size, seq, requests, classes))
}

fn run() -> Result<(), String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (cache_bytes, size, seq, requests, classes) = parse(&a)?;
    // Every generator, its class, weight and first page.
    let mut gens = Vec::new();
    let mut next = 0u64;
    for (k, c) in classes.iter().enumerate() {
        let w = Workload::of(c.share, size, 1.0, seq, 1);
        w.validate().map_err(|e| e.to_string())?;
        for _ in 0..c.count {
            let g = Generator::new(&w, gens.len() as u32, 7);
            let first = next;
            next += g.blocks() * w.block_size.0 / PAGE;
            gens.push((g, k, c.weight, first));
        }
    }
    if next >= u64::from(u32::MAX) {
        return Err("the files are too large for the simulated cache".into());
    }
    let capacity = cache_bytes / PAGE;
    let mut cache = PageCache::new(capacity, next);
    for p in next.saturating_sub(capacity)..next {
        cache.insert(p as u32, false, 0);
    }
    let total: f64 = gens.iter().map(|g| g.2).sum();
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
    // Per class: requests, request hits, pages, page hits.
    let mut seen = vec![[0u64; 4]; classes.len()];
    for r in 0..requests {
        let mut x = rng.random::<f64>() * total;
        let mut i = 0;
        while i + 1 < gens.len() && x >= gens[i].2 {
            x -= gens[i].2;
            i += 1;
        }
        let (g, k, _, first) = &mut gens[i];
        let q = g.next_request();
        let start = *first + q.offset / PAGE;
        let pages = q.len.div_ceil(PAGE);
        let mut hits = 0;
        for p in start..start + pages {
            if cache.touch(p as u32) {
                hits += 1;
            } else {
                cache.insert(p as u32, false, 0);
            }
        }
        if r >= requests / 2 {
            let s = &mut seen[*k];
            s[0] += 1;
            s[1] += u64::from(hits == pages);
            s[2] += pages;
            s[3] += hits;
        }
    }
    let uniform = che(cache_bytes as f64, &classes, size, |_| Curve::uniform());
    let own = che(cache_bytes as f64, &classes, size, |c| {
        let w = Workload::of(c.share, size, 1.0, seq, 1);
        Curve::of(&StackProfile::measure(&w, 400_000, 1), c.share)
    });
    println!("class  requests  request hit ratio  block hit ratio  che    che, own curve");
    for (k, s) in seen.iter().enumerate() {
        let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
        println!(
            "{k:>5}  {:>8}  {:>17.4}  {:>15.4}  {:.4} {:>14.4}",
            s[0],
            ratio(s[1], s[0]),
            ratio(s[3], s[2]),
            uniform[k],
            own[k]
        );
    }
    Ok(())
}

/// A generator's block hit curve `H` on a grid of fractions of its file,
/// and `u(x) = ∫_0^x dy / (1 - H(y))` there.
struct Curve {
    h: Vec<f64>,
    u: Vec<f64>,
}

const STEPS: usize = 1000;

impl Curve {
    fn from(h: Vec<f64>) -> Curve {
        let mut u = vec![0.0; h.len()];
        for j in 1..h.len() {
            let miss = |i: usize| (1.0 - h[i]).max(1e-9);
            u[j] = u[j - 1] + 0.5 * (1.0 / miss(j - 1) + 1.0 / miss(j)) / STEPS as f64;
        }
        Curve { h, u }
    }

    /// Accesses uniform over the file: `H(x) = x`.
    fn uniform() -> Curve {
        Curve::from((0..=STEPS).map(|j| j as f64 / STEPS as f64).collect())
    }

    fn of(p: &StackProfile, share: u64) -> Curve {
        Curve::from(
            (0..=STEPS)
                .map(|j| p.block_hit_ratio(share * j as u64 / STEPS as u64))
                .collect(),
        )
    }

    /// The fraction cached after touching `u` files' worth, and `H` there.
    fn at(&self, u: f64) -> (f64, f64) {
        let j = self.u.partition_point(|&v| v < u);
        if j == 0 {
            return (0.0, self.h[0]);
        }
        if j > STEPS {
            return (1.0, self.h[STEPS]);
        }
        let f = (u - self.u[j - 1]) / (self.u[j] - self.u[j - 1]);
        let x = (j as f64 - 1.0 + f) / STEPS as f64;
        (x, self.h[j - 1] + f * (self.h[j] - self.h[j - 1]))
    }
}

/// Che's approximation for `classes` sharing `cache` bytes, each
/// generator touching `weight·size` bytes per unit of time, with each
/// class's curve from `curve`: every class's block hit ratio.
fn che(cache: f64, classes: &[Class], size: u64, curve: impl Fn(&Class) -> Curve) -> Vec<f64> {
    let curves: Vec<Curve> = classes.iter().map(curve).collect();
    let at = |t: f64| -> (f64, Vec<f64>) {
        let mut filled = 0.0;
        let mut hits = Vec::new();
        for (c, k) in classes.iter().zip(&curves) {
            let s = c.share as f64;
            let (x, h) = k.at(c.weight * size as f64 * t / s);
            filled += c.count as f64 * s * x;
            hits.push(h);
        }
        (filled, hits)
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    while at(hi).0 < cache {
        if hi > 1e300 {
            return at(hi).1;
        }
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if at(mid).0 < cache {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    at(hi).1
}
