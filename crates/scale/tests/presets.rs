//! The self-scaling benchmark on simulated presets: the caches it infers
//! and the curves it measures, against what each preset is built to show.
//!
//! Covered: sparc1990 (one cache), write-through (one), raw-disk (none) and
//! split-cache (a 4 MiB write cache and a 32 MiB read cache). Measured with
//! the random-read probe's onset and the random-write probe's centre
//! (`willy run --scale --target sim:PRESET`): sparc1990 22.21 MiB for 21
//! (+5.8%), write-through 68.91 for 64 (+7.7%), split-cache 4.07 and 34.85
//! for 4 and 32 (+1.8%, +8.9%): this generator's loop-like pattern keeps an
//! LRU cache whole a little past its size. The GiB-scale presets (hdd, ssd,
//! raid0) sweep to 16 GiB; they run with a shorter stopping rule (see
//! [`light`]) and find 4.14 GiB for 4 (+3.5%), 2.09 GiB for 2 (+4.5%) and
//! 1.04 GiB for 1 (+4.2%).

use std::time::Duration;
use willy::run::RunConfig;
use willy::sim::SimConfig;
use willy::workload::Workload;
use willy_scale::scaler::Focus;
use willy_scale::sweep::SweepPlan;

/// Virtual time is cheap: warm up until uniqueBytes have moved, measure
/// until the interval is tight.
fn cfg() -> RunConfig {
    RunConfig {
        min_duration: Duration::from_secs(5),
        max_duration: Duration::from_secs(300),
        warmup_max: Duration::from_secs(20_000),
        ..RunConfig::default()
    }
}

/// The cache sizes a preset is built with.
fn built_caches(name: &str) -> Vec<u64> {
    SimConfig::load(name)
        .unwrap()
        .cache_sizes_bytes
        .iter()
        .map(|b| b.0)
        .collect()
}

/// How much faster a curve's last point is than its first.
fn gain(t: &[f64]) -> f64 {
    t[t.len() - 1] / t[0]
}

fn within(got: &[u64], want: &[u64], tol: f64) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (*g as f64 / *w as f64 - 1.0).abs() <= tol)
}

#[test]
fn cache_sizes_of_the_small_presets() {
    for name in ["sparc1990", "write-through", "raw-disk", "split-cache"] {
        let want = built_caches(name);
        let s = scaled(name);
        let (got, regions) = (s.cache_sizes_bytes.clone(), s.regions.len());
        eprintln!("{name}: inferred {got:?}");
        assert!(
            within(&got, &want, 0.10),
            "{name}: inferred {got:?}, built with {want:?}"
        );
        assert_eq!(regions, want.len() + 1, "{name}: regions");
    }
}

/// The GiB-scale presets: at least 1 s and at most 20 s of virtual time a
/// point, in 50 ms intervals. Their cache region runs at GB/s, so a virtual
/// second is a million simulated requests; the default rule (5 s to 300 s)
/// makes one sweep take minutes.
fn light() -> RunConfig {
    RunConfig {
        min_duration: Duration::from_secs(1),
        max_duration: Duration::from_secs(20),
        interval: Duration::from_millis(50),
        ..cfg()
    }
}

/// hdd, ssd and raid0: the cache found, two regions, and in the cache
/// region what a write-back cache on two CPUs shows: writes as fast as
/// reads, sequential as fast as random, two processes twice as fast as
/// one, larger requests faster (the per-request overhead is amortised).
/// The disk region is far slower than the cache region.
fn gib_preset(name: &str) -> willy_scale::scaler::Scaled {
    use willy_scale::scaler::throughputs;
    let want = built_caches(name);
    let s = scaled_full(name, willy_scale::scaler::Focus::Middle, &light());
    eprintln!("{name}: inferred {:?}", s.cache_sizes_bytes);
    assert!(
        within(&s.cache_sizes_bytes, &want, 0.10),
        "{name}: inferred {:?}, built with {want:?}",
        s.cache_sizes_bytes
    );
    assert_eq!(s.regions.len(), 2, "{name}: regions");
    let (cache, disk) = (&s.regions[0], &s.regions[1]);
    let flat = |t: Vec<f64>, what: &str| {
        let (lo, hi) = t
            .iter()
            .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        assert!(hi < 1.1 * lo, "{name}: cache region {what} curve {t:?}");
    };
    flat(throughputs(&s, &cache.curves.read_frac), "readFrac");
    flat(throughputs(&s, &cache.curves.seq_frac), "seqFrac");
    let p = &cache.curves.process_num;
    let at = |n: u32| {
        p.iter()
            .find(|&&i| s.points[i].workload.process_num == n)
            .map(|&i| s.points[i].throughput_bytes_per_sec)
            .unwrap_or_else(|| panic!("{name}: no processNum {n} point"))
    };
    assert!(
        at(2) > 1.8 * at(1),
        "{name}: two CPUs, processNum 1 -> 2: {} -> {}",
        at(1),
        at(2)
    );
    let sizes = throughputs(&s, &cache.curves.size_mean);
    assert!(
        gain(&sizes) > 3.0,
        "{name}: cache region sizeMean curve {sizes:?}"
    );
    let focal = |r: &willy::doc::profile::ProfileRegion| {
        r.curves
            .read_frac
            .iter()
            .find(|&&i| s.points[i].workload == r.focal)
            .map(|&i| s.points[i].throughput_bytes_per_sec)
            .expect("the curve passes through the focal point")
    };
    assert!(
        focal(disk) < focal(cache) / 3.0,
        "{name}: disk region {} vs cache region {}",
        focal(disk),
        focal(cache)
    );
    s
}

#[test]
fn hdd_one_4_gib_cache_and_seeks_that_larger_requests_amortise() {
    use willy_scale::scaler::throughputs;
    let s = gib_preset("hdd");
    // One 7200 rpm disk: a 4 KiB random request pays ~13 ms of seek and
    // rotation, a 1 MiB one transfers for 5 ms more: ~70x the throughput.
    let sizes = throughputs(&s, &s.regions[1].curves.size_mean);
    assert!(
        gain(&sizes) > 20.0,
        "hdd disk region sizeMean curve {sizes:?}"
    );
}

#[test]
fn ssd_one_2_gib_cache() {
    gib_preset("ssd");
}

#[test]
fn raid0_one_1_gib_cache() {
    gib_preset("raid0");
}

fn scaled(name: &str) -> willy_scale::scaler::Scaled {
    scaled_with(name, willy_scale::scaler::Focus::Middle)
}

fn scaled_with(name: &str, focus: willy_scale::scaler::Focus) -> willy_scale::scaler::Scaled {
    scaled_full(name, focus, &cfg())
}

fn scaled_full(
    name: &str,
    focus: willy_scale::scaler::Focus,
    run: &RunConfig,
) -> willy_scale::scaler::Scaled {
    scaled_within(name, focus, run, usize::MAX, |_, m| m)
}

/// Scales `name` with a budget of `budget` points: the scaler hears how
/// many are left.
fn scaled_within(
    name: &str,
    focus: willy_scale::scaler::Focus,
    run: &RunConfig,
    budget: usize,
    noise: impl Fn(&Workload, willy_scale::scaler::Measured) -> willy_scale::scaler::Measured,
) -> willy_scale::scaler::Scaled {
    scaled_affording(name, focus, run, |m| budget.saturating_sub(m), noise)
}

/// Scales `name`, the scaler hearing `afford(points measured)` when it
/// asks how many more points the budget affords.
fn scaled_affording(
    name: &str,
    focus: willy_scale::scaler::Focus,
    run: &RunConfig,
    afford: impl Fn(usize) -> usize,
    noise: impl Fn(&Workload, willy_scale::scaler::Measured) -> willy_scale::scaler::Measured,
) -> willy_scale::scaler::Scaled {
    use willy::testbed::{TargetArg, Testbed};
    use willy_scale::scaler::{scale, Measured, ScalePlan, Stage};
    let mut bed = Testbed::open(TargetArg::Sim(name.into()), &Default::default()).unwrap();
    let sim = bed.sim().unwrap().clone();
    let first = Workload::from_json(
        r#"{"uniqueBytes":"1MiB","sizeMean":"4KiB","readFrac":0.5,"seqFrac":0.5,"processNum":1}"#,
    )
    .unwrap();
    let mem = sim.cache.as_ref().map(|c| c.capacity.0).unwrap_or(16 << 20);
    let plan = ScalePlan {
        unique: SweepPlan::new(1 << 20, 4 * mem),
        max_process_num: 8,
        max_size_mean: 1 << 20,
        focus,
        extra_sizes: Vec::new(),
    };
    let measured = std::cell::Cell::new(0usize);
    let mut measure = |w: &Workload, _: &Stage| {
        measured.set(measured.get() + 1);
        bed.measure(w, run).map(|m| noise(w, Measured::from(&m)))
    };
    let afford = || afford(measured.get());
    scale(&first, &plan, &mut measure, &afford, 1).unwrap()
}

#[test]
fn curves_show_how_the_presets_are_built() {
    use willy_scale::scaler::throughputs;
    // Write-through: in the cache region reads hit and writes go to the
    // disk, so throughput climbs steeply with readFrac.
    let wt = scaled("write-through");
    assert_eq!(wt.regions.len(), 2);
    let r = throughputs(&wt, &wt.regions[0].curves.read_frac);
    assert!(gain(&r) > 5.0, "write-through readFrac curve {r:?}");
    // Write-back (sparc1990): in the cache region writes stay in memory too.
    let wb = scaled("sparc1990");
    assert_eq!(wb.regions.len(), 2);
    let r = throughputs(&wb, &wb.regions[0].curves.read_frac);
    assert!(gain(&r) < 1.5, "write-back readFrac curve {r:?}");
    // Every region's focal point lies in its region, and every curve passes
    // through it.
    for s in [&wt, &wb] {
        for reg in &s.regions {
            let u = reg.focal.unique_bytes.0;
            assert!(u >= reg.from_unique_bytes && u <= reg.to_unique_bytes + (1 << 20));
        }
        curves_pass_through_their_focal_points(s);
    }
    // Raw disk: one region; sequential requests are faster than random ones.
    let raw = scaled("raw-disk");
    assert_eq!(raw.regions.len(), 1);
    let s = throughputs(&raw, &raw.regions[0].curves.seq_frac);
    assert!(gain(&s) > 1.5, "raw-disk seqFrac curve {s:?}");
    let sizes = throughputs(&raw, &raw.regions[0].curves.size_mean);
    assert!(
        gain(&sizes) > 2.0,
        "larger requests pay off on a disk: {sizes:?}"
    );
}

/// --focus knee: one region, and a focal vector at the knee of each of its
/// curves: at least 75% of the curve's maximum, and the next harder value
/// (smaller sizeMean, processNum, readFrac, seqFrac) below it.
#[test]
fn the_global_knee_is_at_75_percent_of_every_curve() {
    use willy_scale::scaler::{throughputs, Focus, KNEE};
    let k = scaled_with("sparc1990", Focus::Knee);
    assert_eq!(k.regions.len(), 1);
    let r = &k.regions[0];
    for (name, c) in [
        ("sizeMean", &r.curves.size_mean),
        ("processNum", &r.curves.process_num),
        ("readFrac", &r.curves.read_frac),
        ("seqFrac", &r.curves.seq_frac),
    ] {
        let t = throughputs(&k, c);
        let max = t.iter().cloned().fold(0.0, f64::max);
        let at = c
            .iter()
            .position(|&i| k.points[i].workload == r.focal)
            .unwrap_or_else(|| panic!("{name} curve misses the focal point"));
        assert!(t[at] >= KNEE * max, "{name}: focal {} of max {max}", t[at]);
        if at > 0 {
            assert!(t[at - 1] < KNEE * max, "{name}: {t:?}, knee at {at}");
        }
    }
    assert!(k.cache_sizes_bytes.len() == 1);
}

/// Every curve of every region passes through the region's focal point.
fn curves_pass_through_their_focal_points(s: &willy_scale::scaler::Scaled) {
    for reg in &s.regions {
        let c = &reg.curves;
        for (name, c) in [
            ("sizeMean", &c.size_mean),
            ("processNum", &c.process_num),
            ("readFrac", &c.read_frac),
            ("seqFrac", &c.seq_frac),
            ("uniqueBytes", &c.unique_bytes),
        ] {
            assert!(
                c.iter().any(|&i| s.points[i].workload == reg.focal),
                "the {name} curve misses its focal point"
            );
        }
    }
}

#[test]
fn a_short_budget_thins_the_curves_and_keeps_the_caches() {
    // split-cache has three regions. Unlimited, then with a budget of 80%
    // of the points that took, then with a budget the sweeps alone use up.
    let full = scaled_full("split-cache", Focus::Middle, &cfg());
    let n = full.points.len();
    let short = scaled_within("split-cache", Focus::Middle, &cfg(), n * 8 / 10, |_, m| m);
    let none = scaled_within("split-cache", Focus::Middle, &cfg(), 0, |_, m| m);
    for s in [&full, &short, &none] {
        assert_eq!(s.regions.len(), 3);
        assert_eq!(s.cache_sizes_bytes, full.cache_sizes_bytes);
        curves_pass_through_their_focal_points(s);
    }
    assert!(
        short.points.len() <= n * 8 / 10,
        "{} points for a budget of {} (full: {n})",
        short.points.len(),
        n * 8 / 10
    );
    let fracs = |s: &willy_scale::scaler::Scaled| -> Vec<usize> {
        s.regions.iter().map(|r| r.curves.read_frac.len()).collect()
    };
    assert_eq!(fracs(&full), [11, 11, 11]);
    // Thinned where the budget ran short, full again once it allowed.
    assert!(fracs(&short).contains(&5), "{:?}", fracs(&short));
    // With no budget left after the sweeps, the curves keep their focal
    // points and skip the rest (listed), rather than run late.
    assert_eq!(fracs(&none), [1, 1, 1]);
    assert!(none.skipped.len() > 10, "{} skipped", none.skipped.len());
    assert!(full.skipped.is_empty());
    assert!(none.points.len() < short.points.len());
}

/// sparc1990's cache is an LRU page cache: the self-check finds the read
/// probe's fall to be that of an LRU cache of the size inferred, and the
/// interval the sweep's points allow reaches the built size within 10%.
#[test]
fn a_presets_read_cache_fits_and_has_an_interval() {
    let s = scaled("sparc1990");
    let want = built_caches("sparc1990")[0] as f64;
    let c = s
        .caches
        .iter()
        .find(|c| c.probe == willy::doc::profile::Probe::Reads)
        .expect("a read cache");
    let [lo, hi] = c.size_interval_bytes.expect("an interval");
    eprintln!(
        "sparc1990: {} in [{lo}, {hi}], fit {:?}",
        c.size_bytes, c.fit_factor
    );
    assert!(lo <= c.size_bytes && c.size_bytes <= hi);
    assert!(lo as f64 <= 1.1 * want && hi as f64 >= 0.9 * want, "{c:?}");
    assert!(!c.poor_fit, "{c:?}");
    assert!(
        c.fit_factor.expect("read probes are checked") < 1.2,
        "{c:?}"
    );
}

/// Background load on a busy machine (issue 14): about one point in five,
/// chosen by its workload, runs 20-45% slow, and its interval widens as a
/// disturbed measurement's does. No false cache appears, and the real one
/// is still found within 10%.
#[test]
fn noise_makes_no_false_cache() {
    use std::hash::{Hash, Hasher};
    for name in ["sparc1990", "split-cache"] {
        let want = built_caches(name);
        let s = scaled_within(name, Focus::Middle, &cfg(), usize::MAX, |w, mut m| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            serde_json::to_string(w).unwrap().hash(&mut h);
            let r = h.finish();
            if r.is_multiple_of(5) {
                let slow = 0.55 + 0.25 * ((r >> 8) % 1000) as f64 / 1000.0;
                m.throughput *= slow;
                m.ci95_rel = m.ci95_rel.map(|c| c + (1.0 - slow) / 2.0);
            }
            m
        });
        eprintln!("{name} under noise: inferred {:?}", s.cache_sizes_bytes);
        assert!(
            within(&s.cache_sizes_bytes, &want, 0.10),
            "{name} under noise: inferred {:?}, built with {want:?}",
            s.cache_sizes_bytes
        );
    }
}

/// A background job that runs for a while (issue 14): while it runs, the
/// points measured are half as fast, with intervals as tight as any (a
/// steady load), so a stretch of the first probe's sweep sits below the
/// rest and looks like a cache's fall at about 3 MiB. Measured again after
/// the job has ended, that drop does not reproduce: it is reported as not
/// confirmed, and no false cache appears. (The real cache is still found,
/// but 25% high: the job also slowed the plateau's last points before its
/// fall, which confirmation does not measure again; docs/SCALING.md.)
#[test]
fn a_drop_made_by_a_passing_job_is_not_confirmed() {
    let want = built_caches("sparc1990");
    let calls = std::cell::Cell::new(0usize);
    let s = scaled_within(
        "sparc1990",
        Focus::Middle,
        &cfg(),
        usize::MAX,
        |_, mut m| {
            calls.set(calls.get() + 1);
            // The random-read probe's log-spaced points 6 to 12 (about 3 to
            // 13 MiB), inside the cache region.
            if (6..=12).contains(&calls.get()) {
                m.throughput *= 0.5;
            }
            m
        },
    );
    eprintln!(
        "inferred {:?}, not confirmed {:?}",
        s.cache_sizes_bytes, s.unconfirmed
    );
    assert!(
        within(&s.cache_sizes_bytes, &want, 0.30),
        "inferred {:?}, built with {want:?}",
        s.cache_sizes_bytes
    );
    assert!(
        s.unconfirmed.iter().any(|d| d.to_unique_bytes < 8 << 20),
        "the job's drop was not caught: {:?}",
        s.unconfirmed
    );
}

/// A budget that runs out in the regions' curves (their points cost three
/// times what the plan assumed, as disk-region points did on this machine)
/// leaves every curve of every region its sparse points (its ends and the
/// focal value), not the first curves whole and the last with their focal
/// points alone.
#[test]
fn a_budget_that_runs_out_leaves_every_curve_its_ends() {
    let full = scaled_full("split-cache", Focus::Middle, &cfg());
    let n = full.points.len();
    for late in [n - 30, n - 60] {
        // Each point from the `late`-th on costs three.
        let cost = |m: usize| m + 2 * m.saturating_sub(late);
        let short = scaled_affording(
            "split-cache",
            Focus::Middle,
            &cfg(),
            |m| n.saturating_sub(cost(m)),
            |_, m| m,
        );
        assert!(!short.skipped.is_empty(), "costly from point {late} of {n}");
        for (k, r) in short.regions.iter().enumerate() {
            let c = &r.curves;
            for (name, c) in [
                ("sizeMean", &c.size_mean),
                ("readFrac", &c.read_frac),
                ("seqFrac", &c.seq_frac),
                ("uniqueBytes", &c.unique_bytes),
            ] {
                assert!(
                    c.len() >= 3,
                    "costly from point {late} of {n}: region {k}'s {name} curve has {} points",
                    c.len()
                );
            }
        }
    }
}

/// Every region's processNum curve but the last goes to the most
/// generators the run measured anywhere (the profile's processNum range),
/// even where a doubling gains nothing: sparc1990's cache region gains
/// nothing beyond one generator, and its curve used to stop at two while
/// the disk region's went to eight.
#[test]
fn processnum_curves_reach_the_profiles_range() {
    let s = scaled("sparc1990");
    let most = s.points.iter().map(|p| p.workload.process_num).max();
    let last = s.regions.len() - 1;
    for (k, r) in s.regions.iter().enumerate().take(last) {
        let top = r
            .curves
            .process_num
            .iter()
            .map(|&i| s.points[i].workload.process_num)
            .max();
        assert_eq!(top, most, "region {k}'s processNum curve");
    }
    assert!(
        most > Some(2),
        "the run measured {most:?} generators at most"
    );
}

/// The last region's processNum curve goes past a dip at least to the
/// first generators one of whose shares fits the read cache: split-cache's
/// disk region lost throughput from one generator to two, and its curve
/// used to stop there, with no point of the mixing the `willy` model
/// reads from it (docs/SCALING.md, step 6).
#[test]
fn the_last_processnum_curve_reaches_a_share_that_fits() {
    use willy::doc::profile::Probe;
    let s = scaled("split-cache");
    let cache = s
        .caches
        .iter()
        .filter(|c| c.probe == Probe::Reads)
        .map(|c| c.size_bytes)
        .max()
        .unwrap();
    let r = s.regions.last().unwrap();
    let curve: Vec<(u32, f64)> = r
        .curves
        .process_num
        .iter()
        .map(|&i| {
            (
                s.points[i].workload.process_num,
                s.points[i].throughput_bytes_per_sec,
            )
        })
        .collect();
    let share = |n: u32| r.focal.unique_bytes.0 / u64::from(n);
    assert!(
        curve.len() >= 2 && curve[1].1 < curve[0].1,
        "no dip from one generator to two: {curve:?}"
    );
    assert!(
        curve.iter().any(|&(n, _)| share(n) <= cache),
        "no share of {} fits the {cache}-byte cache: {curve:?}",
        r.focal.unique_bytes.0
    );
}

/// `s` as a profile, as far as its points, regions and caches go.
fn profile_of(s: &willy_scale::scaler::Scaled) -> willy::doc::profile::Profile {
    let mut p = willy::doc::profile::sample();
    (p.points, p.regions, p.caches) = (s.points.clone(), s.regions.clone(), s.caches.clone());
    p
}

/// Every region but the last has the least and the most size of its
/// sizeMean curve, and one between its focal size and the most, measured
/// at the uniqueBytes of its uniqueBytes curve
/// nearest each end of its plateau (its span without a cache's edge), at
/// its focal point otherwise (`scaler::SIZE_ENDS`, docs/PREDICTION.md
/// step 18); the last region has no sizes on both sides of its focal
/// size at another uniqueBytes.
#[test]
fn sizes_are_measured_at_the_ends_of_the_plateau() {
    use willy::doc::profile::SizesAt;
    let s = scaled("sparc1990");
    let p = profile_of(&s);
    let last = s.regions.len() - 1;
    for (k, r) in s.regions.iter().enumerate() {
        let zf = r.focal.size_mean.0;
        let straddles = |e: &SizesAt| {
            let z = || e.sizes.iter().map(|z| z.0);
            z().min() < Some(zf) && z().max() > Some(zf)
        };
        let at: Vec<_> = p
            .sizes_elsewhere(k)
            .into_iter()
            .filter(|e| p.on_plateau(k, e.unique_bytes) && straddles(e))
            .collect();
        if k == last {
            assert!(at.is_empty(), "the last region: {at:?}");
            continue;
        }
        let sizes: Vec<u64> = r
            .curves
            .size_mean
            .iter()
            .map(|&i| s.points[i].workload.size_mean.0)
            .collect();
        let least = sizes.iter().min().unwrap();
        let fu = r.focal.unique_bytes.0;
        // Both ends of the sizeMean curve that fit a generator's share,
        // and a size between the focal one and the most where the curve
        // has one.
        let ends = |e: &SizesAt| {
            let got: Vec<u64> = e.sizes.iter().map(|z| z.0).collect();
            let share = Workload::of(e.unique_bytes, 4096, 0.5, 0.5, r.focal.process_num);
            let fit = sizes.iter().filter(|&&z| z <= share.bytes_per_generator());
            let most = fit.clone().max();
            let inside = |z: &u64| *z > zf && most.is_some_and(|m| z < m);
            let middle = !fit.clone().any(inside) || got.iter().any(inside);
            middle
                && [Some(least), most]
                    .into_iter()
                    .flatten()
                    .all(|z| got.contains(z))
        };
        for below in [true, false] {
            assert!(
                at.iter().any(|e| (e.unique_bytes < fu) == below && ends(e)),
                "region {k}, below the focal point {below}: {at:?}"
            );
        }
    }
    assert!(last > 0, "sparc1990 has a cache region");
}

/// Every region but the last has all reads and all writes measured at the
/// least and the most size of its sizeMean curve, at its focal point
/// otherwise (`scaler::KIND_ENDS`, docs/PREDICTION.md step 17); the last
/// region has none.
#[test]
fn kinds_are_measured_at_the_ends_of_sizemean() {
    let s = scaled("sparc1990");
    let p = profile_of(&s);
    let last = s.regions.len() - 1;
    for (k, r) in s.regions.iter().enumerate() {
        let sizes: Vec<u64> = r
            .curves
            .size_mean
            .iter()
            .map(|&i| s.points[i].workload.size_mean.0)
            .collect();
        let (least, most) = (sizes.iter().min(), sizes.iter().max());
        let f = &r.focal;
        let ends: Vec<u64> = p.size_kind_ends(k).iter().map(|e| e.0).collect();
        if k == last {
            assert!(ends.is_empty(), "the last region: {ends:?}");
            continue;
        }
        for z in [least, most].into_iter().flatten() {
            assert!(
                *z == f.size_mean.0 || ends.contains(z),
                "region {k}: all reads and all writes of {z} bytes: {ends:?}"
            );
        }
    }
    assert!(last > 0, "sparc1990 has a cache region");
}

#[test]
fn kinds_are_measured_at_the_most_generators() {
    let s = scaled("sparc1990");
    let p = profile_of(&s);
    let last = s.regions.len() - 1;
    for (k, r) in s.regions.iter().enumerate() {
        let most = r
            .curves
            .process_num
            .iter()
            .map(|&i| s.points[i].workload.process_num)
            .max()
            .unwrap();
        let ends = p.reads_by_generators(k);
        if k == last || most <= r.focal.process_num {
            assert_eq!(ends, None, "region {k}");
            continue;
        }
        let (n, reads, writes) = ends.expect("all reads and all writes at the most generators");
        assert_eq!(n, most, "region {k}");
        assert_eq!(s.points[reads].workload.read_frac, 1.0);
        assert_eq!(s.points[writes].workload.read_frac, 0.0);
    }
    assert!(last > 0, "sparc1990 has a cache region");
}
