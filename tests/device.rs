//! Raw block devices, on loop devices over temporary files (root only, as in
//! CI). Reads are allowed; writes need a flag and are refused on a device
//! that holds a filesystem or is mounted, which is then left unchanged.

use crate::util::*;
use serde_json::Value;
use std::path::PathBuf;

struct Loop {
    dev: String,
    _dir: Dir,
    mount: Option<PathBuf>,
}

impl Loop {
    /// A loop device over a new 32 MiB file of zeros.
    fn new() -> Loop {
        let dir = Dir::new();
        let img = dir.join("disk.img");
        std::fs::File::create(&img)
            .unwrap()
            .set_len(32 << 20)
            .unwrap();
        let dev = sh(&format!("losetup -f --show {}", img.display()));
        Loop {
            dev,
            _dir: dir,
            mount: None,
        }
    }

    fn mkfs_ext4(&self) {
        sh(&format!(
            "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 {}",
            self.dev
        ));
    }

    fn mount(&mut self) {
        let at = self._dir.join("mnt");
        std::fs::create_dir(&at).unwrap();
        sh(&format!("mount {} {}", self.dev, at.display()));
        self.mount = Some(at);
    }

    /// Checksum of the whole device, read with O_DIRECT past any cache.
    fn checksum(&self) -> String {
        sh(&format!(
            "dd if={} iflag=direct bs=1M status=none | sha256sum",
            self.dev
        ))
    }

    fn run(&self, read_frac: &str, extra: &[&str]) -> std::process::Output {
        willy()
            .args([
                "run",
                "--target",
                &self.dev,
                "--unique-bytes",
                "16MiB",
                "--size-mean",
                "8KiB",
            ])
            .args([
                "--process-num",
                "2",
                "--seq-frac",
                "0.2",
                "--read-frac",
                read_frac,
            ])
            .args(extra)
            .args(QUICK)
            .output()
            .unwrap()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Some(m) = &self.mount {
            let _ = std::process::Command::new("umount").arg(m).status();
        }
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
    }
}

fn root() -> bool {
    if !is_root() {
        eprintln!("skipped: loop devices need root");
    }
    is_root()
}

#[test]
fn reads_a_raw_device_without_a_flag_and_changes_nothing() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    let d = Dir::new();
    let out = d.join("o.json");
    let o = lo.run("1", &["--json", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["target"]["kind"], "device");
    assert_eq!(v["target"]["direct"], true);
    assert!(v["reads"]["requests"].as_u64().unwrap() > 100);
    assert_eq!(v["writes"]["requests"], 0);
    assert_eq!(lo.checksum(), before);
}

#[test]
fn writes_to_a_raw_device_need_the_flag() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    assert_usage_error(&lo.run("0.5", &[]), "pass --allow-device-writes");
    assert_eq!(lo.checksum(), before);
}

#[test]
fn writes_a_blank_raw_device_with_the_flag() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    let before = lo.checksum();
    for engine in ["psync", "uring"] {
        let d = Dir::new();
        let out = d.join("o.json");
        let o = lo.run(
            "0.5",
            &[
                "--allow-device-writes",
                "--engine",
                engine,
                "--json",
                out.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert!(
            v["writes"]["requests"].as_u64().unwrap() > 50,
            "{engine}: {}",
            v["writes"]
        );
        assert!(
            v["reads"]["requests"].as_u64().unwrap() > 50,
            "{engine}: {}",
            v["reads"]
        );
    }
    assert_ne!(lo.checksum(), before, "the writes did not reach the device");
}

#[test]
fn refuses_to_write_a_device_holding_ext4() {
    if !root() {
        return;
    }
    let lo = Loop::new();
    lo.mkfs_ext4();
    let before = lo.checksum();
    assert_usage_error(
        &lo.run("0.5", &["--allow-device-writes"]),
        "holds an ext2/3/4 filesystem",
    );
    assert_eq!(lo.checksum(), before, "the filesystem was changed");
}

#[test]
fn refuses_to_write_a_mounted_device() {
    if !root() {
        return;
    }
    let mut lo = Loop::new();
    lo.mkfs_ext4();
    lo.mount();
    let before = lo.checksum();
    assert_usage_error(&lo.run("0", &["--allow-device-writes"]), "is mounted at");
    assert_eq!(lo.checksum(), before, "the mounted filesystem was changed");
}
