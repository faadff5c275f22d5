//! `--mpi`: the ranks of `mpirun -np N willy run --mpi ...` as a
//! [`willy::cluster::Cluster`] (cargo feature `mpi`, rsmpi over the
//! system's MPI).
//!
//! One exchange is a gather at rank 0 and a reply to each rank, by
//! point-to-point messages that every rank polls for, so that a rank
//! waiting on another notices a signal: when a rank dies, `mpirun` sends
//! the others SIGTERM about a second later, and SIGKILL a second after
//! that. Rank 0 then names the ranks it was still waiting for, and every
//! rank cleans up (its files were unlinked once created, so even a rank
//! killed with SIGKILL leaves none). Only the thread that started MPI
//! calls it (`MPI_THREAD_FUNNELED`).

use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use willy::cluster::{Cluster, ClusterRef};
use willy::Error;

/// The tag of willy's messages.
const TAG: i32 = 0x77;
/// How long a rank goes on waiting after a signal, for messages already on
/// their way: on Ctrl-C every rank is signalled, and each says so in its
/// next round (every 50 ms), so that all stop as interrupted.
const GRACE: Duration = Duration::from_millis(200);
/// A rank that rank 0 has waited for this long when a signal comes is
/// taken for dead: `mpirun` signals the others about a second after a rank
/// dies, and kills every rank soon after the first exits, so rank 0 names
/// it at once, before the others give up.
const SILENT: Duration = Duration::from_millis(500);

/// MPI for the length of a command: finalised on a clean end; on a
/// failure left to `mpirun`, which stops the other ranks (finalising
/// would wait for ranks that wait for this one).
pub struct Session {
    universe: Option<mpi::environment::Universe>,
    cluster: Arc<Mpi>,
}

impl Session {
    /// Starts MPI (once per process) and learns every rank's host.
    pub fn start(interrupt: Arc<AtomicBool>) -> Result<Session, Error> {
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| Error::Usage("MPI was started twice".into()))?;
        let world = universe.world();
        let host = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
        let mut m = Mpi {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world,
            hosts: Vec::new(),
            interrupt,
            thread: std::thread::current().id(),
        };
        let all = m.exchange(host.as_bytes())?;
        m.hosts = all
            .iter()
            .map(|h| String::from_utf8_lossy(h).into_owned())
            .collect();
        Ok(Session {
            universe: Some(universe),
            cluster: Arc::new(m),
        })
    }

    /// The ranks, as willy's transport.
    pub fn cluster(&self) -> ClusterRef {
        self.cluster.clone()
    }

    /// Ends MPI: finalised when `ok`, otherwise left to `mpirun`.
    pub fn end(mut self, ok: bool) {
        if let Some(u) = self.universe.take() {
            if ok {
                drop(u);
            } else {
                std::mem::forget(u);
            }
        }
    }
}

/// The world communicator and what willy knows of it.
pub struct Mpi {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    hosts: Vec<String>,
    interrupt: Arc<AtomicBool>,
    thread: std::thread::ThreadId,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mpi(rank {} of {})", self.rank, self.size)
    }
}

// SAFETY: the communicator is only used from the thread that started MPI
// (checked in `exchange`), as MPI_THREAD_FUNNELED requires; the handle
// itself is a plain value.
unsafe impl Send for Mpi {}
unsafe impl Sync for Mpi {}

impl Mpi {
    fn name(&self, rank: usize) -> String {
        willy::cluster::who(self, rank)
    }

    /// Polls `probe` until it yields, or until a signal's grace is over.
    fn wait<T>(&self, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
        let started = Instant::now();
        let mut signalled: Option<Instant> = None;
        let mut pause = Duration::from_micros(20);
        loop {
            if let Some(x) = probe() {
                return Some(x);
            }
            if self.interrupt.load(Ordering::Relaxed) {
                let since = *signalled.get_or_insert_with(Instant::now);
                let dead = self.rank == 0 && since.duration_since(started) >= SILENT;
                if dead || since.elapsed() > GRACE {
                    return None;
                }
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }

    /// Sends `bytes` to `to` without blocking on a dead or stuck receiver
    /// (a large message waits for its receiver): polled as [`Mpi::wait`]
    /// polls. False if a signal came first.
    fn send(&self, to: usize, bytes: &[u8]) -> bool {
        let buf: &'static [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
        let p = self.world.process_at_rank(to as i32);
        let mut req = Some(p.immediate_send_with_tag(mpi::request::StaticScope, buf, TAG));
        let sent = self.wait(|| match req.take()?.test() {
            Ok(_) => Some(()),
            Err(r) => {
                req = Some(r);
                None
            }
        });
        match sent {
            Some(()) => {
                // SAFETY: `buf` came from `Box::leak` above and MPI is done
                // with it: the request completed.
                drop(unsafe { Box::from_raw(buf as *const [u8] as *mut [u8]) });
                true
            }
            None => {
                // MPI may still read `buf`: it stays leaked, and the request
                // is left to MPI (the process is about to exit).
                std::mem::forget(req);
                false
            }
        }
    }

    fn receive_from(&self, rank: usize) -> Option<Vec<u8>> {
        let p = self.world.process_at_rank(rank as i32);
        self.wait(|| p.immediate_matched_probe_with_tag(TAG))
            .map(|m| m.matched_receive_vec::<u8>().0)
    }
}

/// Rank 0's reply: every rank's bytes, each after its length.
fn pack(all: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for b in all {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    out
}

fn unpack(mut b: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let len = u64::from_le_bytes(b.get(..8)?.try_into().ok()?) as usize;
        out.push(b.get(8..8 + len)?.to_vec());
        b = &b[8 + len..];
    }
    Some(out)
}

impl Cluster for Mpi {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn exchange(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, Error> {
        if std::thread::current().id() != self.thread {
            return Err(Error::Usage(
                "internal: MPI called from a thread other than the one that started it".into(),
            ));
        }
        if self.rank != 0 {
            let reply = self.send(0, mine).then(|| self.receive_from(0)).flatten();
            let reply = reply.ok_or_else(|| {
                Error::Peer(format!(
                    "{}: stopped by a signal while waiting for the other ranks (one failed or was killed? rank 0 names it)",
                    self.name(self.rank)
                ))
            })?;
            return unpack(&reply).ok_or_else(|| {
                Error::Usage(format!("{} sent a message willy cannot read", self.name(0)))
            });
        }
        let mut got: Vec<Option<Vec<u8>>> = vec![None; self.size];
        got[0] = Some(mine.to_vec());
        let heard = self.wait(|| {
            for (r, slot) in got.iter_mut().enumerate().skip(1) {
                if slot.is_none() {
                    let p = self.world.process_at_rank(r as i32);
                    *slot = p
                        .immediate_matched_probe_with_tag(TAG)
                        .map(|m| m.matched_receive_vec::<u8>().0);
                }
            }
            got.iter().all(Option::is_some).then_some(())
        });
        if heard.is_none() {
            let silent: Vec<String> = (0..self.size)
                .filter(|&r| got[r].is_none())
                .map(|r| self.name(r))
                .collect();
            return Err(Error::Peer(format!(
                "{} stopped answering (killed, or failed?); the run is stopped",
                silent.join(", ")
            )));
        }
        let all: Vec<Vec<u8>> = got.into_iter().flatten().collect();
        let reply = pack(&all);
        for r in 1..self.size {
            if !self.send(r, &reply) {
                return Err(Error::Peer(format!(
                    "{} stopped taking messages (killed, or failed?); the run is stopped",
                    self.name(r)
                )));
            }
        }
        Ok(all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_unpack_to_what_was_packed() {
        let all = vec![vec![], b"abc".to_vec(), vec![0; 300]];
        assert_eq!(unpack(&pack(&all)).unwrap(), all);
        assert!(unpack(&[1, 0, 0]).is_none());
    }
}
