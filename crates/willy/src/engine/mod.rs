//! The I/O engine seam, in the spirit of fio's `ioengine_ops`.
//!
//! An engine moves bytes; it does not time, count or decide anything. The core
//! loop ([`crate::run`]) owns the generators, stamps the clock right before
//! [`Engine::submit`] and right after [`Engine::reap`] returns, and so times
//! every engine the same way. An engine serves a fixed number of *slots*;
//! each slot is one closed-loop generator with at most one request in flight.
//!
//! The clock belongs to the engine ([`Engine::now`]) so that a simulated
//! engine can run the very same core loop in virtual time.

mod psync;
mod tokio_uring_engine;
mod uring;

pub use psync::Psync;
pub use tokio_uring_engine::TokioUring;
pub use uring::Uring;

use crate::generator::Op;
use std::os::fd::RawFd;
use std::time::Duration;

/// One request as the engine sees it: absolute offset in the open file.
#[derive(Clone, Copy, Debug)]
pub struct Io {
    /// Read or write.
    pub op: Op,
    /// The open file or device.
    pub fd: RawFd,
    /// Absolute byte offset.
    pub offset: u64,
    /// Length in bytes; at most the engine's `max_len`.
    pub len: usize,
}

/// A finished request: its slot and the kernel's result (bytes moved, or a
/// negative errno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The slot that submitted the request.
    pub slot: usize,
    /// Bytes transferred, or `-errno`.
    pub result: i64,
}

/// The operations every engine provides.
pub trait Engine {
    /// Queues `io` for `slot`, which has nothing in flight. A synchronous
    /// engine does the I/O here.
    fn submit(&mut self, slot: usize, io: &Io) -> std::io::Result<()>;

    /// Submits what is queued and waits until at least one request has
    /// completed or `deadline` (on [`Engine::now`]'s clock) has passed.
    /// Appends completions to `out`.
    fn reap(&mut self, deadline: Option<u64>, out: &mut Vec<Completion>) -> std::io::Result<()>;

    /// Nanoseconds on the engine's clock. Real engines share one monotonic
    /// clock ([`monotonic_ns`]).
    fn now(&self) -> u64 {
        monotonic_ns()
    }

    /// The buffer of `slot`, which has nothing in flight: what a write
    /// will send, or what the last read brought. `None` for an engine that
    /// moves no data (the simulator).
    fn buffer(&mut self, _slot: usize) -> Option<&mut [u8]> {
        None
    }

    /// Whether this engine pipelines (Barve's one-sector asynchronous
    /// read before each block, [`Engine::prefetch`]).
    fn pipelines(&self) -> bool {
        false
    }

    /// Issues an asynchronous read of `len` bytes at `offset` on `fd`
    /// for slot `slot`, whose data nobody waits for: the device reads
    /// ahead from there. Returns when (on [`Engine::now`]'s clock) the
    /// host is done issuing it and the slot may go on. Only called when
    /// [`Engine::pipelines`].
    fn prefetch(&mut self, _slot: usize, _fd: RawFd, _offset: u64, _len: usize) -> u64 {
        self.now()
    }

    /// What the engine's own host and device have done so far, on its
    /// clock, where it keeps count itself (the simulator); `None` for real
    /// engines, whose CPU time and device busy time come from the
    /// operating system.
    fn resources(&self) -> Option<Resources> {
        None
    }

    /// Waits, with nothing in flight, until `t` on the engine's clock.
    fn sleep_until(&mut self, t: u64) {
        let now = self.now();
        if t > now {
            std::thread::sleep(Duration::from_nanos(t - now));
        }
    }
}

/// Cumulative resource use on an engine's clock (see
/// [`Engine::resources`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// CPU time, ns, summed over CPUs.
    pub cpu_ns: u64,
    /// Time the device was busy, ns, where known.
    pub device_busy_ns: Option<u64>,
}

/// Which engine to use.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    /// `processNum` OS threads issuing pread/pwrite.
    Psync,
    /// One thread, one io_uring (the `io-uring` crate) with `processNum`
    /// requests in flight.
    Uring,
    /// The same on the tokio-uring runtime.
    TokioUring,
}

impl EngineKind {
    /// Every engine, the default ([`EngineKind::Psync`], as in Chen's Willy
    /// and fio) among them.
    pub const ALL: [EngineKind; 3] = [EngineKind::Psync, EngineKind::Uring, EngineKind::TokioUring];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Psync => "psync",
            EngineKind::Uring => "uring",
            EngineKind::TokioUring => "tokio-uring",
        }
    }

    /// True when each generator gets its own OS thread and engine (a
    /// synchronous engine); false when one thread drives every generator.
    pub fn thread_per_generator(self) -> bool {
        matches!(self, EngineKind::Psync)
    }
}

impl std::str::FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<EngineKind, String> {
        EngineKind::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown engine {s:?}"))
    }
}

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`, as fio uses):
/// one vDSO call, read twice per request.
pub fn monotonic_ns() -> u64 {
    // SAFETY: a zeroed timespec is a valid out-parameter.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A heap buffer aligned for O_DIRECT (4 KiB), filled with a pattern that
/// does not compress or deduplicate trivially.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// The buffer is plain memory owned by this value.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Alignment of every buffer: enough for O_DIRECT on 4Kn devices.
    pub const ALIGN: usize = 4096;

    /// A buffer of `len` bytes (at least one), filled from `seed`.
    pub fn new(len: usize, seed: u64) -> AlignedBuf {
        let layout =
            std::alloc::Layout::from_size_align(len.max(1), Self::ALIGN).expect("buffer layout");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let ptr =
            std::ptr::NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        let mut b = AlignedBuf {
            ptr,
            len: len.max(1),
        };
        let mut x = seed | 1;
        for chunk in b.as_mut_slice().chunks_mut(8) {
            // xorshift64: cheap bytes with no structure a device could exploit.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
        }
        b
    }

    /// The buffer's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: buffers hold at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Raw pointer to the start.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The buffer as a slice.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr is valid for len bytes and uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The buffer as a shared slice.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout =
            std::alloc::Layout::from_size_align(self.len, Self::ALIGN).expect("buffer layout");
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}

/// Builds an engine of `kind` with `slots` slots, each with a buffer of
/// `max_len` bytes.
pub fn build(
    kind: EngineKind,
    slots: usize,
    max_len: usize,
    seed: u64,
) -> std::io::Result<Box<dyn Engine>> {
    Ok(match kind {
        EngineKind::Psync => Box::new(Psync::new(slots, max_len, seed)),
        EngineKind::Uring => Box::new(Uring::new(slots, max_len, seed)?),
        EngineKind::TokioUring => Box::new(TokioUring::new(slots, max_len, seed)?),
    })
}
