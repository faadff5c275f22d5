//! Barve et al.'s model of disks sharing a bus (crates/predict/src/bus.rs)
//! against the bus simulated event by event (crates/willy/src/sim/bus.rs)
//! on the Cheetah preset: one random-read generator per disk, each disk
//! its own workload, all in one virtual time.

use willy::sim::config::{Arbitration, StorageConfig};
use willy::sim::SimConfig;
use willy_predict::bus::{simulate, BusModel};

/// Read duration (ms, `D B / throughput`) and rounds kept of `d` disks
/// reading `block`-byte blocks at random, one at a time each, for 10 s of
/// virtual time; and the model of the same bus.
fn measure(d: u32, block: u64, arbitration: Arbitration, seed: u64) -> (f64, f64, BusModel) {
    let mut sim = SimConfig::load(&format!("cheetah-bus@{d}")).unwrap();
    if let StorageConfig::Bus { arbitration: a, .. } = &mut sim.storage {
        *a = arbitration;
    }
    let (total, rounds) = simulate(&sim, (d, block), 10.0, seed, false).unwrap();
    let model = BusModel::of_sim(&sim).unwrap();
    (
        f64::from(d) * block as f64 / total * 1e3,
        rounds.unwrap_or(1.0),
        model,
    )
}

/// Issue 16, Must show 2, read duration: within 12% of eqs. 1 and 3 for
/// 32-128 KiB and D = 1-4 (measured -0.2% to +6.8%); at 16 KiB the
/// simulated bus is 12.6-14.5% slower than eq. 3 with 2-4 disks, the
/// limit Barve names in section 4.6 (a small block's transfer ends before
/// the other disks are positioned, so the round waits for the slowest,
/// not the least, positioning; eq. 3 counts only `MPT(D)`), so there the
/// bound is 15%. One disk: within 1.2% at every size.
#[test]
fn the_model_follows_the_simulated_bus() {
    let mut table = String::new();
    for kib in [16u64, 32, 64, 128] {
        for d in 1..=4 {
            let (sim, _, model) = measure(d, kib << 10, Arbitration::DiskFirst, 1);
            let (m, _) = model.read_duration_ms(d, kib << 10);
            let err = sim / m - 1.0;
            table += &format!(
                "{kib} KiB, D = {d}: simulated {sim:.2} ms, model {m:.2} ms, {:+.1}%\n",
                err * 100.0
            );
            let bound = if kib == 16 && d > 1 { 0.15 } else { 0.12 };
            assert!(err.abs() < bound, "{table}");
        }
    }
}

/// Issue 16, Must show 2, rounds: with disk-first arbitration the disks
/// are served in rounds (88-100% of windows kept for 16-128 KiB, D = 2-4:
/// Barve saw 88-99%); with host-first, where the bus is the bottleneck
/// (128 KiB, 4 disks), fewer rounds are kept and the disks are served
/// less evenly. Host-first does not go under 50%: see docs/BUS.md, even a
/// random order keeps more than half by Barve's measure.
#[test]
fn disk_first_arbitration_makes_rounds() {
    for kib in [16u64, 64, 128] {
        for d in [2, 4] {
            let (_, kept, _) = measure(d, kib << 10, Arbitration::DiskFirst, 1);
            assert!(kept >= 0.87, "{kib} KiB, D = {d}: {kept:.3}");
        }
    }
    let (_, disk_first, _) = measure(4, 128 << 10, Arbitration::DiskFirst, 1);
    let (_, host_first, _) = measure(4, 128 << 10, Arbitration::HostFirst, 1);
    assert!(disk_first > 0.98, "{disk_first}");
    assert!(
        host_first < disk_first - 0.05,
        "{host_first} vs {disk_first}"
    );
}

/// Issue 16, Must show 3 (in part; docs/BUS.md): Barve's pipelining on the
/// Cheetah bus. Small blocks lose (8 KiB: -9% to -10% measured, Barve's
/// Table 6 -8% to -13%) and the loss is the host's cost of the extra
/// asynchronous read: without it (0 ms) the loss is gone. Large blocks
/// on four disks gain (128 KiB: +6%, the paper +11%). One disk gains
/// nothing at any size (its Read follows its own prefetch at once, so
/// nothing is read ahead), so the issue's "+10-20% at 128 KiB with one
/// disk" is not met.
#[test]
fn pipelining_costs_small_blocks_and_pays_large_ones() {
    let gain = |d: u32, kib: u64, cost: f64| {
        let mut sim = SimConfig::load(&format!("cheetah-bus@{d}")).unwrap();
        sim.cpu.async_read_overhead_ms = cost;
        let run = |p| simulate(&sim, (d, kib << 10), 10.0, 1, p).unwrap().0;
        run(true) / run(false) - 1.0
    };
    let stated = SimConfig::load("cheetah-bus")
        .unwrap()
        .cpu
        .async_read_overhead_ms;
    assert_eq!(stated, 1.0);
    for d in [1, 4] {
        let g = gain(d, 8, stated);
        assert!(g < -0.05, "8 KiB, D = {d}: {g:+.3}");
        let free = gain(d, 8, 0.0);
        assert!(
            free.abs() < 0.03,
            "8 KiB, D = {d}, no host cost: {free:+.3}"
        );
    }
    let g = gain(4, 128, stated);
    assert!(g > 0.03, "128 KiB, D = 4: {g:+.3}");
}
