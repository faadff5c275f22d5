//! Argon's insulation on the simulator (Wachs et al., FAST'07): what
//! `willy interfere` measures with and without each mechanism.

use std::time::Duration;
use willy::doc::interference::Interference;
use willy::interfere::{measure, Member};
use willy::run::RunConfig;
use willy::sim::insulate::Amortization;
use willy::sim::{Insulation, SimConfig};
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::Bytes;
use willy::workload::Workload;

fn quick() -> RunConfig {
    RunConfig {
        min_duration: Duration::from_secs(10),
        max_duration: Duration::from_secs(60),
        target_ci_rel: 0.03,
        warmup_min: Duration::from_secs(2),
        warmup_max: Duration::from_secs(20),
        ..RunConfig::default()
    }
}

fn member(name: &str, w: Workload, offset: Option<u64>) -> Member {
    Member {
        name: name.into(),
        workload: w,
        share: None,
        offset,
        cache_limit: None,
    }
}

/// `preset` with `insulation`, written where a `sim:` target can load it.
fn system(preset: &str, insulation: Option<Insulation>, tag: &str) -> (tempfile::TempDir, String) {
    let mut sim = SimConfig::load(preset).unwrap();
    sim.insulation = insulation;
    sim.name = format!("{preset}-{tag}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{}.json", sim.name));
    std::fs::write(&path, serde_json::to_string(&sim).unwrap()).unwrap();
    let spec = path.to_str().unwrap().to_string();
    (dir, spec)
}

fn interfere(spec: &str, ms: &[Member], direct: bool, cfg: &RunConfig) -> Interference {
    let opts = TestbedOptions {
        direct,
        ..TestbedOptions::default()
    };
    let mut bed = Testbed::open(TargetArg::Sim(spec.into()), &opts).unwrap();
    measure(&mut bed, ms, cfg, &mut |_, _| {}, &mut |_, _| {}).unwrap()
}

fn show(d: &Interference) {
    for w in &d.workloads {
        eprintln!(
            "{}: alone {:.1} MB/s shared {:.1} MB/s R {:.3} busy {:?}",
            w.name,
            w.alone_bytes_per_sec / 1e6,
            w.shared_bytes_per_sec / 1e6,
            w.r_value,
            d.storage_busy
        );
    }
}

fn rs(d: &Interference) -> Vec<f64> {
    d.workloads.iter().map(|w| w.r_value).collect()
}

/// Argon's amortization size for sim:hdd at R = 0.9, by hand:
/// - mean seek over uniformly placed pairs, C = 400,000 cylinders, break
///   B = 10,000: (2 / C^2) [ ∫0^B (0.6 + 0.02 √d)(C - d) dd plus
///   ∫B^C (2.2 + 0.000035 d)(C - d) dd ] = 6.845 ms (the linear part
///   alone at C/3 would give 2.2 + 0.000035 x 133,333 = 6.867 ms);
/// - half a revolution at 7200 rpm: 60,000 / 7200 / 2 = 4.167 ms;
/// - the disk's overhead per operation: 0.1 ms;
/// - positioning 0.1 + 6.845 + 4.167 = 11.111 ms; for R = 0.9 the transfer
///   must be 0.9 / 0.1 = 9 times that, 100.0 ms, at 200 MB/s: 20.0 MB.
const S_HDD_R09: f64 = 20.0e6;

#[test]
fn the_calculator_gives_the_hand_worked_size() {
    let sim = SimConfig::load("hdd").unwrap();
    let a = Amortization::of(&sim.storage, 0.9).unwrap();
    assert!(
        (a.size_bytes as f64 / S_HDD_R09 - 1.0).abs() < 0.005,
        "{}",
        a.explain()
    );
    assert!(Amortization::of(&sim.storage, 1.0).is_err());
}

/// Two sequential streams a third of the disk apart (the mean distance of
/// two random positions, so that the seek between them is the mean seek
/// the calculator assumes).
fn two_streams() -> Vec<Member> {
    let stream = Workload::of(16 << 30, 64 << 10, 1.0, 1.0, 1);
    let third = 4_000_000_000_000 / 3;
    vec![
        member("a", stream.clone(), Some(0)),
        member("b", stream, Some(third)),
    ]
}

#[test]
fn amortization_brings_two_streams_to_the_r_value_it_was_sized_for() {
    let ms = two_streams();
    let cfg = quick();
    let plain = interfere("hdd", &ms, false, &cfg);
    let sized = |s: f64, tag| {
        let ins = Insulation {
            amortization: Some(Bytes(s as u64)),
            ..Insulation::default()
        };
        let (_dir, spec) = system("hdd", Some(ins), tag);
        interfere(&spec, &ms, false, &cfg)
    };
    let at_s = sized(S_HDD_R09, "s");
    let at_4s = sized(4.0 * S_HDD_R09, "4s");
    for d in [&plain, &at_s, &at_4s] {
        show(d);
    }
    for d in [&plain, &at_s, &at_4s] {
        assert!(d.contended, "the disk was busy {:?}", d.storage_busy);
    }
    assert!(rs(&plain).iter().all(|&r| r <= 0.1), "{:?}", rs(&plain));
    assert!(
        rs(&at_s).iter().all(|&r| (r - 0.9).abs() <= 0.03),
        "{:?}",
        rs(&at_s)
    );
    assert!(rs(&at_4s).iter().all(|&r| r >= 0.97), "{:?}", rs(&at_4s));
}

/// Argon's Figure 7 setting: 27 random requests outstanding (27
/// generators) against one, on the disk alone (no cache).
#[test]
fn quanta_give_a_single_outstanding_request_its_share() {
    let random = |procs| Workload::of(8 << 30, 4 << 10, 1.0, 0.0, procs);
    let ms = vec![
        member("deep", random(27), None),
        member("single", random(1), None),
    ];
    let cfg = quick();
    let plain = interfere("hdd", &ms, true, &cfg);
    let ins = Insulation {
        quantum_ms: Some(500.0),
        ..Insulation::default()
    };
    let (_dir, spec) = system("hdd", Some(ins), "quanta");
    let quanta = interfere(&spec, &ms, true, &cfg);
    show(&plain);
    show(&quanta);
    assert!(plain.contended && quanta.contended);
    assert!(rs(&plain)[1] <= 0.3, "{:?}", rs(&plain));
    assert!(rs(&quanta).iter().all(|&r| r >= 0.9), "{:?}", rs(&quanta));
}

/// Argon's Figure 5 setting on sim:hdd's 4 GiB cache: random reads over
/// 2 GiB beside a 16 GiB stream, the stream's file written last, with
/// Argon's amortization on in both systems compared (on its own, a stream
/// beside random misses slows to a crawl and pollutes the cache too slowly
/// to matter: insulating it is what makes it a threat to the cache). In
/// one LRU the cache starts with the stream's pages and the random
/// workload must read its own in: alone it does within the warm start (at
/// least 150 virtual seconds); beside the stream it cannot, as the stream
/// pushes each page out before it is used again. Random requests of one
/// 64 KiB block keep the generator cheap.
#[test]
fn partitions_sized_from_stack_distances_keep_a_working_set_cached() {
    let mut random = Workload::of(2 << 30, 64 << 10, 1.0, 0.0, 1);
    random.block_size = Bytes(64 << 10);
    let stream = Workload::of(16 << 30, 64 << 10, 1.0, 1.0, 1);
    let ms = vec![
        member("random", random, None),
        member("stream", stream, None),
    ];
    let cfg = RunConfig {
        warmup_min: Duration::from_secs(150),
        warmup_max: Duration::from_secs(400),
        ..quick()
    };
    let amortized = Insulation {
        amortization: Some(Bytes(S_HDD_R09 as u64)),
        ..Insulation::default()
    };
    let (_one, lru) = system("hdd", Some(amortized.clone()), "lru");
    let plain = interfere(&lru, &ms, false, &cfg);
    let ins = Insulation {
        partitions: Some(willy::sim::config::Partitions::Rule(
            willy::sim::config::PartitionRule::Stack,
        )),
        ..amortized
    };
    let (_two, spec) = system("hdd", Some(ins), "parts");
    let parts = interfere(&spec, &ms, false, &cfg);
    show(&plain);
    show(&parts);
    assert!(plain.contended && parts.contended);
    assert!(rs(&plain)[0] <= 0.7, "{:?}", rs(&plain));
    assert!(rs(&parts)[0] >= 0.9, "{:?}", rs(&parts));
}
