//! `tokio-uring`: io_uring through the tokio-uring runtime. Each submitted
//! request becomes a task; `reap` drives the runtime until one finishes.
//! Kept beside [`super::Uring`] because the design names tokio-uring; which
//! one is the default is decided by measurement (docs/PERFORMANCE.md).

use super::{monotonic_ns, AlignedBuf, Completion, Engine, Io};
use crate::generator::Op;
use std::collections::HashMap;
use std::os::fd::{FromRawFd, RawFd};
use std::rc::Rc;
use tokio::sync::mpsc;
use tokio_uring::buf::BoundedBuf;

// SAFETY: `AlignedBuf` owns stable heap memory of `len` bytes that does not
// move while the buffer is owned by an in-flight operation.
unsafe impl tokio_uring::buf::IoBuf for AlignedBuf {
    fn stable_ptr(&self) -> *const u8 {
        self.as_slice().as_ptr()
    }
    fn bytes_init(&self) -> usize {
        self.len()
    }
    fn bytes_total(&self) -> usize {
        self.len()
    }
}

// SAFETY: as above; the whole buffer is always initialised.
unsafe impl tokio_uring::buf::IoBufMut for AlignedBuf {
    fn stable_mut_ptr(&mut self) -> *mut u8 {
        self.as_mut_ptr()
    }
    unsafe fn set_init(&mut self, _pos: usize) {}
}

type Done = (usize, i64, AlignedBuf);

/// io_uring through tokio-uring.
pub struct TokioUring {
    rt: tokio_uring::Runtime,
    bufs: Vec<Option<AlignedBuf>>,
    files: HashMap<RawFd, Rc<tokio_uring::fs::File>>,
    pending: Vec<(usize, Io)>,
    tx: mpsc::UnboundedSender<Done>,
    rx: mpsc::UnboundedReceiver<Done>,
}

impl TokioUring {
    /// A runtime with `slots` buffers of `max_len` bytes.
    pub fn new(slots: usize, max_len: usize, seed: u64) -> std::io::Result<TokioUring> {
        let entries = (slots.max(1) as u32).next_power_of_two().max(8);
        let rt = tokio_uring::Runtime::new(tokio_uring::builder().entries(entries))?;
        let (tx, rx) = mpsc::unbounded_channel();
        Ok(TokioUring {
            rt,
            bufs: (0..slots)
                .map(|i| Some(AlignedBuf::new(max_len, seed ^ i as u64)))
                .collect(),
            files: HashMap::new(),
            pending: Vec::new(),
            tx,
            rx,
        })
    }

    fn file(&mut self, fd: RawFd) -> std::io::Result<Rc<tokio_uring::fs::File>> {
        if let Some(f) = self.files.get(&fd) {
            return Ok(f.clone());
        }
        // tokio-uring closes what it owns, so it gets its own descriptor.
        // SAFETY: dup returns a new descriptor that only this File owns.
        let dup = unsafe { libc::dup(fd) };
        if dup < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let std_file = unsafe { std::fs::File::from_raw_fd(dup) };
        let f = Rc::new(tokio_uring::fs::File::from_std(std_file));
        self.files.insert(fd, f.clone());
        Ok(f)
    }
}

impl Engine for TokioUring {
    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.bufs[slot].as_mut().map(|b| b.as_mut_slice())
    }

    fn submit(&mut self, slot: usize, io: &Io) -> std::io::Result<()> {
        self.pending.push((slot, *io));
        Ok(())
    }

    fn reap(&mut self, deadline: Option<u64>, out: &mut Vec<Completion>) -> std::io::Result<()> {
        let mut ops = Vec::with_capacity(self.pending.len());
        for (slot, io) in std::mem::take(&mut self.pending) {
            let buf = self.bufs[slot].take().expect("slot buffer is free");
            ops.push((slot, io, buf, self.file(io.fd)?));
        }
        let tx = self.tx.clone();
        let rx = &mut self.rx;
        let done: Vec<Done> = self.rt.block_on(async move {
            for (slot, io, buf, file) in ops {
                let tx = tx.clone();
                tokio_uring::spawn(async move {
                    let slice = buf.slice(0..io.len);
                    let (res, slice) = match io.op {
                        Op::Read => file.read_at(slice, io.offset).await,
                        Op::Write => file.write_at(slice, io.offset).submit().await,
                    };
                    let result = match res {
                        Ok(n) => n as i64,
                        Err(e) => -i64::from(e.raw_os_error().unwrap_or(libc::EIO)),
                    };
                    let _ = tx.send((slot, result, slice.into_inner()));
                });
            }
            let mut done = Vec::new();
            let first = match deadline {
                None => rx.recv().await,
                Some(t) => {
                    let wait = std::time::Duration::from_nanos(t.saturating_sub(monotonic_ns()));
                    tokio::time::timeout(wait, rx.recv()).await.ok().flatten()
                }
            };
            done.extend(first);
            while let Ok(d) = rx.try_recv() {
                done.push(d);
            }
            done
        });
        for (slot, result, buf) in done {
            self.bufs[slot] = Some(buf);
            out.push(Completion { slot, result });
        }
        Ok(())
    }
}

impl Drop for TokioUring {
    fn drop(&mut self) {
        // tokio-uring closes files through the ring: do it inside the runtime.
        let files = std::mem::take(&mut self.files);
        self.rt.block_on(async move {
            for (_, f) in files {
                if let Ok(f) = Rc::try_unwrap(f) {
                    let _ = f.close().await;
                }
            }
        });
    }
}
