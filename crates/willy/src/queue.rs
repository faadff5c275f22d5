//! A raw device's queue settings that `willy anomalies` may vary, its
//! read-ahead (`read_ahead_kb`) and its I/O scheduler, and the guard that
//! puts them back.
//!
//! What was there is written to a state file before anything changes, and
//! the file is removed once it is restored. The guard restores on drop (the
//! end of the run, an error, Ctrl-C); after a SIGKILL the state file is
//! left, and [`Saved::recover`] restores from it on the next run.

use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A block device's request queue in sysfs (the whole disk's, for a
/// partition).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queue {
    /// `/sys/block/<disk>/queue`.
    pub dir: PathBuf,
}

impl Queue {
    /// The queue of the block device `device` (or of the one a file
    /// system at `device` lives on).
    pub fn of(device: &Path) -> Result<Queue, Error> {
        let disk = crate::sysinfo::block_device_of(device)
            .and_then(crate::sysinfo::whole_disk)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "cannot find the request queue of {} in /sys/block",
                    device.display()
                ))
            })?;
        Ok(Queue::at(Path::new("/sys/block").join(disk).join("queue")))
    }

    /// The queue whose sysfs directory is `dir`.
    pub fn at(dir: PathBuf) -> Queue {
        Queue { dir }
    }

    fn read(&self, name: &str) -> Result<String, Error> {
        let p = self.dir.join(name);
        std::fs::read_to_string(&p)
            .map(|s| s.trim().to_string())
            .map_err(|e| Error::io(format!("reading {}", p.display()), e))
    }

    fn write(&self, name: &str, value: &str) -> Result<(), Error> {
        let p = self.dir.join(name);
        std::fs::write(&p, value)
            .map_err(|e| Error::io(format!("writing {value} to {}", p.display()), e))
    }

    /// Read-ahead, KiB.
    pub fn read_ahead_kb(&self) -> Result<u64, Error> {
        let s = self.read("read_ahead_kb")?;
        s.parse().map_err(|_| {
            Error::Usage(format!(
                "{}/read_ahead_kb holds {s:?}, not a number",
                self.dir.display()
            ))
        })
    }

    /// Sets read-ahead, KiB.
    pub fn set_read_ahead_kb(&self, kb: u64) -> Result<(), Error> {
        self.write("read_ahead_kb", &kb.to_string())
    }

    /// The schedulers offered and the one in use.
    pub fn schedulers(&self) -> Result<(Vec<String>, String), Error> {
        Ok(parse_schedulers(&self.read("scheduler")?))
    }

    /// Switches the I/O scheduler.
    pub fn set_scheduler(&self, name: &str) -> Result<(), Error> {
        self.write("scheduler", name)
    }
}

/// `"none [mq-deadline] kyber"` as the schedulers offered and the one in
/// use (in brackets; the first offered if none is marked).
pub fn parse_schedulers(s: &str) -> (Vec<String>, String) {
    let all: Vec<String> = s
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
        .collect();
    let current = s
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
        .or_else(|| all.first().cloned())
        .unwrap_or_default();
    (all, current)
}

/// A queue's settings as they were before willy changed them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Saved {
    /// The queue.
    pub queue: Queue,
    /// Its read-ahead, KiB.
    pub read_ahead_kb: u64,
    /// Its scheduler.
    pub scheduler: String,
}

impl Saved {
    /// Restores the settings a run killed before it could left in the
    /// state file `state`, if there is one, and removes it. Returns what
    /// was restored.
    pub fn recover(state: &Path) -> Result<Option<Saved>, Error> {
        let text = match std::fs::read_to_string(state) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("reading {}", state.display()), e)),
        };
        let saved: Saved = serde_json::from_str(&text).map_err(|e| {
            Error::Usage(format!(
                "{} is not willy's record of a device's settings ({e}); remove it after checking the device's queue settings",
                state.display()
            ))
        })?;
        saved.restore()?;
        std::fs::remove_file(state)
            .map_err(|e| Error::io(format!("removing {}", state.display()), e))?;
        Ok(Some(saved))
    }

    fn restore(&self) -> Result<(), Error> {
        self.queue.set_scheduler(&self.scheduler)?;
        self.queue.set_read_ahead_kb(self.read_ahead_kb)
    }
}

/// Holds a queue's settings changeable, and puts them back on drop.
#[derive(Debug)]
pub struct Guard {
    saved: Saved,
    state: PathBuf,
}

impl Guard {
    /// Records `queue`'s settings in the state file `state` (which must
    /// not exist: see [`Saved::recover`]) before anything changes.
    pub fn new(queue: Queue, state: PathBuf) -> Result<Guard, Error> {
        let saved = Saved {
            read_ahead_kb: queue.read_ahead_kb()?,
            scheduler: queue.schedulers()?.1,
            queue,
        };
        let json = serde_json::to_string(&saved).expect("plain data");
        std::fs::write(&state, json + "\n")
            .map_err(|e| Error::io(format!("writing {}", state.display()), e))?;
        Ok(Guard { saved, state })
    }

    /// The settings as they were.
    pub fn saved(&self) -> &Saved {
        &self.saved
    }

    /// Sets read-ahead, KiB, and the scheduler (each only if it differs).
    pub fn set(&self, read_ahead_kb: u64, scheduler: &str) -> Result<(), Error> {
        let q = &self.saved.queue;
        if q.schedulers()?.1 != scheduler {
            q.set_scheduler(scheduler)?;
        }
        if q.read_ahead_kb()? != read_ahead_kb {
            q.set_read_ahead_kb(read_ahead_kb)?;
        }
        Ok(())
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        match self.saved.restore() {
            Ok(()) => {
                let _ = std::fs::remove_file(&self.state);
            }
            // Not `eprintln!`, which panics where standard error is
            // closed: a panic in a drop while unwinding aborts.
            Err(e) => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "willy: could not restore the device's queue settings ({e}); they are recorded in {}",
                    self.state.display()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedulers_are_parsed_with_the_one_in_use() {
        let (all, cur) = parse_schedulers("none [mq-deadline] kyber bfq\n");
        assert_eq!(all, ["none", "mq-deadline", "kyber", "bfq"]);
        assert_eq!(cur, "mq-deadline");
        assert_eq!(parse_schedulers("[none]").1, "none");
        assert_eq!(parse_schedulers("none").1, "none");
    }

    /// A queue in a plain directory stands for sysfs: the guard records,
    /// changes and restores, and a left state file is recovered.
    #[test]
    fn the_guard_restores_and_a_left_state_file_is_recovered() {
        let dir = std::env::temp_dir().join(format!("willy-queue-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let q = Queue::at(dir.clone());
        // sysfs shows brackets round the one in use; a plain file holds
        // what was written, which the parser takes as the first offered.
        std::fs::write(dir.join("scheduler"), "mq-deadline").unwrap();
        std::fs::write(dir.join("read_ahead_kb"), "128\n").unwrap();
        let state = dir.join("state");
        {
            let g = Guard::new(q.clone(), state.clone()).unwrap();
            assert!(state.exists(), "recorded before any change");
            g.set(0, "none").unwrap();
            assert_eq!(q.read_ahead_kb().unwrap(), 0);
            assert_eq!(q.schedulers().unwrap().1, "none");
        }
        assert_eq!(q.read_ahead_kb().unwrap(), 128);
        assert_eq!(q.schedulers().unwrap().1, "mq-deadline");
        assert!(!state.exists(), "removed once restored");

        let g = Guard::new(q.clone(), state.clone()).unwrap();
        g.set(4096, "kyber").unwrap();
        std::mem::forget(g); // as if killed
        assert_eq!(q.read_ahead_kb().unwrap(), 4096);
        let back = Saved::recover(&state)
            .unwrap()
            .expect("left by the killed run");
        assert_eq!(back.read_ahead_kb, 128);
        assert_eq!(q.read_ahead_kb().unwrap(), 128);
        assert_eq!(q.schedulers().unwrap().1, "mq-deadline");
        assert!(!state.exists());
        assert_eq!(Saved::recover(&state).unwrap(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
