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
        self.evict_tail()
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

    /// Caches the pages of `run` not cached yet, clean, as the least
    /// recently used pages but above those that were (the kernel puts a
    /// read-ahead batch at the head of its inactive list): room is made
    /// for the whole batch first, so that the batch does not evict itself
    /// page by page. Returns the pages evicted.
    pub fn insert_cold_run(&mut self, run: std::ops::RangeInclusive<u32>) -> Vec<Evicted> {
        let new: Vec<u32> = run.filter(|&p| !self.lru.contains(p)).collect();
        let mut out = Vec::new();
        while self.lru.len > 0 && self.lru.len + new.len() as u64 > self.capacity {
            out.extend(self.evict_tail());
        }
        // Nearest first: the farthest ahead is evicted first.
        for &p in new.iter().take(self.capacity as usize) {
            self.lru.push_back(p);
        }
        out
    }

    fn evict_tail(&mut self) -> Option<Evicted> {
        let victim = self.lru.tail;
        if victim == NONE {
            return None;
        }
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

/// The simulated system's cache over the regions of the storage that
/// workloads use: page numbers are the storage's own (`offset / page`),
/// kept in a compact space so that regions far apart on a large device
/// cost memory for their pages only. Shared (one LRU over all regions) or
/// partitioned (one LRU of its own size per region, Argon's partitions).
#[derive(Clone, Debug)]
pub struct Cache {
    /// Per region: its first page, its pages, its first compact index.
    regions: Vec<(u64, u64, u64)>,
    /// One LRU over every region, or one per region.
    parts: Vec<PageCache>,
}

impl Cache {
    /// One LRU of `capacity` pages over `regions` (first page, pages),
    /// sorted by first page and disjoint.
    pub fn shared(capacity: u64, regions: &[(u64, u64)]) -> Cache {
        let mut compact = 0;
        let regions: Vec<(u64, u64, u64)> = regions
            .iter()
            .map(|&(first, n)| {
                compact += n;
                (first, n, compact - n)
            })
            .collect();
        Cache {
            regions,
            parts: vec![PageCache::new(capacity, compact)],
        }
    }

    /// One LRU per region, of `capacities[k]` pages for region `k`.
    pub fn partitioned(capacities: &[u64], regions: &[(u64, u64)]) -> Cache {
        Cache {
            regions: regions.iter().map(|&(first, n)| (first, n, 0)).collect(),
            parts: capacities
                .iter()
                .zip(regions)
                .map(|(&c, &(_, n))| PageCache::new(c, n))
                .collect(),
        }
    }

    /// The region holding page `p`.
    pub fn region_of(&self, p: u32) -> Option<usize> {
        let p = u64::from(p);
        let k = self.regions.partition_point(|r| r.0 <= p).checked_sub(1)?;
        (p < self.regions[k].0 + self.regions[k].1).then_some(k)
    }

    /// The last page of the region holding `p`.
    pub fn region_end(&self, p: u32) -> Option<u32> {
        self.region_of(p)
            .map(|k| (self.regions[k].0 + self.regions[k].1 - 1) as u32)
    }

    /// (part, index in it) of page `p`, in a region.
    fn locate(&self, p: u32) -> Option<(usize, u32)> {
        let k = self.region_of(p)?;
        let (first, _, compact) = self.regions[k];
        let local = u64::from(p) - first;
        Some(if self.parts.len() == 1 {
            (0, (compact + local) as u32)
        } else {
            (k, local as u32)
        })
    }

    /// The storage's page of index `i` of part `part`.
    fn page_of(&self, part: usize, i: u32) -> u32 {
        let i = u64::from(i);
        if self.parts.len() == 1 {
            let k = self.regions.partition_point(|r| r.2 <= i) - 1;
            (self.regions[k].0 + i - self.regions[k].2) as u32
        } else {
            (self.regions[part].0 + i) as u32
        }
    }

    fn back(&self, part: usize, e: Option<Evicted>) -> Option<Evicted> {
        e.map(|e| Evicted {
            page: self.page_of(part, e.page),
            dirty: e.dirty,
        })
    }

    /// Dirty pages, over all parts.
    pub fn dirty_len(&self) -> u64 {
        self.parts.iter().map(PageCache::dirty_len).sum()
    }

    /// True if `p` is cached.
    pub fn contains(&self, p: u32) -> bool {
        self.locate(p)
            .is_some_and(|(k, i)| self.parts[k].contains(i))
    }

    /// True if `p` is cached dirty.
    pub fn is_dirty(&self, p: u32) -> bool {
        self.locate(p)
            .is_some_and(|(k, i)| self.parts[k].dirty.contains(i))
    }

    /// [`PageCache::touch`]; a page outside every region is never cached.
    pub fn touch(&mut self, p: u32) -> bool {
        match self.locate(p) {
            Some((k, i)) => self.parts[k].touch(i),
            None => false,
        }
    }

    /// [`PageCache::insert`], in the page's own part.
    pub fn insert(&mut self, p: u32, dirty: bool, now: u64) -> Option<Evicted> {
        let (k, i) = self.locate(p)?;
        let e = self.parts[k].insert(i, dirty, now);
        self.back(k, e)
    }

    /// [`PageCache::insert_cold_run`], for a run within one region.
    pub fn insert_cold_run(&mut self, first: u32, last: u32) -> Vec<Evicted> {
        let Some((k, i)) = self.locate(first) else {
            return Vec::new();
        };
        let evicted = self.parts[k].insert_cold_run(i..=i + (last - first));
        evicted
            .into_iter()
            .map(|e| Evicted {
                page: self.page_of(k, e.page),
                dirty: e.dirty,
            })
            .collect()
    }

    /// The oldest dirty page over all parts, and when it was dirtied.
    pub fn oldest_dirty(&self) -> Option<(u32, u64)> {
        (0..self.parts.len())
            .filter_map(|k| self.parts[k].oldest_dirty().map(|(i, t)| (k, i, t)))
            .min_by_key(|&(_, _, t)| t)
            .map(|(k, i, t)| (self.page_of(k, i), t))
    }

    /// [`PageCache::clean`].
    pub fn clean(&mut self, p: u32) {
        if let Some((k, i)) = self.locate(p) {
            self.parts[k].clean(i);
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

    /// Pages far apart on the storage share one LRU in a compact space, or
    /// each region has its own.
    #[test]
    fn regions_map_to_one_lru_or_to_partitions() {
        let regions = [(10, 3), (1_000_000, 2)];
        let mut shared = Cache::shared(3, &regions);
        for p in [10, 11, 12] {
            shared.insert(p, false, 0);
        }
        assert_eq!(shared.region_of(1_000_001), Some(1));
        assert_eq!(shared.region_of(13), None);
        assert_eq!(shared.region_end(11), Some(12));
        // The far region's page pushes out the near region's LRU page.
        let e = shared.insert(1_000_000, true, 5).expect("full");
        assert_eq!(e.page, 10);
        assert!(shared.is_dirty(1_000_000) && shared.contains(1_000_000));
        assert_eq!(shared.oldest_dirty(), Some((1_000_000, 5)));
        let mut parts = Cache::partitioned(&[3, 1], &regions);
        for p in [10, 11, 12] {
            parts.insert(p, false, 0);
        }
        // Its own partition is full, not the near region's.
        assert_eq!(parts.insert(1_000_000, false, 0), None);
        assert_eq!(
            parts.insert(1_000_001, true, 0).map(|e| e.page),
            Some(1_000_000)
        );
        assert!(parts.contains(10) && parts.contains(11) && parts.contains(12));
        assert_eq!(parts.dirty_len(), 1);
        assert!(!parts.touch(13));
    }

    /// A read-ahead batch into a full cache pushes out the least recently
    /// used pages, not its own first pages.
    #[test]
    fn a_cold_run_makes_room_for_itself() {
        let mut c = PageCache::new(4, 20);
        for p in 0..4 {
            c.insert(p, false, 0);
        }
        let ev: Vec<u32> = c.insert_cold_run(10..=12).iter().map(|e| e.page).collect();
        assert_eq!(ev, vec![0, 1, 2]);
        assert!(c.contains(10) && c.contains(11) && c.contains(12) && c.contains(3));
        // The batch is below the pages used before it.
        assert_eq!(c.insert(5, false, 0).map(|e| e.page), Some(12));
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
