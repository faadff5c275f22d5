//! Several processes measuring one workload together, as ranks of one run
//! (`mpirun -np N willy run --mpi`, as IOR does).
//!
//! The transport is the binary's (MPI, behind its `mpi` feature); this
//! module holds what does not depend on it:
//!
//! - [`Cluster`]: what a transport offers, one all-to-all exchange of bytes;
//! - [`share`] and [`local_workload`]: which generators a rank runs;
//! - the coordination of the measurement ([`crate::run::run_many`] calls
//!   [`Coordinator`] from its observing thread): every rank tells the others,
//!   a few times a second, how far it is; once every rank's warm start is
//!   over, all start measuring at one wall-clock instant a little after
//!   that round ([`START_LEAD_SECS`]), and all stop in the same round, when the **sum** of the ranks' interval throughputs meets the
//!   stopping rule (or, with stonewalling, when the first rank has moved its
//!   planned bytes). Every rank takes the same decision from the same data.
//!   A rank that fails or is interrupted says so in its next round, and every
//!   rank stops, naming it;
//! - [`combine`]: the total of the ranks' measurements, and the per-rank and
//!   per-node figures ([`ClusterInfo`]);
//! - [`Threads`]: an in-process transport, ranks as threads, for tests.

use crate::report::{CpuUsage, DirectionStats, Latency, Measurement, StoppingInfo, WarmupInfo};
use crate::stats::{batch_means, stalled};
use crate::workload::Workload;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Condvar, Mutex};

/// A transport between the ranks of one run.
pub trait Cluster: Send + Sync + std::fmt::Debug {
    /// This process's rank, from 0.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Every rank's host name, in rank order.
    fn hosts(&self) -> &[String];
    /// Every rank gives `mine` and gets every rank's, in rank order. Called
    /// by every rank the same number of times. Fails, naming the rank that
    /// did not answer, when this process is interrupted while waiting.
    fn exchange(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error>;
}

/// A shared handle to a transport.
pub type ClusterRef = Arc<dyn Cluster>;

/// "rank R on HOST", for messages.
pub fn who(c: &dyn Cluster, rank: usize) -> String {
    match c.hosts().get(rank) {
        Some(h) => format!("rank {rank} on {h}"),
        None => format!("rank {rank}"),
    }
}

/// The generators of `process_num` that rank `rank` of `ranks` runs, as
/// (first, count): as evenly as they divide, the first ranks one more.
pub fn share(process_num: u32, ranks: usize, rank: usize) -> (u32, u32) {
    let (n, r, k) = (process_num as usize, ranks.max(1), rank);
    let (base, extra) = (n / r, n % r);
    let first = k * base + k.min(extra);
    let count = base + usize::from(k < extra);
    (first as u32, count as u32)
}

/// What rank `rank` of `ranks` runs of `w`: its share of the generators,
/// each on `w`'s own share of uniqueBytes (uniqueBytes is the working set
/// across all ranks, processNum the generators across all ranks). With
/// fewer generators than ranks, the last ranks run none: they take part in
/// the measurement's rounds and report zero.
pub fn local_workload(w: &Workload, ranks: usize, rank: usize) -> Workload {
    let (_, count) = share(w.process_num, ranks, rank);
    let mut local = w.clone();
    local.unique_bytes = crate::units::Bytes(w.bytes_per_generator() * u64::from(count));
    local.process_num = count;
    local
}

/// One rank's figures in a run on several ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RankResult {
    /// The rank, from 0.
    pub rank: usize,
    /// Its host.
    pub host: String,
    /// Its generators.
    pub generators: u32,
    /// Its throughput over the common measurement, bytes per second.
    pub throughput_bytes_per_sec: f64,
    /// Bytes it moved in the measurement.
    pub bytes: u64,
    /// Cores its CPU time kept busy over the measurement.
    pub cores_busy: f64,
    /// When it started measuring, seconds after the first rank did
    /// (wall clocks: across hosts only as good as their synchronisation).
    pub start_offset_secs: f64,
}

/// One host's figures: the sum of its ranks'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NodeResult {
    /// The host.
    pub host: String,
    /// Its ranks.
    pub ranks: Vec<usize>,
    /// The sum of its ranks' throughputs, bytes per second.
    pub throughput_bytes_per_sec: f64,
}

/// A run on several ranks: who ran what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClusterInfo {
    /// One object per rank, in rank order; their throughputs sum to the
    /// total.
    pub ranks: Vec<RankResult>,
    /// One object per host.
    pub nodes: Vec<NodeResult>,
    /// The spread of the ranks' measurement starts (latest less earliest),
    /// seconds.
    pub start_skew_secs: f64,
    /// With `--stonewall`: the bytes each rank planned to move; the
    /// measurement ended when the first rank had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall_bytes: Option<u64>,
}

/// What a rank tells the others each round.
#[derive(Serialize, Deserialize, Debug, Default)]
struct Round {
    /// Its warm start is over.
    due: bool,
    /// Its throughput in each interval it has measured in full.
    series: Vec<f64>,
    /// Bytes it moved in them.
    bytes: u64,
    /// Why it stopped, if it did (a failure, an interruption).
    stopped: Option<String>,
    /// Its wall clock when it sent this, seconds since the epoch.
    wall: f64,
}

/// How far ahead of the round that decides it the measurement starts:
/// every rank has learned the decision by then, so all start at the same
/// instant (of their wall clocks) instead of as each hears of it.
pub const START_LEAD_SECS: f64 = 0.1;

/// The wall clock, seconds since the epoch.
pub fn wall_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The decision every rank takes from a round.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// Keep going.
    Continue,
    /// Start measuring at this wall-clock instant (seconds since the
    /// epoch): [`START_LEAD_SECS`] after the latest rank's clock in the
    /// round.
    Start(f64),
    /// The measurement is over after this many intervals.
    Stop(u64),
    /// A rank stopped: (rank, why).
    Abort(usize, String),
}

/// The stopping rule, applied to the sum of the ranks' interval
/// throughputs. `interval`, `min` and `max` in ns.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Interval length.
    pub interval: u64,
    /// Shortest measurement.
    pub min: u64,
    /// Longest measurement.
    pub max: u64,
    /// Target relative half-width of the 95% interval.
    pub target_rel: f64,
    /// Stonewalling: stop when the first rank has moved this many bytes.
    pub stonewall: Option<u64>,
}

/// The sum over the ranks of their first `k` interval throughputs.
fn aggregate(rounds: &[Round], k: u64) -> Vec<f64> {
    (0..k as usize)
        .map(|i| rounds.iter().map(|r| r.series.get(i).unwrap_or(&0.0)).sum())
        .collect()
}

/// Every rank's decision from every rank's round (the same on all).
fn decide(rounds: &[Round], measuring: bool, rule: &Rule) -> Decision {
    if let Some((k, why)) = rounds
        .iter()
        .enumerate()
        .find_map(|(k, r)| r.stopped.as_ref().map(|w| (k, w.clone())))
    {
        return Decision::Abort(k, why);
    }
    if !measuring {
        return if rounds.iter().all(|r| r.due) {
            let latest = rounds.iter().map(|r| r.wall).fold(f64::MIN, f64::max);
            Decision::Start(latest + START_LEAD_SECS)
        } else {
            Decision::Continue
        };
    }
    let k = rounds
        .iter()
        .map(|r| r.series.len() as u64)
        .min()
        .unwrap_or(0);
    if k == 0 {
        return Decision::Continue;
    }
    let elapsed = k * rule.interval;
    if elapsed >= rule.max {
        return Decision::Stop(k);
    }
    if let Some(plan) = rule.stonewall {
        let first_done = rounds.iter().any(|r| r.bytes >= plan);
        return if first_done {
            Decision::Stop(k)
        } else {
            Decision::Continue
        };
    }
    let series = aggregate(rounds, k);
    let ci = batch_means(&series);
    if elapsed >= rule.min && ci.rel() <= rule.target_rel && !stalled(&series) {
        Decision::Stop(k)
    } else {
        Decision::Continue
    }
}

/// One rank's view of a coordinated measurement: what it knows locally,
/// handed in each round by the run loop.
#[derive(Debug, Default)]
pub struct Local {
    /// Its warm start could end.
    pub due: bool,
    /// Whether it is measuring.
    pub measuring: bool,
    /// Intervals measured in full, and their throughputs.
    pub series: Vec<f64>,
    /// Bytes moved in them.
    pub bytes: u64,
    /// Why it stopped, if it did.
    pub stopped: Option<String>,
}

/// Takes the rounds of one coordinated measurement.
#[derive(Debug)]
pub struct Coordinator {
    cluster: ClusterRef,
    rule: Rule,
}

impl Coordinator {
    /// A coordinator on `cluster` with the stopping rule `rule`.
    pub fn new(cluster: ClusterRef, rule: Rule) -> Coordinator {
        Coordinator { cluster, rule }
    }

    /// The transport.
    pub fn cluster(&self) -> &dyn Cluster {
        self.cluster.as_ref()
    }

    /// One round: tells the others where this rank is, and returns what
    /// every rank decides.
    pub fn round(&self, local: Local) -> Result<Decision, Error> {
        let mine = Round {
            due: local.due,
            series: local.series,
            bytes: local.bytes,
            stopped: local.stopped,
            wall: wall_now(),
        };
        let bytes = serde_json::to_vec(&mine).expect("a round serialises");
        let all = self.cluster.exchange(&bytes)?;
        let rounds = all
            .iter()
            .enumerate()
            .map(|(k, b)| {
                serde_json::from_slice::<Round>(b).map_err(|e| {
                    Error::Usage(format!(
                        "{} sent a message willy cannot read ({e}): are all ranks the same willy?",
                        who(self.cluster(), k)
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(decide(&rounds, local.measuring, &self.rule))
    }
}

/// What a rank reports at the end, to be combined.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct RankEnd {
    /// Its measurement.
    pub measurement: Measurement,
    /// Its read and write latency histograms (HDR, V2 serialised).
    pub histograms: [Vec<u8>; 2],
    /// Its measurement start, wall clock, seconds since the epoch.
    pub start_wall_secs: f64,
    /// Its generators.
    pub generators: u32,
}

/// Serialises a latency histogram for [`RankEnd`].
pub fn histogram_bytes(h: &hdrhistogram::Histogram<u64>) -> Vec<u8> {
    use hdrhistogram::serialization::Serializer;
    let mut out = Vec::new();
    let _ = hdrhistogram::serialization::V2Serializer::new().serialize(h, &mut out);
    out
}

fn histogram_of(bytes: &[u8]) -> Option<hdrhistogram::Histogram<u64>> {
    let mut d = hdrhistogram::serialization::Deserializer::new();
    d.deserialize(&mut std::io::Cursor::new(bytes)).ok()
}

/// One direction over all ranks: counts add, latencies from the merged
/// histograms.
fn direction(
    parts: &[&DirectionStats],
    hists: &[Option<hdrhistogram::Histogram<u64>>],
) -> DirectionStats {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for h in hists.iter().flatten() {
        match &mut merged {
            None => merged = Some(h.clone()),
            Some(m) => {
                let _ = m.add(h);
            }
        }
    }
    DirectionStats {
        requests: parts.iter().map(|d| d.requests).sum(),
        bytes: parts.iter().map(|d| d.bytes).sum(),
        throughput_bytes_per_sec: parts.iter().map(|d| d.throughput_bytes_per_sec).sum(),
        iops: parts.iter().map(|d| d.iops).sum(),
        latency_us: merged.as_ref().and_then(Latency::of),
    }
}

/// The total of the ranks' measurements (every rank measured the same
/// intervals), with the per-rank and per-node figures in `cluster`.
pub fn combine(ends: &[RankEnd], hosts: &[String], stonewall: Option<u64>) -> Measurement {
    let ms: Vec<&Measurement> = ends.iter().map(|e| &e.measurement).collect();
    let first = ms[0];
    let hist = |i: usize| -> Vec<_> {
        ends.iter()
            .map(|e| histogram_of(&e.histograms[i]))
            .collect()
    };
    let reads = direction(&ms.iter().map(|m| &m.reads).collect::<Vec<_>>(), &hist(0));
    let writes = direction(&ms.iter().map(|m| &m.writes).collect::<Vec<_>>(), &hist(1));
    let n = first.stopping.intervals;
    let series: Vec<f64> = (0..n as usize)
        .map(|i| {
            ms.iter()
                .map(|m| m.stopping.interval_throughput.get(i).unwrap_or(&0.0))
                .sum()
        })
        .collect();
    let ci = batch_means(&series);
    let stall = stalled(&series);
    let (transient, steady) = crate::stats::steady(&series);
    let (user, sys) = (
        ms.iter().map(|m| m.cpu.user_secs).sum::<f64>(),
        ms.iter().map(|m| m.cpu.system_secs).sum::<f64>(),
    );
    let verified = ms
        .iter()
        .filter_map(|m| m.verified_blocks)
        .reduce(|a, b| a + b);
    Measurement {
        throughput_bytes_per_sec: reads.throughput_bytes_per_sec + writes.throughput_bytes_per_sec,
        iops: reads.iops + writes.iops,
        ci95_rel: ci.rel().is_finite().then_some(ci.rel()),
        duration_secs: first.duration_secs,
        bytes_transferred: reads.bytes + writes.bytes,
        requests: reads.requests + writes.requests,
        cpu: CpuUsage {
            user_secs: user,
            system_secs: sys,
            cores_busy: (user + sys) / first.duration_secs.max(f64::MIN_POSITIVE),
        },
        // Each rank's own device: the ranks' mean, where every one knows it.
        device_busy_frac: ms
            .iter()
            .map(|m| m.device_busy_frac)
            .sum::<Option<f64>>()
            .map(|b| b / ms.len() as f64),
        warmup: WarmupInfo {
            secs: ms.iter().map(|m| m.warmup.secs).fold(0.0, f64::max),
            bytes: ms.iter().map(|m| m.warmup.bytes).sum(),
            complete: ms.iter().all(|m| m.warmup.complete),
        },
        stopping: StoppingInfo {
            target_met: ci.rel() <= first.stopping.target_ci95_rel && !stall,
            stalled: stall,
            batches: ci.batches as u64,
            interval_throughput: series,
            transient_intervals: transient as u64,
            steady_throughput_bytes_per_sec: Some(steady),
            ..first.stopping.clone()
        },
        reads,
        writes,
        verified_blocks: verified,
        background: first.background,
        cluster: Some(cluster_info(ends, hosts, stonewall)),
        // The ranks' generators are their own; see `cluster`.
        generators_bytes_per_sec: Vec::new(),
        completions: Default::default(),
    }
}

/// The per-rank and per-node figures of a run on several ranks.
fn cluster_info(ends: &[RankEnd], hosts: &[String], stonewall: Option<u64>) -> ClusterInfo {
    let earliest = ends
        .iter()
        .map(|e| e.start_wall_secs)
        .fold(f64::INFINITY, f64::min);
    let latest = ends
        .iter()
        .map(|e| e.start_wall_secs)
        .fold(f64::NEG_INFINITY, f64::max);
    let ranks: Vec<RankResult> = ends
        .iter()
        .enumerate()
        .map(|(k, e)| RankResult {
            rank: k,
            host: hosts.get(k).cloned().unwrap_or_default(),
            generators: e.generators,
            throughput_bytes_per_sec: e.measurement.throughput_bytes_per_sec,
            bytes: e.measurement.bytes_transferred,
            cores_busy: e.measurement.cpu.cores_busy,
            start_offset_secs: e.start_wall_secs - earliest,
        })
        .collect();
    ClusterInfo {
        nodes: nodes_of(&ranks),
        ranks,
        start_skew_secs: (latest - earliest).max(0.0),
        stonewall_bytes: stonewall,
    }
}

/// The ranks' figures summed per host, hosts in order of their first rank.
fn nodes_of(ranks: &[RankResult]) -> Vec<NodeResult> {
    let mut nodes: Vec<NodeResult> = Vec::new();
    for r in ranks {
        match nodes.iter_mut().find(|n| n.host == r.host) {
            Some(n) => {
                n.ranks.push(r.rank);
                n.throughput_bytes_per_sec += r.throughput_bytes_per_sec;
            }
            None => nodes.push(NodeResult {
                host: r.host.clone(),
                ranks: vec![r.rank],
                throughput_bytes_per_sec: r.throughput_bytes_per_sec,
            }),
        }
    }
    nodes
}

/// An in-process transport: `n` ranks as threads of one process, for
/// tests of the coordination without MPI.
#[derive(Debug)]
pub struct Threads {
    rank: usize,
    hosts: Vec<String>,
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<ExchangeState>,
    turn: Condvar,
}

#[derive(Debug, Default)]
struct ExchangeState {
    generation: u64,
    arrived: usize,
    slots: Vec<Vec<u8>>,
    result: Arc<Vec<Vec<u8>>>,
}

impl Threads {
    /// `n` ranks, each to be moved to its own thread; `hosts` names each
    /// rank's host (cycled).
    pub fn ranks(n: usize, hosts: &[&str]) -> Vec<ClusterRef> {
        let shared = Arc::new(Shared::default());
        shared.state.lock().unwrap().slots = vec![Vec::new(); n];
        let names: Vec<String> = (0..n).map(|k| hosts[k % hosts.len()].to_string()).collect();
        (0..n)
            .map(|rank| {
                Arc::new(Threads {
                    rank,
                    hosts: names.clone(),
                    shared: shared.clone(),
                }) as ClusterRef
            })
            .collect()
    }
}

impl Cluster for Threads {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.hosts.len()
    }

    fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn exchange(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        let mut st = self.shared.state.lock().unwrap();
        st.slots[self.rank] = mine.to_vec();
        st.arrived += 1;
        let generation = st.generation;
        if st.arrived == self.hosts.len() {
            st.result = Arc::new(std::mem::replace(
                &mut st.slots,
                vec![Vec::new(); self.hosts.len()],
            ));
            st.arrived = 0;
            st.generation += 1;
            self.shared.turn.notify_all();
            return Ok(st.result.to_vec());
        }
        while st.generation == generation {
            st = self.shared.turn.wait(st).unwrap();
        }
        Ok(st.result.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The shares cover every generator once, in order, as evenly as
        /// they divide.
        #[test]
        fn shares_partition_the_generators(n in 1u32..500, ranks in 1usize..64) {
            let mut next = 0;
            for k in 0..ranks {
                let (first, count) = share(n, ranks, k);
                prop_assert_eq!(first, next);
                prop_assert!(count == n / ranks as u32 || count == n / ranks as u32 + 1);
                next += count;
            }
            prop_assert_eq!(next, n);
        }
    }

    fn rounds(due: &[bool], series: &[&[f64]]) -> Vec<Round> {
        due.iter()
            .zip(series)
            .map(|(&d, s)| Round {
                due: d,
                series: s.to_vec(),
                bytes: 0,
                stopped: None,
                wall: 0.0,
            })
            .collect()
    }

    fn rule() -> Rule {
        Rule {
            interval: 1,
            min: 4,
            max: 100,
            target_rel: 0.05,
            stonewall: None,
        }
    }

    #[test]
    fn the_measurement_starts_when_every_rank_is_warm() {
        let r = rule();
        assert_eq!(
            decide(&rounds(&[true, false], &[&[], &[]]), false, &r),
            Decision::Continue
        );
        let mut rs = rounds(&[true, true], &[&[], &[]]);
        (rs[0].wall, rs[1].wall) = (100.0, 100.5);
        assert_eq!(
            decide(&rs, false, &r),
            Decision::Start(100.5 + START_LEAD_SECS),
            "the latest clock, and a lead for every rank to hear of it"
        );
    }

    /// Two ranks whose throughputs swing against each other: each alone is
    /// far from the target, their sum is steady, and the rule (on the sum)
    /// stops at the intervals both have measured.
    #[test]
    fn the_stopping_rule_works_on_the_sum_of_the_ranks() {
        let a: Vec<f64> = (0..12)
            .map(|i| if i % 2 == 0 { 10.0 } else { 90.0 })
            .collect();
        let b: Vec<f64> = a.iter().map(|x| 100.0 - x).collect();
        assert!(batch_means(&a).rel() > 0.05);
        let r = rule();
        assert_eq!(
            decide(&rounds(&[true, true], &[&a, &b[..10]]), true, &r),
            Decision::Stop(10)
        );
        // Before the minimum, no stop.
        assert_eq!(
            decide(&rounds(&[true, true], &[&a[..3], &b[..3]]), true, &r),
            Decision::Continue
        );
    }

    #[test]
    fn a_stopped_rank_stops_every_rank_and_is_named() {
        let mut rs = rounds(&[true, true, true], &[&[1.0], &[1.0], &[1.0]]);
        rs[2].stopped = Some("disk full".into());
        assert_eq!(
            decide(&rs, true, &rule()),
            Decision::Abort(2, "disk full".into())
        );
    }

    #[test]
    fn stonewalling_stops_when_the_first_rank_has_moved_its_plan() {
        let r = Rule {
            stonewall: Some(1000),
            ..rule()
        };
        let mut rs = rounds(&[true, true], &[&[1.0, 1.0], &[1.0, 1.0, 1.0]]);
        rs[0].bytes = 999;
        rs[1].bytes = 999;
        assert_eq!(decide(&rs, true, &r), Decision::Continue);
        rs[1].bytes = 1000;
        assert_eq!(decide(&rs, true, &r), Decision::Stop(2));
    }

    #[test]
    fn threads_exchange_in_rank_order_round_after_round() {
        let cs = Threads::ranks(3, &["a", "b"]);
        assert_eq!(cs[2].hosts(), ["a", "b", "a"]);
        let handles: Vec<_> = cs
            .into_iter()
            .map(|c| {
                std::thread::spawn(move || {
                    (0..50u8)
                        .map(|round| c.exchange(&[c.rank() as u8, round]).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (round, all) in h.join().unwrap().into_iter().enumerate() {
                assert_eq!(
                    all,
                    vec![
                        vec![0, round as u8],
                        vec![1, round as u8],
                        vec![2, round as u8]
                    ]
                );
            }
        }
    }
}
