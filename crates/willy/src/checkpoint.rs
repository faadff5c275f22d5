//! Every measured point, saved the moment it is measured.
//!
//! A self-scaling run takes hours; a crash, a `kill -9` or a power cut must
//! not cost a finished measurement. The store is a JSON-lines file: one
//! record per point, appended and flushed to disk (`fdatasync`) before the
//! run moves on. A record is keyed by everything that determines the
//! measurement: the workload, the seed, the engine, the target and whether
//! O_DIRECT was used. On `--resume` the store is read back, and a point
//! whose key is there is not measured again.
//!
//! A kill can cut the last append short. Opening the store drops a last
//! line without its newline (and truncates the file to the last whole
//! record, so that later appends start on a fresh line); every earlier
//! record was flushed before the next one began. A whole line that is no
//! record means the file is not willy's checkpoint (or is damaged): it is
//! refused, and left as it is.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// The checkpoint beside a result file: `RESULT.ckpt`.
pub fn path_beside(result: &Path) -> PathBuf {
    let mut s = result.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}
use crate::report::Measurement;
use crate::workload::Workload;
use crate::Error;

/// What determines a measurement, besides the workload.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// Generator seed.
    pub seed: u64,
    /// Engine name.
    pub engine: String,
    /// Target path, or `sim:NAME`.
    pub target: String,
    /// O_DIRECT.
    pub direct: bool,
    /// Which pass over the same workloads (validate's first pass and its
    /// repeatability pass are separate measurements). Absent for
    /// `--scale`, whose points are measured once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// For `--scale`: the largest uniqueBytes of the plan's sweeps, which
    /// fixes their grid. `--resume` takes it from here, so that a resumed
    /// run measures the same points whatever the free space is by then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep_to: Option<u64>,
}

/// One saved point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The workload measured.
    pub workload: Workload,
    /// How it was measured.
    pub setting: Setting,
    /// What was measured.
    pub measurement: Measurement,
}

impl Record {
    /// What a point is found by: the workload and the setting, but not the
    /// plan's grid (`sweep_to`), which only says which points a run takes,
    /// so that checkpoints written before it was recorded still resume.
    fn key(workload: &Workload, setting: &Setting) -> String {
        let setting = Setting {
            sweep_to: None,
            ..setting.clone()
        };
        serde_json::to_string(&(workload, setting)).expect("workloads serialise")
    }
}

/// The checkpoint file of one run.
#[derive(Debug)]
pub struct Checkpoint {
    /// Where the store lives, for messages.
    path: PathBuf,
    file: File,
    done: HashMap<String, Record>,
}

impl Checkpoint {
    /// Opens (or creates) the store at `path`, loading what it holds.
    pub fn open(path: &Path) -> Result<Checkpoint, Error> {
        let io = |what: &str, e| Error::io(format!("{what} checkpoint {}", path.display()), e);
        // O_APPEND: every record goes to the end, also after the repair below.
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| io("opening", e))?;
        let mut done = HashMap::new();
        let mut good_len = 0u64;
        let mut lines = 0usize;
        let mut reader = BufReader::new(&mut file);
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader.read_line(&mut line).map_err(|e| io("reading", e))?;
            if n == 0 {
                break;
            }
            lines += 1;
            // A torn last append (no newline yet): drop it.
            if !line.ends_with('\n') {
                break;
            }
            match serde_json::from_str::<Record>(line.trim_end()) {
                Ok(r) => {
                    good_len += n as u64;
                    done.insert(Record::key(&r.workload, &r.setting), r);
                }
                // A whole line that is no record: not willy's checkpoint,
                // or damaged. Nothing is cut, nothing measured over it.
                Err(e) => {
                    return Err(Error::Usage(format!(
                        "{} is not a willy checkpoint (line {lines}: {e}); willy leaves it alone: move it away, or write the result elsewhere",
                        path.display()
                    )))
                }
            }
        }
        drop(reader);
        file.set_len(good_len).map_err(|e| io("repairing", e))?;
        Ok(Checkpoint {
            path: path.to_path_buf(),
            file,
            done,
        })
    }

    /// The sweeps' top of the run that saved these points (see
    /// [`Setting::sweep_to`]), if any saved one.
    pub fn sweep_to(&self) -> Option<u64> {
        self.done.values().find_map(|r| r.setting.sweep_to)
    }

    /// Points saved so far.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// True if nothing is saved yet.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// The saved measurement of `workload` under `setting`, if any.
    pub fn get(&self, workload: &Workload, setting: &Setting) -> Option<&Measurement> {
        self.done
            .get(&Record::key(workload, setting))
            .map(|r| &r.measurement)
    }

    /// Appends a point and flushes it to disk before returning.
    pub fn save(&mut self, record: Record) -> Result<(), Error> {
        let io = |e| Error::io(format!("writing checkpoint {}", self.path.display()), e);
        let mut line = serde_json::to_string(&record).expect("records serialise");
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.done
            .insert(Record::key(&record.workload, &record.setting), record);
        Ok(())
    }

    /// The saved measurement of `workload`, or a new one from `measure`,
    /// saved before it is returned. The bool says whether it was measured now.
    pub fn measure_or_resume(
        &mut self,
        workload: &Workload,
        setting: &Setting,
        measure: impl FnOnce(&Workload) -> Result<Measurement, Error>,
    ) -> Result<(Measurement, bool), Error> {
        if let Some(m) = self.get(workload, setting) {
            return Ok((m.clone(), false));
        }
        let m = measure(workload)?;
        self.save(Record {
            workload: workload.clone(),
            setting: setting.clone(),
            measurement: m.clone(),
        })?;
        Ok((m, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{run_sim, RunConfig};
    use crate::sim::SimConfig;
    use std::time::Duration;

    fn setting(seed: u64) -> Setting {
        Setting {
            seed,
            engine: "uring".into(),
            target: "sim:sparc1990".into(),
            direct: false,
            pass: None,
            sweep_to: None,
        }
    }

    fn workload(mib: u64) -> Workload {
        Workload::from_json(&format!(
            r#"{{"uniqueBytes":"{mib}MiB","sizeMean":"8KiB","readFrac":0.5,"seqFrac":0.5,"processNum":1}}"#
        ))
        .unwrap()
    }

    fn measure(w: &Workload) -> Result<Measurement, Error> {
        let cfg = RunConfig {
            min_duration: Duration::from_secs(3),
            max_duration: Duration::from_secs(10),
            ..RunConfig::default()
        };
        run_sim(w, &cfg, &SimConfig::load("sparc1990").unwrap(), false).map(|(m, _)| m)
    }

    #[test]
    fn saved_points_come_back_and_are_not_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let mut ck = Checkpoint::open(&path).unwrap();
        let (a, fresh) = ck
            .measure_or_resume(&workload(8), &setting(1), measure)
            .unwrap();
        assert!(fresh);
        drop(ck);
        let mut ck = Checkpoint::open(&path).unwrap();
        assert_eq!(ck.len(), 1);
        let (b, fresh) = ck
            .measure_or_resume(&workload(8), &setting(1), |_| {
                panic!("a saved point was measured again")
            })
            .unwrap();
        assert!(!fresh);
        assert_eq!(a, b);
        // Another seed or another workload is another point.
        assert!(ck.get(&workload(8), &setting(2)).is_none());
        assert!(ck.get(&workload(16), &setting(1)).is_none());
        // So is another pass.
        let mut again = setting(1);
        again.pass = Some("repeat".into());
        assert!(ck.get(&workload(8), &again).is_none());
    }

    #[test]
    fn a_torn_last_record_is_dropped_and_later_appends_are_clean() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let mut ck = Checkpoint::open(&path).unwrap();
        ck.measure_or_resume(&workload(8), &setting(1), measure)
            .unwrap();
        ck.measure_or_resume(&workload(16), &setting(1), measure)
            .unwrap();
        drop(ck);
        // A kill in the middle of the third append.
        let whole = std::fs::read_to_string(&path).unwrap();
        let first_line = whole.lines().next().unwrap();
        std::fs::write(
            &path,
            format!("{whole}{}", &first_line[..first_line.len() / 2]),
        )
        .unwrap();
        let mut ck = Checkpoint::open(&path).unwrap();
        assert_eq!(ck.len(), 2);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            whole,
            "the torn tail was not cut off"
        );
        ck.measure_or_resume(&workload(24), &setting(1), measure)
            .unwrap();
        drop(ck);
        assert_eq!(Checkpoint::open(&path).unwrap().len(), 3);
    }

    #[test]
    fn an_unreadable_store_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let e = Checkpoint::open(&dir.path().join("no/such/dir/run.ckpt")).unwrap_err();
        assert!(e.to_string().contains("opening checkpoint"), "{e}");
    }

    #[test]
    fn a_file_that_is_no_checkpoint_is_refused_and_left_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        for text in ["garbage\n", "{\"a\": 1}\nmore\n"] {
            std::fs::write(&path, text).unwrap();
            let e = Checkpoint::open(&path).err().unwrap();
            assert!(
                e.to_string().contains("is not a willy checkpoint (line 1"),
                "{e}"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "cut");
        }
        // Good records, then a damaged whole line: refused too.
        std::fs::remove_file(&path).unwrap();
        let mut ck = Checkpoint::open(&path).unwrap();
        ck.measure_or_resume(&workload(8), &setting(1), measure)
            .unwrap();
        drop(ck);
        let whole = std::fs::read_to_string(&path).unwrap() + "{oops\n";
        std::fs::write(&path, &whole).unwrap();
        let e = Checkpoint::open(&path).err().unwrap();
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}
