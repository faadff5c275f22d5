//! Exact mean value analysis of a closed network of two stations: the
//! CPUs and a device, with generators that have one request each and no
//! think time.

/// Throughput (requests per unit of the demands' time) of `n` generators
/// whose requests each spend `cpu` on one of `cores` CPUs and
/// `device(k)` at the device when `k` requests are in the network (a
/// load-dependent device; a constant for a fixed one). The CPUs are taken
/// as a queue of demand `cpu / cores` and a delay of the rest
/// (Seidmann's approximation of a multi-server station).
pub fn throughput(n: usize, cpu: f64, cores: f64, device: impl Fn(usize) -> f64) -> f64 {
    let m = cores.max(1.0);
    let (mut q_cpu, mut q_dev, mut x) = (0.0, 0.0, 0.0);
    for k in 1..=n {
        let r_cpu = cpu / m * (1.0 + q_cpu);
        let r_delay = cpu * (m - 1.0) / m;
        let r_dev = device(k) * (1.0 + q_dev);
        x = k as f64 / (r_cpu + r_delay + r_dev);
        q_cpu = x * r_cpu;
        q_dev = x * r_dev;
    }
    x
}

/// The asymptotic bound of the same network with a fixed device: `n`
/// generators no faster than `n` requests that never wait, and no faster
/// than the busier station allows (the bottleneck law). Where each
/// request is mostly of one kind, a copy on the CPUs or a wait for the
/// device, one generator's copies fill the other's waits, and the
/// network comes nearer this bound than mean value analysis, which takes
/// every request to visit both stations at exponential times.
pub fn bound(n: usize, cpu: f64, cores: f64, device: f64) -> f64 {
    let mut x = n as f64 / (cpu + device);
    if cpu > 0.0 {
        x = x.min(cores.max(1.0) / cpu);
    }
    if device > 0.0 {
        x = x.min(1.0 / device);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Mean value analysis never goes beyond the asymptotic bound, and
        /// one generator meets it.
        #[test]
        fn mva_stays_within_the_bound(
            n in 1usize..64, cpu in 0.0f64..1.0, cores in 1.0f64..16.0, device in 0.0f64..1.0,
        ) {
            prop_assume!(cpu + device > 1e-9);
            let x = throughput(n, cpu, cores, |_| device);
            let b = bound(n, cpu, cores, device);
            prop_assert!(x <= b * (1.0 + 1e-9), "{x} > {b}");
            let one = bound(1, cpu, cores, device);
            prop_assert!((one * (cpu + device) - 1.0).abs() < 1e-9, "{one}");
        }
    }
}
