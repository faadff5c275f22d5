//! An LRU page cache over a fixed address space, with a list of dirty pages
//! in the order they were dirtied. O(1) per page; memory is about 20 bytes
//! per page of the address space (not of the cache).

const NONE: u32 = u32::MAX;

/// Doubly linked list threaded through per-page arrays.
#[derive(Clone, Debug)]
struct List {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    len: u64,
}

impl List {
    fn new(pages: usize) -> List {
        List {
            prev: vec![NONE; pages],
            next: vec![NONE; pages],
            head: NONE,
            tail: NONE,
            len: 0,
        }
    }

    fn contains(&self, p: u32) -> bool {
        self.prev[p as usize] != NONE || self.head == p
    }

    fn remove(&mut self, p: u32) {
        let (pr, nx) = (self.prev[p as usize], self.next[p as usize]);
        if pr == NONE {
            self.head = nx;
        } else {
            self.next[pr as usize] = nx;
        }
        if nx == NONE {
            self.tail = pr;
        } else {
            self.prev[nx as usize] = pr;
        }
        self.prev[p as usize] = NONE;
        self.next[p as usize] = NONE;
        self.len -= 1;
    }

    /// Pushes `p` at the tail (least recent).
    fn push_back(&mut self, p: u32) {
        self.prev[p as usize] = self.tail;
        self.next[p as usize] = NONE;
        if self.tail != NONE {
            self.next[self.tail as usize] = p;
        } else {
            self.head = p;
        }
        self.tail = p;
        self.len += 1;
    }

    /// Pushes `p` at the head (most recent).
    fn push_front(&mut self, p: u32) {
        self.next[p as usize] = self.head;
        self.prev[p as usize] = NONE;
        if self.head != NONE {
            self.prev[self.head as usize] = p;
        } else {
            self.tail = p;
        }
        self.head = p;
        self.len += 1;
    }
}

/// What happened to one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    /// The page evicted.
    pub page: u32,
    /// It was dirty: it must be written out.
    pub dirty: bool,
}

/// An LRU page cache with dirty tracking.
#[derive(Clone, Debug)]
pub struct PageCache {
    capacity: u64,
    lru: List,
    dirty: List,
    dirty_since: Vec<u64>,
}

impl PageCache {
    /// A cache of `capacity` pages over the pages `0..pages`.
    pub fn new(capacity: u64, pages: u64) -> PageCache {
        assert!(
            pages < u64::from(NONE),
            "address space too large for the simulated cache"
        );
        PageCache {
            capacity: capacity.max(1),
            lru: List::new(pages as usize),
            dirty: List::new(pages as usize),
            dirty_since: vec![0; pages as usize],
        }
    }

    /// Pages cached.
    pub fn len(&self) -> u64 {
        self.lru.len
    }

    /// True if nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.lru.len == 0
    }

    /// Dirty pages.
    pub fn dirty_len(&self) -> u64 {
        self.dirty.len
    }

    /// True if `p` is cached.
    pub fn contains(&self, p: u32) -> bool {
        self.lru.contains(p)
    }

    /// Marks `p` most recently used if cached; true on a hit.
    pub fn touch(&mut self, p: u32) -> bool {
        if !self.lru.contains(p) {
            return false;
        }
        self.lru.remove(p);
        self.lru.push_front(p);
        true
    }

    /// Evicts the least recently used page if the cache is full.
    fn make_room(&mut self) -> Option<Evicted> {
        if self.lru.len < self.capacity {
            return None;
        }
        let victim = self.lru.tail;
        self.lru.remove(victim);
        let dirty = self.dirty.contains(victim);
        if dirty {
            self.dirty.remove(victim);
        }
        Some(Evicted {
            page: victim,
            dirty,
        })
    }

    /// Caches `p` as most recently used (dirty if `dirty`, at time `now`),
    /// evicting the least recently used page if the cache is full.
    pub fn insert(&mut self, p: u32, dirty: bool, now: u64) -> Option<Evicted> {
        let ev = if self.lru.contains(p) {
            self.lru.remove(p);
            None
        } else {
            self.make_room()
        };
        self.lru.push_front(p);
        if dirty && !self.dirty.contains(p) {
            self.dirty.push_front(p);
            self.dirty_since[p as usize] = now;
        }
        ev
    }

    /// Caches `p`, clean, as the *least* recently used page, the way kernels
    /// put read-ahead pages on their inactive list: evicted first unless a
    /// request touches it. A page already cached is left where it is.
    pub fn insert_cold(&mut self, p: u32) -> Option<Evicted> {
        if self.lru.contains(p) {
            return None;
        }
        let ev = self.make_room();
        self.lru.push_back(p);
        ev
    }

    /// The oldest dirty page and when it was dirtied, if any.
    pub fn oldest_dirty(&self) -> Option<(u32, u64)> {
        let t = self.dirty.tail;
        (t != NONE).then(|| (t, self.dirty_since[t as usize]))
    }

    /// Marks `p` clean (it is being written out).
    pub fn clean(&mut self, p: u32) {
        if self.dirty.contains(p) {
            self.dirty.remove(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn evicts_the_least_recently_used() {
        let mut c = PageCache::new(2, 10);
        assert_eq!(c.insert(1, false, 0), None);
        assert_eq!(c.insert(2, true, 0), None);
        assert!(c.touch(1));
        assert_eq!(
            c.insert(3, false, 0),
            Some(Evicted {
                page: 2,
                dirty: true
            })
        );
        assert!(c.contains(1) && c.contains(3) && !c.contains(2));
        assert_eq!(c.dirty_len(), 0);
    }

    #[test]
    fn cold_pages_go_first_unless_touched() {
        let mut c = PageCache::new(3, 10);
        c.insert(1, false, 0);
        c.insert(2, false, 0);
        c.insert_cold(3);
        assert_eq!(
            c.insert(4, false, 0),
            Some(Evicted {
                page: 3,
                dirty: false
            })
        );
        c.insert_cold(5); // evicts 1, the LRU of {1, 2, 4}
        assert!(!c.contains(1));
        assert!(c.touch(5));
        assert_eq!(
            c.insert(6, false, 0),
            Some(Evicted {
                page: 2,
                dirty: false
            })
        );
    }

    #[test]
    fn dirty_pages_come_out_oldest_first() {
        let mut c = PageCache::new(10, 10);
        c.insert(4, true, 10);
        c.insert(5, true, 20);
        c.insert(4, true, 30); // already dirty: keeps its first time
        assert_eq!(c.oldest_dirty(), Some((4, 10)));
        c.clean(4);
        assert_eq!(c.oldest_dirty(), Some((5, 20)));
    }

    /// Uniform random references to U pages: an LRU cache of C pages hits
    /// with probability C/U in steady state.
    #[test]
    fn uniform_random_hit_ratio_is_c_over_u() {
        let (c, u) = (300u64, 1000u64);
        let mut cache = PageCache::new(c, u);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let (mut hits, n) = (0u64, 400_000u64);
        for i in 0..n + 10_000 {
            let p = rng.random_range(0..u) as u32;
            let hit = cache.touch(p);
            if !hit {
                cache.insert(p, false, 0);
            }
            if i >= 10_000 {
                hits += u64::from(hit);
            }
        }
        let ratio = hits as f64 / n as f64;
        assert!((ratio - 0.3).abs() < 0.005, "hit ratio {ratio}, want 0.3");
    }
}
