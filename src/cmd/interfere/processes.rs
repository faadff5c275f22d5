//! `willy interfere --processes`: each workload in its own willy process
//! (`willy interfere ... --worker K`), optionally in its own memory cgroup
//! (its file's `cacheLimit`), driven by the first over pipes.
//!
//! A worker makes its workload's files, says `ready`, and then, for each
//! `go` on its standard input, measures its workload: it says `measured`
//! when its measurement is over, goes on loading the system until `stop`,
//! and then says `result` and the measurement as JSON (or `error` and why).
//! `quit`, or the end of its input, ends it: its files and its cgroup go.
//! The leader measures each workload alone (one worker at a time), then all
//! together (every worker told `go` at once, every one told `stop` once all
//! have measured), exactly as one process measures its threads.

use super::InterfereArgs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;
use willy::doc::interference::Interference;
use willy::interfere::{Member, Setting, StorageBusy};
use willy::report::Measurement;
use willy::run::RunConfig;
use willy::testbed::{TargetArg, Testbed, TestbedOptions};
use willy::units::human_bytes;
use willy::Error;

/// One worker, as the leader sees it.
struct Worker {
    child: Child,
    input: Option<ChildStdin>,
}

impl Worker {
    fn say(&mut self, what: &str) -> Result<(), Error> {
        let input = self
            .input
            .as_mut()
            .ok_or_else(|| Error::Usage("worker gone".into()))?;
        writeln!(input, "{what}")
            .and_then(|_| input.flush())
            .map_err(|e| Error::io("telling a workload's process", e))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // The end of its input: it cleans up and exits.
        self.input.take();
        let _ = self.child.wait();
    }
}

/// The leader: spawns the workers, measures, assembles the document.
pub fn lead(
    args: &InterfereArgs,
    members: &[Member],
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<Interference> {
    let (tx, rx) = channel::<(usize, String)>();
    let exe = std::env::current_exe().map_err(|e| Error::io("finding willy itself", e))?;
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut workers = Vec::new();
    for k in 0..members.len() {
        let mut child = Command::new(&exe)
            .args(&argv)
            .args(["--worker", &k.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| Error::io("starting a workload's process", e))?;
        let out = child.stdout.take().expect("piped");
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send((k, line)).is_err() {
                    break;
                }
            }
            let _ = tx.send((k, "gone".into()));
        });
        let input = child.stdin.take();
        workers.push(Worker { child, input });
    }
    drop(tx);
    let n = members.len();
    let all: Vec<usize> = (0..n).collect();
    errln!("willy: {n} processes make their files");
    expect(&rx, &all, "ready", interrupt)?;
    let mut alone = Vec::new();
    for (k, m) in members.iter().enumerate() {
        errln!("willy: measuring {} alone ({} of {})", m.name, k + 1, n + 1);
        let got = round(&mut workers, &rx, &[k], interrupt)?;
        errln!(
            "willy: {} alone: {}/s",
            m.name,
            human_bytes(got[0].throughput_bytes_per_sec)
        );
        alone.extend(got);
    }
    errln!("willy: measuring all {n} together ({} of {})", n + 1, n + 1);
    let target = TargetArg::parse(args.target.as_deref());
    let busy = StorageBusy::start(&target);
    let shared = round(&mut workers, &rx, &all, interrupt)?;
    let storage_busy = busy.and_then(StorageBusy::fraction);
    for w in &mut workers {
        let _ = w.say("quit");
    }
    drop(workers); // waits for them: files and cgroups gone
    let setting = Setting {
        target: target.to_string(),
        simulated: false,
        direct: args.direct || target.path().is_some_and(|p| is_device(&p)),
        engine: args.engine,
        seed: args.seed,
        insulation: None,
        processes: true,
    };
    Ok(willy::interfere::assemble(
        members,
        setting,
        alone,
        shared,
        storage_busy,
    )?)
}

fn is_device(p: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
}

/// One measurement of the workers `ks` at once.
fn round(
    workers: &mut [Worker],
    rx: &Receiver<(usize, String)>,
    ks: &[usize],
    interrupt: &Arc<AtomicBool>,
) -> Result<Vec<Measurement>, Error> {
    for &k in ks {
        workers[k].say("go")?;
    }
    expect(rx, ks, "measured", interrupt)?;
    for &k in ks {
        workers[k].say("stop")?;
    }
    let texts = expect(rx, ks, "result", interrupt)?;
    texts
        .iter()
        .map(|t| {
            serde_json::from_str(t)
                .map_err(|e| Error::Usage(format!("a workload's process sent a bad result: {e}")))
        })
        .collect()
}

/// Waits until each of `ks` has said `word`; returns what followed it,
/// in `ks`'s order. A worker that says `error`, or ends, fails it.
fn expect(
    rx: &Receiver<(usize, String)>,
    ks: &[usize],
    word: &str,
    interrupt: &Arc<AtomicBool>,
) -> Result<Vec<String>, Error> {
    let mut got: Vec<Option<String>> = vec![None; ks.len()];
    while got.iter().any(Option::is_none) {
        let (k, line) = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(RecvTimeoutError::Timeout) if interrupt.load(Ordering::Relaxed) => {
                return Err(Error::Interrupted)
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::Usage("every workload's process ended".into()))
            }
        };
        let (head, rest) = line.split_once(' ').unwrap_or((&line, ""));
        match head {
            "error" if rest == "interrupted" => return Err(Error::Interrupted),
            "error" => return Err(Error::Usage(rest.to_string())),
            "gone" => {
                return Err(Error::Usage(format!(
                    "workload {}'s process ended (killed?)",
                    k + 1
                )))
            }
            h if h == word => {
                if let Some(i) = ks.iter().position(|&x| x == k) {
                    got[i] = Some(rest.to_string());
                }
            }
            _ => {}
        }
    }
    Ok(got.into_iter().map(Option::unwrap_or_default).collect())
}

/// A worker: workload `k` of `members`, in its own process.
pub fn work(
    args: &InterfereArgs,
    members: &[Member],
    k: usize,
    cfg: RunConfig,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<()> {
    if let Err(e) = serve(args, members, k, cfg, interrupt) {
        if let Some(Error::Interrupted) = e.downcast_ref::<Error>() {
            say("error interrupted");
            return Ok(());
        }
        say(&format!("error {}: {e:#}", members[k].name));
    }
    // The leader says what went wrong, once.
    Ok(())
}

fn serve(
    args: &InterfereArgs,
    members: &[Member],
    k: usize,
    cfg: RunConfig,
    interrupt: &Arc<AtomicBool>,
) -> anyhow::Result<()> {
    let m = members
        .get(k)
        .ok_or_else(|| Error::Usage(format!("--worker {k}: no such workload")))?;
    let offset = willy::interfere::offsets(members)[k];
    let opts = TestbedOptions {
        direct: args.direct,
        allow_device_writes: args.allow_device_writes,
        cache_limit: m.cache_limit,
        ..TestbedOptions::default()
    };
    let target = TargetArg::parse(args.target.as_deref());
    let mut bed = Testbed::open(target, &opts)?;
    let ws = std::slice::from_ref(&m.workload);
    let stop_filling = interrupt.clone();
    bed.prepare_placed(ws, &[offset], &mut |_, _| {
        !stop_filling.load(Ordering::Relaxed)
    })?;
    say("ready");
    let (tx, rx) = channel::<String>();
    let hold = Arc::new(AtomicBool::new(false));
    let h = hold.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if line == "stop" {
                h.store(true, Ordering::Release);
            } else if tx.send(line).is_err() {
                break;
            }
        }
        h.store(true, Ordering::Release); // the leader is gone
    });
    let cfg = RunConfig {
        seed: cfg.seed.wrapping_add(k as u64),
        ..cfg
    };
    loop {
        let line = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) if interrupt.load(Ordering::Relaxed) => {
                return Err(Error::Interrupted.into())
            }
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        };
        if line != "go" {
            return Ok(()); // quit
        }
        hold.store(false, Ordering::Release);
        let cfg = RunConfig {
            hold: Some(hold.clone()),
            ..cfg.clone()
        };
        let mut said = false;
        let (mut ms, _) =
            bed.measure_placed(ws, &[offset], &[0], &cfg, &mut |_, _| true, &mut |s| {
                if s.done && !said {
                    say("measured");
                    said = true;
                }
            })?;
        if !said {
            say("measured");
        }
        say(&format!("result {}", serde_json::to_string(&ms.remove(0))?));
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|_| out.flush());
}
