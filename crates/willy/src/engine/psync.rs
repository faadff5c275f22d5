//! `psync`: pread/pwrite on the calling thread. The core runs one thread per
//! generator, each with a one-slot engine: Chen's processes, literally.

use super::{AlignedBuf, Completion, Engine, Io};
use crate::generator::Op;

/// Synchronous pread/pwrite.
pub struct Psync {
    bufs: Vec<AlignedBuf>,
    done: Vec<Completion>,
}

impl Psync {
    /// An engine with `slots` buffers of `max_len` bytes.
    pub fn new(slots: usize, max_len: usize, seed: u64) -> Psync {
        Psync {
            bufs: (0..slots)
                .map(|i| AlignedBuf::new(max_len, seed ^ i as u64))
                .collect(),
            done: Vec::with_capacity(slots),
        }
    }
}

impl Engine for Psync {
    fn submit(&mut self, slot: usize, io: &Io) -> std::io::Result<()> {
        let buf = self.bufs[slot].as_mut_ptr();
        let mut done = 0usize;
        // A short transfer on a regular file or device means EOF or an
        // interrupted call; finish the request as fio's psync does.
        let result = loop {
            let off = (io.offset + done as u64) as libc::off_t;
            // The raw system call: glibc's pread is a cancellation point and,
            // in a threaded process, wraps the call in cancellation
            // bookkeeping that willy (which never cancels threads) pays for
            // on every request. SAFETY: buf is valid for max_len >= io.len
            // bytes.
            let nr = match io.op {
                Op::Read => libc::SYS_pread64,
                Op::Write => libc::SYS_pwrite64,
            };
            let n = unsafe { libc::syscall(nr, io.fd, buf.add(done), io.len - done, off) };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                break -i64::from(e.raw_os_error().unwrap_or(libc::EIO));
            }
            done += n as usize;
            if n == 0 || done == io.len {
                break done as i64;
            }
        };
        self.done.push(Completion { slot, result });
        Ok(())
    }

    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        Some(self.bufs[slot].as_mut_slice())
    }

    fn reap(&mut self, _deadline: Option<u64>, out: &mut Vec<Completion>) -> std::io::Result<()> {
        out.append(&mut self.done);
        Ok(())
    }
}
