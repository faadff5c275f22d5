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
