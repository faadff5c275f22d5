//! `uring`: one io_uring (the maintained `io-uring` crate) with one request
//! in flight per slot. Each request is submitted as soon as it is queued,
//! and `reap` waits for at least one completion, as fio's io_uring engine
//! does with its defaults.

use super::{monotonic_ns, AlignedBuf, Completion, Engine, Io};
use crate::generator::Op;
use io_uring::{opcode, types, IoUring};

/// io_uring engine.
pub struct Uring {
    ring: IoUring,
    bufs: Vec<AlignedBuf>,
}

impl Uring {
    /// A ring with room for `slots` requests, and one buffer per slot.
    pub fn new(slots: usize, max_len: usize, seed: u64) -> std::io::Result<Uring> {
        let entries = (slots.max(1) as u32).next_power_of_two();
        // One thread submits and reaps: let the kernel skip the IPIs and run
        // completion work when we enter the ring, as fio's io_uring engine
        // does. Older kernels lack some flags: fall back to a plain ring.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_coop_taskrun()
            .build(entries)
            .or_else(|_| IoUring::builder().build(entries))?;
        Ok(Uring {
            ring,
            bufs: (0..slots)
                .map(|i| AlignedBuf::new(max_len, seed ^ i as u64))
                .collect(),
        })
    }
}

impl Engine for Uring {
    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        Some(self.bufs[slot].as_mut_slice())
    }

    fn submit(&mut self, slot: usize, io: &Io) -> std::io::Result<()> {
        let buf = self.bufs[slot].as_mut_ptr();
        let fd = types::Fd(io.fd);
        let e = match io.op {
            Op::Read => opcode::Read::new(fd, buf, io.len as u32)
                .offset(io.offset)
                .build(),
            Op::Write => opcode::Write::new(fd, buf, io.len as u32)
                .offset(io.offset)
                .build(),
        }
        .user_data(slot as u64);
        // SAFETY: the buffer lives as long as the engine, and the core never
        // reuses a slot's buffer while the slot has a request in flight.
        unsafe { self.ring.submission().push(&e) }
            .map_err(|_| std::io::Error::other("io_uring submission queue full"))?;
        // Submit at once, as fio does by default (iodepth_batch=1). Holding
        // submissions until the next wait turns completions that arrive
        // together into convoys: measured 20% fewer IOPS at 16 in flight
        // on a virtio disk (docs/PERFORMANCE.md).
        self.ring.submit()?;
        Ok(())
    }

    fn reap(&mut self, deadline: Option<u64>, out: &mut Vec<Completion>) -> std::io::Result<()> {
        if self.ring.completion().is_empty() {
            let r = match deadline {
                None => self.ring.submit_and_wait(1),
                Some(t) => {
                    let wait = t.saturating_sub(monotonic_ns());
                    let ts = types::Timespec::new()
                        .sec(wait / 1_000_000_000)
                        .nsec((wait % 1_000_000_000) as u32);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    self.ring.submitter().submit_with_args(1, &args)
                }
            };
            match r {
                Ok(_) => {}
                Err(e)
                    if e.raw_os_error() == Some(libc::ETIME)
                        || e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(e),
            }
        }
        for cqe in self.ring.completion() {
            out.push(Completion {
                slot: cqe.user_data() as usize,
                result: i64::from(cqe.result()),
            });
        }
        Ok(())
    }
}
