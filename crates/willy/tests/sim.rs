//! The simulator against what can be computed by hand from its presets.

use statrs::distribution::{Binomial, DiscreteCDF};
use std::time::Duration;
use willy::engine::{Engine, Io};
use willy::generator::Generator;
use willy::run::{run_sim, RunConfig};
use willy::sim::config::{DiskConfig, QueuePolicy, StorageConfig};
use willy::sim::{SimConfig, SimEngine};
use willy::workload::Workload;

fn workload(unique: u64, size: u64, read: f64, seq: f64, procs: u32) -> Workload {
    Workload::of(unique, size, read, seq, procs)
}

/// A fixed-length virtual run: no early stop, a short warm start.
fn long_run(secs: u64) -> RunConfig {
    RunConfig {
        min_duration: Duration::from_secs(secs),
        max_duration: Duration::from_secs(secs),
        target_ci_rel: 1e-9,
        warmup_min: Duration::from_millis(500),
        warmup_max: Duration::from_secs(2),
        ..RunConfig::default()
    }
}

fn preset(name: &str) -> SimConfig {
    SimConfig::load(name).unwrap()
}

#[test]
fn every_preset_loads_and_declares_its_cache_sizes() {
    for (name, _) in willy::sim::PRESETS {
        let c = preset(name);
        assert_eq!(c.name, *name);
        let sizes: Vec<u64> = c.cache_sizes_bytes.iter().map(|b| b.0).collect();
        assert!(
            sizes.windows(2).all(|w| w[0] < w[1]),
            "{name}: sizes not increasing"
        );
        assert_eq!(sizes.is_empty(), c.cache.is_none(), "{name}");
        if let Some(cache) = &c.cache {
            assert_eq!(
                *sizes.last().unwrap(),
                cache.capacity.0,
                "{name}: largest size is the capacity"
            );
        }
    }
}

#[test]
fn same_seed_is_bit_identical_and_another_seed_is_not() {
    let w = workload(48 << 20, 16 << 10, 0.5, 0.5, 3);
    let sim = preset("sparc1990");
    let run = |seed| {
        let cfg = RunConfig {
            seed,
            ..long_run(20)
        };
        let (m, stats) = run_sim(&w, &cfg, &sim, false).unwrap();
        (
            m.stopping
                .interval_throughput
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            m.reads,
            m.writes,
            stats,
        )
    };
    let (a, b) = (run(1), run(1));
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    assert_eq!(a.2, b.2);
    assert_eq!(a.3, b.3);
    assert_ne!(a.0, run(2).0);
}

/// Expected seek time for two positions drawn uniformly from `n` cylinders.
fn expected_seek_ms(d: &DiskConfig, n: u64) -> f64 {
    let nf = n as f64;
    (1..n)
        .map(|k| 2.0 * (nf - k as f64) / (nf * nf) * d.seek_ms(k))
        .sum()
}

#[test]
fn raw_random_reads_match_the_service_time_formula() {
    let sim = preset("raw-disk");
    let StorageConfig::Disk { disk } = &sim.storage else {
        panic!("raw-disk is one disk")
    };
    let unique = 64u64 << 20;
    let w = workload(unique, 4096, 1.0, 0.0, 1);
    let (m, _) = run_sim(&w, &long_run(600), &sim, false).unwrap();
    // The random requests land on a random half of the file's blocks,
    // spread uniformly over the cylinders the file spans.
    let cyls = (unique as u128 * u128::from(disk.cylinders) / u128::from(disk.capacity.0)) as u64;
    let service_ms = sim.cpu.request_overhead_ms
        + 4096.0 / (sim.cpu.memory_mb_per_s * 1e3)
        + disk.overhead_ms
        + expected_seek_ms(disk, cyls)
        + disk.revolution_ms() / 2.0
        + 4096.0 / (disk.media_mb_per_s * 1e3);
    let want = 1000.0 / service_ms;
    let rel = m.iops / want - 1.0;
    assert!(
        rel.abs() < 0.02,
        "IOPS {:.2}, formula {want:.2} ({:+.2}%)",
        m.iops,
        rel * 100.0
    );
    // The resources it reports: one request at a time, so the CPU and
    // the disk take turns, each busy for its part of every request.
    let cpu_ms = sim.cpu.request_overhead_ms + 4096.0 / (sim.cpu.memory_mb_per_s * 1e3);
    let per_request = m.cpu.cores_busy / m.iops * 1e3;
    assert!(
        (per_request / cpu_ms - 1.0).abs() < 1e-3,
        "CPU {per_request} ms, {cpu_ms} ms"
    );
    let busy = m.device_busy_frac.expect("the simulator knows its disk");
    let idle = 1.0 - busy;
    assert!(
        (idle / (m.iops * cpu_ms / 1e3) - 1.0).abs() < 0.01,
        "busy {busy}"
    );
    // One workload keeps no completion times (only the rounds of several
    // targets need them).
    assert!(m.completions.0.is_empty());
}

#[test]
fn sequential_large_reads_approach_the_media_rate() {
    let sim = preset("hdd");
    let StorageConfig::Disk { disk } = &sim.storage else {
        panic!("hdd is one disk")
    };
    let w = workload(1 << 30, 1 << 20, 1.0, 1.0, 1);
    // --direct: past the cache, straight to the disk.
    let (m, _) = run_sim(&w, &long_run(20), &sim, true).unwrap();
    let frac = m.throughput_bytes_per_sec / (disk.media_mb_per_s * 1e6);
    assert!(
        (0.9..=1.0).contains(&frac),
        "sequential reads at {frac:.3} of the media rate"
    );
}

/// Drives the engine directly with one generator; returns the fraction of
/// read requests that hit after `warm` requests.
fn hit_ratio(sim: &SimConfig, w: &Workload, warm: u64, n: u64) -> f64 {
    let mut e = SimEngine::new(sim, w.total_bytes(), false, 1);
    let mut g = Generator::new(w, 0, 1);
    let mut out = Vec::new();
    let mut before = e.stats();
    for i in 0..warm + n {
        if i == warm {
            before = e.stats();
        }
        let r = g.next_request();
        e.submit(
            0,
            &Io {
                op: r.op,
                fd: 0,
                offset: r.offset,
                len: r.len as usize,
            },
        )
        .unwrap();
        out.clear();
        e.reap(None, &mut out).unwrap();
        assert_eq!(out.len(), 1);
    }
    let s = e.stats();
    let (hits, misses) = (
        s.read_hits - before.read_hits,
        s.read_misses - before.read_misses,
    );
    hits as f64 / (hits + misses) as f64
}

#[test]
fn cache_hit_ratio_matches_the_lru_expectation() {
    // One generator, random single-block reads: the sim's LRU cache of C
    // pages hits exactly when the generator's LRU depth is below C, so the
    // hit ratio is P(Binomial(U - 1, 1/2) < C) once the cache is warm.
    let sim = preset("sparc1990");
    let c = sim.cache.as_ref().unwrap().capacity.0 / 4096;
    for u in [2 * c - 80, 2 * c, 2 * c + 80] {
        let w = workload(u * 4096, 4096, 1.0, 0.0, 1);
        let got = hit_ratio(&sim, &w, 4 * u, 40_000);
        let want = Binomial::new(0.5, u - 1).unwrap().cdf(c - 1);
        assert!(
            (got - want).abs() < 0.02,
            "U = {u} blocks, C = {c}: hit ratio {got:.4}, expected {want:.4}"
        );
    }
}

fn single_and_raid(queue: QueuePolicy) -> (SimConfig, SimConfig, u32) {
    let mut raid = preset("raid0");
    raid.cache = None;
    let StorageConfig::Raid0 { disk, disks, .. } = &mut raid.storage else {
        panic!("raid0 preset")
    };
    disk.queue = queue;
    let (k, disk) = (*disks, disk.clone());
    let mut one = raid.clone();
    one.storage = StorageConfig::Disk { disk };
    (one, raid, k)
}

#[test]
fn raid0_multiplies_random_read_iops_by_its_disks() {
    // Each of the k disks holds 1/k of the array's working set, so the one
    // disk compared gets 1/k of it too: the same seek distances. Requests
    // go to the disks at random, so a disk idles whenever none of the
    // closed loops happens to be waiting on it; with 16 generators per disk
    // that is rare (with 4 per disk it is about 15% of the time).
    let (one, raid, k) = single_and_raid(QueuePolicy::Fcfs);
    let unique = 4u64 << 30;
    let (m1, _) = run_sim(
        &workload(unique / u64::from(k), 4096, 1.0, 0.0, 16),
        &long_run(30),
        &one,
        false,
    )
    .unwrap();
    let (mk, _) = run_sim(
        &workload(unique, 4096, 1.0, 0.0, 16 * k),
        &long_run(30),
        &raid,
        false,
    )
    .unwrap();
    let ratio = mk.iops / m1.iops;
    assert!(
        ratio > 0.9 * k as f64 && ratio < 1.05 * k as f64,
        "{k} disks give {ratio:.2}x one disk"
    );
}

#[test]
fn write_through_writes_run_at_disk_speed_in_the_cache_region() {
    // A working set well inside the cache: reads hit, writes do not.
    let wt = preset("write-through");
    let w_read = workload(8 << 20, 8192, 1.0, 0.0, 1);
    let w_write = workload(8 << 20, 8192, 0.0, 0.0, 1);
    let (r, _) = run_sim(&w_read, &long_run(10), &wt, false).unwrap();
    let (wr, _) = run_sim(&w_write, &long_run(10), &wt, false).unwrap();
    let (rt, wt_) = (r.throughput_bytes_per_sec, wr.throughput_bytes_per_sec);
    assert!(rt > 10.0 * wt_, "reads {rt:.0} B/s, writes {wt_:.0} B/s");
    // The same writes on the write-back workstation stay in its cache:
    // about 1.3 ms of CPU per 8 KiB write against about 8 ms at the disk.
    let (wb, _) = run_sim(&w_write, &long_run(10), &preset("sparc1990"), false).unwrap();
    assert!(wb.throughput_bytes_per_sec > 3.0 * wr.throughput_bytes_per_sec);
}

#[test]
fn split_cache_shows_three_plateaus() {
    // Write limit 4 MiB, read cache 32 MiB; the generator's active set is
    // about U/2, so the drops come near U = 8 MiB and U = 64 MiB.
    let sim = preset("split-cache");
    let tp = |u: u64| {
        let w = workload(u, 8192, 0.5, 0.0, 1);
        run_sim(&w, &long_run(30), &sim, false)
            .unwrap()
            .0
            .throughput_bytes_per_sec
    };
    let (small, middle, large) = (tp(4 << 20), tp(24 << 20), tp(160 << 20));
    assert!(
        small > 2.0 * middle,
        "plateau 1 {small:.0} vs plateau 2 {middle:.0}"
    );
    assert!(
        middle > 1.5 * large,
        "plateau 2 {middle:.0} vs plateau 3 {large:.0}"
    );
}

#[test]
fn a_workload_larger_than_the_device_is_refused() {
    let w = workload(1 << 30, 4096, 1.0, 0.0, 1);
    let e = run_sim(&w, &long_run(5), &preset("sparc1990"), false).unwrap_err();
    assert!(e.to_string().contains("holds"), "{e}");
}

#[test]
fn requests_slower_than_the_whole_run_end_it_at_the_maximum() {
    // 16 MiB requests on the 1990 disk take about 10 s each; the run may
    // last at most 5 s. It must stop there, not index past its intervals.
    let w = workload(256 << 20, 16 << 20, 1.0, 0.0, 1);
    let cfg = RunConfig {
        min_duration: Duration::from_secs(3),
        max_duration: Duration::from_secs(5),
        warmup_min: Duration::ZERO,
        warmup_max: Duration::from_millis(100),
        ..RunConfig::default()
    };
    let (m, _) = run_sim(&w, &cfg, &preset("raw-disk"), false).unwrap();
    assert!(m.duration_secs <= 5.0 + 1e-9, "{}", m.duration_secs);
    assert!(m.throughput_bytes_per_sec.is_finite());
}

/// Shen's bug #1 planted (`faults.readahead_cancel_queue`): sequential
/// reads by 16 generators, beyond a 64 MiB cache, with more than 8
/// operations queued, lose their read-ahead and read page by page, each
/// page waiting behind the others' requests at the elevator: many times
/// slower. With read-ahead off there is nothing to cancel, and with 4
/// generators the queue never passes 8: no change in either.
#[test]
fn the_planted_readahead_fault_strikes_only_where_it_should() {
    let mut clean = preset("hdd");
    clean.cache.as_mut().unwrap().capacity = willy::units::Bytes(64 << 20);
    let mut faulty = clean.clone();
    faulty.faults = Some(willy::sim::config::Faults {
        readahead_cancel_queue: Some(8),
    });
    let mut no_ra = clean.clone();
    no_ra.cache.as_mut().unwrap().readahead = willy::units::Bytes(0);
    let mut no_ra_faulty = faulty.clone();
    no_ra_faulty.cache.as_mut().unwrap().readahead = willy::units::Bytes(0);
    let tput = |sim: &SimConfig, procs: u32| {
        let w = workload(8 << 30, 64 << 10, 1.0, 0.9, procs);
        run_sim(&w, &long_run(10), sim, false)
            .unwrap()
            .0
            .throughput_bytes_per_sec
    };
    let (c16, f16) = (tput(&clean, 16), tput(&faulty, 16));
    assert!(
        f16 < 0.3 * c16,
        "16 generators: {f16} with the fault, {c16} without"
    );
    let (c4, f4) = (tput(&clean, 4), tput(&faulty, 4));
    assert!((f4 / c4 - 1.0).abs() < 1e-9, "4 generators: {f4} vs {c4}");
    let (n16, nf16) = (tput(&no_ra, 16), tput(&no_ra_faulty, 16));
    assert!(
        (nf16 / n16 - 1.0).abs() < 1e-9,
        "no read-ahead: {nf16} vs {n16}"
    );
    // RunConfig::readahead = false is the same as a read-ahead of 0.
    let w = workload(8 << 30, 64 << 10, 1.0, 0.9, 16);
    let off = RunConfig {
        readahead: false,
        ..long_run(10)
    };
    let r = run_sim(&w, &off, &faulty, false).unwrap().0;
    assert_eq!(r.throughput_bytes_per_sec, nf16);
}

/// Sequential reads on a disk with a geometry stream at the media rate
/// less the track skew: on sim:atlas10k3's outer zone 686 sectors a
/// revolution plus a 0.6 ms switch covered by a skew of 69 sectors,
/// 686 / 755 of 58.54 MB/s = 53.19 MB/s. Each read comes while the disk
/// is still reading ahead, and the next track's first sector is met after
/// the switch (before the fix, a revolution later: 39.4 MB/s).
#[test]
fn sequential_reads_on_a_geometry_stream_at_the_media_rate() {
    let sim = preset("atlas10k3");
    let w = Workload {
        block_size: willy::units::Bytes(8192),
        ..workload(1 << 30, 344 << 10, 1.0, 1.0, 1)
    };
    let (m, _) = run_sim(&w, &long_run(10), &sim, true).unwrap();
    let want = 686.0 / 755.0 * 58.538667e6;
    let got = m.throughput_bytes_per_sec;
    assert!(
        (got / want - 1.0).abs() < 0.03,
        "{:.2} MB/s, want {:.2}",
        got / 1e6,
        want / 1e6
    );
}

/// sim:sparc1990, 16 generators over 55 MiB: for about a minute every
/// generator waits on the disk, then the shares of a few stay cached and
/// they run at memory speed. Measured from the usual warm start (one pass
/// over uniqueBytes), the throughput averages both, and the measurement
/// says where its steady state began; from a warm start past that minute
/// it is the steady state alone.
#[test]
fn a_measurement_that_begins_before_its_steady_state_says_so() {
    let w = workload(55 << 20, 32 << 10, 0.5, 0.5, 16);
    let sim = preset("sparc1990");
    // What `willy run --target sim:sparc1990` does: up to 600 s (virtual).
    let cfg = RunConfig {
        max_duration: Duration::from_secs(600),
        warmup_max: Duration::from_secs(600),
        ..RunConfig::default()
    };
    let (m, _) = run_sim(&w, &cfg, &sim, false).unwrap();
    let st = &m.stopping;
    let steady = st.steady_throughput_bytes_per_sec.unwrap();
    let cut = st.transient_intervals as f64 * st.interval_secs;
    assert!((20.0..200.0).contains(&cut), "transient of {cut} s");
    assert!(
        steady > 1.05 * m.throughput_bytes_per_sec,
        "steady {steady} against {}",
        m.throughput_bytes_per_sec
    );
    let warm = RunConfig {
        warmup_min: Duration::from_secs(120),
        ..cfg
    };
    let (later, _) = run_sim(&w, &warm, &sim, false).unwrap();
    assert_eq!(later.stopping.transient_intervals, 0);
    let ratio = later.throughput_bytes_per_sec / steady;
    assert!(
        (0.95..1.1).contains(&ratio),
        "steady state {ratio} of the cut's"
    );
}
