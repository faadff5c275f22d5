//! The time budget of a self-scaling run on a real target (`--budget`), as
//! one unit with an injected clock, so that its policy is tested without
//! real I/O (docs/SCALING.md, "Time").
//!
//! - **Time left** is planned at [`PLAN_FRACTION`] of what the clock says
//!   is left: the points still to come are an estimate that grows as
//!   regions appear, and a run that met it exactly ended late.
//! - **A point's share** is the time left, less the overhead the points
//!   after it will cost (creating files, opening, closing: the mean seen so
//!   far), over the points still expected. A point gets half its share (a
//!   quarter when its files are reused) for warm-up and the rest to
//!   measure, but always the intervals batch means needs ([`TimeBudget::floor`]).
//!   A warm-up or measurement time the user fixed is kept, and the other
//!   gets what the share leaves.
//! - **What the time left affords**: how many more points fit, each at
//!   [`TimeBudget::point_cost`] plus the mean overhead. The scaler thins
//!   its curves to fit it.

use std::time::{Duration, Instant};

/// The shortest share the plan is content with: below it the plan warns
/// that the budget is too short for good points, and the regions' curves
/// are thinned when the time left cannot give every point still to come
/// this much (with its overhead).
pub const MIN_POINT: Duration = Duration::from_secs(4);

/// The fraction of the time left that is planned on.
pub const PLAN_FRACTION: f64 = 0.95;

/// The rate at which a plan assumes files are written, bytes per second:
/// a fast SSD's (this machine's virtio disk writes about 1.1 GB/s). A
/// slower disk makes the real fill longer than the plan's estimate.
pub const ASSUMED_FILL_RATE: f64 = 1e9;

/// The least time a self-scaling run needs, whatever it thins: its sweeps'
/// files written at [`ASSUMED_FILL_RATE`], and every sweep point (the
/// three sweeps, unrefined) at `point_cost`. Curves can be thinned to fit
/// a budget; the sweeps that find the regions cannot.
pub fn least_time(fill_bytes: u64, sweep_points: usize, point_cost: Duration) -> Duration {
    Duration::from_secs_f64(fill_bytes as f64 / ASSUMED_FILL_RATE)
        + point_cost * sweep_points as u32
}

/// Elapsed time since the run started.
pub trait Clock {
    /// Time since the budget started.
    fn elapsed(&self) -> Duration;
}

/// The wall clock.
pub struct WallClock(Instant);

impl WallClock {
    /// Starts now.
    pub fn start() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Clock for WallClock {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}

/// What the user fixed of a point's timing (`--warmup-max`, `--max-time`),
/// and the measurement interval.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fixed {
    /// The warm-up limit, if the user set it.
    pub warmup_max: Option<Duration>,
    /// The measurement limit, if the user set it.
    pub max_time: Option<Duration>,
}

/// The timing of one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointPlan {
    /// Its share of the time left, seconds.
    pub share_secs: f64,
    /// The longest warm-up.
    pub warmup_max: Duration,
    /// The longest measurement.
    pub max_duration: Duration,
    /// A cap on the shortest measurement (the run's own minimum, if lower,
    /// is kept).
    pub min_duration_cap: Duration,
}

/// The budget of a run. See the module documentation.
pub struct TimeBudget<C: Clock> {
    clock: C,
    budget: Duration,
    floor: Duration,
    fixed: Fixed,
    /// Overhead seconds summed over the points measured, and their number.
    overhead: (f64, u32),
}

impl<C: Clock> TimeBudget<C> {
    /// A budget of `budget` from `clock`'s start, for points measured in
    /// intervals of `interval`.
    pub fn new(clock: C, budget: Duration, interval: Duration, fixed: Fixed) -> TimeBudget<C> {
        TimeBudget {
            clock,
            budget,
            floor: interval * (willy::stats::MIN_BATCHES as u32 + 2),
            fixed,
            overhead: (0.0, 0),
        }
    }

    /// The shortest measurement: the intervals batch means needs, with a
    /// margin.
    pub fn floor(&self) -> Duration {
        self.floor
    }

    /// The least a point costs: [`MIN_POINT`], a measurement of
    /// [`TimeBudget::floor`] after a short warm-up, or what the user fixed.
    pub fn point_cost(&self) -> Duration {
        let fixed =
            self.fixed.max_time.unwrap_or_default() + self.fixed.warmup_max.unwrap_or_default();
        MIN_POINT.max(self.floor + MIN_POINT / 2).max(fixed)
    }

    /// The mean overhead of the points measured so far, seconds.
    pub fn mean_overhead(&self) -> f64 {
        match self.overhead {
            (_, 0) => 0.0,
            (secs, n) => secs / f64::from(n),
        }
    }

    /// The time left to plan on, seconds.
    pub fn time_left(&self) -> f64 {
        PLAN_FRACTION
            * self
                .budget
                .saturating_sub(self.clock.elapsed())
                .as_secs_f64()
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.clock.elapsed()
    }

    /// How many more points the time left affords.
    pub fn afford(&self) -> usize {
        (self.time_left() / (self.point_cost().as_secs_f64() + self.mean_overhead())) as usize
    }

    /// The timing of the next point, with `points_left` points still
    /// expected (this one included); `reused` when its files exist already.
    pub fn plan(&self, points_left: usize, reused: bool) -> PointPlan {
        let points_left = points_left.max(1);
        let left = self.time_left() - self.mean_overhead() * (points_left - 1) as f64;
        // No floor but a second: the budget holds, and the measurement
        // still gets the intervals batch means needs.
        let share = (left / points_left as f64).max(1.0);
        let secs = Duration::from_secs_f64;
        let part = if reused { share / 4.0 } else { share / 2.0 };
        let warmup_max = match (self.fixed.warmup_max, self.fixed.max_time) {
            (Some(w), _) => w,
            // The measurement is fixed: the warm-up gets what it leaves.
            (None, Some(m)) => secs(part.min((share - m.as_secs_f64()).max(0.0))),
            (None, None) => secs(part),
        };
        let max_duration = match self.fixed.max_time {
            Some(m) => m,
            None => secs(share - warmup_max.as_secs_f64().min(share)).max(self.floor),
        };
        PointPlan {
            share_secs: share,
            warmup_max,
            max_duration,
            min_duration_cap: secs((share / 4.0).max(1.0)).min(max_duration),
        }
    }

    /// Records a point that took `total` in all, of which `measured` was
    /// warm-up and measurement: the rest is its overhead.
    pub fn record(&mut self, total: Duration, measured: Duration) {
        let this = total.saturating_sub(measured).as_secs_f64();
        self.overhead = (self.overhead.0 + this, self.overhead.1 + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_time_adds_the_fills_and_the_sweep_points() {
        let t = least_time(120_000_000_000, 60, Duration::from_secs(4));
        assert_eq!(t, Duration::from_secs(120 + 240));
    }
    use std::cell::Cell;
    use std::rc::Rc;

    /// A clock the test moves.
    #[derive(Clone, Default)]
    struct FakeClock(Rc<Cell<Duration>>);

    impl FakeClock {
        fn advance(&self, d: Duration) {
            self.0.set(self.0.get() + d);
        }
    }

    impl Clock for FakeClock {
        fn elapsed(&self) -> Duration {
            self.0.get()
        }
    }

    const INTERVAL: Duration = Duration::from_millis(250);

    /// A point that never meets its confidence target: it takes its whole
    /// warm-up and measurement, plus `overhead` when its files are new.
    fn worst_point(
        b: &mut TimeBudget<FakeClock>,
        clock: &FakeClock,
        left: usize,
        reused: bool,
        overhead: Duration,
    ) {
        let p = b.plan(left, reused);
        let measured = p.warmup_max + p.max_duration;
        let total = measured + if reused { Duration::ZERO } else { overhead };
        clock.advance(total);
        b.record(total, measured);
    }

    /// Runs a scaler-like loop: `expected(n)` points are expected after `n`
    /// points, but, like the scaler, the run never plans more points than
    /// the time left affords. Returns the points measured.
    fn run(
        b: &mut TimeBudget<FakeClock>,
        clock: &FakeClock,
        done: usize,
        expected: impl Fn(usize) -> usize,
        overhead: Duration,
    ) -> usize {
        let mut n = done;
        let mut cap = usize::MAX;
        while n < expected(n).min(cap) {
            // A new stage asks what the time left affords, as the scaler
            // does before each region.
            if n.is_multiple_of(20) {
                cap = n + b.afford();
                if n >= expected(n).min(cap) {
                    break;
                }
            }
            let left = expected(n).min(cap) - n;
            worst_point(b, clock, left, !n.is_multiple_of(3), overhead);
            n += 1;
        }
        n
    }

    fn budget(clock: &FakeClock, mins: u64, fixed: Fixed) -> TimeBudget<FakeClock> {
        TimeBudget::new(
            clock.clone(),
            Duration::from_secs(mins * 60),
            INTERVAL,
            fixed,
        )
    }

    #[test]
    fn extra_regions_appearing_mid_run_do_not_overrun() {
        let clock = FakeClock::default();
        let mut b = budget(&clock, 20, Fixed::default());
        // 150 points planned; after 100, four more regions (50 points each)
        // appear.
        let n = run(
            &mut b,
            &clock,
            0,
            |n| if n < 100 { 150 } else { 350 },
            Duration::from_secs(2),
        );
        assert!(n > 150, "the extra regions got {} points", n - 150);
        assert!(
            clock.elapsed() <= Duration::from_secs(1200),
            "took {:?}",
            clock.elapsed()
        );
    }

    #[test]
    fn a_fixed_max_time_alone_does_not_overrun() {
        let clock = FakeClock::default();
        let fixed = Fixed {
            max_time: Some(Duration::from_secs(10)),
            warmup_max: None,
        };
        let mut b = budget(&clock, 20, fixed);
        assert_eq!(b.point_cost(), Duration::from_secs(10));
        let n = run(&mut b, &clock, 0, |_| 200, Duration::from_secs(1));
        assert!(n > 50, "{n} points");
        assert!(
            clock.elapsed() <= Duration::from_secs(1200),
            "took {:?}",
            clock.elapsed()
        );
        // The old rule gave the warm-up half the share on top of the fixed
        // measurement: a 10 s share took 15 s.
        let p = b.plan(1, false);
        assert_eq!(p.max_duration, Duration::from_secs(10));
    }

    #[test]
    fn a_resumed_run_shares_its_budget_between_the_points_left() {
        let clock = FakeClock::default();
        let mut b = budget(&clock, 10, Fixed::default());
        // 120 of 200 points came from the checkpoint and took no time: the
        // 80 left share the whole budget, and use most of it.
        let n = run(&mut b, &clock, 120, |_| 200, Duration::from_secs(2));
        assert_eq!(n, 200);
        let took = clock.elapsed();
        assert!(took <= Duration::from_secs(600), "took {took:?}");
        assert!(
            took >= Duration::from_secs(450),
            "left unused: took {took:?}"
        );
    }

    #[test]
    fn a_plan_keeps_the_floor_and_the_users_warm_up() {
        let clock = FakeClock::default();
        let fixed = Fixed {
            warmup_max: Some(Duration::from_secs(3)),
            max_time: None,
        };
        let b = budget(&clock, 1, fixed);
        let p = b.plan(1000, false);
        assert_eq!(p.warmup_max, Duration::from_secs(3));
        assert_eq!(p.max_duration, b.floor());
        assert!(p.min_duration_cap <= p.max_duration);
    }
}
