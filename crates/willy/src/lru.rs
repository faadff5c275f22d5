//! An LRU stack over `U` blocks with O(log U) access by depth.
//!
//! Chen's generator picks a depth in the stack of most recently used blocks,
//! accesses the block there and moves it to the top. A `Vec` would cost O(U)
//! per access; U reaches tens of millions of blocks.
//!
//! # How it works
//! Every block has a *position* on a line; higher positions are more recent.
//! Moving a block to the top gives it the next position `hi`. The positions
//! live on a ring of `R ≈ 3U` slots. Which slots are occupied is a bitset, and
//! a Fenwick tree over the bitset's 64-bit words counts them, so the k-th
//! occupied slot in recency order is found in O(log U) (a Fenwick descent,
//! then a select inside one word).
//!
//! Accesses leave holes, and `hi` keeps growing, so the occupied span would
//! outgrow the ring. A *sweep* runs all the time, a little per access: a
//! cursor walks the span from its bottom and copies each live entry, in
//! order, into a destination area just below the span. Order is kept because
//! everything copied is older than everything not yet reached. When the
//! cursor reaches `hi`, all live entries sit densely in the destination and a
//! new sweep begins. The sweep advances [`SWEEP_PER_TOUCH`] slots per access,
//! in whole-word chunks so that it costs O(1) Fenwick updates per 64 slots;
//! this bounds the span below `R` (see [`LruStack::new`]), so no access ever
//! pays for an O(U) rebuild. Memory: about 17 bytes per block (12 for the ring's
//! 3U slots, 4 for each block's slot, under 1 for the bitset and tree).

/// Slots the sweep advances per access. With speed `s`, a sweep over a span of
/// `G` slots takes `G/(s-1)` accesses and leaves at most `U + G/(s-1)` live
/// entries, so the span converges to at most `U(s-1)/(s-2)` and the ring
/// needs `U + G/(s-1) + G + G/(s-1)`, under 3U for s = 6.
pub const SWEEP_PER_TOUCH: u64 = 6;
const WORD: u64 = 64;
const NONE: u32 = u32::MAX;

/// An LRU stack of the blocks `0..U`.
///
/// Positions (`i64`, on the line) order the entries; slots (`u64`, on the
/// ring) store them. The window's ends keep both, so that the request path
/// never divides by the ring size.
#[derive(Clone, Debug)]
pub struct LruStack {
    u: u64,
    ring: u64,
    /// Block at each slot, or NONE.
    slot_block: Vec<u32>,
    /// Slot of each block.
    block_slot: Vec<u32>,
    bits: Vec<u64>,
    fen: Vec<u32>,
    /// Bottom of the window: every live position is in `[lo, hi)`.
    lo: i64,
    lo_slot: u64,
    /// Live slots in `[0, lo_slot)`, kept current so that `at_depth` needs
    /// one Fenwick descent, not two.
    below_lo: u64,
    hi: i64,
    hi_slot: u64,
    /// Sweep cursor and destination write pointer.
    cursor: i64,
    cursor_slot: u64,
    dest: i64,
    dest_slot: u64,
    credit: u64,
}

impl LruStack {
    /// A stack whose initial order is `order`: `order[0]` at the bottom
    /// (least recent) and `order[U-1]` on top. `order` must be a permutation
    /// of `0..U`, with `1 <= U < 2^30`.
    pub fn new(order: &[u32]) -> LruStack {
        let u = order.len() as u64;
        assert!(
            (1..(1 << 30)).contains(&u),
            "LruStack needs 1 <= U < 2^30 blocks, got {u}"
        );
        // Span bound from SWEEP_PER_TOUCH, plus slack for whole-word chunks.
        let ring = (3 * u + 8 * WORD).div_ceil(WORD) * WORD;
        let mut s = LruStack {
            u,
            ring,
            slot_block: vec![NONE; ring as usize],
            block_slot: vec![NONE; u as usize],
            bits: vec![0; (ring / WORD) as usize],
            fen: vec![0; (ring / WORD) as usize + 1],
            lo: 0,
            lo_slot: 0,
            below_lo: 0,
            hi: 0,
            hi_slot: 0,
            cursor: 0,
            cursor_slot: 0,
            dest: 0,
            dest_slot: 0,
            credit: 0,
        };
        for &b in order {
            assert!(
                (b as u64) < u && s.block_slot[b as usize] == NONE,
                "order must be a permutation of 0..U"
            );
            s.place(b, s.hi_slot);
            s.hi += 1;
            s.hi_slot += 1;
        }
        // Build the Fenwick tree in O(n).
        for i in 0..s.bits.len() {
            s.fen[i + 1] += s.bits[i].count_ones();
        }
        for i in 1..s.fen.len() {
            let j = i + (i & i.wrapping_neg());
            if j < s.fen.len() {
                s.fen[j] += s.fen[i];
            }
        }
        s.start_sweep();
        s
    }

    /// Number of blocks.
    pub fn len(&self) -> u64 {
        self.u
    }

    /// Always false: a stack holds at least one block.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The block at `depth` (0 = most recently used). O(log U).
    pub fn at_depth(&self, depth: u64) -> u32 {
        assert!(
            depth < self.u,
            "depth {depth} out of range for {} blocks",
            self.u
        );
        let k = self.u - 1 - depth; // rank from the bottom, 0-based
        let before = self.below_lo;
        let tail = self.u - before;
        let target = if k < tail { before + k } else { k - tail };
        let slot = self.select(target);
        self.slot_block[slot as usize]
    }

    /// Moves `block` to the top of the stack. O(log U).
    pub fn touch(&mut self, block: u32) {
        let s = u64::from(self.block_slot[block as usize]);
        if s == self.prev(self.hi_slot) {
            return; // already on top
        }
        self.unplace(s);
        self.fen_add(s / WORD, -1);
        self.make_room();
        let top = self.hi_slot;
        self.place(block, top);
        self.fen_add(top / WORD, 1);
        self.hi += 1;
        self.hi_slot = self.next(top);
        self.credit += SWEEP_PER_TOUCH;
        while self.credit >= WORD {
            self.credit -= self.sweep_chunk().min(self.credit);
        }
    }

    /// Accesses the block at `depth` and moves it to the top; returns it.
    pub fn access_depth(&mut self, depth: u64) -> u32 {
        let b = self.at_depth(depth);
        self.touch(b);
        b
    }

    /// The whole stack, top first. O(U); for tests and debugging.
    pub fn to_vec(&self) -> Vec<u32> {
        (0..self.u).map(|d| self.at_depth(d)).collect()
    }

    fn slot(&self, pos: i64) -> u64 {
        pos.rem_euclid(self.ring as i64) as u64
    }

    fn next(&self, s: u64) -> u64 {
        if s + 1 == self.ring {
            0
        } else {
            s + 1
        }
    }

    fn prev(&self, s: u64) -> u64 {
        if s == 0 {
            self.ring - 1
        } else {
            s - 1
        }
    }

    fn place(&mut self, b: u32, s: u64) {
        debug_assert_eq!(self.slot_block[s as usize], NONE);
        self.slot_block[s as usize] = b;
        self.block_slot[b as usize] = s as u32;
        self.bits[(s / WORD) as usize] |= 1 << (s % WORD);
        self.below_lo += u64::from(s < self.lo_slot);
    }

    fn unplace(&mut self, s: u64) {
        self.slot_block[s as usize] = NONE;
        self.bits[(s / WORD) as usize] &= !(1 << (s % WORD));
        self.below_lo -= u64::from(s < self.lo_slot);
    }

    /// Before placing at `hi`, the window `[lo, hi]` must fit in the ring.
    /// The sweep speed guarantees it; this only runs the sweep early if that
    /// reasoning were ever wrong, so correctness never depends on it.
    fn make_room(&mut self) {
        while self.hi - self.lo >= self.ring as i64 {
            self.sweep_chunk();
        }
    }

    fn start_sweep(&mut self) {
        // Everything live is in [lo, hi); the copies go below `lo`, into room
        // for every live entry plus every entry that may be touched during
        // the sweep (at most span / (s - 1) + one word of slack).
        let span = (self.hi - self.lo) as u64;
        let reserve = self.u + span.div_ceil(SWEEP_PER_TOUCH - 1) + 2 * WORD;
        self.cursor = self.lo;
        self.cursor_slot = self.lo_slot;
        self.lo -= reserve as i64;
        self.lo_slot = self.slot(self.lo); // one division per sweep
        self.below_lo = self.prefix_slots(self.lo_slot);
        self.dest = self.lo;
        self.dest_slot = self.lo_slot;
    }

    /// Sweeps the slots from the cursor to the end of its word (or to `hi`).
    /// Returns the number of slots swept.
    fn sweep_chunk(&mut self) -> u64 {
        if self.cursor >= self.hi {
            // Done: live entries are dense in [lo, dest); slots above are free.
            self.hi = self.dest;
            self.hi_slot = self.dest_slot;
            self.start_sweep();
            return 1;
        }
        let s = self.cursor_slot;
        let word = s / WORD;
        let end_in_word = WORD - s % WORD;
        let len = end_in_word.min((self.hi - self.cursor) as u64);
        let mask = if len == WORD {
            u64::MAX
        } else {
            ((1u64 << len) - 1) << (s % WORD)
        };
        let mut live = self.bits[word as usize] & mask;
        let moved = live.count_ones();
        if moved > 0 {
            let first_dest_word = self.dest_slot / WORD;
            let mut per_word: [(u64, i32); 2] = [(first_dest_word, 0), (u64::MAX, 0)];
            while live != 0 {
                let bit = live.trailing_zeros() as u64;
                live &= live - 1;
                let from = word * WORD + bit;
                let b = self.slot_block[from as usize];
                self.slot_block[from as usize] = NONE;
                self.below_lo -= u64::from(from < self.lo_slot);
                let to = self.dest_slot;
                self.dest += 1;
                self.dest_slot = self.next(to);
                self.place(b, to);
                let w = to / WORD;
                if w == per_word[0].0 {
                    per_word[0].1 += 1;
                } else {
                    per_word[1] = (w, per_word[1].1 + 1);
                }
            }
            self.bits[word as usize] &= !mask;
            self.fen_add(word, -(moved as i32));
            for (w, n) in per_word {
                if n > 0 {
                    self.fen_add(w, n);
                }
            }
        }
        self.cursor += len as i64;
        // A chunk never crosses a word boundary, and the ring is whole
        // words, so the cursor wraps only at the end of a word.
        self.cursor_slot = if s + len == self.ring { 0 } else { s + len };
        len
    }

    fn fen_add(&mut self, word: u64, delta: i32) {
        let mut i = word as usize + 1;
        while i < self.fen.len() {
            self.fen[i] = self.fen[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Occupied slots in `[0, slot)`.
    fn prefix_slots(&self, slot: u64) -> u64 {
        let word = slot / WORD;
        let mut n = 0u64;
        let mut i = word as usize;
        while i > 0 {
            n += u64::from(self.fen[i]);
            i &= i - 1;
        }
        let rem = slot % WORD;
        if rem > 0 {
            n += u64::from((self.bits[word as usize] & ((1u64 << rem) - 1)).count_ones());
        }
        n
    }

    /// The slot of the `k`-th (0-based) occupied slot in `[0, ring)`.
    fn select(&self, mut k: u64) -> u64 {
        let n = self.fen.len() - 1;
        let mut pos = 0usize;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && u64::from(self.fen[next]) <= k {
                k -= u64::from(self.fen[next]);
                pos = next;
            }
            step >>= 1;
        }
        // `pos` words lie wholly before the answer; select inside word `pos`.
        pos as u64 * WORD + select_in_word(self.bits[pos], k as u32)
    }
}

/// Index of the `k`-th (0-based) set bit of `w`.
fn select_in_word(mut w: u64, mut k: u32) -> u64 {
    let mut base = 0u64;
    for width in [32u32, 16, 8] {
        let low = (w & ((1u64 << width) - 1)).count_ones();
        if k >= low {
            k -= low;
            w >>= width;
            base += u64::from(width);
        }
    }
    for _ in 0..k {
        w &= w - 1;
    }
    base + u64::from(w.trailing_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The obvious O(U) stack, top first: the reference.
    struct Naive(Vec<u32>);
    impl Naive {
        fn touch(&mut self, b: u32) {
            let i = self.0.iter().position(|&x| x == b).unwrap();
            self.0.remove(i);
            self.0.insert(0, b);
        }
    }

    #[test]
    fn select_in_word_finds_each_bit() {
        let w =
            0b1011_0000_0000_0000_0000_0000_0000_0000_0000_0001_0000_0100_1000_0000_0000_0001u64;
        let ones: Vec<u64> = (0..64).filter(|i| w >> i & 1 == 1).collect();
        for (k, &i) in ones.iter().enumerate() {
            assert_eq!(select_in_word(w, k as u32), i);
        }
    }

    #[test]
    fn initial_order_is_kept() {
        let order: Vec<u32> = vec![3, 1, 4, 0, 2];
        let s = LruStack::new(&order);
        assert_eq!(s.to_vec(), vec![2, 0, 4, 1, 3]);
    }

    #[test]
    fn long_random_run_matches_naive_through_many_sweeps() {
        use rand::{Rng, SeedableRng};
        let u = 300u32;
        let order: Vec<u32> = (0..u).collect();
        let mut s = LruStack::new(&order);
        let mut n = Naive(order.iter().rev().copied().collect());
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        for step in 0..50_000 {
            if rng.random_bool(0.5) {
                let d = rng.random_range(0..u as u64);
                let b = s.access_depth(d);
                assert_eq!(b, n.0[d as usize], "step {step}");
                n.touch(b);
            } else {
                let b = rng.random_range(0..u);
                s.touch(b);
                n.touch(b);
            }
            assert!(s.hi - s.lo <= s.ring as i64);
            for (pos, slot) in [
                (s.lo, s.lo_slot),
                (s.hi, s.hi_slot),
                (s.cursor, s.cursor_slot),
                (s.dest, s.dest_slot),
            ] {
                assert_eq!(s.slot(pos), slot, "step {step}: slot tracking drifted");
            }
            assert_eq!(
                s.below_lo,
                s.prefix_slots(s.lo_slot),
                "step {step}: below_lo drifted"
            );
        }
        assert_eq!(s.to_vec(), n.0);
    }

    proptest! {
        #[test]
        fn matches_naive_stack(u in 1u32..200, ops in prop::collection::vec((any::<bool>(), any::<u32>()), 0..2000)) {
            let order: Vec<u32> = (0..u).collect();
            let mut s = LruStack::new(&order);
            let mut n = Naive(order.iter().rev().copied().collect());
            for (by_depth, x) in ops {
                if by_depth {
                    let d = u64::from(x % u);
                    let b = s.access_depth(d);
                    prop_assert_eq!(b, n.0[d as usize]);
                    n.touch(b);
                } else {
                    let b = x % u;
                    s.touch(b);
                    n.touch(b);
                }
            }
            prop_assert_eq!(s.to_vec(), n.0);
        }
    }
}
