//! The clean texts of earlier chunks, as fingerprints: 64 bits of each text's blake3 hash and
//! the id of its outcome, never the text.

/// Number of shards (a power of two): each grows on its own, so a resize copies 1/64 of the
/// table and the memory of a large profile never doubles for a moment.
const SHARDS: usize = 64;
/// A shard grows when it is this many eighths full (linear probing stays short below 3/4).
const MAX_LOAD_EIGHTHS: usize = 6;
/// The key of an empty slot; a fingerprint of 0 is stored as 1 (one more collision in 2^64).
const EMPTY: u64 = 0;

/// Fingerprint → outcome id, 12 bytes a slot (8 of key, 4 of value) at a load between 3/8 and
/// 3/4: about 16–32 bytes per distinct clean text.
#[derive(Debug)]
pub(crate) struct Fingerprints {
    shards: Vec<Shard>,
    len: usize,
}

#[derive(Debug, Default)]
struct Shard {
    keys: Vec<u64>,
    values: Vec<u32>,
    len: usize,
}

impl Default for Fingerprints {
    fn default() -> Fingerprints {
        Fingerprints {
            shards: (0..SHARDS).map(|_| Shard::default()).collect(),
            len: 0,
        }
    }
}

fn key(fingerprint: u64) -> u64 {
    if fingerprint == EMPTY { 1 } else { fingerprint }
}

impl Fingerprints {
    /// Number of fingerprints stored.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn shard(&self, key: u64) -> usize {
        // The top bits choose the shard, the low bits the slot.
        (key >> 58) as usize % SHARDS
    }

    /// The outcome id stored for `fingerprint`.
    pub(crate) fn get(&self, fingerprint: u64) -> Option<u32> {
        let key = key(fingerprint);
        self.shards[self.shard(key)].get(key)
    }

    /// Stores `value` for `fingerprint` (replacing an older value).
    pub(crate) fn insert(&mut self, fingerprint: u64, value: u32) {
        let key = key(fingerprint);
        let shard = self.shard(key);
        if self.shards[shard].insert(key, value) {
            self.len += 1;
        }
    }

    /// Bytes allocated.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.shards.iter().map(|s| s.keys.capacity() * 12).sum()
    }
}

impl Shard {
    fn get(&self, key: u64) -> Option<u32> {
        let mask = self.keys.len().checked_sub(1)?;
        let mut i = key as usize & mask;
        loop {
            match self.keys[i] {
                EMPTY => return None,
                k if k == key => return Some(self.values[i]),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Whether the key is new.
    fn insert(&mut self, key: u64, value: u32) -> bool {
        if (self.len + 1) * 8 > self.keys.len() * MAX_LOAD_EIGHTHS {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut i = key as usize & mask;
        loop {
            match self.keys[i] {
                EMPTY => {
                    self.keys[i] = key;
                    self.values[i] = value;
                    self.len += 1;
                    return true;
                }
                k if k == key => {
                    self.values[i] = value;
                    return false;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let capacity = (self.keys.len() * 2).max(64);
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; capacity]);
        let values = std::mem::replace(&mut self.values, vec![0; capacity]);
        self.len = 0;
        for (k, v) in keys.into_iter().zip(values) {
            if k != EMPTY {
                self.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds_many() {
        let mut f = Fingerprints::default();
        let fp = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for i in 1..=10_000u64 {
            f.insert(fp(i), i as u32);
        }
        f.insert(0, 7);
        f.insert(fp(3), 33);
        assert_eq!(f.len(), 10_001);
        assert_eq!(f.get(fp(3)), Some(33));
        assert_eq!(f.get(fp(9_999)), Some(9_999));
        assert_eq!(f.get(0), Some(7));
        assert_eq!(f.get(fp(10_001)), None);
        assert!(f.allocated_bytes() >= 10_001 * 12);
    }
}
