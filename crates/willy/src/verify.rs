//! `--verify`: every block willy writes carries a header, and every block
//! it reads back is checked against it, as fio's `verify=` does.
//!
//! A block's first 32 bytes (little-endian):
//! - bytes 0..8: [`MAGIC`];
//! - bytes 8..16: the block's own byte offset in its file or device, so a
//!   block written to the wrong place is caught;
//! - bytes 16..24: its generation, counted per block by the generator that
//!   owns it (1 for the fill, +1 for every write), so a write the device
//!   acknowledged but lost, or an old copy served instead of the new one,
//!   is caught;
//! - bytes 24..32: a checksum: at [`Level::Full`] the XXH3 of the rest of
//!   the block, so a changed byte anywhere is caught; at
//!   [`Level::Sectors`] of the header alone.
//!
//! Every further 512-byte sector of the block starts with an 8-byte tag
//! made from its offset and the generation, so a torn write (some sectors
//! new, some old), or a sector lost, misplaced or overwritten, is caught
//! at either level. Checking the tags reads one cache line per sector;
//! checking the full checksum reads every byte, which on page-cached data
//! costs about as much as the kernel's copy (docs/MEASUREMENT.md).
//!
//! Each generator owns its own file (or region of a device) and has at
//! most one request in flight, so the generation it expects of a block is
//! exact. On a raw device the blocks start unknown (generation 0): a block
//! is checked once willy has written it.

use std::fmt;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The first 8 bytes of every block willy writes with `--verify`.
pub const MAGIC: [u8; 8] = *b"WILLYVFY";

/// Bytes of the header at the start of every block.
pub const HEADER: usize = 32;

/// Bytes per sector: each after the first carries a tag.
pub const SECTOR: usize = 512;

/// How much of each block `--verify` checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    /// The header and one tag per 512-byte sector: lost, stale, torn,
    /// misplaced and overwritten sectors.
    #[default]
    Sectors,
    /// Also a checksum of every byte: a changed byte anywhere.
    Full,
}

/// Writes the header and sector tags of `block`, which lies at byte
/// `offset` of its file and is written for the `gen`th time.
pub fn stamp(block: &mut [u8], offset: u64, gen: u64, level: Level) {
    block[0..8].copy_from_slice(&MAGIC);
    block[8..16].copy_from_slice(&offset.to_le_bytes());
    block[16..24].copy_from_slice(&gen.to_le_bytes());
    for (s, sector) in block.chunks_exact_mut(SECTOR).enumerate().skip(1) {
        sector[..8].copy_from_slice(&tag(offset + (s * SECTOR) as u64, gen).to_le_bytes());
    }
    let sum = checksum(block, offset, gen, level);
    block[24..32].copy_from_slice(&sum.to_le_bytes());
}

/// The tag of the sector at byte `offset`, written in generation `gen`
/// (SplitMix64's finaliser: cheap, and every input bit moves the output).
fn tag(offset: u64, gen: u64) -> u64 {
    let mut z = offset ^ gen.rotate_left(40) ^ 0x9E37_79B9_7F4A_7C15;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn checksum(block: &[u8], offset: u64, gen: u64, level: Level) -> u64 {
    match level {
        Level::Full => xxh3_64_with_seed(&block[HEADER..], offset ^ gen.rotate_left(32)),
        Level::Sectors => tag(offset, gen ^ 0x5eed),
    }
}

fn field(block: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes"))
}

/// What was wrong with a block read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No willy header: the block was overwritten from outside, or zeroed.
    Magic,
    /// The header names another offset: a misdirected write or read.
    Offset(u64),
    /// Another generation: a lost write or a stale copy.
    Generation(u64),
    /// The data does not match its checksum.
    Checksum,
    /// Sector `n` of the block (from 0) holds another write's tag.
    Sector(usize),
}

/// A block that failed its check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The block's byte offset in its file or device.
    pub offset: u64,
    /// The generation willy last wrote there.
    pub expected_gen: u64,
    /// What was wrong.
    pub fault: Fault,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "block at byte offset {}: ", self.offset)?;
        match self.fault {
            Fault::Magic => write!(f, "no willy header (overwritten from outside, or zeroed)"),
            Fault::Offset(o) => write!(f, "it holds the block of offset {o} (misdirected I/O)"),
            Fault::Generation(g) => write!(
                f,
                "generation {g}, expected {} (a lost or stale write)",
                self.expected_gen
            ),
            Fault::Checksum => write!(f, "its data does not match its checksum"),
            Fault::Sector(n) => write!(
                f,
                "its sector {n} (byte offset {}) is not from the same write (a torn, lost or overwritten sector)",
                self.offset + (n * SECTOR) as u64
            ),
        }
    }
}

/// Checks one block read back from byte `offset`, where generation `gen`
/// was last written.
pub fn check(block: &[u8], offset: u64, gen: u64, level: Level) -> Result<(), Mismatch> {
    let bad_sector = || {
        block
            .chunks_exact(SECTOR)
            .enumerate()
            .skip(1)
            .find(|(s, sector)| field(sector, 0) != tag(offset + (s * SECTOR) as u64, gen))
            .map(|(s, _)| s)
    };
    let fault = if block[0..8] != MAGIC {
        Some(Fault::Magic)
    } else if field(block, 8) != offset {
        Some(Fault::Offset(field(block, 8)))
    } else if field(block, 16) != gen {
        Some(Fault::Generation(field(block, 16)))
    } else if let Some(s) = bad_sector() {
        Some(Fault::Sector(s))
    } else if field(block, 24) != checksum(block, offset, gen, level) {
        Some(Fault::Checksum)
    } else {
        None
    };
    match fault {
        None => Ok(()),
        Some(fault) => Err(Mismatch {
            offset,
            expected_gen: gen,
            fault,
        }),
    }
}

/// One generator's view of its blocks: the generation each was last
/// written with (0: never written by willy, not checked).
#[derive(Clone, Debug)]
pub struct Blocks {
    gens: Vec<u32>,
    block_size: usize,
    base: u64,
    level: Level,
    /// Blocks read back and checked.
    pub checked: u64,
}

impl Blocks {
    /// `n` blocks of `block_size` bytes from byte `base` of the file or
    /// device; `filled` if willy wrote them all (generation 1) first.
    pub fn new(n: u64, block_size: u64, base: u64, filled: bool, level: Level) -> Blocks {
        Blocks {
            gens: vec![u32::from(filled); n as usize],
            block_size: block_size as usize,
            base,
            level,
            checked: 0,
        }
    }

    /// Bytes per block.
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Stamps the blocks of a write of `buf` at byte `offset` from the
    /// region's start, each with its next generation.
    pub fn before_write(&mut self, buf: &mut [u8], offset: u64) {
        let first = (offset / self.block_size as u64) as usize;
        for (i, block) in buf.chunks_exact_mut(self.block_size).enumerate() {
            let g = &mut self.gens[first + i];
            *g = g.wrapping_add(1).max(1);
            let at = self.base + ((first + i) * self.block_size) as u64;
            stamp(block, at, u64::from(*g), self.level);
        }
    }

    /// Checks the blocks of a read of `buf` at byte `offset` from the
    /// region's start.
    pub fn after_read(&mut self, buf: &[u8], offset: u64) -> Result<(), Mismatch> {
        let first = (offset / self.block_size as u64) as usize;
        for (i, block) in buf.chunks_exact(self.block_size).enumerate() {
            let g = self.gens[first + i];
            if g == 0 {
                continue;
            }
            let at = self.base + ((first + i) * self.block_size) as u64;
            check(block, at, u64::from(g), self.level)?;
            self.checked += 1;
        }
        Ok(())
    }
}

/// Stamps every block of `buf`, which will be written at byte `offset`,
/// as generation 1 (the fill before a `--verify` run).
pub fn stamp_fill(buf: &mut [u8], offset: u64, block_size: u64, level: Level) {
    for (i, block) in buf.chunks_exact_mut(block_size as usize).enumerate() {
        stamp(block, offset + i as u64 * block_size, 1, level);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn block(seed: u8) -> Vec<u8> {
        (0..4096)
            .map(|i| (i as u8).wrapping_mul(seed | 1))
            .collect()
    }

    proptest! {
        /// At the full level, whatever single byte changes in a stamped
        /// block, the check fails, and it names the block's offset.
        #[test]
        fn full_catches_any_changed_byte(
            at in 0usize..4096,
            flip in 1u8..=255,
            off in 0u64..1 << 40,
            gen in 1u64..1000,
            seed in any::<u8>(),
        ) {
            let off = off & !4095;
            let mut b = block(seed);
            stamp(&mut b, off, gen, Level::Full);
            prop_assert!(check(&b, off, gen, Level::Full).is_ok());
            b[at] ^= flip;
            let e = check(&b, off, gen, Level::Full).unwrap_err();
            prop_assert_eq!(e.offset, off);
        }

        /// At either level, a sector from another write (a torn write) or
        /// a sector overwritten with anything else is caught.
        #[test]
        fn sectors_catch_torn_and_overwritten_sectors(
            sector in 0usize..8,
            gen in 2u64..1000,
            junk in any::<u8>(),
            full in any::<bool>(),
        ) {
            let level = if full { Level::Full } else { Level::Sectors };
            let (mut new, mut old) = (block(3), block(3));
            stamp(&mut new, 8192, gen, level);
            stamp(&mut old, 8192, gen - 1, level);
            let r = sector * SECTOR..(sector + 1) * SECTOR;
            let mut torn = new.clone();
            torn[r.clone()].copy_from_slice(&old[r.clone()]);
            prop_assert!(check(&torn, 8192, gen, level).is_err());
            new[r].fill(junk);
            prop_assert!(check(&new, 8192, gen, level).is_err());
        }
    }

    #[test]
    fn a_lost_write_and_a_misplaced_block_are_named() {
        let l = Level::Sectors;
        let mut region = vec![0u8; 4 * 4096];
        stamp_fill(&mut region, 0, 4096, l);
        let mut blocks = Blocks::new(4, 4096, 0, true, l);
        assert!(blocks.after_read(&region, 0).is_ok());
        assert_eq!(blocks.checked, 4);
        // Write block 2 again, but "lose" it: the region keeps the old copy.
        let mut w = region[8192..12288].to_vec();
        blocks.before_write(&mut w, 8192);
        let e = blocks.after_read(&region[8192..12288], 8192).unwrap_err();
        assert_eq!(e.fault, Fault::Generation(1));
        assert!(e.to_string().contains("offset 8192"), "{e}");
        // Block 1's data served for block 3.
        let e = check(&region[4096..8192], 12288, 1, l).unwrap_err();
        assert_eq!(e.fault, Fault::Offset(4096));
        let e = check(&[0u8; 4096], 0, 1, l).unwrap_err();
        assert_eq!(e.fault, Fault::Magic);
        // A sector of block 0 zeroed: named with its own offset.
        region[1536..2048].fill(0);
        let e = check(&region[..4096], 0, 1, l).unwrap_err();
        assert_eq!(e.fault, Fault::Sector(3));
        assert!(e.to_string().contains("byte offset 1536"), "{e}");
    }

    #[test]
    fn unwritten_device_blocks_are_not_checked() {
        let mut blocks = Blocks::new(2, 512, 1 << 20, false, Level::Full);
        assert!(blocks.after_read(&[7u8; 1024], 0).is_ok());
        assert_eq!(blocks.checked, 0);
        let mut w = vec![7u8; 512];
        blocks.before_write(&mut w, 512);
        assert!(blocks.after_read(&w, 512).is_ok());
        assert_eq!(blocks.checked, 1);
        assert_eq!(field(&w, 8), (1 << 20) + 512);
    }
}
