//! Cost of drawing one request, no I/O: the generator must stay far cheaper
//! than the fastest I/O it drives (a page-cache hit is about 1-2 us).
//!
//! Run: `cargo bench -p willy --bench generator`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use willy::generator::Generator;
use willy::units::Bytes;
use willy::workload::Workload;

fn workload(unique: u64, size: u64, seq: f64) -> Workload {
    Workload {
        unique_bytes: Bytes(unique),
        size_mean: Bytes(size),
        read_frac: 0.5,
        seq_frac: seq,
        process_num: 1,
        cpu_think: Default::default(),
        block_size: Bytes(4096),
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("next_request");
    g.throughput(Throughput::Elements(1));
    for (name, unique) in [
        ("16MiB", 16u64 << 20),
        ("1GiB", 1 << 30),
        ("64GiB", 64 << 30),
    ] {
        for (size, seq) in [(4096u64, 0.0), (4096, 0.5), (64 << 10, 0.5)] {
            let w = workload(unique, size, seq);
            let mut gen = Generator::new(&w, 0, 1);
            let id = BenchmarkId::new(
                format!("U={name}"),
                format!("size={}KiB,seq={seq}", size >> 10),
            );
            g.bench_function(id, |b| b.iter(|| black_box(gen.next_request())));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
